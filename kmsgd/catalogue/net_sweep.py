"""Network wordings from the source sweep of drivers/net/ethernet and net/core: a NIC gone
from the bus (ixgbe, igb, igc, fm10k read all-ones and detach), a NIC's firmware that
asserted or could not be recovered (bnx2x, ice, i40e, ixgbe), a net device whose last
reference is never dropped (unregister waits for ever), and wording added to mlx5's tags.

A NIC that fell off the bus or whose firmware stopped stops sending: its transmit watchdog,
its link and the bond above it report after it (kmsgd/judge/chains.py).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

NET = "net"

NET_SWEEP_SIGNATURES: tuple[Signature, ...] = (
    # ixgbe_main.c ixgbe_remove_adapter: e_dev_err "Adapter removed" (4.4-6.18), when a
    # register read returns all-ones (ixgbe_check_remove); igb_main.c igb_rd32: netdev_err
    # "PCIe link lost" (4.19-6.18; "PCIe link lost, device now detached" 4.4-4.18);
    # igc_main.c igc_rd32 (5.2-6.18) and fm10k_common.c fm10k_read_reg: netdev_err "PCIe link
    # lost, device now detached": the NIC no longer answers on PCIe and is detached
    sig(
        "nic_device_lost",
        r"^ixgbe \S+: Adapter removed$|^(?:igb|igc|fm10k) \S+ [^:]*: PCIe link lost\b",
        ("Adapter", "lost"),
        Severity.CRITICAL,
        NET,
        "A NIC stopped answering on PCIe (its registers read all-ones) and its driver "
        "detached it: the interface is gone until the device is reset or the box rebooted.",
        "Check the NIC's seating, riser and power, the PCIe errors (AER) before this line, and "
        "PCIe ASPM (pcie_aspm=off, or the port's L1 off, is the known workaround for "
        "I225/I226); update the NIC's NVM and the BIOS.",
        45,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Adapter removed",
                "drivers/net/ethernet/intel/ixgbe/ixgbe_main.c",
                "4.4-6.18",
                "ixgbe 0000:01:00.0: ",
            ),
            Format(
                "PCIe link lost",
                "drivers/net/ethernet/intel/igb/igb_main.c",
                "4.19-6.18",
                "igb 0000:03:00.0 eno1: ",
            ),
            Format(
                "PCIe link lost, device now detached",
                "drivers/net/ethernet/intel/igc/igc_main.c",
                "5.2-6.18",
                "igc 0000:05:00.0 enp5s0: ",
            ),
            Format(
                "PCIe link lost, device now detached",
                "drivers/net/ethernet/intel/igc/igc_main.c",
                "5.2-6.18",
                "igc 0000:70:00.0 (unnamed net_device) (uninitialized): ",
            ),
        ),
    ),
    # bnx2x_main.c bnx2x_attn_int_deasserted3: BNX2X_ERR "MC assert!" / "MCP assert!"
    # (4.4-6.18), bnx2x_panic_dump: BNX2X_ERR "begin crash dump -----------------" (BNX2X_ERR
    # is pr_err "[%s:%d(%s)]" with the function, line and interface, pr_fmt "bnx2x: ");
    # ice_main.c ice_rebuild: dev_err "Rebuild failed, unload and reload driver" (4.19-6.18);
    # ice_probe, i40e_check_recovery_mode (dev_crit), ixgbe_check_fw_error (e_dev_err, the
    # user guide's pointer on the same line): "Firmware recovery mode detected. Limiting
    # functionality." (5.4-6.18). Not ixgbe_check_fw_error's e_dev_warn "Warning firmware
    # error detected FWSM: 0x%08X": working X520s print it (FWSM 0x00000000) on some kernels
    sig(
        "nic_firmware_fault",
        r"^bnx2x: \[\w+:\d+\([^)]*\)\](?:MCP? assert!|begin crash dump -+)$"
        r"|^ice \S+: Rebuild failed, unload and reload driver$"
        r"|^(?:ice|i40e|ixgbe) \S+: Firmware recovery mode detected\. Limiting functionality\.",
        ("assert", "crash", "Rebuild", "Limiting"),
        Severity.ERROR,
        NET,
        "A NIC's firmware asserted or faulted (bnx2x, ixgbe), or the NIC could not be "
        "rebuilt after a reset or came up in firmware recovery mode (ice, i40e): it stops "
        "passing traffic or runs with limited function.",
        "Reload the driver or reboot to recover the NIC; update its NVM/firmware (the "
        "vendor's NVM update tool) and the driver; report the crash dump to the vendor.",
        47,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "[%s:%d(%s)]MC assert!",
                "drivers/net/ethernet/broadcom/bnx2x/bnx2x_main.c",
                "4.4-6.18",
                "bnx2x: ",
                args=("bnx2x_attn_int_deasserted3", 4323, "eth0"),
            ),
            Format(
                "[%s:%d(%s)]begin crash dump -----------------",
                "drivers/net/ethernet/broadcom/bnx2x/bnx2x_main.c",
                "4.4-6.18",
                "bnx2x: ",
                args=("bnx2x_panic_dump", 923, "eth0"),
            ),
            Format(
                "Rebuild failed, unload and reload driver",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "4.19-6.18",
                "ice 0000:3b:00.0: ",
            ),
            Format(
                "Firmware recovery mode detected. Limiting functionality.",
                "drivers/net/ethernet/intel/i40e/i40e_main.c",
                "5.4-6.18",
                "i40e 0000:3b:00.0: ",
            ),
            Format(
                "Firmware recovery mode detected. Limiting functionality. Refer to the Intel(R) "
                "Ethernet Adapters and Devices User Guide for details on firmware recovery mode.",
                "drivers/net/ethernet/intel/ixgbe/ixgbe_main.c",
                "5.6-6.18",
                "ixgbe 0000:01:00.0: ",
            ),
        ),
    ),
    # net/core/dev.c netdev_wait_allrefs (4.4-5.16), netdev_wait_allrefs_any (5.17-6.18):
    # pr_emerg "unregister_netdevice: waiting for %s to become free. Usage count = %d", every
    # 10 s while a reference to a device being removed is never dropped (a leak in a
    # protocol, a driver or a container's network namespace): the task removing it waits for
    # ever, and every later unregister and netns teardown (containers, shutdown) with it
    sig(
        "netdev_unregister_hang",
        r"^unregister_netdevice: waiting for \S+ to become free\. Usage count = -?\d+",
        ("unregister_netdevice",),
        Severity.ERROR,
        NET,
        "A network device being removed still has a reference nobody drops: its removal "
        "waits for ever, and every later interface, container or namespace teardown (and the "
        "shutdown) hangs behind it.",
        "A kernel reference leak (a protocol, driver or tunnel holding the device; the kernel's "
        "known fixes for that interface type): update the kernel; the box needs a hard reboot.",
        60,
        formats=(
            Format(
                "unregister_netdevice: waiting for %s to become free. Usage count = %d",
                "net/core/dev.c",
                "4.4-6.18",
                args=("eth0", 2),
            ),
        ),
    ),
    # drivers/net/ethernet/mellanox/mlx5/core/health.c mlx5_health_try_recover: mlx5_core_err
    # "health recovery flow aborted, PCI reads still not working" and "health recovery
    # failed" (5.4-6.18): after a firmware fatal error the device could not be recovered
    sig(
        "mlx5_health_error",
        r"\bmlx5_health_try_recover(?::\d+:\(pid \d+\))?: health recovery (?:flow aborted|"
        r"failed)\b",
        ("mlx5_health_try_recover",),
        Severity.ERROR,
        NET,
        "The ConnectX (mlx5) firmware hit a fatal error and the driver could not recover the "
        "device: the port stays down.",
        "Collect the firmware dump (devlink health), update the NIC firmware; reboot or reset "
        "the device to bring it back.",
        47,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "%s:%d:(pid %d): health recovery flow aborted, PCI reads still not working",
                "drivers/net/ethernet/mellanox/mlx5/core/health.c",
                "5.4-6.18",
                "mlx5_core 0000:01:00.0: ",
                args=("mlx5_health_try_recover", 322, 5),
            ),
            Format(
                "%s:%d:(pid %d): health recovery failed",
                "drivers/net/ethernet/mellanox/mlx5/core/health.c",
                "5.4-6.18",
                "mlx5_core 0000:01:00.0: ",
                args=("mlx5_health_try_recover", 330, 5),
            ),
        ),
    ),
    # drivers/net/ethernet/mellanox/mlx5/core/main.c mlx5_function_setup (mlx5_load_one
    # before 5.x): "Firmware over %d MS in pre-initializing state, aborting" (dev_err 4.4-
    # 4.19, mlx5_core_err with the function 5.4-6.18, %llu from 5.17): the firmware never
    # left its pre-init state, the probe fails
    sig(
        "mlx5_probe_failure",
        r"\bFirmware over \d+ MS in (?:pre-)?initializing state, aborting",
        ("initializing",),
        Severity.ERROR,
        NET,
        "A ConnectX (mlx5) NIC's firmware never finished initialising: the driver gave up and "
        "the NIC is not available.",
        "Power-cycle the box (a warm reboot may not reset the NIC), then update the NIC "
        "firmware; check the NIC's seating and power.",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "%s:%d:(pid %d): Firmware over %llu MS in pre-initializing state, aborting",
                "drivers/net/ethernet/mellanox/mlx5/core/main.c",
                "5.17-6.18",
                "mlx5_core 0000:61:00.0: ",
                args=("mlx5_function_enable", 1479, 1, 120000),
            ),
            Format(
                "Firmware over %d MS in pre-initializing state, aborting",
                "drivers/net/ethernet/mellanox/mlx5/core/main.c",
                "4.4-4.19",
                "mlx5_core 0000:61:00.0: ",
                args=(120000,),
            ),
        ),
    ),
    # net/netfilter/nf_conntrack_expect.c __nf_ct_expect_check: net_warn_ratelimited
    # "nf_conntrack: expectation table full" (4.4-6.18): a helper's (FTP, SIP) expected
    # connection is refused, as the connection table's "table full" drops a packet
    sig(
        "nf_conntrack_table_full",
        r"\bnf_conntrack: expectation table full\b",
        ("expectation",),
        Severity.WARNING,
        NET,
        "The connection tracker's expectation table is full (nf_conntrack_expect_max): the "
        "related connections of helpers (FTP, SIP) are refused.",
        "Raise net.netfilter.nf_conntrack_expect_max, or find what opens so many expectations.",
        48,
        formats=(
            Format(
                "nf_conntrack: expectation table full",
                "net/netfilter/nf_conntrack_expect.c",
                "4.4-6.18",
            ),
        ),
    ),
)
