"""The "may cause" relations of chains.py, one small test each: the cause leads whether the
effect is printed after it or (where the relation says so) before it, and the data names
each cause/effect pair the way the culprit order reads it."""

from __future__ import annotations

import pytest

from kmsgd.judge import chains
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import TagStats, Timeline
from kmsgd.ring.records import KernelRecord

AMD = "amdgpu 0000:c5:00.0: amdgpu: "
NV = "NVRM: Xid (PCI:0000:48:00): "
HUNG = "INFO: task kworker/u64:2:1234 blocked for more than 122 seconds."

# relation (cause, effect) → (a line of the cause, a line of the effect)
EXAMPLES: dict[tuple[str, str], tuple[str, str]] = {
    ("family:gpu", "family:gpu"): (
        AMD + "ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
        AMD + "MES failed to respond to msg=REMOVE_QUEUE",
    ),
    ("amdgpu_ring_timeout", "amdgpu_gpu_reset"): (
        "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=1, emitted seq=3",
        AMD + "GPU reset begin!",
    ),
    ("gpu_fell_off_bus", "family:gpu"): (
        AMD + "device lost from bus!",
        AMD + "Failed to export SMU metrics table!",
    ),
    ("nvidia_xid_79", "family:gpu"): (
        NV + "79, pid=1, name=python3, GPU has fallen off the bus.",
        "NVRM: GPU0 Timeout after 45s of waiting for RPC response from GPU0 GSP!",
    ),
    ("nvidia_xid_*", "nvidia_xid_45"): (
        NV + "13, pid=1, name=python3, Graphics Exception: ESR 0x404490=0x80000001",
        NV + "45, pid=1, name=python3, Ch 00000010 caused by previous Xid 13",
    ),
    ("nvidia_xid_*", "nvidia_xid_154"): (
        NV + "74, pid=1, name=python3, NVLink: fatal error detected on link 8",
        NV + "154, GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
    ),
    ("nvidia_gsp_timeout", "nvidia_gsp_rpc_failure"): (
        "NVRM: GPU0 _issueRpcAndWait: rpcRecvPoll timedout for fn 76!",
        "NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x00000065 for fn 10!",
    ),
    ("nvidia_gsp_rpc_failure", "nvidia_init_failure"): (
        "NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000001f for fn 10!",
        "NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0",
    ),
    ("nvidia_init_failure", "nvidia_no_memory"): (
        "NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x62:0x51:1941)",
        "NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) "
        "returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1353",
    ),
    ("nvidia_gsp_rpc_failure", "nvidia_rm_assertion"): (
        "NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 10 "
        "sequence 12303!",
        "NVRM: GPU0 nvAssertFailedNoLog: Assertion failed: (status == NV_OK) || (status == "
        "NV_ERR_GPU_IN_FULLCHIP_RESET) @ rs_client.c:844",
    ),
    ("nvidia_reset_required", "nvidia_gsp_rpc_failure"): (
        "NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] "
        "(0x00000062) returned from status @ kernel_channel.c:2874",
        "NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; "
        "hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; paramsStatus=0x00000062; "
        "status=0x00000062",
    ),
    ("edac", "mce_notice"): (
        "EDAC MC0: 4 CE error on CPU#0Channel#2_DIMM#0 (channel:2 slot:0 page:0x0)",
        "mce: [Hardware Error]: Machine check events logged",
    ),
    ("thermal_throttle", "mce_notice"): (
        "CPU3: Core temperature above threshold, cpu clock throttled (total events = 5)",
        "mce: [Hardware Error]: Machine check events logged",
    ),
    ("mce_logged_at_boot", "mce_at_boot"): (
        "mce: [Hardware Error]: Machine check events logged",
        "mce: [Hardware Error]: CPU 0: Machine Check: 0 Bank 4: a600000000020408",
    ),
    # a journal's short format: no printk stamps; the record polled at boot (uncorrected,
    # context corrupt, no MCIP) explains the machine-check lines around it
    ("mce_logged_at_boot", "mce_unstamped"): (
        "mce: [Hardware Error]: CPU 10: Machine Check: 0 Bank 5: bea0000000000108",
        "mce: [Hardware Error]: TSC 0 ADDR 1ffff8fd156d6 MISC d012000100000000 SYND 4d000000",
    ),
    ("family:gpu", "hung_task"): (AMD + "ring sdma0 timeout, signaled seq=1, emitted seq=3", HUNG),
    ("family:storage", "hung_task"): ("nvme nvme0: I/O 12 QID 3 timeout, aborting", HUNG),
    ("family:fs", "hung_task"): (
        "EXT4-fs error (device nvme0n1p2): ext4_find_entry:1455: inode #2: comm ls",
        HUNG,
    ),
    ("page_allocation_failure", "oom_kill"): (
        "kworker/u64:2: page allocation failure: order:4, mode:0x40cc0(GFP_KERNEL|__GFP_COMP)",
        "Out of memory: Killed process 4242 (python3) total-vm:8000kB, anon-rss:4000kB",
    ),
    ("nvme_timeout", "nvme_reset"): (
        "nvme nvme0: I/O 12 QID 3 timeout, aborting",
        "nvme nvme0: resetting controller",
    ),
    ("oops", "kernel_panic"): (
        "BUG: kernel NULL pointer dereference, address: 0000000000000008",
        "Kernel panic - not syncing: Fatal exception",
    ),
    ("kernel_bug", "kernel_panic"): (
        "kernel BUG at mm/slub.c:4024!",
        "Kernel panic - not syncing: Fatal exception",
    ),
    ("general_protection_fault", "kernel_panic"): (
        "general protection fault, probably for non-canonical address 0xdead000000000100",
        "Kernel panic - not syncing: Fatal exception",
    ),
    ("kernel_warning", "kernel_panic"): (
        "WARNING: CPU: 3 PID: 1 at drivers/gpu/drm/drm_atomic.c:10 f+0x1/0x2",
        "Kernel panic - not syncing: panic_on_warn set ...",
    ),
    ("hard_lockup", "kernel_panic"): (
        "Watchdog detected hard LOCKUP on cpu 3",
        "Kernel panic - not syncing: Hard LOCKUP",
    ),
    ("soft_lockup", "kernel_panic"): (
        "watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [python3:1234]",
        "Kernel panic - not syncing: softlockup: hung tasks",
    ),
    ("rcu_stall", "kernel_panic"): (
        "rcu: INFO: rcu_sched self-detected stall on CPU",
        "Kernel panic - not syncing: RCU Stall",
    ),
    ("hung_task", "kernel_panic"): (HUNG, "Kernel panic - not syncing: hung_task: blocked tasks"),
}
ILLEGAL = "[drm:gfx_v10_0_priv_reg_irq [amdgpu]] *ERROR* Illegal register access in command stream"
EXAMPLES[("amdgpu_illegal_register_access", "amdgpu_ring_timeout")] = (
    ILLEGAL,
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, "
    "emitted seq=3",
)
EXAMPLES[("amdgpu_illegal_register_access", "amdgpu_gpu_reset")] = (
    ILLEGAL,
    "amdgpu 0000:04:00.0: amdgpu: GPU reset begin!",
)
EXAMPLES[("family:gpu", "drm_flip_timeout")] = (
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, "
    "emitted seq=3",
    "amdgpu 0000:04:00.0: [drm] *ERROR* [CRTC:79:crtc-0] flip_done timed out",
)
EXAMPLES[("family:gpu", "dma_fence_timeout")] = (
    "NVRM: Xid (PCI:0000:01:00): 109, pid=1234, name=Xorg, Ch 00000010, errorString CTX SWITCH "
    "TIMEOUT, Info 0x1c005",
    "Asynchronous wait on fence NVIDIA:nvidia.prime:0 timed out (hint:submit_notify [i915])",
)
EXAMPLES[("family:gpu", "nvidia_flip_timeout")] = (
    "NVRM: Xid (PCI:0000:01:00): 109, pid=1234, name=Xorg, Ch 00000010, errorString CTX SWITCH "
    "TIMEOUT, Info 0x3c046",
    "[drm:nv_drm_atomic_commit [nvidia_drm]] *ERROR* [nvidia-drm] [GPU ID 0x00000100] Flip "
    "event timeout on head 0",
)
# same device: the GPU being reset, and the IOMMU's fault for its DMA
EXAMPLES[("family:gpu", "iommu_fault")] = (
    "amdgpu 0000:2f:00.0: amdgpu: GPU reset begin!",
    "amdgpu 0000:2f:00.0: AMD-Vi: Event logged [IO_PAGE_FAULT domain=0x001a "
    "address=0xec68053da00 flags=0x0010]",
)
# a crashed GSP task (CrashCat's Xid 120) and an assertion of a call made against it
EXAMPLES[("nvidia_xid_120", "nvidia_rm_assertion")] = (
    "NVRM: Xid (PCI:0000:41:00): 120, GSP task exception: store access page fault "
    "(cause:0xf) @ pc:0x1a2b3c4, partition:1#0, task:2, gfid: 0",
    "NVRM: nvAssertFailedNoLog: Assertion failed: status == NV_OK @ kern_bus.c:1200",
)
TRANSPORT_EFFECTS = {
    "disk_io_error": "blk_update_request: I/O error, dev sde, sector 2048 op 0x0:(READ) flags 0x0",
    "fs_error": "EXT4-fs warning (device dm-8): ext4_end_bio:316: I/O error -5 writing to inode "
    "24117995 (offset 0 size 0 starting block 96511296)",
    "hung_task": HUNG,
}
TRANSPORTS = {
    "iscsi_connection_error": " connection1:0: detected conn error (1022)",
    "fc_link_down": "qla2xxx [0000:81:00.1]-500b:10: LOOP DOWN detected (2 7 0 0).",
    "nfs_server_not_responding": "nfs: server nas01 not responding, still trying",
    "ceph_connection_error": "libceph: osd10 9.125.70.42:6801 socket closed (con state OPEN)",
    "cifs_server_not_responding": r"CIFS: VFS: \\nas01 has not responded in 180 seconds. "
    "Reconnecting...",
    "lustre_network_error": "Lustre: 1160:0:(client.c:2114:ptlrpc_expire_one_request()) @@@ "
    "Request sent has timed out for slow reply: [sent 1507651404/real 1507651404]",
}
EXAMPLES.update(
    {(c, e): (TRANSPORTS[c], TRANSPORT_EFFECTS[e]) for c in TRANSPORTS for e in TRANSPORT_EFFECTS}
)
CONTROLLERS = {
    "megaraid_fw_fault": "megaraid_sas 0000:18:00.0: FW in FAULT state Fault code:0x10000 "
    "subcode:0x0 func:megasas_wait_for_outstanding_fusion",
    "mpt3sas_ioc_fault": "mpt3sas_cm0: fault_state(0x2651)!",
    "hpsa_controller_lockup": "hpsa 0000:05:00.0: Controller lockup detected: 0x00130000 after 30",
    "smartpqi_controller_offline": "smartpqi 0000:5e:00.0: controller is offline: status code "
    "0x6100c",
    "aacraid_adapter_panic": "aacraid 0000:04:00.0: adapter kernel panic'd ef.",
    "mpi3mr_ioc_fault": "mpi3mr0: fault code(0x00005000): Additional code: "
    "(0x00000000:0x00000000:0x00000000)",
}
EH_RESET = "megaraid_sas 0000:18:00.0: [30]waiting for 65 commands to complete for scsi0"
EXAMPLES.update({(c, "scsi_host_reset"): (line, EH_RESET) for c, line in CONTROLLERS.items()})
EXAMPLES.update(
    {
        (c, e): (line, TRANSPORT_EFFECTS[e])
        for c, line in (*CONTROLLERS.items(), ("scsi_host_reset", EH_RESET))
        for e in ("disk_io_error", "fs_error")
    }
)
# the layers above a disk: md's member, a snapshot, a file system, each after the disk's error
SNAPSHOT = "device-mapper: snapshots: Invalidating snapshot: Error reading/writing."
EXAMPLES.update(
    {
        ("disk_io_error", e): (TRANSPORT_EFFECTS["disk_io_error"], line)
        for e, line in (
            ("md_disk_failure", "md/raid1:md0: Disk failure on sdb1, disabling device."),
            ("dm_snapshot_invalidated", SNAPSHOT),
            ("fs_error", "Aborting journal on device sde1-8."),
        )
    }
)
EXAMPLES[("dm_snapshot_invalidated", "disk_io_error")] = (
    SNAPSHOT,
    "Buffer I/O error on dev dm-4, logical block 0, async page read",
)
EXAMPLES[("dm_snapshot_invalidated", "fs_error")] = (
    SNAPSHOT,
    "EXT4-fs error (device dm-4): ext4_find_entry:1455: inode #2: comm ls: reading directory "
    "lblock 0",
)
MLX5 = "mlx5_core 0000:61:00.0: "
MLX5_HEALTH = MLX5 + "poll_health:819:(pid 0): device's health compromised - reached miss count"
MLX5_CMD = (
    MLX5 + "wait_func:1132:(pid 141181): CREATE_DCT(0x710) timeout. Will cause a leak of a "
    "command resource"
)
EXAMPLES[("mlx5_health_error", "mlx5_cmd_timeout")] = (MLX5_HEALTH, MLX5_CMD)
TX_TIMEOUT = "mlx5_core 0000:61:00.0 ib0: TX timeout detected"
BNXT = "bnxt_en 0000:3b:00.0 eth0: Detected firmware fatal condition, initiating reset"
for cause, line in (
    ("mlx5_health_error", MLX5_HEALTH),
    ("mlx5_cmd_timeout", MLX5_CMD),
    ("bnxt_fw_fault", BNXT),
):
    EXAMPLES[(cause, "netdev_tx_timeout")] = (line, TX_TIMEOUT)
    EXAMPLES[(cause, "hung_task")] = (line, HUNG)

