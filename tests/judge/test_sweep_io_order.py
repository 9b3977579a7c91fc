"""The culprit order of the I/O sweep's families (kmsgd/judge/chains.py): a NIC gone from
the bus or whose firmware stopped leads the transmit timeout and link loss after it, an
IOMMU that stopped answering leads the lockups of the CPUs spinning on it, an unregister
waiting on a leaked reference leads the hung tasks behind it."""

from __future__ import annotations

from tests.catalogue.lines import paste_primary


def _log(*lines: str) -> str:
    return "".join(f"[{100 + n}.000000] {line}\n" for n, line in enumerate(lines))


def test_a_nic_gone_from_the_bus_leads_its_watchdog_and_link() -> None:
    text = _log(
        "igc 0000:05:00.0 enp5s0: PCIe link lost, device now detached",
        "igc 0000:05:00.0 enp5s0: NIC Link is Down",
        "NETDEV WATCHDOG: enp5s0 (igc): transmit queue 0 timed out 5440 ms",
        "bond0: (slave enp5s0): link status definitely down, disabling slave",
    )
    assert paste_primary(text) == "nic_device_lost"


def test_a_bnx2x_firmware_assert_leads_the_transmit_timeout() -> None:
    text = _log(
        "bnx2x: [bnx2x_attn_int_deasserted3:4323(eth0)]MC assert!",
        "bnx2x: [bnx2x_panic_dump:923(eth0)]begin crash dump -----------------",
        "NETDEV WATCHDOG: eth0 (bnx2x): transmit queue 2 timed out",
    )
    assert paste_primary(text) == "nic_firmware_fault"


def test_an_iommu_invalidation_timeout_leads_the_lockup_after_it() -> None:
    text = _log(
        "DMAR: VT-d detected Invalidation Time-out Error: SID ffff",
        "DMAR: QI HEAD: Device-TLB Invalidation qw0 = 0x5300530000000003, qw1 = 0x7ffffffffffff001",
        "watchdog: BUG: soft lockup - CPU#13 stuck for 23s! [qemu-kvm:4242]",
        "NMI watchdog: Watchdog detected hard LOCKUP on cpu 13",
    )
    assert paste_primary(text) == "iommu_hardware_error"


def test_a_leaked_netdev_reference_leads_the_hung_tasks() -> None:
    text = _log(
        "unregister_netdevice: waiting for veth1 to become free. Usage count = 1",
        "unregister_netdevice: waiting for veth1 to become free. Usage count = 1",
        "INFO: task kworker/u64:2:1234 blocked for more than 122 seconds.",
    )
    assert paste_primary(text) == "netdev_unregister_hang"


def test_a_multipath_lun_without_paths_leads_after_its_path_failures() -> None:
    # the path failures come first and lead; the timeout that fails the queued I/O is theirs
    text = _log(
        "device-mapper: multipath: 253:3: Failing path 8:16.",
        "device-mapper: multipath: 253:3: Failing path 8:32.",
        "device-mapper: multipath: queue_if_no_path timeout on 253:3, failing queued IO",
    )
    assert paste_primary(text) == "multipath_path_failure"


def test_a_passed_through_gpu_that_fell_off_leads_its_failed_reset() -> None:
    text = _log(
        "NVRM: Xid (PCI:0000:41:00): 79, pid=1, name=python3, GPU has fallen off the bus.",
        "nvidia 0000:41:00.0: not ready 65535ms after FLR; giving up",
    )
    assert paste_primary(text) == "nvidia_xid_79"


def test_a_reset_that_never_came_back_leads_alone() -> None:
    text = _log(
        "vfio-pci 0000:41:00.0: not ready 1023ms after FLR; waiting",
        "vfio-pci 0000:41:00.0: not ready 65535ms after FLR; giving up",
    )
    assert paste_primary(text) == "pci_reset_timeout"


def test_a_failed_checksum_leads_the_file_system_error_on_it() -> None:
    text = _log(
        "device-mapper: integrity: dm-1: Checksum failed at sector 0x1f4",
        "EXT4-fs error (device dm-2): ext4_find_entry:1455: inode #2: comm ls: reading "
        "directory lblock 0",
    )
    assert paste_primary(text) == "dm_integrity_error"


def test_an_mpi3mr_fault_leads_the_disk_errors_behind_it() -> None:
    text = _log(
        "mpi3mr0: fault code(0x00005000): Additional code: (0x00000000:0x00000000:0x00000000)",
        "blk_update_request: I/O error, dev sda, sector 2048 op 0x1:(WRITE) flags 0x0",
    )
    assert paste_primary(text) == "mpi3mr_ioc_fault"


def test_an_unreachable_nfs_server_leads_the_lost_locks_after_it() -> None:
    text = _log(
        "nfs: server fileserver not responding, still trying",
        "NFS: __nfs4_reclaim_open_state: Lock reclaim failed!",
    )
    assert paste_primary(text) == "nfs_server_not_responding"


def test_a_nic_gone_from_the_bus_leads_the_invalidation_timeouts_after_it() -> None:
    text = _log(
        "igc 0000:05:00.0 enp5s0: PCIe link lost, device now detached",
        "NETDEV WATCHDOG: enp5s0 (igc): transmit queue 0 timed out 5440 ms",
        "DMAR: VT-d detected Invalidation Time-out Error: SID ffff",
    )
    assert paste_primary(text) == "nic_device_lost"
