"""The system families a GPU server prints when it fails, swept from their source (the
format strings are in each catalogue entry's `formats`): each failure line as its source
prints it, with the prefix its macro adds, and the routine lines with the same words that
must stay routine or untagged."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording

XHCI = "xhci_hcd 0000:00:14.0: "
MLX5 = "mlx5_core 0000:41:00.0: "
EARLYOOM = "earlyoom[812]: "

# tag → (positives, negatives)
SWEEP_SYS_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "zfs_panic": (
        [
            # spl-err.c spl_panic: the VERIFY message, then "PANIC at file:line:func()"
            "VERIFY3(0 == zap_add(os, obj, name, 8, 1, &value, tx)) failed (0 == 17)",
            "VERIFY3(sa.sa_magic == SA_MAGIC) failed (1446318350 == 3100762)",
            "VERIFY(zio->io_error == 0) failed",
            "PANIC at zfs_vfsops.c:585:zfs_space_delta_cb()",
        ],
        [
            "ZFS: Loaded module v2.2.2-0ubuntu9, ZFS pool version 5000, ZFS filesystem version 5",
            "Kernel panic - not syncing: panic at boot",
        ],
    ),
    "zfs_pool_suspended": (
        [
            "WARNING: Pool 'tank' has encountered an uncorrectable I/O failure and has been "
            "suspended.",
            "Kernel panic - not syncing: Pool 'rpool' has encountered an uncorrectable I/O "
            "failure and the failure mode property for this pool is set to panic.",
        ],
        ["WARNING: CPU: 3 PID: 1 at fs/zfs/zio.c:123 zio_done+0x1c/0x80"],
    ),
    "disk_io_error": (
        [
            "zio pool=tank vdev=/dev/disk/by-id/ata-ST4000-part1 error=5 type=1 offset=270336 "
            "size=8192 flags=180880",
        ],
        ["ZFS: Unable to open /dev/sdb1"],
    ),
    "xhci_host_dead": (
        [
            XHCI + "xHCI host controller not responding, assume dead",
            XHCI + "HC died; cleaning up",
            "ehci-pci 0000:00:1d.0: HC died; cleaning up",
            XHCI + "Host halt failed, -110",
            XHCI + "xHCI host not responding to stop endpoint command.",
            "xhci-hcd xhci-hcd.0.auto: xHCI host not responding to stop endpoint command",
        ],
        [
            XHCI + "xHCI Host Controller",
            XHCI + "new USB bus registered, assigned bus number 1",
            "usb 1-4: USB disconnect, device number 3",
            "usb usb1-port3: disabled by hub (EMI?), re-enabling...",
        ],
    ),
    "watchdog_expired": (
        [
            "softdog: Initiating system reboot",
            "softdog: Initiating panic",
            "softdog: Triggered - Reboot ignored",
            "SOFTDOG: Initiating system reboot.",
            "Kernel panic - not syncing: Software Watchdog Timer expired",
        ],
        [
            "softdog: initialized. soft_noboot=0 soft_margin=60 sec soft_panic=0 (nowayout=0)",
            # watchdog_dev.c: the device closed without the magic close; it keeps running
            "watchdog: watchdog0: watchdog did not stop!",
            "iTCO_wdt iTCO_wdt: initialized. heartbeat=30 sec (nowayout=0)",
            "systemd[1]: Using hardware watchdog 'Software Watchdog', version 0, device "
            "/dev/watchdog0",
        ],
    ),
    "clocksource_unstable": (
        [
            "clocksource: timekeeping watchdog on CPU3: Marking clocksource 'tsc' as unstable "
            "because the skew is too large:",
            "tsc: Marking TSC unstable due to clocksource watchdog",
        ],
        [
            "clocksource: Switched to clocksource hpet",
            "clocksource: tsc: mask: 0xffffffffffffffff max_cycles: 0x2b3e459bf4c, "
            "max_idle_ns: 440795289890 ns",
        ],
    ),
    "nf_conntrack_table_full": (
        [
            "nf_conntrack: nf_conntrack: table full, dropping packet",
            "nf_conntrack: table full, dropping packet",
        ],
        ["nf_conntrack: default automatic helper assignment has been turned off for security"],
    ),
    "tcp_out_of_memory": (
        ["TCP: out of memory -- consider tuning tcp_mem", "TCP: too many orphaned sockets"],
        [
            "TCP: request_sock_TCP: Possible SYN flooding on port 8080. Sending cookies.",
            "TCP: bbr: module loaded",
        ],
    ),
    "neighbour_table_overflow": (
        [
            "neighbour: arp_cache: neighbor table overflow!",
            "neighbour: ndisc_cache: neighbor table overflow!",
        ],
        ["IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready"],
    ),
    "bond_link_down": (
        [
            "bond0: (slave eth0): link status definitely down, disabling slave",
            "bond0: link status definitely down for interface eth0, disabling it",
        ],
        [
            "bond0: (slave eth0): link status definitely up, 25000 Mbps full duplex",
            "bond0: (slave eth1): making interface the new active one",
        ],
    ),
    "mlx5_port_module_error": (
        [
            MLX5 + "Port module event[error]: module 0, Cable error, High Temperature",
            MLX5 + "mlx5_pme_handler:123:(pid 0): Port module event[error]: module 1, Cable "
            "error, Bus stuck (I2C or data shorted)",
        ],
        [
            MLX5 + "Port module event: module 0, Cable unplugged",
            MLX5 + "Port module event: module 0, Cable plugged",
        ],
    ),
    "intel_nic_mdd_event": (
        [
            "i40e 0000:3b:00.0: TX driver issue detected, PF reset issued",
            "i40e 0000:3b:00.0: Malicious Driver Detection event 0x02 on TX queue 3 PF number "
            "0x00 VF 0x00",
            "ice 0000:17:00.0: Malicious Driver Detection event 2 on TX queue 5 PF# 0 VF# 0",
            "ice 0000:17:00.0: Malicious Driver Detection event TX_PQM detected on PF",
        ],
        [
            "i40e 0000:3b:00.0: PF reset issued",  # not a line the drivers print: no MDD words
            "ice 0000:17:00.0: The DDP package was successfully loaded: ICE OS Default Package",
        ],
    ),
    # widened entries: the other allocators' failures, SLUB's debug report, vmxnet3's hang
    "oomd_kill": (
        [
            EARLYOOM + 'sending SIGTERM to process 1985588 uid 1000 "python3": badness 733, '
            "VmRSS 61234 MiB",
            EARLYOOM + 'sending SIGKILL to process 4242 "python3": badness 900, VmRSS 61234 MiB',
        ],
        [
            EARLYOOM + "mem avail: 51234 of 64000 MiB (80.05%), swap free: 0 of 0 MiB ( 0.00%)",
            EARLYOOM + "sending SIGTERM to processes with badness above 500",  # not its wording
        ],
    ),
    "mlx5_health_error": (
        [
            MLX5 + "mlx5_fw_fatal_reporter_err_work:726:(pid 123): Driver is in error state. "
            "Unloading",
        ],
        [MLX5 + "E-Switch: Unload vfs: mode(LEGACY), nvfs(0), necvfs(0), active vports(0)"],
    ),
    "page_allocation_failure": (
        [
            "SLUB: Unable to allocate memory on node -1, gfp=0x8020(GFP_ATOMIC|__GFP_ZERO)",
            "python3: vmalloc error: size 4096, vm_struct allocation failed, "
            "mode:0xcc0(GFP_KERNEL), nodemask=(null)",
            "insmod: vmalloc: allocation failure: 1073741824 bytes, mode:0x14000c0(GFP_KERNEL), "
            "nodemask=(null)",
        ],
        ["vmalloc: 34359738367 KB reserved"],
    ),
    "kernel_bug": (
        [
            "BUG kmalloc-128 (Tainted: G    B      ): Poison overwritten",
            "BUG dentry (Not tainted): Redzone overwritten",
            "get_swap_device: Bad swap file entry 3ffffffffffff",
            "swap_info_get: Bad swap offset entry 3ffffff",
        ],
        [
            "SLUB: HWalign=64, Order=0-3, MinObjects=0, CPUs=64, Nodes=2",
            "Adding 8388604k swap on /swap.img.  Priority:-2 extents:1 across:8388604k SS",
        ],
    ),
    "netdev_tx_timeout": (
        ["vmxnet3 0000:0b:00.0 ens192: tx hang"],
        ["vmxnet3 0000:0b:00.0 ens192: intr type 3, mode 0, 9 vectors allocated"],
    ),
}

# lines a busy server prints that are not failures: they tag nothing
ROUTINE_UNTAGGED = [
    # "sched: RT throttling activated" is rt_throttling's, information never blamed
    # (tests/catalogue/test_sweep_debug.py)
    "INFO: NMI handler (perf_event_nmi_handler) took too long to run: 2.345 msecs",
    "perf: interrupt took too long (2503 > 2500), lowering kernel.perf_event_max_sample_rate "
    "to 79750",
    "kvm [1234]: vcpu0, guest rIP: 0xffffffff8106b3a4 unhandled rdmsr: 0x34",
    "ACPI Error: AE_NOT_FOUND, While resolving a named reference package element "
    "(20190816/dspkginit-393)",
]


def _tags(line: str) -> set[str]:
    if line.startswith(EARLYOOM):  # a program's line, as the journal carries it
        return {h.tag for h in match_record(KernelRecord(line, facility=3))}
    return {h.tag for h in match_record(KernelRecord(line, facility=0))}


@pytest.mark.parametrize("tag", sorted(SWEEP_SYS_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(SWEEP_SYS_EXAMPLES, tag, _tags)


@pytest.mark.parametrize("line", ROUTINE_UNTAGGED)
def test_routine_server_lines_tag_nothing(line: str) -> None:
    assert _tags(line) == set()


@pytest.mark.parametrize(
    "tag",
    [
        "clocksource_unstable",
        "nf_conntrack_table_full",
        "tcp_out_of_memory",
        "neighbour_table_overflow",
        "bond_link_down",
    ],
)
def test_service_limits_are_routine(tag: str) -> None:
    """A full conntrack or neighbour table, TCP memory, a bond's failover, a clock marked
    unstable: reported, never blamed over a failure of the box."""
    line = SWEEP_SYS_EXAMPLES[tag][0][0]
    (hit,) = [h for h in match_record(KernelRecord(line, facility=0)) if h.tag == tag]
    assert hit.signature.routine


def _primary(*lines: str) -> str | None:
    recs = [KernelRecord(m, 3, 0, n, (9000 + n) * 10**6, "-") for n, m in enumerate(lines)]
    p = classify(Timeline.from_records(recs)).primary
    return p.tag if p is not None else None


LOCKUP = "watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [kworker/1:2:77]"
HUNG = "INFO: task txg_sync:1234 blocked for more than 122 seconds."


def test_a_dead_usb_host_leads_the_pool_it_takes_down() -> None:
    assert (
        _primary(
            XHCI + "xHCI host not responding to stop endpoint command.",
            XHCI + "xHCI host controller not responding, assume dead",
            XHCI + "HC died; cleaning up",
            "zio pool=tank vdev=/dev/sdb1 error=5 type=1 offset=270336 size=8192 flags=180880",
            "WARNING: Pool 'tank' has encountered an uncorrectable I/O failure and has been "
            "suspended.",
            HUNG,
        )
        == "xhci_host_dead"
    )


def test_a_suspended_pool_leads_the_tasks_that_wait_on_it() -> None:
    assert (
        _primary(
            "WARNING: Pool 'tank' has encountered an uncorrectable I/O failure and has been "
            "suspended.",
            HUNG,
        )
        == "zfs_pool_suspended"
    )


def test_a_zfs_assertion_leads_the_hung_tasks_behind_it() -> None:
    assert (
        _primary(
            "VERIFY3(0 == zap_add(os, obj, name, 8, 1, &value, tx)) failed (0 == 17)",
            "PANIC at zap_micro.c:1436:zap_add_impl()",
            HUNG,
        )
        == "zfs_panic"
    )


def test_the_watchdog_is_the_end_of_the_stall_not_its_cause() -> None:
    assert _primary(LOCKUP, "softdog: Initiating system reboot") == "soft_lockup"
    assert _primary("softdog: Initiating system reboot") == "watchdog_expired"


def test_a_clock_marked_unstable_never_leads_the_stall() -> None:
    skew = (
        "clocksource: timekeeping watchdog on CPU3: Marking clocksource 'tsc' as unstable "
        "because the skew is too large:"
    )
    assert _primary(skew, LOCKUP) == "soft_lockup"
    assert _primary(skew) == "clocksource_unstable"


def test_a_network_limit_never_leads_a_failure() -> None:
    assert (
        _primary("nf_conntrack: nf_conntrack: table full, dropping packet", LOCKUP) == "soft_lockup"
    )
    assert (
        _primary("bond0: (slave eth0): link status definitely down, disabling slave", HUNG)
        == "hung_task"
    )