# a NIC's link and the bond member it is; a NIC driver giving up on its firmware at probe
EXAMPLES[("nic_link_down", "bond_link_down")] = (
    "e1000e: eth0 NIC Link is Down",
    "bond0: (slave eth0): link status definitely down, disabling slave",
)
EXAMPLES[("ena_keep_alive_timeout", "netdev_tx_timeout")] = (
    "ena 0000:00:05.0 eth0: Keep alive watchdog timeout.",
    "NETDEV WATCHDOG: eth0 (ena): transmit queue 0 timed out",
)
EXAMPLES[("mlx4_firmware_error", "netdev_tx_timeout")] = (
    "mlx4_core 0000:04:00.0: command 0x23 timed out (go bit not cleared)",
    "NETDEV WATCHDOG: ens1 (mlx4_core): transmit queue 3 timed out",
)
EXAMPLES[("firmware_load_failure", "nic_probe_failure")] = (
    'bnx2: Can\'t load firmware file "bnx2/bnx2-mips-09-6.2.1b.fw"',
    "bnx2: probe of 0000:01:00.0 failed with error -2",
)
EXAMPLES[("firmware_load_failure", "i915_init_failure")] = (
    "i915 0000:00:02.0: [drm] *ERROR* GT0: GuC firmware i915/adlp_guc_70.bin: fetch failed -ENOENT",
    "i915 0000:00:02.0: [drm] *ERROR* GT0: GuC initialization failed -ENOENT",
)

