"""More wording of the sys families' tags, from their sources: the kernels beside Linux
that pastes show (FreeBSD's spin-mutex check and its panic, the Xen hypervisor ending an HVM
guest), and Linux lines of known families that were not keyed on (e1000's reset
after a transmit hang, the CIFS client's reconnect in its debug output, a corrected GHES
record whose section the kernel cannot decode).

Each entry adds wording to a tag another module owns (kernel.py, net.py, storage_net.py,
gpu_other.py, indirect.py); the meaning and advice say what this wording shows.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

SYS_MORE_SIGNATURES: tuple[Signature, ...] = (
    # FreeBSD sys/kern/kern_mutex.c: a CPU that spins on a spin mutex for about 60 million
    # tries (~10 s) prints printf("spin lock %p (%s) held by %p (tid %d) too long\n", m,
    # lo_name, owner, tid) and panics "spin lock held too long" (kern_shutdown.c vpanic
    # prints "panic: " before the message): _mtx_lock_spin (FreeBSD 6-7), _mtx_lock_spin_failed
    # (7-10), _mtx_lock_indefinite_check (11-15). %p prints "0x…"; the lock's name is free
    # text ("smp rendezvous", "sched lock 0"), so anything up to " held by" is its name
    sig(
        "spinlock_lockup",
        r"^spin lock (?:0x)?[0-9a-f]+ .{1,60}? held by (?:0x)?[0-9a-f]+ \(tid \d+\) too long",
        ("spin",),
        Severity.CRITICAL,
        "cpu",
        "A CPU spun on a FreeBSD spin mutex that its holder never released: the kernel's "
        "lock check gave up and panics.",
        "The lock's name and the holding thread (tid) say who held it; under a hypervisor, "
        "a starved vCPU holding the lock does this (give the guest dedicated CPUs or fewer "
        "vCPUs); otherwise a kernel bug: report it with the version.",
        72,
        formats=(
            Format(
                "spin lock %p (%s) held by %p (tid %d) too long",
                "freebsd:sys/kern/kern_mutex.c",
                "FreeBSD 6-15 (_mtx_lock_spin, _mtx_lock_spin_failed, _mtx_lock_indefinite_check)",
                args=("0xc0e0b6b4", "smp rendezvous", "0xc50e3870", 100103),
            ),
        ),
    ),
    # FreeBSD sys/kern/kern_shutdown.c vpanic: printf("panic: "), the message, "\n" (every
    # release); only the panics FreeBSD's lock code and trap_fatal print are keyed on here:
    # a bare "panic: " opens Go programs' crashes too, which are not kernel lines
    sig(
        "kernel_panic",
        r"^panic: (?:spin lock held too long|(?:page fault|general protection fault"
        r"|double fault)$)",
        ("panic",),
        Severity.CRITICAL,
        "kernel",
        "The FreeBSD kernel panicked: it stopped and the machine hung or rebooted.",
        "The lines before the panic name the cause; keep the crash dump (dumpdev) and the "
        "backtrace of ddb or kgdb.",
        95,
        formats=(
            Format(
                "spin lock held too long",
                "freebsd:sys/kern/kern_mutex.c",
                "FreeBSD 6-15",
                "panic: ",
            ),
            Format(
                "%s",
                "freebsd:sys/amd64/amd64/trap.c",
                'FreeBSD 10-15 (trap_fatal: panic("%s", trap_msg[type]))',
                "panic: ",
                args=("page fault",),
            ),
        ),
    ),
    # The Xen hypervisor ends an HVM guest's vCPU (the "(XEN) " console, `xl dmesg`):
    # xen/arch/x86/hvm/hvm.c hvm_triple_fault: gprintk(XENLOG_INFO, "Triple fault - invoking
    # HVM shutdown action %d\n") after gprintk's "%pv " ("d36v0 ", 4.6-4.20), then
    # vcpu_show_execution_state's "*** Dumping Dom%d vcpu#%d state: ***" and
    # domain_shutdown with the domain's triple-fault action; before, gdprintk's "Triple fault
    # on VCPU%d - invoking HVM shutdown action %u." (3.x-4.5, after "<file>:<line>:d<N>v<N> ").
    # xen/arch/x86/hvm/vmx/vmx.c vmx_failed_vmentry: printk("%pv vmentry failure (reason
    # %#x): ") and the reason ("Invalid guest state (%lu)", "MSR loading (entry %lu)", 4.8-
    # 4.20), "Failed vm entry (exit reason 0x%x) caused by invalid guest state (%ld)." (3.x-
    # 4.7), then the VMCS dump and domain_crash(): the guest is killed
    sig(
        "xen_domain_crash",
        r"\bd\d+v\d+ (?:Triple fault - invoking HVM shutdown action \d"
        r"|vmentry failure \(reason 0x[0-9a-f]+\): )"
        r"|\bTriple fault on VCPU\d+ - invoking HVM shutdown action \d"
        r"|\bFailed vm entry \(exit reason 0x[0-9a-f]+\) caused by",
        ("Triple", "vmentry", "Failed"),
        Severity.CRITICAL,
        "kernel",
        "The Xen hypervisor ended an HVM guest: its vCPU triple-faulted or could not be "
        "entered (an invalid guest state), and Xen shut the guest down or crashed it.",
        "The register or VMCS dump after the line shows where the guest was; a guest OS or "
        "firmware that Xen cannot run (a bootloader's mode switch, an unsupported OS), or a "
        "Xen bug in loading guest state: update Xen, try another guest firmware.",
        88,
        formats=(
            Format(
                "Triple fault - invoking HVM shutdown action %d",
                "xen:xen/arch/x86/hvm/hvm.c",
                "Xen 4.6-4.20 (gprintk)",
                "(XEN) d36v0 ",
                args=(1,),
            ),
            Format(
                "Triple fault on VCPU%d - invoking HVM shutdown action %u.",
                "xen:xen/arch/x86/hvm/hvm.c",
                "Xen 3.x-4.5 (gdprintk)",
                "(XEN) hvm.c:1382:d5v0 ",
                args=(0, 1),
            ),
            Format(  # printk("%pv vmentry failure …"): the prefix holds %pv's vCPU
                "vmentry failure (reason %#x): Invalid guest state (%lu)",
                "xen:xen/arch/x86/hvm/vmx/vmx.c",
                "Xen 4.8-4.20",
                "(XEN) d12v0 ",
                args=(0x80000021, 0),
            ),
            Format(
                "Failed vm entry (exit reason 0x%x) caused by invalid guest state (%ld).",
                "xen:xen/arch/x86/hvm/vmx/vmx.c",
                "Xen 3.x-4.7",
                "(XEN) ",
                args=(0x80000021, 0),
            ),
        ),
    ),
    # e1000's reset task (drivers/net/ethernet/intel/e1000/e1000_main.c e1000_reset_task,
    # e_err(drv, "Reset adapter\n"), 2.6.3x-6.18) runs only after its ndo_tx_timeout
    # (e1000_tx_timeout) or its watchdog's lost link with transmit work pending, both counted
    # as tx_timeout_count: after netdev_printk's "e1000 <bus id> <ifname>: " it is a stuck
    # transmit queue, on the NIC VirtualBox, VMware and QEMU emulate. igb, igc and ixgbe print
    # the same line from reset tasks that configuration changes also schedule (igb
    # enable_fqtss, igc_tsn_offload_apply, ixgbe's reset requests): theirs tag nothing
    sig(
        "netdev_tx_timeout",
        r"^e1000 \S+ [\w.-]+: Reset adapter$",
        ("adapter",),
        Severity.ERROR,
        "net",
        "An e1000 NIC's transmit queue hung and its driver reset the adapter: the link "
        "drops for a moment, and a loop of these takes the box off the network.",
        "Note the interface: in a VM, change the emulated NIC model (virtio-net, vmxnet3 "
        "instead of e1000); try disabling offloads (ethtool -K <if> tso off gso off); on "
        "hardware, check the cable and switch port.",
        48,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Reset adapter",
                "drivers/net/ethernet/intel/e1000/e1000_main.c",
                "4.4-6.18",
                "e1000 0000:00:03.0 enp0s3: ",
            ),
        ),
    ),
    # the same line with the driver's "<driver> <bus id> " lost (a retyped or stripped
    # paste: "enp3s0: Reset adapter"), as netdev_printk prints a netdev with no parent
    # device: which driver printed it is not known, and igb's or igc's configuration reset
    # prints it too, so it is a routine warning, blamed only when nothing else is
    sig(
        "netdev_tx_timeout",
        r"^[\w.-]+: Reset adapter$",
        ("adapter",),
        Severity.WARNING,
        "net",
        "A NIC's driver reset the adapter (an Intel reset task, printed after a transmit hang "
        "or a configuration change): the link drops for a moment.",
        "Note the interface: repeated resets with a transmit hang mean a stuck NIC (update "
        "the driver and firmware; in a VM, change the emulated NIC model).",
        48,
        routine=True,
        formats=(
            Format(
                "Reset adapter",
                "drivers/net/ethernet/intel/e1000/e1000_main.c",
                "4.4-6.18 (netdev_printk of a netdev without a parent)",
                "enp3s0: ",
            ),
        ),
    ),
    # fs/cifs/connect.c cifs_reconnect (fs/smb/client/connect.c cifs_abort_connection from
    # 5.16): cifs_dbg(FYI, "%s: tearing down socket\n", __func__) as the client drops the TCP
    # session to the server and marks its sessions for reconnect (3.x-6.18), printed only with
    # cifsFYI debugging on, after the source file's path (cifs_debug.h: "%s: " __FILE__, the
    # build's full path; "CIFS: " pr_fmt from 5.x). Routine: the session was lost (the server
    # stopped answering, closed the connection, an idle share's timeout), usually recovered,
    # so it is blamed only when nothing else is
    sig(
        "cifs_server_not_responding",
        r"\bcifs_(?:reconnect|abort_connection): tearing down socket$",
        ("tearing",),
        Severity.WARNING,
        "storage.net",
        "The CIFS/SMB client lost its TCP session to a server and is reconnecting (seen in "
        "its debug output): processes using the mount wait or get I/O errors meanwhile.",
        "Check the server and the network to it (an idle timeout on a cloud file share, a "
        "firewall dropping the connection); mounts go on once the session is back.",
        46,
        routine=True,
        formats=(
            Format(
                "%s: tearing down socket",
                "fs/cifs/connect.c",
                "4.4-5.15 (cifs_reconnect)",
                "/build/linux-4.15.0/fs/cifs/connect.c: ",
                args=("cifs_reconnect",),
            ),
            Format(
                "%s: tearing down socket",
                "fs/smb/client/connect.c",
                "5.16-6.18 (cifs_abort_connection)",
                "CIFS: fs/smb/client/connect.c: ",
                args=("cifs_abort_connection",),
            ),
        ),
    ),
    # drivers/firmware/efi/cper.c cper_estatus_print_section: a section whose type GUID the
    # kernel does not know (a vendor's, as Ampere's or Huawei's) prints "%ssection type:
    # unknown, %pUl" (4.16-6.18; "%ssection type: unknown, %pUl" already in 4.4 for
    # non-standard sections), then its length and a hex dump. The record is still the
    # firmware reporting a hardware error; which one only its vendor decodes. Its severity is
    # the event's line before it, so this is the corrected report's routine weight (as
    # indirect.py's corrected memory/processor sections): blamed only when alone
    sig(
        "ghes_hardware_error",
        r"\[Hardware Error\]:\s+section type: unknown, [0-9a-f]{8}-",
        ("section",),
        Severity.WARNING,
        "hardware",
        "The platform firmware reported a hardware error (APEI GHES) in a vendor-specific "
        "section the kernel cannot decode: the event's severity line says whether it was "
        "corrected.",
        "Decode the section with the vendor's tools or the BMC's event log (the GUID names "
        "the vendor); a rising count of corrected errors means a part is failing.",
        11,
        routine=True,
        formats=(
            Format(
                "%ssection type: unknown, %pUl",
                "drivers/firmware/efi/cper.c",
                "4.4-6.18",
                args=("{77}[Hardware Error]:   ", "e8ed898d-df16-43cc-8ecc-54f060ef157f"),
            ),
        ),
    ),
)
