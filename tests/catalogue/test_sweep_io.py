"""Storage, USB, IOMMU and network wordings added from the drivers' source in the I/O sweep
(kmsgd/catalogue/io_sweep.py, net_sweep.py): each wording as its format prints it behind its
printing macro's prefix, read through kmsgd's own reader, and the routine lines of the same
source beside it (a recovered reset, a probe line of every boot, a clean shutdown's teardown)
that must not carry its tag."""

from __future__ import annotations

import pytest

from kmsgd.logparse.origin import kernel_opening
from tests.catalogue.lines import check_wording, tags_of

SMMU = "arm-smmu-v3 arm-smmu-v3.0.auto: "
XHCI = "xhci_hcd 0000:00:14.0: "
MLX5 = "mlx5_core 0000:01:00.0: "

# tag → (lines that carry it, lines with the same words that must not)
SWEEP_IO_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "iommu_hardware_error": (
        [
            "AMD-Vi: Completion-Wait loop timed out",
            "pci 0000:00:00.2: Event logged [IOTLB_INV_TIMEOUT device=0000:03:00.0 "
            "address=0x42b5ff000]",
            "iommu ivhd0: DEV_TAB_HARDWARE_ERROR device=03:00.0 address=0x0 flags=0x0]",
            "iommu ivhd0: ILLEGAL_COMMAND_ERROR address=0xfe000000]",
            "AMD-Vi: Event logged [COMMAND_HARDWARE_ERROR address=0x0 flags=0x0]",
            "DMAR: VT-d detected Invalidation Time-out Error: SID ffff",
            "DMAR: VT-d detected Invalidation Queue Error: Reason f",
            "DMAR: Invalidation Time-out Error (ITE) cleared",
            SMMU + "CMD_SYNC timeout at 0x00000105 [hwprod 0x00000106, hwcons 0x00000000]",
            SMMU + "CMD_SYNC timeout",
            SMMU + "CMDQ error (cons 0x01000104): Illegal command",
            SMMU + "unexpected global error reported (0x00000001), this could be serious",
            "arm-smmu 2b500000.iommu: Unexpected global fault, this could be serious",
            "arm-smmu 15000000.iommu: TLB sync timed out -- SMMU may be deadlocked",
        ],
        [
            # the IOMMU's probe lines of every boot, and a device's page fault (iommu_fault)
            "AMD-Vi: Found IOMMU at 0000:00:00.2 cap 0x40",
            "AMD-Vi: Interrupt remapping enabled",
            "DMAR: IOMMU enabled",
            "DMAR-IR: Queued invalidation will be enabled to support x2apic and Intr-remapping.",
            SMMU + "ias 48-bit, oas 48-bit (features 0x00001fef)",
            SMMU + "event 0x10 received:",
            "AMD-Vi: IOMMU event log overflow",
        ],
    ),
    "iommu_fault": (
        [
            "pci 0000:00:00.2: Event logged [ILLEGAL_DEV_TABLE_ENTRY device=0000:03:00.0 "
            "pasid=0x00000 address=0xfffffffdf8000000 flags=0x0a00]",
            "AMD-Vi: Event logged [ILLEGAL_DEV_TABLE_ENTRY device=03:00.0 "
            "address=0xfffffffdf8000000 flags=0x0a00]",
        ],
        ["AMD-Vi: Found IOMMU at 0000:00:00.2 cap 0x40"],
    ),
    "multipath_path_failure": (
        [
            "device-mapper: multipath: queue_if_no_path timeout on 253:3, failing queued IO",
            "device-mapper: multipath: queue_if_no_path timeout on dm-3",
        ],
        [
            "device-mapper: multipath: 253:3: Reinstating path 8:16.",
            "device-mapper: multipath round-robin: version 1.2.0 loaded",
        ],
    ),
    "md_disk_failure": (
        [
            "md/raid:md1: cannot start dirty degraded array.",
            "md: kicking non-fresh sdb1 from array!",
            "md/raid:md1: failed to run raid set.",
            "md: pers->run() failed ...",
        ],
        [
            "md/raid:md1: raid level 5 active with 4 out of 4 devices, algorithm 2",
            "md/raid1:md0: active with 2 out of 2 mirrors",
            "md: md0: resync done.",
        ],
    ),
    "disk_io_error": (
        ["ata3.00: disable device"],
        ["ata3.00: configured for UDMA/133", "ata3: EH complete", "ata3.00: Features: NCQ-prio"],
    ),
    "xhci_host_dead": (
        [
            XHCI + "WARNING: Host System Error",
            "xhci-hcd xhci-hcd.2.auto: WARNING: Host System Error",
            XHCI + "Abort failed to stop command ring: -110",
        ],
        [
            XHCI + "xHCI Host Controller",
            XHCI + "new USB bus registered, assigned bus number 1",
            XHCI + "hcc params 0x200077c1 hci version 0x110 quirks 0x0000000000009810",
            "usb 1-1: reset high-speed USB device number 2 using xhci_hcd",
        ],
    ),
    "nvme_timeout": (
        [
            "nvme nvme0: I/O tag 12 (100c) type 4 opcode 0x2 (Read) QID 3 timeout",
            "nvme nvme1: NVME-FC{0.3}: io timeout: opcode 2 fctype 0 (Read) w10/11: "
            "x00000000/x00000000",
            "nvme 0000:01:00.0: Timeout I/O 123 QID 1",
        ],
        [
            'nvme nvme0: new ctrl: NQN "nqn.2014-08.org.nvmexpress:uuid:1", addr 10.0.0.1:4420',
            "nvme nvme0: Shutdown timeout set to 10 seconds",
            "nvme 0000:01:00.0: Cancelling I/O 5 QID 1",
        ],
    ),
    "nic_device_lost": (
        [
            "ixgbe 0000:01:00.0: Adapter removed",
            "igb 0000:03:00.0 eno1: PCIe link lost",
            "igb 0000:03:00.0 eno1: PCIe link lost, device now detached",
            "igc 0000:05:00.0 enp5s0: PCIe link lost, device now detached",
            "igc 0000:70:00.0 (unnamed net_device) (uninitialized): PCIe link lost, device now "
            "detached",
        ],
        [
            "igc 0000:05:00.0 enp5s0: NIC Link is Up 1000 Mbps Full Duplex, Flow Control: RX/TX",
            "ixgbe 0000:01:00.0: Intel(R) 10 Gigabit Network Connection",
            "igb 0000:03:00.0: added PHC on eth0",
        ],
    ),
    "nic_firmware_fault": (
        [
            "bnx2x: [bnx2x_attn_int_deasserted3:4323(eth0)]MC assert!",
            "bnx2x: [bnx2x_attn_int_deasserted3:4331(enp4s0f0)]MCP assert!",
            "bnx2x: [bnx2x_panic_dump:923(eth0)]begin crash dump -----------------",
            "ice 0000:3b:00.0: Rebuild failed, unload and reload driver",
            "ice 0000:3b:00.0: Firmware recovery mode detected. Limiting functionality.",
            "i40e 0000:3b:00.0: Firmware recovery mode detected. Limiting functionality.",
            "ixgbe 0000:01:00.0: Firmware recovery mode detected. Limiting functionality. Refer "
            "to the Intel(R) Ethernet Adapters and Devices User Guide for details on firmware "
            "recovery mode.",
        ],
        [
            "bnx2x: [bnx2x_panic_dump:1233(eth0)]end crash dump -----------------",
            "ice 0000:3b:00.0: The DDP package was successfully loaded: ICE OS Default Package",
            "i40e 0000:3b:00.0: fw 8.5.67516 api 1.15 nvm 8.50 0x8000b6ef 1.3179.0 [8086:1572]",
            "ice 0000:3b:00.0: PTP reset successful",
            "ixgbe 0000:05:00.0: Warning firmware error detected FWSM: 0x00000000",
        ],
    ),
    "fs_error": (
        ["F2FS-fs (dm-64): Stopped filesystem due to reason: 4"],
        ["F2FS-fs (sda5): Mounted with checkpoint version = 7b1ed9c2"],
    ),
    "pci_reset_timeout": (
        [
            "vfio-pci 0000:41:00.0: not ready 65535ms after FLR; giving up",
            "pcieport 0000:00:01.1: not ready 60000ms after bus reset; giving up",
            "amdgpu 0000:03:00.0: not ready 65535ms after PM D3hot->D0; giving up",
        ],
        [
            # the wait before the give-up, and a resume's (pci_d3cold_resume_failure)
            "vfio-pci 0000:41:00.0: not ready 1023ms after FLR; waiting",
            "nvme 0000:01:00.0: not ready 65535ms after resume; giving up",
            "vfio-pci 0000:41:00.0: enabling device (0000 -> 0003)",
        ],
    ),
    "dm_integrity_error": (
        [
            "device-mapper: integrity: dm-1: Checksum failed at sector 0x1f4",
            "device-mapper: integrity: Checksum failed at sector 0x1f4",
            "device-mapper: crypt: dm-0: INTEGRITY AEAD ERROR, sector 1234",
        ],
        [
            "device-mapper: integrity: dm-1: Resizing journal",
            'device-mapper: crypt: xts(aes) using implementation "xts-aes-aesni"',
        ],
    ),
    "mpi3mr_ioc_fault": (
        ["mpi3mr0: fault code(0x00005000): Additional code: (0x00000000:0x00000000:0x00000000)"],
        [
            "mpi3mr0: Issuing Message unit Reset(MUR)",
            "mpi3mr0: Base IOC Sts/Config after successful MUR is (0x0)/(0x470000)",
            "mpi3mr0: controller initialization completed successfully",
        ],
    ),
    "fc_link_down": (
        [
            "lpfc 0000:82:00.0: 2:(0):0203 Devloss timeout on WWPN 50:01:43:80:12:8e:40:20 "
            "NPort x05df00 Data: x82000000 x8 xa",
            "lpfc 0001:00:02.0: 0:0203 Devloss timeout on WWPN 10:0:0:6:2b:8:b:9c NPort x130100 "
            "Data: x2000008 x7 x5",
        ],
        [
            "lpfc 0000:82:00.0: 2:(0):2755 ADISC failure DID:05DF00 Status:x9/x70000",
            "lpfc 0000:82:00.0: 0:1303 Link Up Event x1 received Data: x1 x1 x10 x2 x0 x0 0",
        ],
    ),
    "nfs_state_recovery_failure": (
        [
            "NFS: __nfs4_reclaim_open_state: Lock reclaim failed!",
            "NFS: nfs4_reclaim_open_state: Lock reclaim failed!",
            "NFS: Server fct reports our clientid is in use",
            "NFS: state manager: lease expired failed on NFSv4 server fct with error 1",
            "NFS: state manager failed on NFSv4 server fileserver with error 5",
        ],
        [
            "NFS: Registering the id_resolver key type",
            "NFS: state manager: reclaim reboot succeeded",
            "nfs: server fileserver OK",
        ],
    ),
    "vfio_no_interrupt_remapping": (
        [
            "vfio_iommu_type1_attach_group: No interrupt remapping support.  Use the module param "
            '"allow_unsafe_interrupts" to enable VFIO IOMMU support on this platform',
        ],
        [
            "VFIO - User Level meta-driver version: 0.3",
            "vfio-pci 0000:41:00.0: vgaarb: VGA decodes",
        ],
    ),
    "nf_conntrack_table_full": (
        ["nf_conntrack: expectation table full"],
        ["nf_conntrack: default automatic helper assignment has been turned off for security"],
    ),
    "netdev_unregister_hang": (
        [
            "unregister_netdevice: waiting for eth0 to become free. Usage count = 2",
            "unregister_netdevice: waiting for veth1a2b3c to become free. Usage count = -1",
        ],
        [
            "device veth1a2b3c left promiscuous mode",
            "docker0: port 1(veth1a2b3c) entered disabled state",
        ],
    ),
    "mlx5_health_error": (
        [
            MLX5 + "mlx5_health_try_recover:322:(pid 5): health recovery flow aborted, PCI "
            "reads still not working",
            MLX5 + "mlx5_health_try_recover:330:(pid 5): health recovery failed",
            "mlx5_core 0000:65:00.0: mlx5_health_try_recover: health recovery failed",
        ],
        [
            # a clean shutdown's fast teardown enters the error state on purpose
            MLX5 + "mlx5_enter_error_state:231:(pid 1234): start",
            MLX5 + "mlx5_health_try_recover:318:(pid 5): handling bad device here",
            MLX5 + "mlx5_health_try_recover:330:(pid 5): health recovery succeeded",
        ],
    ),
    "mlx5_probe_failure": (
        [
            "mlx5_core 0000:61:00.0: mlx5_function_enable:1479:(pid 1): Firmware over 120000 "
            "MS in pre-initializing state, aborting",
            "mlx5_core 0000:61:00.0: Firmware over 120000 MS in pre-initializing state, aborting",
        ],
        [
            "mlx5_core 0000:61:00.0: wait_fw_init:314:(pid 1): Waiting for FW pre-initializing,"
            " timeout abort in 100s (0x00000001)",
            "mlx5_core 0000:61:00.0: firmware version: 28.39.1002",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(SWEEP_IO_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    check_wording(SWEEP_IO_EXAMPLES, tag)


def test_the_new_wordings_add_no_tag_to_the_routine_lines() -> None:
    # the negatives carry none of this sweep's new tags either
    new = {
        "pci_reset_timeout",
        "dm_integrity_error",
        "mpi3mr_ioc_fault",
        "vfio_no_interrupt_remapping",
        "nfs_state_recovery_failure",
        "iommu_hardware_error",
        "nic_device_lost",
        "nic_firmware_fault",
        "netdev_unregister_hang",
    }
    for _, negatives in SWEEP_IO_EXAMPLES.values():
        for line in negatives:
            assert not tags_of(line) & new, line


@pytest.mark.parametrize(
    "line",
    [
        "unregister_netdevice: waiting for eth0 to become free. Usage count = 2",
        "igc 0000:70:00.0 (unnamed net_device) (uninitialized): PCIe link lost, device now "
        "detached",
        "mpi3mr0: fault code(0x00005000): Additional code: (0x00000000:0x00000000:0x00000000)",
    ],
)
def test_the_new_openings_read_a_bare_line_as_the_kernels(line: str) -> None:
    assert kernel_opening(line)