STALLS = {
    "hard_lockup": "NMI watchdog: Watchdog detected hard LOCKUP on cpu 3",
    "soft_lockup": "watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [kworker/1:2:77]",
    "rcu_stall": "rcu: INFO: rcu_sched detected stalls on CPUs/tasks:",
    "workqueue_lockup": "BUG: workqueue lockup - pool cpus=0-1 flags=0x4 nice=0 stuck for 2530s!",
    "hung_task": HUNG,
}
EXAMPLES.update({(c, e): (STALLS[c], STALLS[e]) for c in STALLS for e in STALLS if c != e})
# the handler's message is the panic's (nmi_panic): a paste may keep it apart from its header
EXAMPLES[("hpwdt_nmi", "kernel_panic")] = (
    "04: An NMI occurred. Depending on your system the reason for the NMI is logged in any one "
    "of the following resources:",
    "---[ end Kernel panic - not syncing: 04: An NMI occurred. ]---",
)
# a reset of a running controller that fails ends in nvme_reset_work's removal
EXAMPLES[("nvme_timeout", "nvme_probe_failure")] = (
    "nvme nvme0: I/O 0 QID 0 timeout, reset controller",
    "nvme nvme0: Removing after probe failure status: -19",
)
EXAMPLES[("nvme_reset", "nvme_probe_failure")] = (
    "nvme nvme0: Device not ready; aborting reset, CSTS=0x1",
    "nvme nvme0: Device not ready; aborting initialisation, CSTS=0x0",
)
# a firmware-first record: the event's severity line and the section that names the PCIe
# error (read with its "Error 0, type: fatal" line, catalogue/indirect.py CPER_SECTIONS)
GHES_EVENT = "{1}[Hardware Error]: event severity: fatal"
EXAMPLES[("aer_fatal", "ghes_hardware_error")] = (
    "pcieport 0000:00:1c.0: AER: PCIe Bus Error: severity=Uncorrected (Fatal), "
    "type=Transaction Layer, (Receiver ID)",
    GHES_EVENT,
)
EXAMPLES[("aer_nonfatal", "ghes_hardware_error")] = (
    "pcieport 0000:00:1c.0: AER: PCIe Bus Error: severity=Uncorrected (Non-Fatal), "
    "type=Transaction Layer, (Requester ID)",
    GHES_EVENT,
)
XHCI = "xhci_hcd 0000:00:14.0: xHCI host controller not responding, assume dead"
ZIO = "zio pool=tank vdev=/dev/sdb1 error=5 type=1 offset=270336 size=8192 flags=180880"
SUSPENDED = (
    "WARNING: Pool 'tank' has encountered an uncorrectable I/O failure and has been suspended."
)
EXAMPLES.update(
    {
        ("xhci_host_dead", "disk_io_error"): (XHCI, ZIO),
        ("xhci_host_dead", "fs_error"): (
            XHCI,
            "EXT4-fs error (device sdb1): ext4_find_entry:1455: inode #2: comm ls: reading "
            "directory lblock 0",
        ),
        ("xhci_host_dead", "zfs_pool_suspended"): (XHCI, SUSPENDED),
        ("xhci_host_dead", "hung_task"): (XHCI, HUNG),
        ("disk_io_error", "zfs_pool_suspended"): (ZIO, SUSPENDED),
        ("zfs_pool_suspended", "kernel_panic"): (
            SUSPENDED,
            "Kernel panic - not syncing: Pool 'tank' has encountered an uncorrectable I/O "
            "failure and the failure mode property for this pool is set to panic.",
        ),
        ("zfs_panic", "kernel_panic"): (
            "PANIC at zfs_vfsops.c:585:zfs_space_delta_cb()",
            "Kernel panic - not syncing: VERIFY3(sa.sa_magic == SA_MAGIC) failed "
            "(1446318350 == 3100762)",
        ),
        ("watchdog_expired", "kernel_panic"): (
            "softdog: Initiating panic",
            "Kernel panic - not syncing: Software Watchdog Timer expired",
        ),
    }
)
for cause, line in (*STALLS.items(), ("oom_kill", "Out of memory: Killed process 4242 (python3)")):
    EXAMPLES[(cause, "watchdog_expired")] = (line, "softdog: Initiating system reboot")
