"""Network device signatures: the stack's transmit watchdog, the drivers' own hang reports,
and the firmware of Mellanox/NVIDIA ConnectX (mlx5) and Broadcom (bnxt) adapters failing.

net/sched/sch_generic.c dev_watchdog runs every `watchdog_timeo` (5 s for most drivers) and
calls the driver's ndo_tx_timeout when a transmit queue stayed stopped that long: the NIC
stopped taking packets. Most drivers reset the NIC from that callback; a link that keeps
timing out is a NIC, firmware, cable or driver failure, and the box drops off the network.
The drivers say the same in their own words (Intel's "Detected Tx Unit Hang", i40e/ice's
recovery level, bnxt's and mlx5's "TX timeout detected"). mlx5 drives its adapter through
firmware commands (drivers/net/ethernet/mellanox/mlx5/core/cmd.c) and polls the firmware's
health counter (health.c): a firmware that stops completing commands, or whose health
fails, stops the NIC and the RDMA/InfiniBand traffic over it.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig
from kmsgd.catalogue.hardware import EARLY_US as _BOOT_US

NET = "net"
_MLX5 = "mlx5_core 0000:61:00.0: "  # dev_printk of the adapter's PCI function
_MLX5_WARN = "wait_func:1132:(pid 141181): "  # mlx5_core_warn/_err: "%s:%d:(pid %d): "
_MLX5_CMD = "drivers/net/ethernet/mellanox/mlx5/core/cmd.c"
_MLX5_HEALTH = "drivers/net/ethernet/mellanox/mlx5/core/health.c"

# one meaning and advice for the watchdog's line and the drivers' own hang reports
_TX_MEANING = (
    "A network card stopped sending: a transmit queue stayed stopped past the watchdog "
    "timeout, and the driver reset the card."
)
_TX_ADVICE = (
    "Note the driver and interface on the line: update the NIC firmware and driver, check "
    "the cable and switch port; a timeout that repeats takes the box off the network "
    "(try disabling the NIC's power saving: ethtool --set-eee, pcie_aspm=off)."
)

NET_SIGNATURES: tuple[Signature, ...] = (
    # net/sched/sch_generic.c dev_watchdog: WARN_ONCE(1, "NETDEV WATCHDOG: %s (%s): transmit
    # queue %u timed out\n", dev->name, netdev_drivername(dev), i) (2.6.3x-5.x, so after the
    # WARNING header, and for the first timeout of the boot only); 6.x added the time ("...
    # timed out %u ms") and then made it netdev_crit(dev, "NETDEV WATCHDOG: CPU: %d: transmit
    # queue %u timed out %u ms\n"), printed every time behind netdev_printk's "<driver> <bus
    # id> <ifname>: "; before the multiqueue watchdog (2.6.18-2.6.26 printk KERN_INFO
    # "NETDEV WATCHDOG: %s: transmit timed out", 2.6.27-2.6.30 WARN_ONCE "NETDEV WATCHDOG: %s
    # (%s): transmit timed out") it named no queue
    sig(
        "netdev_tx_timeout",
        r"NETDEV WATCHDOG: (?:\S+ \(.*\)|CPU: \d+): transmit queue \d+ timed out"
        r"|NETDEV WATCHDOG: \S+(?: \(.*\))?: transmit timed out",
        ("WATCHDOG",),
        Severity.ERROR,
        NET,
        _TX_MEANING,
        _TX_ADVICE,
        48,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "NETDEV WATCHDOG: %s (%s): transmit queue %u timed out",
                "net/sched/sch_generic.c",
                "4.4-6.1",
                args=("enp5s0", "r8169", 0),
            ),
            Format(
                "NETDEV WATCHDOG: %s: transmit timed out",
                "net/sched/sch_generic.c",
                "2.6.18-2.6.26",
                args=("eth0",),
            ),
            Format(
                "NETDEV WATCHDOG: %s (%s): transmit timed out",
                "net/sched/sch_generic.c",
                "2.6.27-2.6.30",
                args=("eth0", "e1000"),
            ),
            Format(
                "NETDEV WATCHDOG: CPU: %d: transmit queue %u timed out %u ms",
                "net/sched/sch_generic.c",
                "6.8-6.18",
                "r8169 0000:05:00.0 enp5s0: ",
                args=(3, 0, 5120),
            ),
        ),
    ),
    # The drivers' own reports of a stuck transmit ring: ixgbe/igb/igc/e1000/fm10k/ixgbevf
    # "Detected Tx Unit Hang" (their clean-up path's hang check, before the watchdog) and
    # ixgbe's "tx hang %d detected on queue %d, resetting adapter", e1000e's "Detected
    # Hardware Unit Hang:" (4.4-6.18); ndo_tx_timeout's lines after the watchdog: i40e
    # "tx_timeout recovery level %d, hung_queue %d" (4.4-4.19) / "…, txqueue %d" (5.x+),
    # ice "tx_timeout recovery level %d, txqueue %u" (5.4+), bnxt "TX timeout detected,
    # starting reset task!" (4.4-6.18), mlx5 en_main.c "TX timeout detected" (4.19-6.18) and
    # en/reporter_tx.c "TX timeout on queue: %d, SQ: 0x%x, …" (5.4+); IPoIB's (drivers/
    # infiniband/ulp/ipoib/ipoib_main.c ipoib_timeout) ipoib_warn "transmit timeout: latency
    # %d msecs" (4.4-6.18), ipoib_printk's "%s: " the interface; VMware's vmxnet3
    # (drivers/net/vmxnet3/vmxnet3_drv.c vmxnet3_tx_timeout) netdev_err "tx hang" (4.4-6.18);
    # tg3_tx_timeout netdev_err "transmit timed out, resetting" (3.x-6.18; 2.6.3x printk
    # "tg3: %s: …"); ENA's check_for_missing_tx_completions netif_err "The number of lost tx
    # completions is above the threshold (%d > %d). Reset the device" (4.9-6.18)
    sig(
        "netdev_tx_timeout",
        r"Detected (?:Tx|Hardware) Unit Hang|tx hang \d+ detected on queue \d+, resetting"
        r"|tx_timeout recovery level \d+|TX timeout detected|TX timeout on queue: \d+"
        r"|transmit timeout: latency \d+ msecs|^vmxnet3 \S+ \S+: tx hang$"
        r"|^tg3:? \S+(?: [\w.-]+)?: transmit timed out, resetting"
        r"|The number of lost tx completions is above the threshold \(\d+ > \d+\)",
        ("Detected", "hang", "tx_timeout", "TX", "transmit", "completions"),
        Severity.ERROR,
        NET,
        _TX_MEANING,
        _TX_ADVICE,
        48,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "transmit timed out, resetting",
                "drivers/net/ethernet/broadcom/tg3.c",
                "3.x-6.18",
                "tg3 0000:02:00.0 eth0: ",
            ),
            Format(
                "%s: transmit timed out, resetting",
                "drivers/net/tg3.c",
                '2.6.3x (PFX "tg3: ")',
                "tg3: ",
                args=("eth0",),
            ),
            Format(
                "The number of lost tx completions is above the threshold (%d > %d). Reset the "
                "device",
                "drivers/net/ethernet/amazon/ena/ena_netdev.c",
                "4.9-6.18",
                "ena 0000:00:05.0 eth0: ",
                args=(129, 128),
            ),
            Format(
                "tx hang",
                "drivers/net/vmxnet3/vmxnet3_drv.c",
                "4.4-6.18",
                "vmxnet3 0000:0b:00.0 ens192: ",
            ),
            Format(
                "Detected Tx Unit Hang\n  Tx Queue             <%d>\n  TDH, TDT             "
                "<%x>, <%x>",
                "drivers/net/ethernet/intel/ixgbe/ixgbe_main.c",
                "4.4-6.18",
                "ixgbe 0000:01:00.0 eth0: ",
                args=(3, 0x1A0, 0x1A4),
            ),
            Format(
                "tx hang %d detected on queue %d, resetting adapter",
                "drivers/net/ethernet/intel/ixgbe/ixgbe_main.c",
                "4.4-6.18",
                "ixgbe 0000:01:00.0 eth0: ",
                args=(1, 3),
            ),
            Format(
                "Detected Hardware Unit Hang:\n  TDH                  <%x>",
                "drivers/net/ethernet/intel/e1000e/netdev.c",
                "4.4-6.18",
                "e1000e 0000:00:1f.6 eno1: ",
                args=(0x5C,),
            ),
            Format(
                "tx_timeout recovery level %d, txqueue %d",
                "drivers/net/ethernet/intel/i40e/i40e_main.c",
                "5.4-6.18",
                "i40e 0000:3b:00.0 eth0: ",
                args=(1, 6),
            ),
            Format(
                "tx_timeout recovery level %d, txqueue %u",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.4-6.18",
                "ice 0000:3b:00.0 ens1f0: ",
                args=(2, 4),
            ),
            Format(
                "TX timeout detected, starting reset task!",
                "drivers/net/ethernet/broadcom/bnxt/bnxt.c",
                "4.4-6.18",
                "bnxt_en 0000:3b:00.0 eth0: ",
            ),
            Format(
                "transmit timeout: latency %d msecs",
                "drivers/infiniband/ulp/ipoib/ipoib_main.c",
                "4.4-6.18",
                "ib0: ",
                args=(10240,),
            ),
            Format(
                "TX timeout detected",
                "drivers/net/ethernet/mellanox/mlx5/core/en_main.c",
                "4.19-6.18",
                "mlx5_core 0000:3b:00.0 ens1f0np0: ",
            ),
        ),
    ),
    # mlx5 cmd.c: a firmware command that never completes. wait_func_handle_exec_timeout
    # (5.8+): "cmd[%d]: %s(0x%x) No done completion"; wait_func: "%s(0x%x) timeout. Will
    # cause a leak of a command resource" (4.4-6.18), "%s(0x%x) canceled on out of queue
    # timeout." (5.x+); the async path: "cmd[%d]: %s(0x%x) Async, timeout. Will cause a leak
    # of a command resource" (5.x+); all through mlx5_core_warn: dev_warn with
    # "%s:%d:(pid %d): " (function, line, pid)
    sig(
        "mlx5_cmd_timeout",
        r"\w+\(0x[0-9a-fA-F]+\) (?:No done completion|(?:Async, )?timeout\. Will cause a leak "
        r"of a command resource|canceled on out of queue timeout)",
        ("completion", "leak", "canceled"),
        Severity.ERROR,
        NET,
        "The firmware of a Mellanox/NVIDIA ConnectX adapter (mlx5) stopped completing the "
        "driver's commands: the command timed out, and the NIC and the RDMA traffic over it "
        "stop being managed.",
        "Update the adapter firmware (mlxfwmanager / mstflint) and the driver; collect the "
        "firmware dump (devlink health) before rebooting; a command that times out again "
        "after an update is a hardware case for the vendor.",
        47,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "cmd[%d]: %s(0x%x) No done completion",
                _MLX5_CMD,
                "6.1-6.18",
                _MLX5 + "wait_func_handle_exec_timeout:1104:(pid 141183): ",
                args=(22, "CREATE_DCT", 0x710),
            ),
            Format(
                "%s(0x%x) timeout. Will cause a leak of a command resource",
                _MLX5_CMD,
                "4.4-6.18",
                _MLX5 + _MLX5_WARN,
                args=("CREATE_DCT", 0x710),
            ),
            Format(
                "%s(0x%x) canceled on out of queue timeout.",
                _MLX5_CMD,
                "6.1-6.18",
                _MLX5 + _MLX5_WARN,
                args=("QUERY_VPORT_COUNTER", 0x770),
            ),
        ),
    ),
    # mlx5 health.c poll_health: "device's health compromised - reached miss count" (the
    # firmware's health counter stopped, 4.4-6.18), "Fatal error %u detected" (a fatal
    # sensor, 5.x+), then print_health_info's "synd 0x%x: %s" (4.4-6.18) with the
    # firmware's syndrome; mlx5_fw_fatal_reporter_err_work's "Driver is in error state.
    # Unloading" (5.14-6.18, 5.10 stable) when the recovery was not run and the driver
    # unloads the adapter
    sig(
        "mlx5_health_error",
        r"device's health compromised - reached miss count|\w+:\d+:\(pid \d+\): Fatal "
        r"error \d+ detected|\bsynd 0x[0-9a-fA-F]+: \w|\bDriver is in error state\. Unloading",
        ("compromised", "Fatal", "synd", "Unloading"),
        Severity.ERROR,
        NET,
        "The firmware of a Mellanox/NVIDIA ConnectX adapter (mlx5) failed its health check "
        "(a fatal error, or a health counter that stopped): the driver resets the adapter, "
        "and its links go down meanwhile.",
        "Note the syndrome on the health report; update the adapter firmware, check its "
        "cooling and PCIe link; collect the firmware dump (devlink health) before rebooting.",
        47,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "device's health compromised - reached miss count",
                _MLX5_HEALTH,
                "4.4-6.18",
                _MLX5 + "poll_health:819:(pid 0): ",
            ),
            Format(
                "Driver is in error state. Unloading",
                _MLX5_HEALTH,
                "5.15-6.18",
                _MLX5 + "mlx5_fw_fatal_reporter_err_work:726:(pid 123): ",
            ),
            Format(
                "Fatal error %u detected",
                _MLX5_HEALTH,
                "6.1-6.18",
                _MLX5 + "poll_health:803:(pid 0): ",
                args=(1,),
            ),
            Format(
                "synd 0x%x: %s",
                _MLX5_HEALTH,
                "4.4-6.18",
                _MLX5,
                args=(1, "firmware internal error"),
            ),
        ),
    ),
    # drivers/net/ethernet/broadcom/bnxt/bnxt.c: the firmware health poll's netdev_warn
    # "Detected firmware fatal condition, initiating reset" (bnxt_fw_exception),
    # bnxt_fw_init_one_p1's netdev_err "Firmware not responding, status: 0x%x", and the
    # recovery's "Firmware reset aborted" (with ", rc = %d" and other reasons) (6.1-6.18);
    # a firmware (HWRM) command that got no answer: bnxt.c bnxt_hwrm_do_send_msg netdev_err
    # "Error (timeout: %d) msg {0x%x 0x%x} len:%d" (4.4-5.12), bnxt_hwrm.c __hwrm_send
    # hwrm_err "Error (timeout: %u) msg {0x%x 0x%x} len:%d" (5.13-6.18, " v:%d" when the
    # response's valid bit never came)
    sig(
        "bnxt_fw_fault",
        r"Detected firmware fatal condition, initiating reset|Firmware not responding, status: "
        r"0x[0-9a-fA-F]+|Firmware reset aborted"
        r"|Error \(timeout: \d+\) msg \{0x[0-9a-fA-F]+ 0x[0-9a-fA-F]+\} len:\d+",
        ("bnxt_en",),  # netdev_printk's driver name: "fatal", "aborted" are common words
        Severity.ERROR,
        NET,
        "The firmware of a Broadcom NetXtreme NIC (bnxt) failed: the driver resets it, or "
        "gives the device up when the reset fails, and its links go down meanwhile.",
        "Update the NIC firmware (niccli / bnxtnvm) and the driver; a reset that is aborted "
        "leaves the port down until the next boot.",
        47,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Error (timeout: %u) msg {0x%x 0x%x} len:%d",
                "drivers/net/ethernet/broadcom/bnxt/bnxt_hwrm.c",
                "5.13-6.18",
                "bnxt_en 0000:3b:00.0 eno1np0: ",
                args=(500015, 0x23, 0x1A4, 0),
            ),
            Format(
                "Error (timeout: %d) msg {0x%x 0x%x} len:%d",
                "drivers/net/ethernet/broadcom/bnxt/bnxt.c",
                "4.4-5.12",
                "bnxt_en 0000:3b:00.0 eth0: ",
                args=(500015, 0xB4, 0x12, 0),
            ),
            Format(
                "Detected firmware fatal condition, initiating reset",
                "drivers/net/ethernet/broadcom/bnxt/bnxt.c",
                "6.1-6.18",
                "bnxt_en 0000:3b:00.0 eth0: ",
            ),
            Format(
                "Firmware not responding, status: 0x%x",
                "drivers/net/ethernet/broadcom/bnxt/bnxt.c",
                "6.1-6.18",
                "bnxt_en 0000:3b:00.0 eth0: ",
                args=(0x8000,),
            ),
            Format(
                "Firmware reset aborted, rc = %d",
                "drivers/net/ethernet/broadcom/bnxt/bnxt.c",
                "6.1-6.18",
                "bnxt_en 0000:3b:00.0 eth0: ",
                args=(-19,),
            ),
        ),
    ),
    # mlx5 main.c init_one: the probe of a ConnectX function fails and the NIC never
    # appears: "mlx5_load_one failed with error code %d" (dev_err 4.x; mlx5_core_err with
    # its "init_one:%d:(pid %d): " prefix 5.x), renamed "mlx5_init_one failed with error
    # code %d" (5.15-6.18), "mlx5_pci_init failed with error code %d" (4.x-6.18)
    sig(
        "mlx5_probe_failure",
        r"mlx5_(?:load|init)_one failed with error code -?\d+|mlx5_pci_init failed with "
        r"error code -?\d+",
        ("mlx5_load_one", "mlx5_init_one", "mlx5_pci_init"),
        Severity.ERROR,
        NET,
        "A Mellanox/NVIDIA ConnectX adapter (mlx5) failed to initialise at probe: the "
        "driver gave the device up and its ports are absent for this boot.",
        "Read the lines before the failure (firmware command, HCA capability, IRQ or "
        "memory errors); update the adapter firmware and the driver (or the OFED stack).",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "mlx5_load_one failed with error code %d",
                "drivers/net/ethernet/mellanox/mlx5/core/main.c",
                "4.9-5.14",
                _MLX5 + "init_one:1371:(pid 803): ",
                args=(-22,),
            ),
            Format(
                "mlx5_init_one failed with error code %d",
                "drivers/net/ethernet/mellanox/mlx5/core/main.c",
                "5.15-6.18",
                _MLX5 + "probe_one:2031:(pid 803): ",
                args=(-22,),
            ),
            Format(
                "mlx5_pci_init failed with error code %d",
                "drivers/net/ethernet/mellanox/mlx5/core/main.c",
                "4.9-6.18",
                _MLX5,
                args=(-19,),
            ),
        ),
    ),
    # net/core/dev.c netdev_rx_csum_fault: a received packet whose checksum the NIC said it
    # had verified does not verify in software (a NIC, firmware or driver offload fault):
    # pr_err "%s: hw csum failure" with the device's name or "<unknown>" (3.x-6.1), then
    # netdev_err "hw csum failure" (6.2-6.18; "(NULL net_device): " without a device), each
    # followed by skb_dump and a stack
    sig(
        "netdev_hw_csum_failure",
        r"\S: hw csum failure\b",
        ("csum",),
        Severity.WARNING,
        NET,
        "A NIC's receive checksum offload passed a packet whose checksum is wrong: the "
        "adapter, its firmware or its driver corrupts or mislabels received packets.",
        "Note the device and the stack; try turning receive checksum offload off (ethtool -K "
        "<dev> rx off), update the NIC firmware and driver, check the packet path (XDP/eBPF).",
        30,
        formats=(
            Format(
                "%s: hw csum failure",
                "net/core/dev.c",
                "4.4-6.1",
                args=("eth0",),
            ),
            Format(
                "hw csum failure",
                "net/core/dev.c",
                "6.2-6.18",
                "(NULL net_device): ",
            ),
        ),
    ),
    # Netfilter's connection tracking table is full (net/netfilter/nf_conntrack_core.c
    # __nf_conntrack_alloc: net_warn_ratelimited "nf_conntrack: table full, dropping packet",
    # after the "nf_conntrack: " pr_fmt in 5.x+; 2.6's ip_conntrack "ip_conntrack: table full,
    # dropping packet."): new connections are dropped until entries expire. A box's network
    # service failing, not a cause of a freeze: routine, blamed only alone.
    sig(
        "nf_conntrack_table_full",
        r"conntrack: table (?:or zone )?full(?: in netns \d+)?, dropping packet",
        ("conntrack", "nf_conntrack", "ip_conntrack"),
        Severity.WARNING,
        NET,
        "The connection tracking table (nf_conntrack_max) is full: the kernel drops the "
        "packets of new connections.",
        "Raise net.netfilter.nf_conntrack_max (and the hash size) or shorten the conntrack "
        "timeouts; find what opens so many connections (conntrack -L).",
        48,
        routine=True,
        formats=(
            Format(
                "nf_conntrack: table full, dropping packet",
                "net/netfilter/nf_conntrack_core.c",
                "5.4-6.18",
                "nf_conntrack: ",
            ),
            Format(
                "nf_conntrack: table full, dropping packet",
                "net/netfilter/nf_conntrack_core.c",
                "4.4-4.19",
            ),
        ),
    ),
    # net/ipv4/tcp.c tcp_check_oom: net_info_ratelimited "out of memory -- consider tuning
    # tcp_mem" (socket buffers over net.ipv4.tcp_mem) and "too many orphaned sockets" (over
    # tcp_max_orphans), pr_fmt "TCP: " (4.4-6.18): the kernel resets the connections it
    # cannot buffer. Routine: a load or tuning limit, not a freeze's cause.
    sig(
        "tcp_out_of_memory",
        r"^TCP: (?:out of memory -- consider tuning tcp_mem|too many orphaned sockets)",
        ("tcp_mem", "orphaned"),
        Severity.WARNING,
        NET,
        "TCP ran out of socket memory (net.ipv4.tcp_mem) or orphan sockets: the kernel "
        "resets connections it cannot buffer.",
        "Raise net.ipv4.tcp_mem / tcp_max_orphans, or find the sockets that hold the memory "
        "(ss -m, /proc/net/sockstat).",
        48,
        routine=True,
        formats=(
            Format(
                "out of memory -- consider tuning tcp_mem", "net/ipv4/tcp.c", "4.4-6.18", "TCP: "
            ),
            Format("too many orphaned sockets", "net/ipv4/tcp.c", "4.4-6.18", "TCP: "),
        ),
    ),
    # net/core/neighbour.c neigh_alloc: net_info_ratelimited "%s: neighbor table overflow!"
    # with the table's id (arp_cache, ndisc_cache), pr_fmt "neighbour: " (4.4-6.18): entries
    # over gc_thresh3 are refused, so hosts on big L2 segments become unreachable. Routine.
    sig(
        "neighbour_table_overflow",
        r"\b\w+: neighbor table overflow!",
        ("overflow",),
        Severity.WARNING,
        NET,
        "The neighbour (ARP/NDP) table is full: the kernel cannot resolve new neighbours, so "
        "some hosts become unreachable.",
        "Raise net.ipv4.neigh.default.gc_thresh1/2/3 (and the IPv6 ones) above the number of "
        "neighbours on the attached networks.",
        48,
        routine=True,
        formats=(
            Format(
                "%s: neighbor table overflow!",
                "net/core/neighbour.c",
                "4.4-6.18",
                "neighbour: ",
                args=("arp_cache",),
            ),
        ),
    ),
    # drivers/net/bonding/bond_main.c bond_miimon_commit / bond_ab_arp_commit: a bond's
    # member link went down and was disabled: netdev_info "link status definitely down for
    # interface %s, disabling it" (4.4-5.3), slave_info's "%s: (slave %s): link status
    # definitely down, disabling slave" (5.4-6.18). The bond fails over to its other links:
    # routine, blamed only alone (a NIC's own failure before it is the cause).
    sig(
        "bond_link_down",
        r"\blink status definitely down(?: for interface \S+)?, disabling (?:it|slave)\b",
        ("definitely",),
        Severity.WARNING,
        NET,
        "A bonded network link went down and the bond stopped using it (failover to the other "
        "members, if any).",
        "Check that member's NIC, cable and switch port (ethtool, the NIC's own errors before "
        "this line); a bond with no member left is off the network.",
        48,
        routine=True,
        formats=(
            Format(
                "link status definitely down, disabling slave",
                "drivers/net/bonding/bond_main.c",
                "5.4-6.18",
                "bond0: (slave eth0): ",
            ),
            Format(
                "link status definitely down for interface %s, disabling it",
                "drivers/net/bonding/bond_main.c",
                "4.4-5.3",
                "bond0: ",
                args=("eth0",),
            ),
            Format(
                "%s: link status definitely down for interface %s, disabling it",
                "drivers/net/bonding/bond_main.c",
                '2.6.3x-3.x (pr_fmt "bonding: ")',
                "bonding: ",
                args=("bond0", "eth0"),
            ),
        ),
    ),
    # mlx5 events.c port_module_event (eq.c mlx5_port_module_event before 5.x): the
    # transceiver/cable of a port reports an error: "Port module event[error]: module %u,
    # %s, %s" with "Cable error" and the error type ("High Temperature", "Bus stuck (I2C or
    # data shorted)", "Power Budget Exceeded", "Bad or shorted cable/module", …), mlx5_core_err
    # (5.x+; mlx5_core_info in 4.x); its link is down until the module is fixed. "Port module
    # event: module %u, Cable plugged/unplugged" is routine and not matched.
    sig(
        "mlx5_port_module_error",
        r"Port module event\[error\]: module \d+,",
        ("Port",),
        Severity.ERROR,
        NET,
        "A Mellanox/NVIDIA ConnectX port's cable or transceiver module reported an error "
        "(overheating, shorted, unsupported, over its power budget): that port's link is down.",
        "Reseat or replace the cable/transceiver of that port (mlxlink, ethtool -m); check "
        "its temperature and that the module is supported by the NIC.",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Port module event[error]: module %u, %s, %s",
                "drivers/net/ethernet/mellanox/mlx5/core/events.c",
                "5.4-6.18",
                _MLX5,
                args=(0, "Cable error", "High Temperature"),
            ),
            Format(
                "Port module event[error]: module %u, %s, %s",
                "drivers/net/ethernet/mellanox/mlx5/core/eq.c",
                "4.19",
                _MLX5,
                args=(1, "Cable error", "Bus stuck (I2C or data shorted)"),
            ),
        ),
    ),
    # Intel's i40e and ice: the NIC's Malicious Driver Detection caught a malformed transmit
    # or receive descriptor (a driver bug, or a VF's guest driver) and stopped the queue:
    # i40e_main.c/ice_main.c i40e_handle_mdd_event/ice_handle_mdd_event dev_info "Malicious
    # Driver Detection event %d on TX queue %d PF# %d VF# %d" (i40e "event 0x%02x on TX
    # queue %d PF number 0x%02x VF 0x%02x" in 4.x), then "TX driver issue detected, PF reset
    # issued" (i40e 4.4-5.4, ice 5.4-5.7), ice's "Malicious Driver Detection event TX_PQM
    # detected on PF" (5.8+): the PF is reset, its link drops, and it repeats while the bug does
    sig(
        "intel_nic_mdd_event",
        r"Malicious Driver Detection event (?:0x[0-9a-f]+|\d+|\w+) (?:on [TR]X queue|detected on)"
        r"|\b[TR]X driver issue detected, PF reset issued",
        ("Malicious", "issued"),
        Severity.ERROR,
        NET,
        "An Intel NIC (i40e/ice) caught its driver handing it a malformed descriptor "
        "(Malicious Driver Detection) and reset the port: its link drops while it resets.",
        "Update the NIC driver and its NVM/firmware (a known driver bug is the usual cause); "
        "with SR-IOV, the VF named on the line is the guest whose driver misbehaved.",
        48,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Malicious Driver Detection event %d on TX queue %d PF# %d VF# %d",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.4-6.18",
                "ice 0000:17:00.0: ",
                args=(2, 5, 0, 0),
            ),
            Format(
                "Malicious Driver Detection event 0x%02x on TX queue %d PF number 0x%02x VF 0x%02x",
                "drivers/net/ethernet/intel/i40e/i40e_main.c",
                "4.4-4.19",
                "i40e 0000:3b:00.0: ",
                args=(2, 3, 0, 0),
            ),
            Format(
                "TX driver issue detected, PF reset issued",
                "drivers/net/ethernet/intel/i40e/i40e_main.c",
                "4.4-5.4",
                "i40e 0000:3b:00.0: ",
            ),
            Format(
                "Malicious Driver Detection event TX_PQM detected on PF",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.10-6.18",
                "ice 0000:17:00.0: ",
            ),
        ),
    ),
    # Intel Wi-Fi firmware that crashed or stopped answering: iwlwifi pcie/tx.c (pcie/
    # tx-gen2.c, 5.x+) iwl_trans_pcie_send_hcmd_sync IWL_ERR "Error sending %s: time out
    # after %dms." (a host command the firmware never completed), pcie/rx.c
    # iwl_pcie_irq_handle_error "Microcode SW error detected. Restarting 0x%X." (two spaces
    # before "Restarting" in 4.x), and the error-table dump that follows either, fw/dump.c
    # (mvm/utils.c before 5.4) "Start IWL Error Log Dump:"; the same lines under the names
    # of iwlwifi before 3.1 ("iwlagn", drivers/net/wireless/iwlwifi/iwl-agn.c) and of the
    # iwlegacy drivers (iwl3945, iwl4965). The driver restarts the firmware:
    # the Wi-Fi link drops for a while; the box runs on.
    sig(
        "iwlwifi_firmware_error",
        r"^(?:iwlwifi|iwlagn|iwl3945|iwl4965) \S+: (?:Error sending \w+: time out after \d+ms\."
        r"|Microcode SW error detected\. +Restarting 0x[0-9a-fA-F]+\."
        r"|Start IWL Error Log Dump:)",
        ("Error", "Microcode", "Start"),
        Severity.WARNING,
        NET,
        "The Intel Wi-Fi adapter's firmware crashed or stopped answering (iwlwifi): the "
        "driver dumps its error log and restarts it; Wi-Fi drops while it does, the box "
        "runs on.",
        "Update linux-firmware (the iwlwifi ucode) and the kernel; if it repeats, try "
        "disabling Wi-Fi power saving (iwlwifi.power_save=0, iwlmvm.power_scheme=1) or an "
        "older ucode; the error id after 'Start IWL Error Log Dump' names the assert.",
        47,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Error sending %s: time out after %dms.",
                "drivers/net/wireless/intel/iwlwifi/pcie/tx.c",
                "4.4-6.18",
                "iwlwifi 0000:04:00.0: ",
                args=("STATISTICS_CMD", 2000),
            ),
            Format(
                "Microcode SW error detected. Restarting 0x%X.",
                "drivers/net/wireless/intel/iwlwifi/pcie/rx.c",
                "5.4-6.18",
                "iwlwifi 0000:00:14.3: ",
                args=(0,),
            ),
            Format(
                "Microcode SW error detected.  Restarting 0x%X.",
                "drivers/net/wireless/intel/iwlwifi/pcie/rx.c",
                "4.4-4.19",
                "iwlwifi 0000:02:00.0: ",
                args=(0x2000000,),
            ),
            Format(
                "Microcode SW error detected.  Restarting 0x%X.",
                "drivers/net/wireless/iwlwifi/iwl-agn.c",
                "2.6.3x-3.0",
                "iwlagn 0000:03:00.0: ",
                args=(0x2000000,),
            ),
            Format(
                "Start IWL Error Log Dump:",
                "drivers/net/wireless/intel/iwlwifi/fw/dump.c",
                "5.4-6.18",
                "iwlwifi 0000:04:00.0: ",
            ),
        ),
    ),
    # A NIC's own report that its link went down. The Intel drivers and Broadcom's print
    # "NIC Link is Down" only when a link that was up is lost (their watchdog compares with
    # netif_carrier_ok): e1000e netdev.c e1000_watchdog_task pr_info "%s NIC Link is Down"
    # (pr_fmt "e1000e: ", 3.x-6.18; printk "e1000e: %s …" in 2.6), e1000 e1000_main.c the
    # same after "e1000: ", igb igb_main.c netdev_info "igb: %s NIC Link is Down" (4.4-6.18),
    # igc, ixgbe (e_info), i40e/ice (i40e_print_link_message, ice_print_link_msg netdev_info
    # "NIC Link is Down"), bnxt bnxt_report_link and bnx2x bnx2x_link_report netdev_err "NIC
    # Link is Down", bnx2 bnx2_report_link netdev_err "NIC %s Link is Down" with the
    # transceiver ("Copper", "SerDes", "Remote Copper"; 3.x-6.18, 2.6.3x printk "bnx2: %s NIC
    # %s Link is Down"). phylib's phy_print_status netdev_info "Link is Down" (r8169 5.x+,
    # stmmac, mtk_eth, …), r8169's own netif_info "link down" (2.6-4.x), tg3's "Link is
    # down" (netif_info; 2.6.3x dev_printk then "%s: ") and mlx5e_update_carrier's "Link
    # down" are printed as well when an interface is opened before its PHY negotiated, on
    # every boot: those count only with a printk stamp past the boot's first minutes. Every
    # cable pull and switch reboot prints it: routine, the culprit only when nothing else
    # failed (a flap of several downs included: the cable, the switch port or EEE, not the
    # box); what a NIC's own failure (a transmit timeout's reset, an MDD reset, a firmware
    # fault) does to its link is that failure's, and a bond member going down is its link's.
    sig(
        "nic_link_down",
        r"\bNIC (?:(?:Remote )?(?:Copper|SerDes) )?Link is Down\b"
        r"|^(?:\S+ ){0,2}[\w.-]+: (?:Link is [Dd]own|[Ll]ink [Dd]own)\.?$",
        ("Down", "down"),
        Severity.WARNING,
        NET,
        "A network card lost its link (cable, switch port, transceiver or link partner): "
        "the interface is off the network until the link comes back up.",
        "Check the cable, the switch port and its log, and the link partner; a link that "
        "flaps (down and up again and again) is usually the cable or energy-efficient "
        "Ethernet (ethtool --set-eee <if> eee off), or the NIC's power saving (pcie_aspm=off).",
        49,
        device_kind=DeviceKind.PCI,
        routine=True,
        check=lambda m, i: "NIC" in m.group(0) or (i.ts_usec or 0) >= _BOOT_US,
        timed=True,
        formats=(
            Format(
                "%s NIC Link is Down",
                "drivers/net/ethernet/intel/e1000e/netdev.c",
                '2.6.3x-6.18 (pr_fmt "e1000e: ")',
                "e1000e: ",
                args=("eth0",),
            ),
            Format(
                "%s NIC Link is Down",
                "drivers/net/ethernet/intel/e1000/e1000_main.c",
                '3.x-6.18 (pr_fmt "e1000: ")',
                "e1000: ",
                args=("eth1",),
            ),
            Format(
                "igb: %s NIC Link is Down",
                "drivers/net/ethernet/intel/igb/igb_main.c",
                "4.4-6.18",
                "igb 0000:02:00.0 eno1: ",
                args=("eno1",),
            ),
            Format(
                "NIC Link is Down",
                "drivers/net/ethernet/intel/ixgbe/ixgbe_main.c",
                "4.4-6.18",
                "ixgbe 0000:01:00.0 enp1s0f0: ",
            ),
            Format(
                "NIC Link is Down",
                "drivers/net/ethernet/intel/i40e/i40e_main.c",
                "4.4-6.18",
                "i40e 0000:3b:00.0 ens1f0: ",
            ),
            Format(
                "NIC Link is Down",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.4-6.18",
                "ice 0000:17:00.0 ens2f0: ",
            ),
            Format(
                "NIC Link is Down",
                "drivers/net/ethernet/broadcom/bnxt/bnxt.c",
                "4.4-6.18",
                "bnxt_en 0000:3b:00.0 eno1np0: ",
            ),
            Format(
                "NIC %s Link is Down",
                "drivers/net/ethernet/broadcom/bnx2.c",
                "3.x-6.18",
                "bnx2 0000:01:00.0 eno1: ",
                args=("Copper",),
            ),
            Format(
                "Link is Down",
                "drivers/net/phy/phy.c",
                "4.4-6.18",
                "r8169 0000:02:00.0 enp2s0: ",
            ),
            Format(
                "Link is down",
                "drivers/net/ethernet/broadcom/tg3.c",
                "3.x-6.18",
                "tg3 0000:03:00.0 eth0: ",
            ),
            Format(
                "link down",
                "drivers/net/ethernet/realtek/r8169.c",
                "3.x-4.19",
                "r8169 0000:02:00.0 eth0: ",
            ),
            Format(
                "Link down",
                "drivers/net/ethernet/mellanox/mlx5/core/en_main.c",
                "4.9-6.18",
                "mlx5_core 0000:3b:00.0 ens1f0np0: ",
            ),
        ),
    ),
    # A NIC that fails its probe: the driver gives the device up and its interface never
    # appears. e1000e netdev.c e1000_probe dev_err "The NVM Checksum Is Not Valid" (2.6.3x
    # e_err, after "(unregistered net_device): "), "NVM Read Error while reading MAC
    # address", "Invalid MAC Address: %pM" (3.x-6.18); igb igb_main.c igb_probe the same
    # checksum line, "NVM Read Error", "Invalid MAC Address"; e1000 and ixgbe "The EEPROM
    # Checksum Is Not Valid"; ixgbe_probe e_dev_err "HW Init failed: %d"; i40e_probe
    # dev_info "The driver for the device stopped because the NVM image v%u.%u is newer
    # than expected v%u.%u. …" / "… because the device firmware failed to init. Try
    # updating your NVM image." and ice_aq_ver_check's dev_warn "… because the NVM image is
    # newer than expected. …", ice_probe/ice_init_dev dev_err "ice_init_hw failed: %d"
    # (5.4-6.18); r8169 rtl_init_one dev_err "unknown chip XID %03x" (4.19-5.10), "…,
    # contact r8169 maintainers (see MAINTAINERS file)" (5.11-6.18). i40e_probe's PF reset
    # that never completes: i40e_common.c i40e_pf_reset hw_dbg "PF reset polling failed to
    # complete." (dev_dbg upstream; Intel's out-of-tree i40e prints it as "i40e %02x:%02x.%x "
    # with bus:device.function and no colon), then i40e_main.c dev_info "Initial pf_reset
    # failed: %d", and the out-of-tree driver's NOT_FOR_UPSTREAM dev_warn "previous errors
    # forcing module to load in debug mode" (no netdev is made); ice_common.c ice_pf_reset
    # ice_debug the same polling line. The driver core's "probe of … failed with error" for
    # a NIC driver is probe.py's.
    sig(
        "nic_probe_failure",
        r"^(?:e1000e?|igb|igc|ixgbe) \S+(?: \(unnamed net_device\) \(uninitialized\))?:"
        r"(?: \(unregistered net_device\):)? (?:The (?:NVM|EEPROM) Checksum Is Not Valid"
        r"|NVM Read Error|Invalid MAC Address\b|HW Init failed: -?\d+)"
        r"|^(?:i40e|ice|ixgbe) \S+: The driver for the device stopped because the "
        r"(?:NVM image|device firmware)"
        r"|^ice \S+: ice_init_hw failed: -?\d+"
        r"|^r8169 \S+: unknown chip XID [0-9a-fA-F]+"
        r"|^(?:i40e|ice) \S+:? (?:PF reset polling failed to complete|Initial pf_reset "
        r"failed: -?\d+|previous errors forcing module to load in debug mode)",
        (
            "Checksum",
            "NVM",
            "Invalid",
            "Init",
            "ice_init_hw",
            "XID",
            "polling",
            "pf_reset",
            "forcing",
        ),
        Severity.ERROR,
        NET,
        "A network card failed its probe (unreadable or corrupt NVM/EEPROM, firmware that "
        "failed to initialise or is newer than the driver, an unknown chip): the driver gave "
        "it up and its interface is absent for this boot.",
        "Read the line's reason: an invalid NVM checksum is fixed with the vendor's NVM tool "
        "(Intel's bootutil/nvmupdate); a firmware newer than the driver needs a newer "
        "driver or kernel; an unknown chip needs a kernel that knows it (or the vendor's "
        "driver). Check the card is seated and the BIOS has it enabled.",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "The NVM Checksum Is Not Valid",
                "drivers/net/ethernet/intel/e1000e/netdev.c",
                "3.x-6.18",
                "e1000e 0000:00:1f.6: ",
            ),
            Format(
                "The NVM Checksum Is Not Valid",
                "drivers/net/e1000e/netdev.c",
                "2.6.3x",
                "e1000e 0000:00:19.0: (unregistered net_device): ",
            ),
            Format(
                "NVM Read Error while reading MAC address",
                "drivers/net/ethernet/intel/e1000e/netdev.c",
                "3.x-6.18",
                "e1000e 0000:02:00.0: ",
            ),
            Format(
                "Invalid MAC Address: %pM",
                "drivers/net/ethernet/intel/e1000e/netdev.c",
                "3.x-6.18",
                "e1000e 0000:02:00.0: ",
                args=("00:00:00:00:00:00",),
            ),
            Format(
                "The NVM Checksum Is Not Valid",
                "drivers/net/ethernet/intel/igb/igb_main.c",
                "4.4-6.18",
                "igb 0000:01:00.0: ",
            ),
            Format(
                "NVM Read Error",
                "drivers/net/ethernet/intel/igb/igb_main.c",
                "4.4-6.18",
                "igb 0000:01:00.0: ",
            ),
            Format(
                "The EEPROM Checksum Is Not Valid",
                "drivers/net/ethernet/intel/ixgbe/ixgbe_main.c",
                "4.4-6.18",
                "ixgbe 0000:01:00.0: ",
            ),
            Format(
                "HW Init failed: %d",
                "drivers/net/ethernet/intel/ixgbe/ixgbe_main.c",
                "4.4-6.18",
                "ixgbe 0000:01:00.0: ",
                args=(-17,),
            ),
            Format(
                "The driver for the device stopped because the NVM image v%u.%u is newer than "
                "expected v%u.%u. You must install the most recent version of the network "
                "driver.",
                "drivers/net/ethernet/intel/i40e/i40e_main.c",
                "4.19-6.18",
                "i40e 0000:3b:00.0: ",
                args=(1, 12, 1, 9),
            ),
            Format(
                "The driver for the device stopped because the device firmware failed to "
                "init. Try updating your NVM image.",
                "drivers/net/ethernet/intel/i40e/i40e_main.c",
                "4.19-6.18",
                "i40e 0000:3b:00.0: ",
            ),
            Format(
                "The driver for the device stopped because the NVM image is newer than "
                "expected. You must install the most recent version of the network driver.",
                "drivers/net/ethernet/intel/ice/ice_controlq.c",
                "5.4-6.18",
                "ice 0000:17:00.0: ",
            ),
            Format(
                "ice_init_hw failed: %d",
                "drivers/net/ethernet/intel/ice/ice_main.c",
                "5.4-6.18",
                "ice 0000:17:00.0: ",
                args=(-105,),
            ),
            Format(
                "PF reset polling failed to complete.",
                "drivers/net/ethernet/intel/i40e/i40e_common.c",
                "4.4-6.18 (dev_dbg)",
                "i40e 0000:03:00.0: ",
            ),
            Format(
                "PF reset polling failed to complete.",
                "i40e-oot:src/i40e_common.c",
                "out-of-tree i40e 2.x",
                "i40e 03:00.0 ",
            ),
            Format(
                "Initial pf_reset failed: %d",
                "drivers/net/ethernet/intel/i40e/i40e_main.c",
                "4.4-6.1",
                "i40e 0000:03:00.0: ",
                args=(-15,),
            ),
            Format(
                "previous errors forcing module to load in debug mode",
                "i40e-oot:src/i40e_main.c",
                "out-of-tree i40e 2.x",
                "i40e 0000:03:00.0: ",
            ),
            Format(
                "unknown chip XID %03x",
                "drivers/net/ethernet/realtek/r8169.c",
                "4.19-5.10",
                "r8169 0000:03:00.0: ",
                args=(0x641,),
            ),
            Format(
                "unknown chip XID %03x, contact r8169 maintainers (see MAINTAINERS file)",
                "drivers/net/ethernet/realtek/r8169_main.c",
                "5.11-6.18",
                "r8169 0000:03:00.0: ",
                args=(0x6C9,),
            ),
        ),
    ),
    # Realtek r8169: the driver polls a chip register for a command to complete (a reset,
    # an ERI/PHY/OCP register access, the transmit FIFO draining) and gives up: r8169.c
    # rtl_loop_wait netif_err "%s == %d (loop: %d, delay: %d)." with the condition's name
    # ("rtl_chipcmd_cond", "rtl_eriar_cond", "rtl_phyar_cond", "rtl_txcfg_empty_cond", …)
    # (3.x-5.1; r8169_main.c 5.2-6.x), netdev_err behind net_ratelimit with "delay: %lu"
    # (6.x, fsleep); Realtek's own out-of-tree r8168/r8125/r8126 drivers print the same
    # line. The chip stopped answering its registers: the NIC is hung until a
    # reset or a power cycle (its transmit watchdog, printed first or after, is the same
    # stall: one stage, time decides).
    sig(
        "r8169_chip_timeout",
        r"^r81(?:69|68|25|26) \S+ (?:[\w.-]+|\(unnamed net_device\) \(uninitialized\)): "
        r"rtl_\w+_cond == [01] "
        r"\(loop: \d+, delay: \d+\)\.",
        ("loop",),
        Severity.ERROR,
        NET,
        "A Realtek NIC (r8169) stopped answering its registers: a command the driver sent "
        "the chip (a reset, a PHY or register access) never completed, so the NIC is hung.",
        "Disable the NIC's power saving (pcie_aspm=off, or ASPM off for that port; ethtool "
        "--set-eee off), update the kernel (r8169 fixes per chip) or try Realtek's r8168 "
        "driver; a chip that keeps timing out after a cold power cycle is failing.",
        48,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "%s == %d (loop: %d, delay: %d).",
                "drivers/net/ethernet/realtek/r8169_main.c",
                "3.x-6.x (r8169.c before 5.2)",
                "r8169 0000:03:00.0 eth0: ",
                args=("rtl_chipcmd_cond", 1, 100, 100),
            ),
            Format(
                "%s == %d (loop: %d, delay: %lu).",
                "drivers/net/ethernet/realtek/r8169_main.c",
                "6.x (fsleep)",
                "r8169 0000:03:00.0 enp3s0: ",
                args=("rtl_eriar_cond", 1, 100, 100),
            ),
        ),
    ),
    # Amazon's ENA (drivers/net/ethernet/amazon/ena/ena_netdev.c check_for_missing_keep_alive):
    # the device sends a keep-alive event every second; none for keep_alive_timeout, and
    # netif_err "Keep alive watchdog timeout." (4.9-6.18), then the driver resets the
    # device. The NIC (the Nitro card's firmware) stopped; the instance is off the network
    # until the reset completes.
    sig(
        "ena_keep_alive_timeout",
        r"^ena \S+ [\w.-]+: Keep alive watchdog timeout\.",
        ("Keep",),
        Severity.ERROR,
        NET,
        "An AWS ENA network device stopped sending its keep-alive events: the device (the "
        "Nitro card's firmware) hung, and the driver resets it; the instance is off the "
        "network meanwhile.",
        "Update the ENA driver (the distribution's or amzn-drivers); if it repeats, stop "
        "and start the instance (a new host) and report the instance and time to AWS.",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Keep alive watchdog timeout.",
                "drivers/net/ethernet/amazon/ena/ena_netdev.c",
                "4.9-6.18",
                "ena 0000:00:05.0 eth0: ",
            ),
        ),
    ),
    # Mellanox ConnectX-3 (mlx4) firmware that stops: mlx4/cmd.c mlx4_cmd_poll and
    # mlx4_cmd_wait mlx4_warn "command 0x%x timed out (go bit not cleared)" (3.x-6.18; a
    # command the firmware never completed), catas.c dump_err_buf mlx4_err "Internal error
    # detected:" (3.x-6.18; the firmware's catastrophic-error buffer follows), and the
    # driver resets the device; mlx4_warn/mlx4_err are dev_printk of the PCI function.
    sig(
        "mlx4_firmware_error",
        r"^mlx4_core \S+: (?:command 0x[0-9a-fA-F]+ timed out \(go bit not cleared\)"
        r"|Internal error detected:)",
        ("mlx4_core",),
        Severity.ERROR,
        NET,
        "A Mellanox ConnectX-3 adapter's firmware (mlx4) stopped: a firmware command never "
        "completed or the firmware reported a catastrophic internal error; its ports (and "
        "their RDMA traffic) stop until the driver resets it.",
        "Update the adapter firmware (mstflint) and the driver; check its cooling and PCIe "
        "slot (AER errors); one that keeps failing after a cold power cycle is failing.",
        46,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "command 0x%x timed out (go bit not cleared)",
                "drivers/net/ethernet/mellanox/mlx4/cmd.c",
                "3.x-6.18",
                "mlx4_core 0000:04:00.0: ",
                args=(0x23,),
            ),
            Format(
                "Internal error detected:",
                "drivers/net/ethernet/mellanox/mlx4/catas.c",
                "3.x-6.18",
                "mlx4_core 0000:04:00.0: ",
            ),
        ),
    ),
    # Qualcomm Atheros Wi-Fi firmware that crashed: ath10k pci.c/snoc.c/sdio.c
    # ath10k_err "firmware crashed! (guid %s)" (4.14-6.18; "(uuid %s)" 4.4-4.13), ath11k
    # and ath12k mhi.c ath1xk_mhi_op_status_cb ath11k_warn "firmware crashed:
    # MHI_CB_SYS_ERROR" / "firmware crashed: MHI_CB_EE_RDDM" (ath11k 5.10-6.18, ath12k
    # 6.5-6.18). The driver restarts the firmware: Wi-Fi drops while it does, the box runs on.
    sig(
        "ath_firmware_crash",
        r"^ath1[012]k_\w+ \S+: firmware crashed(?:! \((?:guid|uuid) [\w/-]+\)"
        r"|: MHI_CB_(?:EE_RDDM|SYS_ERROR))",
        ("crashed",),
        Severity.WARNING,
        NET,
        "The Qualcomm Atheros Wi-Fi adapter's firmware crashed (ath10k/ath11k/ath12k): the "
        "driver restarts it; Wi-Fi drops while it does, the box runs on.",
        "Update linux-firmware (the ath10k/ath11k board and firmware files) and the kernel; "
        "a crash at every start is a firmware or board file that does not match the card.",
        47,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "firmware crashed! (guid %s)",
                "drivers/net/wireless/ath/ath10k/pci.c",
                "4.14-6.18",
                "ath10k_pci 0000:02:00.0: ",
                args=("5c7b1f53-a2f9-4d2f-b5a2-62d1a5b5f5e1",),
            ),
            Format(
                "firmware crashed! (uuid %s)",
                "drivers/net/wireless/ath/ath10k/pci.c",
                "4.4-4.13",
                "ath10k_pci 0000:02:00.0: ",
                args=("5c7b1f53-a2f9-4d2f-b5a2-62d1a5b5f5e1",),
            ),
            Format(
                "firmware crashed: MHI_CB_EE_RDDM",
                "drivers/net/wireless/ath/ath11k/mhi.c",
                "5.10-6.18",
                "ath11k_pci 0000:01:00.0: ",
            ),
            Format(
                "firmware crashed: MHI_CB_SYS_ERROR",
                "drivers/net/wireless/ath/ath12k/mhi.c",
                "6.5-6.18",
                "ath12k_pci 0000:03:00.0: ",
            ),
        ),
    ),
    # MediaTek Wi-Fi (mt76: mt7615, mt7915, mt7921, mt7925, mt7996): a message to the
    # chip's MCU firmware got no answer: mt76 <chip>/mcu.c <chip>_mcu_parse_response
    # dev_err "Message %08x (seq %d) timeout" (5.13-6.18; "Message %ld (seq %d) timeout"
    # before), after which mt7921/mt792x reset the chip. Wi-Fi drops, the box runs on.
    sig(
        "mt76_mcu_timeout",
        r"^mt7\w+ \S+: Message (?:[0-9a-fA-F]{8}|\d+) \(seq \d+\) timeout",
        ("Message",),
        Severity.WARNING,
        NET,
        "The MediaTek Wi-Fi adapter's firmware (mt76 MCU) stopped answering the driver's "
        "messages: the driver resets the chip; Wi-Fi drops while it does, the box runs on.",
        "Update linux-firmware (the mediatek files) and the kernel; disable the adapter's "
        "power saving (iw dev <if> set power_save off, or pcie_aspm=off) if it repeats.",
        47,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "Message %08x (seq %d) timeout",
                "drivers/net/wireless/mediatek/mt76/mt7921/mcu.c",
                "5.13-6.18",
                "mt7921e 0000:01:00.0: ",
                args=(0x20007, 10),
            ),
            Format(
                "Message %ld (seq %d) timeout",
                "drivers/net/wireless/mediatek/mt76/mt7615/mcu.c",
                "5.2-5.12",
                "mt7615e 0000:01:00.0: ",
                args=(23, 4),
            ),
        ),
    ),
    # net/ipv4/tcp_input.c tcp_syn_flood_action: a listener's SYN queue is full and the
    # kernel answers with SYN cookies (or drops): net_info_ratelimited "%s: Possible SYN
    # flooding on port %d. %s.  Check SNMP counters." after pr_fmt "TCP: " (4.4-6.x, the
    # proto's request_sock name first: "request_sock_TCP", "request_sock_TCPv6"), "… on port
    # %pISpc. %s." (6.x, the address and port), and 2.6.3x-3.x's "possible SYN flooding on
    # port %d. Sending cookies." An overloaded or attacked service, not a box failure:
    # routine, blamed only alone.
    sig(
        "tcp_syn_flood",
        r"[Pp]ossible SYN flooding on port \S+\. (?:Sending cookies|Dropping request)",
        ("SYN",),
        Severity.WARNING,
        NET,
        "A listening TCP port's queue of half-open connections filled up (a SYN flood, or a "
        "service accepting too slowly): the kernel answers with SYN cookies or drops new "
        "connections.",
        "Find the port's service (ss -ltn): raise its listen backlog (and net.core.somaxconn, "
        "net.ipv4.tcp_max_syn_backlog) if it is only slow, or filter the flood upstream.",
        50,
        routine=True,
        formats=(
            Format(
                "%s: Possible SYN flooding on port %d. %s.  Check SNMP counters.",
                "net/ipv4/tcp_input.c",
                '4.4-6.1 (pr_fmt "TCP: ")',
                "TCP: ",
                args=("request_sock_TCP", 80, "Sending cookies"),
            ),
            Format(
                "%s: Possible SYN flooding on port %pISpc. %s.",
                "net/ipv4/tcp_input.c",
                '6.x (pr_fmt "TCP: ")',
                "TCP: ",
                args=("request_sock_TCPv6", "[::]:443", "Dropping request"),
            ),
            Format(
                "possible SYN flooding on port %d. Sending cookies.",
                "net/ipv4/tcp_input.c",
                "2.6.3x-3.x",
                args=(4671,),
            ),
        ),
    ),
)
