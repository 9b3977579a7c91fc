"""Who wrote a line, read from its message: the openings only kernel messages have.

A prefix usually says it (`kernel:` in journal and syslog text, the facility of /dev/kmsg,
journal JSON and `dmesg -x`), but a host-less or reformatted syslog line can hide it: in
`Jul  4 02:11:09 kernel: NVRM: Xid …` a parser that expects a host reads `kernel:` as the
host and `NVRM` as a program. Kernel messages open in ways programs' lines do not: a
driver's dev_printk prefix `<driver> <bus id>: ` (drivers/base/core.c __dev_printk), a
subsystem's pr_fmt (`NVRM: `, `mce: `, `AMD-Vi: `), DRM's `[drm`, the report headers of
lib/bug.c, kernel/panic.c, kernel/watchdog.c, kernel/hung_task.c, kernel/rcu/tree_stall.h.
`OPENINGS` lists them per catalogue subsystem (tests/logparse/test_origin.py checks that
every subsystem the catalogue blames on kernel lines has its openings here, and that every
kernel format string of the catalogue, rendered as printk would, opens so).

Only formats without a facility ask this: where the facility is carried, it decides, and a
program writing the same words stays a program's line.
"""

from __future__ import annotations

import re

_BUS_ID = (
    r"(?:[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]"  # PCI
    r"|nvme\d+|\d+-\d+(?:\.\d+)*(?::\d+\.\d+)?|\d+:\d+:\d+:\d+"  # nvme, usb, scsi
    r"|card\d+|hwmon\d+|thermal_zone\d+|ata\d+(?:\.\d+)?|port\d+|kfd)"
)