for cause, line in STALLS.items():
    EXAMPLES[(cause, "clocksource_unstable")] = (
        line,
        "clocksource: timekeeping watchdog on CPU3: Marking clocksource 'tsc' as unstable "
        "because the skew is too large:",
    )
# the source sweep of the kernel core (tests/catalogue/test_sweep_core.py has the wordings)
MEMORY_FAILURE = (
    "Memory failure: 0x8a398a: Sending SIGBUS to python3:4123 due to hardware memory corruption"
)
EXAMPLES.update(
    {
        ("mce", "memory_failure"): (
            "mce: [Hardware Error]: Machine check: Data load in unrecoverable area of kernel",
            MEMORY_FAILURE,
        ),
        ("ghes_hardware_error", "memory_failure"): (
            "{1}[Hardware Error]: event severity: recoverable",
            MEMORY_FAILURE,
        ),
        ("edac", "memory_failure"): (
            "EDAC MC0: 1 UE memory read error on CPU_SrcID#0_MC#0_Chan#0_DIMM#0 (channel:0 "
            "slot:0 page:0x8a398a offset:0x400 grain:32)",
            MEMORY_FAILURE,
        ),
        ("arm64_serror", "kernel_panic"): (
            "SError Interrupt on CPU3, code 0x00000000be000011 -- SError",
            "Kernel panic - not syncing: Fatal exception in interrupt",
        ),
        ("disk_io_error", "swap_io_error"): (
            "blk_update_request: I/O error, dev sdb, sector 2048 op 0x1:(WRITE) flags 0x0",
            "Write-error on swap-device (8:18:2048)",
        ),
        ("thermal_critical", "hw_protection_shutdown"): (
            "thermal thermal_zone0: acpitz: critical temperature reached",
            "reboot: HARDWARE PROTECTION shutdown (Temperature too high)",
        ),
    }
)
for cause, line in (*STALLS.items(), ("oom_kill", "Out of memory: Killed process 4242 (python3)")):
    EXAMPLES[(cause, "sysrq_reset")] = (line, "sysrq: Resetting")
SELF_CHECK_OOPS = {
    "oops": "BUG: kernel NULL pointer dereference, address: 0000000000000008",
    "kernel_bug": "kernel BUG at mm/slub.c:4024!",
    "general_protection_fault": "general protection fault: 0000 [#1] SMP NOPTI",
}
SWA = "BUG: scheduling while atomic: kworker/0:2/20275/0x00000002"
SIA = "BUG: sleeping function called from invalid context at kernel/locking/mutex.c:283"
BAD_PAGE = "BUG: Bad page state in process python3  pfn:12345"
for cause, line in SELF_CHECK_OOPS.items():
    EXAMPLES[(cause, "scheduling_while_atomic")] = (line, SWA)
    EXAMPLES[(cause, "sleep_in_atomic")] = (line, SIA)
    EXAMPLES[("bad_page_state", cause)] = (BAD_PAGE, line)
    EXAMPLES[(cause, "bad_page_state")] = (line, BAD_PAGE)
EXAMPLES[("sleep_in_atomic", "scheduling_while_atomic")] = (SIA, SWA)
for atomic, line in (("scheduling_while_atomic", SWA), ("sleep_in_atomic", SIA)):
    EXAMPLES[(atomic, "kernel_bug")] = (line, "kernel BUG at mm/vmalloc.c:2355!")