# catalogue subsystem → message openings (regex, anchored at the message start)
OPENINGS: dict[str, tuple[str, ...]] = {
    # dev_printk: "amdgpu 0000:03:00.0: ", "nvme nvme0: ", "usb 1-1: ", "sd 0:0:0:0: "; a
    # driver's pr_fmt where it has no device, as bnx2x's BNX2X_ERR "bnx2x: [<func>:<line>(
    # <ifname>)]" and bnx2's "bnx2: " (firmware_load_failure)
    # netdev_printk adds the interface: "<driver> <bus id> <ifname>: " (net/core/dev.c)
    "device": (
        rf"[\w.-]+ {_BUS_ID}(?: [\w.-]+)?: ",
        r"bnx2x?: ",
        # bt_dev_err / bt_dev_info (include/net/bluetooth/bluetooth.h): "Bluetooth: hci0: "
        r"Bluetooth: hci\d+: ",
        # radeon's microcode loaders print without a device: "cik_cp: ", "si_cp: " (cik.c, si.c)
        r"(?:cik|si|ni|r600|r100)_cp: Failed to load firmware ",
        # drivers/base/dd.c's pr_warn (4.4-6.8): "<driver>: probe of <device> failed …"
        r"[\w.-]+: probe of \S+ failed with error ",
    ),
    # mxgpu_ai.c's pr_err carries no prefix: its message is amdgpu's alone
    "gpu.amdgpu": (
        r"amdgpu: ",
        r"trn=[0-9a-fA-F]+ ACK should not assert",
        r"\[powerplay\]",
        r"\[drm",
        r"drm:",
        r"kfd kfd: ",
        r"drmn\d",
        # amdgpu_job.c amdgpu_job_timedout's two lines, with their dev_printk prefix cut
        r"ring \S+ timeout, signaled seq=\d+, emitted seq=\d+",
        r"Process (?:information: process )?\S+ pid \d+ thread \S+ pid \d+\s*$",
    ),
    # r515-r525 NV_PRINTF prefixes the function without a colon after NVRM: "NVRM func: "
    "gpu.nvidia": (
        r"NVRM: ",
        r"NVRM \w+: ",
        r"nvidia-(?:modeset|nvlink|uvm|drm): ",
        # nvidia-peermem.c peer_err: "nvidia-peermem" " %s:%d " (r550+ " %s:%d ERROR ")
        r"nvidia-peermem \w+:\d+ ",
        r"nvidia: ",
    ),
    "gpu.radeon": (
        r"radeon: ",
        r"radeon \S+: ",
        r"\[drm:radeon",
        r"drmn\d",
        # FreeBSD's firmware(9) for radeon's files (sys/kern/subr_firmware.c loadimage)
        r"radeon/\S+: could not load firmware image, error ",
    ),
    # nouveau before 4.3 printed through its own nv_printk_: "nouveau E[  PFIFO][<bus id>] "
    "gpu.nouveau": (r"nouveau: ", r"nouveau \S+: ", r"nouveau [E!W ]\[ *\w+\]"),
    "gpu.nvswitch": (r"nvidia-nvswitch\d*: ",),
    # L4T r21-r24's gk20a_err is dev_err: "gk20a 57000000.gpu: <function>: "
    "gpu.nvgpu": (r"nvgpu: ", r"gk20a \S+\.gpu: "),
    # the SoC GPUs' dev_printk: their devices are platform devices ("ff9a0000.gpu")
    "gpu.soc": (
        r"v3d \S+: ",
        r"panfrost \S+: ",
        r"panthor \S+: ",  # Mali Valhall CSF (6.10+)
        r"mali \S+: ",  # ARM's vendor kbase driver (out of tree)
        r"Mali<ASSERT>: ",  # kbase's KBASEP_DEBUG_ASSERT_OUT pr_err (mali_kbase_debug.h)
        r"etnaviv(?:-gpu)? \S+: ",  # "etnaviv" where a PCI glue driver binds the core
        r"lima \S+: ",
        r"asahi \S+: ",  # Apple AGX (Asahi Linux)
        r"msm\w* \S+: ",
        r"host1x \S+: ",
        r"tegra-(?:vic|nvdec|nvenc|nvjpg|ofa) \S+: ",  # Tegra's multimedia engines
        # msm/disp/dpu1: DPU_ERROR is pr_err("[dpu error]" …), dpu_hw_ctl.c's pr_err bare
        r"\[dpu error\]",
        r"hw recovery is not complete for ctl:\d",
        # NVIDIA L4T's Orin display engine (nvidia-oot dce): dce_log_msg "dce: %s:%d  "
        r"dce: \w+:\d+  ",
    ),
    # VMware's SVGA (drivers/gpu/drm/vmwgfx): dev_printk "vmwgfx <bus id>: ", DRM_ERROR
    # "[drm:<func> [vmwgfx]] "
    "gpu.virtual": (r"vmwgfx \S+: ", r"\[drm:vmw\w* \[vmwgfx\]\] "),
    # drivers/gpu/drm/i915 and xe: dev_printk "i915 <bus id>: ", "xe <bus id>: " (also
    # device), 4.x DRM_INFO "[drm] " (gpu) and pr_notice "drm/i915: "
    "gpu.i915": (
        r"i915 \S+: ",
        r"drm/i915: ",
        r"xe \S+: ",
        # the error state's own first line (i915_gpu_error.c err_print_error_state /
        # __err_print_to_sgl: "%s\n" of error_msg, then "Kernel: ", "Time: "), read from
        # /sys/class/drm/card*/error: the capture's text is the kernel's, with no prefix
        r"GPU HANG: ecode \d+:[0-9a-fA-F]+:(?:0x)?[0-9a-fA-F]{8}\b",
        # GVT-g's host (gvt/debug.h gvt_err / gvt_vgpu_err "gvt: vgpu %d: "; handlers.c
        # enter_failsafe_mode's pr_err lines, no prefix)
        r"gvt: ",
        r"Now vgpu \d+ will enter failsafe mode\.",
        r"GVT Internal error  ?for the guest",
    ),  # NVIDIA's L4T nvgpu, os/linux/log.c LOG_FMT
    # DRM's atomic helpers WARN with the object they waited on: "[CRTC:82:pipe A] vblank …"
    # i915_sw_fence.c's pr_notice on a fence it waited on: no prefix
    "gpu": (
        r"\[drm",
        r"GPU has fallen off the bus",
        r"\[(?:CRTC|CONNECTOR|PLANE):\d+:",
        r"Asynchronous wait on fence ",
    ),
    "kernel": (
        r"BUG: ",
        r"kernel BUG at ",
        r"Internal error: ",  # arm/arm64 die()
        r"Unable to handle kernel ",  # arm, arm64, powerpc, riscv page faults
        r"Oops(?: - [\w ()/-]+)? \[#\d",  # riscv die()
        r"Kernel BUG \[#\d",  # riscv die() for BUG()
        # x86 die() of the other kernel traps (arch/x86/kernel/traps.c)
        r"(?:divide error|overflow|bounds|coprocessor segment overrun|invalid TSS"
        r"|segment not present|stack segment|alignment check|double fault|int3"
        r"|kernel stack overflow \([\w -]+\)): [0-9a-f]{4} \[#",
        # x86 die() of a corrupt page table (arch/x86/mm/fault.c) and of a stack overflow
        r"(?:Oops: )?(?:Bad pagetable|stack guard page): [0-9a-f]{4} \[#",
        r"list_(?:add|del) corruption",  # lib/list_debug.c
        r"BUG [\w.:-]+ \((?:Not tainted|Tainted: )",  # mm/slub.c slab_bug
        r"Slab corruption \((?:Not tainted|Tainted: )",  # mm/slab.c check_poison_obj
        r"(?:traps: )?PANIC: double fault, ",  # arch/x86/kernel/traps.c
        r"ODEBUG: \w+ \w+ \(active state ",  # lib/debugobjects.c debug_print_object
        r"\w+: Bad swap (?:file|offset) entry ",  # mm/swapfile.c
        # lockdep: 4.14+ "WARNING: …", 2.6.18-4.13 "[ INFO: … ]", "[ BUG: … ]" banners
        r"WARNING: (?:possible|inconsistent|suspicious|bad unlock|held lock|\w+-safe -> "
        r"|bad contention|lock held when|.{1,40}/\d+ still has locks held)",
        r"\[ (?:INFO|BUG): (?:possible|inconsistent|suspicious|bad unlock|(?:held )?lock"
        r"|\w+-safe )",
        r"Debug: sleeping function called",  # 2.6.0-2.6.1x __might_sleep
        r"Bad page state in process '",  # 2.6.x-2.6.27 mm/page_alloc.c bad_page
        r"refcount_t: ",  # lib/refcount.c
        r"UBSAN: ",  # lib/ubsan.c
        # kernel/irq/spurious.c __report_bad_irq, note_interrupt
        r"irq \d+: nobody cared|irq event \d+: bogus return value|Disabling IRQ #\d+$",
        # lines only the die path prints (kmsgd/catalogue/indirect.py)
        r"RIP \s*\[<[0-9a-f]+>\]",
        r"EIP: \[<[0-9a-f]+>\]",
        r"#PF: ",
        r"Mem abort info:",
        r"Workqueue: \S+ [\w.]+",  # kernel/workqueue.c print_worker_info, in a dump's header
        r"Fixing recursive fault but reboot is needed!",
        r"Process .{1,16} \(pid: \d+, stack limit = ",  # arm __die
        r"[LB]E PAGE_SIZE=\d+K",  # powerpc __die
        r"(?:pc : |PC is at |epc : |NIP \[[0-9a-f]+\] )[\w.]+\+0x",  # show_regs
        # FreeBSD's linuxkpi and drm2 WARN_ON (kmsgd/catalogue/indirect.py)
        r"WARN_ON(?:_ONCE)?\(",
        r"WARNING \S.* failed at ",
        r"error: \[drm:",
        r"Fatal trap \d+: .+ while in kernel mode",  # FreeBSD trap_fatal (catalogue/kernel.py)
        r"(?:cpu 0x[0-9a-f]+: )?Vector: [0-9a-f]+ \(",  # powerpc xmon excprint
        r"---\[ end Kernel panic",
        r"WARNING: (?:CPU: \d|at )",
        r"Kernel panic - not syncing",
        r"Kernel panic: ",  # 2.4's panic()
        r"Oops: ",
        # the debug sweep (kmsgd/catalogue/sweep_debug.py): lib/list_debug.c, mm/slab.c,
        # mm/usercopy.c, the overflow-stack handlers, MIPS/LoongArch and s390 die(), arm's
        # bad_mode, x86's show_fault_oops, KASAN's decoded address, lock debugging, the
        # scheduler's and softirq's checks, kernel/smp.c, kernel/sched/rt.c, kmemleak,
        # hrtimer, the console's dropped records
        r"list_add double add: ",
        r"slab error in \w+\(\): cache `|slab: Internal list corruption",
        r"usercopy: [Kk]ernel memory ",
        r"Insufficient stack space to handle exception!",
        r"(?:Oops|Oops - BUG|Kernel bug detected|[\w ]+ in kernel code"
        r"|Unhandled kernel unaligned access|Integer overflow)\[#\d+\]:",
        r"[A-Za-z][\w ()-]{0,60}: [0-9a-f]{4} ilc:\d \[#",
        r"Bad mode in [\w ]+ handler detected",
        r"[Kk]ernel (?:tried to execute|attempted to \w+ user page)"
        r"|unable to execute userspace code \(SMEP",
        r"Kernel stack overflow\.$|BUG: KMSAN: |(?:traps: )?Missing ENDBR: |UBSAN: [\w ]+ at ",
        r"vmap allocation for size \d+ failed",
        r"Thread overran stack, or stack corrupted",
        r"KASAN: [\w -]+ in range \[",
        r"(?:Read|Write) of size \d+ at addr [0-9a-f]+ by task ",
        r"(?:Out-of-bounds|Use-after-free) (?:read|write) at 0x[0-9a-f]+ \(",
        r"DEBUG_(?:LOCKS|RWSEMS)_WARN_ON\(|\[ BUG: Invalid wait context"
        r"|WARNING: Nested lock was not taken",
        r"corrupted preempt_count: |softirq: huh, entered softirq ",
        r"refcount_t \w+ at ",
        r"(?:smp: )?csd: (?:Detected|Continued) non-responsive CSD lock",
        r"sched: RT throttling activated",
        r"kmemleak: \d+ new suspected memory leaks",
        r"hrtimer: interrupt took \d+ ns",
        r"\*\* \d+ printk messages dropped \*\*",
        r"general protection fault",
        r"INFO: task \S+ blocked",
        r"(?:\(XEN\) )?(?:domain_crash called from |Domain \d+ \(vcpu#\d+\) crashed)",
        r"\(XEN\) (?:Panic on CPU \d+:|Xen BUG at )",  # Xen panic() (catalogue/kernel.py)
        # Xen ending an HVM guest (catalogue/sys_more.py): hvm.c hvm_triple_fault after
        # gprintk's vCPU or gdprintk's "<file>:<line>:<vcpu> ", vmx.c vmx_failed_vmentry
        r"(?:\(XEN\) )?(?:\S+\.c:\d+:)?d\d+v\d+ (?:Triple fault (?:- invoking|on VCPU\d+ - "
        r"invoking)|vmentry failure \(reason 0x)",
        r"(?:\(XEN\) )?Failed vm entry \(exit reason 0x",
        # FreeBSD's kern_mutex.c spin-lock check and the panic it ends in (catalogue/sys_more.py)
        r"spin lock (?:0x)?[0-9a-f]+ .{1,60}? held by (?:0x)?[0-9a-f]+ \(tid \d+\) too long",
        r"panic: (?:spin lock held too long|(?:page fault|general protection fault|double fault)$)",
        r"cpu\d+:\d+\)(?=\S)",  # ESXi vmkernel's "cpu<N>:<world>)" (public wording, no source)
        r"Call Trace:",
        r"Modules linked in:",
        r"sysrq: ",
        r"workqueue: ",
        r"------------\[ cut here \]",
        r"invalid opcode: [0-9a-f]{4} \[#",  # die() after a BUG() on x86
        r"task:\S+\s+state:\w ",  # sched_show_task: a hung-task report's task line
        r'"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables',  # its second line
        r"Task in \S+ killed as a result of limit",  # memcg OOM report (3.x-4.18)
        r" *(?:\? )?[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+",  # a stack frame of a kernel report
        # the same frame as x86 printed it to 4.4, its address first (dumpstack.c " [<%p>] %s%pB")
        r" *\[<[0-9a-f]{8,16}>\] (?:\? )?[\w.]+\+0x[0-9a-f]+/0x[0-9a-f]+",
        # a 32-bit ARM frame (arch/arm/kernel/traps.c dump_backtrace_entry): callee, caller
        r" *(?:\[<[0-9a-f]{8}>\] )?\(?[\w.]+\)? from (?:\[<[0-9a-f]{8}>\] )?\(?[\w.]+\+0x",
        r"Do you have a strange power saving mode enabled\?",  # unknown NMI, second line
        r"IP: (?:\[<[0-9a-f]+>\] )?[\w.]+\+0x",  # arch/x86/mm/fault.c show_fault_oops (to 4.14)
    ),
    "cpu": (
        r"watchdog: ",
        r"NMI watchdog: ",
        r"rcu: ",
        r"INFO: rcu_",
        r"INFO: RCU detected CPU ",  # kernel/rcutree.c 2.6.32
        r"smpboot: ",
        r"tasks_rcu_\w+: ",  # kernel/rcu/tasks.h prints its function's name
        r"clocksource: ",  # kernel/time/clocksource.c pr_fmt
        r"Clocksource \S+ unstable ",  # kernel/time/clocksource.c before its pr_fmt (2.6.28-3.x)
        r"tsc: ",  # arch/x86/kernel/tsc.c pr_fmt
        r"x86/split lock detection: ",  # arch/x86/kernel/cpu/intel.c, bus_lock.c pr_fmt
        # kernel/cpu.c cpuhp_bp_sync_alive, thaw_secondary_cpus; arch/arm64/kernel/smp.c __cpu_up
        r"CPU\d+(?: failed to report alive state|: failed to (?:come online|boot: ))",
        r"Error taking CPU\d+ up: ",
    ),
    # mm/oom_kill.c, mm/page_alloc.c warn_alloc: the task's comm (at most 15 characters), then
    # the report
    "memory": (
        r"Out of memory",
        r"oom-kill:",
        r"oom_reaper: ",
        r"Memory cgroup out of memory",
        r"Killed process \d+ \(",
        r"Killed process \d+, UID \d+, \(",  # RHEL 6 2.6.32
        r".{1,15} invoked oom-killer: ",
        r".{1,15}: page allocation failure: ",
        r"__alloc_pages: \d+-order allocation failed",  # 2.4
        r"Out of Memory: Killed process ",  # 2.4
        r"VM: killing process ",  # 2.4
        r"SLUB: Unable to allocate memory",  # mm/slub.c slab_out_of_memory
        r".{1,15}: vmalloc(?: error:| size \d+ allocation failure:|: allocation failure)",
        r".{1,15}: page allocation stalls for ",  # mm/page_alloc.c 4.9-4.14
        r"Memory failure: ",  # mm/memory-failure.c ("MCE %#lx: " before 4.7)
        r"MCE(?: 0x[0-9a-f]+)?: ",  # and the fault path's "MCE: Killing %s:%d …"
        r"(?:Write|Read)-error on swap-device \(",  # mm/page_io.c
        r"Write error -?\d+ on dio swapfile ",
    ),
    "hardware": (
        r"mce: ",
        r"(?:\{\d+\})?\[Hardware Error\]: ",
        r"EDAC ",
        r"RAS: ",
        r"x86/amd: ",
        # arch/arm64/kernel/traps.c arm64_serror_panic, bad_mode (before 4.14)
        r"SError Interrupt on CPU\d+, ",
        r"Bad mode in [\w ]{1,20} handler detected on CPU\d+, ",
        # arch/powerpc/kernel/mce.c machine_check_print_event_info (4.4-5.3)
        r"(?:Harmless|Warning|Severe|Fatal) Machine check interrupt \[",
    ),
    # arch/x86/kernel/nmi.c unknown_nmi_error: "Uhhuh. NMI received for unknown reason …"
    "hardware.nmi": (
        r"Uhhuh\. NMI received",
        r"Dazed and confused, but trying to continue",
        r"NMI: (?:PCI system error \(SERR\)|IOCK error) ",  # arch/x86/kernel/nmi.c
    ),
    # netdev_printk's "<driver> <bus id> <ifname>: " is "device"; IPoIB's ipoib_printk
    # "<ifname>: "
    "net": (
        r"NETDEV WATCHDOG: ",
        r"[\w.-]+ \S+ \w+: NETDEV WATCHDOG: ",
        r"ib\w*: transmit timeout: ",
        r".{1,80}?\S: hw csum failure",  # net/core/dev.c, after a device or "(NULL net_device)"
        r"(?:nf|ip)_conntrack: ",  # net/netfilter pr_fmt
        r"TCP: ",  # net/ipv4/tcp.c pr_fmt
        r"neighbour: ",  # net/core/neighbour.c pr_fmt
        r"bond\d+: ",  # drivers/net/bonding: netdev_printk of the bond, no bus id
        r"bonding: ",  # drivers/net/bonding pr_fmt before netdev_printk (2.6.3x-3.x)
        r"e1000e?: ",  # drivers/net/ethernet/intel/e1000e, e1000 pr_fmt (link lines)
        # net/core/dev.c netdev_wait_allrefs(_any)'s pr_emerg, and netdev_printk of an Intel
        # NIC before its register_netdev (igc_rd32 at probe: "(unnamed net_device)
        # (uninitialized)" for the interface name)
        r"unregister_netdevice: waiting for ",
        r"(?:igb|igc|ixgbe|i40e|ice|e1000e) \S+ \(unnamed net_device\) \(uninitialized\): ",
        # i40e/ice's pr_info "%s: %s" of the driver's name (the banner before the probe) and
        # Intel's out-of-tree i40e hw_dbg "i40e %02x:%02x.%x " (bus:device.function, no colon)
        r"(?:i40e|ice): ",
        r"i40e [0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7] ",
        r"tg3: ",  # drivers/net/tg3.c PFX (2.6.3x)
        r"possible SYN flooding on port ",  # net/ipv4/tcp_input.c (2.6.3x-3.x, no pr_fmt)
        # the Intel NICs' reset task after a transmit hang, netdev_printk of a netdev without
        # its parent's "<driver> <bus id> " (catalogue/sys_more.py)
        r"[\w.-]+: Reset adapter$",
    ),
    # virt/kvm/kvm_main.c writes its "kvm: " by hand
    # vfio_iommu_type1.c's pr_warn opens with its function's name
    "virt": (
        r"kvm: ",
        r"vfio_iommu_type1_attach_group: ",
        # the virtualisation sweep (catalogue/sweep_virt*.py): virtio_ring.c BAD_RING's
        # dev_err of a virtio device ("virtio_net virtio0: "), arch/x86/virt/vmx/tdx pr_fmt
        # "virt/tdx: " (the KVM TDX series' bare "TDX module …"), drivers/hv/hv_util.c pr_fmt
        # "hv_utils: ", 4.x vmx.c vmwrite_error's bare printk
        r"virtio_\w+ virtio\d+: ",
        r"virt/tdx: ",
        r"TDX module initialization failed",
        r"hv_utils: ",
        r"vmwrite error: reg ",
    ),
    # drivers/net/hyperv netdev_printk of a VMBus device ("hv_netvsc <GUID> eth0: ") and
    # drivers/infiniband/hw/efa ibdev_printk ("infiniband efa_0: ")
    "net.virt": (r"hv_netvsc \S+ \S+: ", r"infiniband efa_\d+: "),
    # drivers/usb/host/xhci*.c xhci_err: dev_printk, with a platform device's name for SoCs
    # and their bodies alone (a paste that lost the device): xhci-ring.c xhci_hc_died, the
    # stop-endpoint watchdog, hcd.c usb_hc_died (catalogue/hardware.py xhci_host_dead)
    "usb": (
        r"xhci[_-]hcd \S+: ",
        r"usb usb\d+-port\d+: ",  # drivers/usb/core/port.c's port device (hub.c dev_err)
        r"[eou]hci[_-]hcd \S+: ",
        r"xHCI host (?:controller not responding, assume dead|not responding to stop endpoint)",
        r"HC died; cleaning up$",
    ),
    # arch/x86/kvm: vmx.c's dump_vmcs, bare in 4.x ("*** Guest State ***", no pr_fmt), and the
    # module prefixes of 6.x's pr_fmt (vmx/, svm/: "kvm_intel: ", "kvm_amd: "; svm.c's
    # "SVM: " before)
    "virt.kvm": (r"\*\*\* Guest State \*\*\*$", r"kvm_intel: ", r"kvm_amd: ", r"SVM: "),
    # drivers/scsi/storvsc_drv.c storvsc_log: dev_printk of the VMBus device (its GUID,
    # "vmbus_0_N" before 4.x's GUID names)
    "storage.hv": (r"hv_storvsc \S+: ",),
    # drivers/watchdog/softdog.c pr_fmt (2.6-3.x "SOFTDOG: ")
    "watchdog": (
        r"softdog: ",
        r"SOFTDOG: ",
        r"(?:watchdog: )?watchdog\d+: pretimeout event",  # drivers/watchdog/pretimeout_*.c
    ),
    # arch/s390/pci pr_fmt "zpci: " ("zPCI: " in 3.x); powerpc EEH (arch/powerpc/kernel/eeh.c,
    # eeh_driver.c): "EEH: ", "EEH(%u): " (6.x)
    # pciehp's ctrl_err before 4.19: dev_err on the port service ("pciehp 0000:80:10.0:pcie004: ")
    "pcie": (
        r"AER: ",
        r"pcieport ",
        r"pci ",
        r"z(?:pci|PCI): ",
        r"EEH(?:\(\d+\))?: ",
        r"pciehp \S+:pcie\d+: ",
    ),
    # drivers/remoteproc: dev_err on the rproc device ("remoteproc remoteproc0: ") and on the
    # platform device of a Qualcomm remote processor ("qcom-q6v5-mss 4080000.remoteproc: ")
    "soc": (r"remoteproc remoteproc\d+: ", r"[\w.-]+ [0-9a-f]+\.remoteproc: "),
    # drivers/firmware/arm_scmi dev_err ("arm-scmi firmware:scmi: "), the FW_BUG prefix of
    # arch/x86/platform/efi/quirks.c's WARN, drivers/firmware/efi pr_fmt "efi: "
    "firmware": (r"arm-scmi \S+: ", r"\[Firmware Bug\]: ", r"efi: "),
    # drivers/memory/tegra/mc.c: dev_err on the memory controller ("tegra-mc 2c00000.memory-…")
    "iommu": (r"AMD-Vi: ", r"DMAR: ", r"DMAR-IR: ", r"iommu ", r"arm-smmu", r"tegra-mc \S+: "),
    "thermal": (r"CPU\d+: (?:Core|Package) temperature", r"thermal "),
    "power": (
        r"Under-?voltage detected",
        r"raspberrypi-hwmon ",
        # kernel/power/process.c try_to_freeze_tasks (2.6.32-6.18 wordings)
        r"Freezing (?:of tasks|of user space|user space processes|remaining freezable) ",
    ),
    # mpt3sas's ioc->name "mpt3sas_cm0: " (MPT3SAS_FMT, ioc_info; "mpt2sas0: " in the
    # drivers/scsi/mpt2sas driver before 4.4), megaraid_sas's 2.6-3.x
    # printk "megasas: ", libata's ata_link_printk/ata_dev_printk "ata1: "/"ata1.00: "
    "storage": (
        r"nvme ",
        r"blk_update_request: ",
        r"I/O error, dev ",
        r"(?:timeout|critical [\w ]+|recoverable transport|protection) error, dev ",
        r"Buffer I/O error",
        r"nvme\d+(?:c\d+)?n\d+: [\w /]+\(0x[0-9a-f]+\) @ LBA ",  # core.c nvme_log_error
        r"mpt[23]sas(?:_cm)?\d+: ",
        r"mpi3mr\d+: ",  # drivers/scsi/mpi3mr ioc_info/ioc_err: "<name>: "
        r"megasas: ",
        r"megaraid_sas: ",  # megaraid_sas_base.c's bare printk (2.6.3x-3.x)
        r"ata\d+(?:\.\d+)?: ",
        r"md/raid\d*:",  # drivers/md/raid*.c
        r"device-mapper: ",  # include/linux/device-mapper.h DM_FMT
        r"zio pool=",  # OpenZFS vdev_disk.c vdev_disk_error
        r"WARNING: Pool '",  # OpenZFS zio.c zio_suspend through cmn_err(CE_WARN)
        # 2.6.x-4.x block layer and fs/buffer.c, 2.6's md (raid1.c "raid1: "), md.c pr_fmt
        # "md: ", the MMC block driver and hosts ("mmcblk0: ", "mmc0: "), aacraid's "%s%d: "
        r"(?:end_request|print_req_error): ",
        r"lost page write due to I/O error on ",
        r"raid\d+: ",
        r"md: ",
        r"mmc(?:blk)?\d+: ",
        r"aacraid\d*: ",
        r"mpt(?:base|sas|spi|scsih): ioc\d+: ",  # drivers/message/fusion MYIOC_s_FMT
        # FreeBSD CAM's xpt_print path "(%s%d:%s%d:%d:%d:%jx): " (sys/cam/cam_xpt.c)
        r"\((?:[a-z]+\d+|noperiph):[a-z_]+\d+:\d+:\d+:[0-9a-f]+\): ",
    ),
    # iSCSI class devices (dev_printk with no driver: " connection1:0: ", " session1: "),
    # qla2xxx's ql_log "qla2xxx [<bus id>]-<id>:<host>: ", sunrpc's "<program>: server "
    "storage.net": (
        r" ?connection\d+:\d+: ",
        r" ?session\d+: ",
        r"qla2xxx \[",
        r"(?:nfs|lockd|portmap|rpcbind|mountd): server ",
        r"libceph: ",  # net/ceph and fs/ceph pr_fmt: KBUILD_MODNAME ": "
        r"ceph: ",
        r"NFS: ",  # fs/nfs's "NFS: " printks (nfs4state.c's state manager)
        r" ?rport-\d+:\d+-\d+: ",  # scsi_transport_fc.c dev_printk of a remote port
        r"CIFS:? VFS: ",  # fs/cifs cifs_dbg(VFS, …): "CIFS VFS: " (4.x), "CIFS: VFS: " (5.x+)
        # cifs_dbg(FYI): "%s: " __FILE__ (the build's path), "CIFS: " before it from 5.x
        r"(?:CIFS: )?\S*fs/(?:cifs|smb/client)/\w+\.c: ",
        # drivers/block/drbd: 8.3's dev_printk "block drbd0: ", 8.4's "d-con r0: " (3.8-3.x)
        # and "drbd r0: ", DRBD 9's "drbd r0 <peer>: " and "drbd r0/0 drbd1 <peer>: "
        r"block drbd\d+: ",
        r"d-con \S+: ",
        r"drbd \S+(?: \S+){0,2}: ",
        r"rbd: rbd\d+: ",  # drivers/block/rbd.c rbd_warn
        r"block nbd\d+: ",  # drivers/block/nbd.c dev_printk of the disk
        # Lustre's libcfs console prefixes (CERROR/CWARN/LCONSOLE, lnet's own)
        r"(?:Lustre|LustreError|LNet|LNetError): ",
    ),
    "fs": (
        *(r"EXT[234]-fs ", r"XFS \(", r"BTRFS ", r"F2FS-fs ", r"JBD2: ", r"ZFS: "),
        # 2.6-era XFS's cmn_err, no prefix (fs/xfs/xfs_rw.c xfs_ioerror_alert, xfs_fsops.c
        # xfs_do_force_shutdown)
        *(r'I/O error in filesystem \("', r"xfs_force_shutdown\("),
        # OpenZFS spl-err.c spl_panic and include/os/linux/spl/sys/debug.h VERIFY*()
        *(r"PANIC at [\w.-]+:\d+:\w+\(\)", r"VERIFY3?\("),
        # jbd/jbd2's bare printk, 2.6-era XFS's xfs_cmn_err prefix, btrfs's pr_fmt before
        # its "BTRFS <level> (device …)" (3.x-4.x), gfs2/ocfs2/squashfs/fat
        *(r"Aborting journal on device ", r"JBD: ", r'Filesystem "', r"(?:BTRFS|btrfs): "),
        *(r"(?:GFS2|gfs2): fsid=", r"OCFS2: ", r"SQUASHFS error: ", r"FAT-fs "),
        # XFS's log replay by its body alone (a paste that lost "XFS"; catalogue/fs_words.py)
        r"\S* ?\(\S+\): (?:Starting|Ending) recovery \(logdev: ",
    ),
    "lifecycle": (
        r"reboot: ",
        r"ACPI: PM: ",
        r"PM: ",
        r"Linux version \d",
        r"Command line: ",
        # kernel/sys.c's orderly end of 2.6.32-3.x kernels, kexec's, init/do_mounts.c's
        r"(?:Restarting system(?: with command '[^']*')?|System halted|Power down)\.$",
        r"(?:kexec_core: )?Starting new kernel$",
        r"VFS: Cannot open root device ",
    ),
}
_OPENING = re.compile("|".join(f"(?:{o})" for group in OPENINGS.values() for o in group))


def kernel_opening(message: str) -> bool:
    """Whether `message` opens the way only kernel messages do."""
    return _OPENING.match(message) is not None