EXAMPLES[("kernel_bug", "oops")] = (
    "kernel BUG at mm/vmalloc.c:2355!",
    "Internal error: Oops - BUG: 0 [#1] SMP",
)
EXAMPLES[("scheduling_while_atomic", "kernel_panic")] = (
    SWA,
    "Kernel panic - not syncing: scheduling while atomic",
)
# the I/O source sweep (tests/judge/test_sweep_io_order.py): a NIC gone or whose firmware
# stopped, an unregister waiting on a leaked reference, an IOMMU that stopped answering
for cause, line in (
    ("nic_device_lost", "ixgbe 0000:01:00.0: Adapter removed"),
    ("nic_firmware_fault", "bnx2x: [bnx2x_attn_int_deasserted3:4323(eth0)]MC assert!"),
):
    EXAMPLES[(cause, "netdev_tx_timeout")] = (
        line,
        "NETDEV WATCHDOG: eth0 (x): transmit queue 0 timed out",
    )
    EXAMPLES[(cause, "nic_link_down")] = (line, "e1000e: eth0 NIC Link is Down")
    EXAMPLES[(cause, "bond_link_down")] = (
        line,
        "bond0: (slave eth0): link status definitely down, disabling slave",
    )
EXAMPLES[("netdev_unregister_hang", "hung_task")] = (
    "unregister_netdevice: waiting for veth1 to become free. Usage count = 1",
    HUNG,
)
for effect, line in STALLS.items():
    EXAMPLES[("iommu_hardware_error", effect)] = (
        "DMAR: VT-d detected Invalidation Time-out Error: SID ffff",
        line,
    )
EXAMPLES[("family:gpu", "pci_reset_timeout")] = (
    "NVRM: Xid (PCI:0000:41:00): 79, pid=1, name=python3, GPU has fallen off the bus.",
    "nvidia 0000:41:00.0: not ready 65535ms after FLR; giving up",
)
for effect, line in (
    (
        "fs_error",
        "EXT4-fs error (device dm-2): ext4_find_entry:1455: inode #2: comm ls: reading "
        "directory lblock 0",
    ),
    ("md_disk_failure", "md/raid1:md0: Disk failure on dm-1, disabling device."),
):
    EXAMPLES[("dm_integrity_error", effect)] = (
        "device-mapper: integrity: dm-1: Checksum failed at sector 0x1f4",
        line,
    )
EXAMPLES[("nfs_server_not_responding", "nfs_state_recovery_failure")] = (
    "nfs: server fileserver not responding, still trying",
    "NFS: __nfs4_reclaim_open_state: Lock reclaim failed!",
)
for cause, line in (
    ("nic_device_lost", "igc 0000:05:00.0 enp5s0: PCIe link lost, device now detached"),
    ("gpu_fell_off_bus", "amdgpu 0000:c5:00.0: amdgpu: device lost from bus!"),
    ("nvidia_xid_79", NV + "79, pid=1, name=python3, GPU has fallen off the bus."),
):
    EXAMPLES[(cause, "iommu_hardware_error")] = (
        line,
        "DMAR: VT-d detected Invalidation Time-out Error: SID ffff",
    )
_AER_CAUSES = {
    "aer_fatal": "pcieport 0000:00:01.4: AER: Uncorrected (Fatal) error received: 0000:00:01.4",
    "aer_nonfatal": "pcieport 0000:00:01.4: PCIe Bus Error: severity=Uncorrected (Non-Fatal), "
    "type=Transaction Layer, (Requester ID)",
    "pcie_link_down": "pcieport 0000:00:01.4: DPC: containment event, status:0x1f01 source:0x0000",
}
for cause, line in _AER_CAUSES.items():
    EXAMPLES[(cause, "aer_recovery_failure")] = (
        line,
        "pcieport 0000:00:01.4: AER: device recovery failed",
    )
    EXAMPLES[(cause, "pcie_link_training_failure")] = (
        line,
        "pcieport 0000:00:01.4: DPC: Data Link Layer Link Active not set in 1000 msec",
    )
EXAMPLES[("pcie_link_training_failure", "aer_recovery_failure")] = (
    "pcieport 0000:00:01.4: Data Link Layer Link Active not set in 1000 msec",
    "pcieport 0000:00:01.4: AER: device recovery failed",
)
_DEAD_LINK = "pcieport 0000:00:01.1: Data Link Layer Link Active not set in 1000 msec"
EXAMPLES[("pcie_link_training_failure", "pci_d3cold_resume_failure")] = (
    _DEAD_LINK,
    "pcieport 0000:01:00.0: Unable to change power state from D3cold to D0, device inaccessible",
)
EXAMPLES[("pcie_link_training_failure", "pci_reset_timeout")] = (
    _DEAD_LINK,
    "nvidia 0000:02:00.0: not ready 65535ms after bus reset; giving up",
)
# the virtualisation sweep (tests/judge/test_sweep_virt_order.py): a broken virtqueue, a
# guest NIC whose host channel failed
EXAMPLES[("virtio_ring_broken", "netdev_tx_timeout")] = (
    "virtio_net virtio0: output.0:id 100 is not a head!",
    "NETDEV WATCHDOG: enp1s0 (virtio_net): transmit queue 0 timed out 5100 ms",
)
EXAMPLES[("virtio_ring_broken", "hung_task")] = (
    "virtio_blk virtio2: req.0:id 300 out of range",
    HUNG,
)
EXAMPLES[("nvme_timeout", "pci_d3cold_resume_failure")] = (
    "nvme nvme0: controller is down; will reset: CSTS=0xffffffff, PCI_STATUS read failed (134)",
    "nvme 0004:41:00.0: can't change power state from D3cold to D0 (config space inaccessible)",
)
for cause, line in (
    (
        "netvsc_send_failure",
        "hv_netvsc 000d3a1b-2c3d-000d-3a1b-2c3d000d3a1b eth0: Unable to send packet pages 2 "
        "len 1514, ret -22",
    ),
    ("mana_hwc_timeout", "mana 7870:00:00.0: HWC: Request timed out!"),
):
    EXAMPLES[(cause, "netdev_tx_timeout")] = (
        line,
        "NETDEV WATCHDOG: eth0 (x): transmit queue 0 timed out",
    )
AT_BOOT = {("mce_logged_at_boot", "mce_at_boot")}  # relations of a boot's first minutes
UNSTAMPED = {("mce_logged_at_boot", "mce_unstamped")}  # relations of lines without stamps


def _timeline(*messages: str, start_s: int | None = 9000) -> Timeline:
    # at an uptime of hours: an mcelog notice at boot is next-boot evidence, not an event
    recs = [
        KernelRecord(m, 3, 0, n, None if start_s is None else (start_s + n) * 10**6, "-")
        for n, m in enumerate(messages)
    ]
    return Timeline.from_records(recs)


def _event(tl: Timeline, line: str, selector: str) -> TagStats:
    # a watchdog's panic line also names the watchdog ("not syncing: Hard LOCKUP"); a line
    # after another of its tag is that event's last (a machine check's notice after its record)
    found = [t for t in tl.tags if t.first.line.message == line and chains.selects(selector, t)]
    found = found or [
        t for t in tl.tags if t.last.line.message == line and chains.selects(selector, t)
    ]
    (t,) = found
    return t


def test_every_relation_has_an_example() -> None:
    assert {(r.cause, r.effect) for r in chains.MAY_CAUSE} == set(EXAMPLES)


@pytest.mark.parametrize("relation", chains.MAY_CAUSE, ids=lambda r: f"{r.cause}->{r.effect}")
def test_relation(relation: chains.Relation) -> None:
    cause_line, effect_line = EXAMPLES[relation.cause, relation.effect]
    key = (relation.cause, relation.effect)
    start_s = 1 if key in AT_BOOT else None if key in UNSTAMPED else 9000
    orders = [(cause_line, effect_line)]
    if relation.any_order:
        orders.append((effect_line, cause_line))
    for lines in orders:
        tl = _timeline(*lines, start_s=start_s)
        cause = _event(tl, cause_line, relation.cause)
        effect = _event(tl, effect_line, relation.effect)
        assert chains.caused_by(effect, tl.tags) is cause
        assert chains.caused_by(cause, tl.tags) is None
        primary = classify(tl).primary
        assert primary is not None and primary.tag == cause.tag
    alone = _timeline(effect_line, start_s=start_s)
    own = chains.caused_by(_event(alone, effect_line, relation.effect), alone.tags)
    if not relation.any_order and own is None:
        # printed before its "cause", the effect is not explained (unless its own line
        # names a cause: "Kernel panic - not syncing: Hard LOCKUP", die()'s "Fatal
        # exception", which is the oops it ends)
        tl = _timeline(effect_line, cause_line, start_s=start_s)
        assert chains.caused_by(_event(tl, effect_line, relation.effect), tl.tags) is None


def test_a_routine_warning_causes_nothing_its_tag_is_not_named_for() -> None:
    tl = _timeline(
        "workqueue: amdgpu_dm_irq_work_func [amdgpu] hogged CPU for >10000us 4 times",
        AMD + "ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
    )
    primary = classify(tl).primary
    assert primary is not None and primary.tag == "amdgpu_ring_timeout"


def test_a_recovered_reset_closes_the_chain_before_it() -> None:
    """amdgpu's "GPU reset(N) succeeded!": what failed before it was recovered from, so the
    next failure's chain starts after it, and its own first line leads."""
    tl = _timeline(
        AMD + "GPU reset begin!",
        AMD + "GPU reset(3) succeeded!",
        "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring vce0 timeout, signaled seq=5, emitted seq=7",
        AMD + "GPU reset begin!",
    )
    primary = classify(tl).primary
    assert primary is not None and primary.tag == "amdgpu_ring_timeout"


def test_a_recovery_with_nothing_after_it_closes_no_chain() -> None:
    tl = _timeline(
        AMD + "SMU: No response msg_reg: 12 resp_reg: 0",
        AMD + "GPU reset begin!",
        AMD + "GPU reset(1) succeeded!",
    )
    primary = classify(tl).primary
    assert primary is not None and primary.tag == "amdgpu_smu_timeout"


def test_a_panic_that_names_its_watchdog_is_that_watchdog_s_end() -> None:
    """kernel/watchdog_perf.c panics with "Watchdog detected hard LOCKUP on cpu N": one line
    shows both, and the panic's reason is the lockup."""
    v = classify(_timeline("Kernel panic - not syncing: Watchdog detected hard LOCKUP on cpu 74"))
    assert (v.outcome.value, v.reason) == ("kernel_panic", "hard_lockup")
    assert v.primary is not None and v.primary.tag == "hard_lockup"


def test_on_one_line_the_xid_names_the_event_before_the_words_it_reads() -> None:
    """'NVRM: Xid (…): 119, … Timeout after 45s of waiting for RPC response from GPU4 GSP!'
    shows Xid 119 and the GSP timeout's words: NVIDIA's numbered report leads."""
    tl = _timeline(
        NV + "119, pid=1, name=python, Timeout after 45s of waiting for RPC response from GPU4 GSP!"
    )
    assert {t.tag for t in tl.tags} == {"nvidia_xid_119", "nvidia_gsp_timeout"}
    primary = classify(tl).primary
    assert primary is not None and primary.tag == "nvidia_xid_119"


# batch 25 (docs/accuracy.md): the freezer's dump of a task it could not freeze, qla2xxx's
# loop going down after the error handler's reset, a Lustre thread behind a lost peer
EXAMPLES[("suspend_failure", "task_dump")] = (
    "Freezing user space processes failed after 20.005 seconds (1 tasks refusing to freeze, "
    "wq_busy=0):",
    "task:ente            state:D stack:0     pid:569301 tgid:569301 ppid:569186 flags:0x00004006",
)
EXAMPLES[("scsi_host_reset", "fc_link_down")] = (
    "qla2xxx 0000:06:00.0: scsi(0:10:0): LOOP RESET ISSUED.",
    "qla2xxx 0000:06:00.0: LOOP DOWN detected (0 0 0).",
)
EXAMPLES[("lustre_network_error", "lustre_service_thread_inactive")] = (
    TRANSPORTS["lustre_network_error"],
    "LNet: Service thread pid 25305 was inactive for 200.09s. The thread might be hung, or it "
    "might only be slow and will resume later. Dumping the stack trace for debugging purposes:",
)


# batch 27 (docs/accuracy.md): the GPU's resume failing on the resume an aborted suspend starts
EXAMPLES[("suspend_failure", "amdgpu_smu_timeout")] = (
    "xhci_hcd 0000:13:00.0: PM: failed to suspend async: error -16",
    "amdgpu 0000:03:00.0: amdgpu: resume of IP block <smu> failed -62",
)
EXAMPLES[("suspend_failure", "amdgpu_init_failure")] = (
    "xhci_hcd 0000:13:00.0: PM: failed to suspend async: error -16",
    "amdgpu 0000:03:00.0: amdgpu: amdgpu_device_ip_resume failed (-62).",
)
# the debug sweep (tests/judge/test_sweep_debug_order.py): a cross-CPU call never answered
CSD = (
    "csd: Detected non-responsive CSD lock (#1) on CPU#3, waiting 5000000042 ns for CPU#55 "
    "flush_tlb_func+0x0/0xb0(0xffff8e0b3e2afbe8)."
)
for effect, line in STALLS.items():
    if effect != "hard_lockup":
        EXAMPLES[("csd_lock_timeout", effect)] = (CSD, line)
EXAMPLES[("hard_lockup", "csd_lock_timeout")] = (STALLS["hard_lockup"], CSD)
EXAMPLES[("kernel_bug", "general_protection_fault")] = (
    "BUG: KASAN: slab-use-after-free in nvme_complete_rq+0x2c/0x110",
    "general protection fault, probably for non-canonical address 0xdffffc0000000001: 0000 "
    "[#1] PREEMPT SMP KASAN NOPTI",
)
