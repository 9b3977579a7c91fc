"""Network device signatures: the stack's transmit watchdog.

net/sched/sch_generic.c dev_watchdog runs every `watchdog_timeo` (5 s for most drivers) and
calls the driver's ndo_tx_timeout when a transmit queue stayed stopped that long: the NIC
stopped taking packets. Most drivers reset the NIC from that callback; a link that keeps
timing out is a NIC, firmware, cable or driver failure, and the box drops off the network.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

NET = "net"

NET_SIGNATURES: tuple[Signature, ...] = (
    # net/sched/sch_generic.c dev_watchdog: WARN_ONCE(1, "NETDEV WATCHDOG: %s (%s): transmit
    # queue %u timed out\n", dev->name, netdev_drivername(dev), i) (2.6.3x-5.x, so after the
    # WARNING header, and for the first timeout of the boot only); 6.x added the time ("...
    # timed out %u ms") and then made it netdev_crit(dev, "NETDEV WATCHDOG: CPU: %d: transmit
    # queue %u timed out %u ms\n"), printed every time behind netdev_printk's "<driver> <bus
    # id> <ifname>: "
    sig(
        "netdev_tx_timeout",
        r"NETDEV WATCHDOG: (?:\S+ \(.*\)|CPU: \d+): transmit queue \d+ timed out",
        ("WATCHDOG",),
        Severity.ERROR,
        NET,
        "A network card stopped sending: a transmit queue stayed stopped past the watchdog "
        "timeout, and the driver reset the card.",
        "Note the driver and interface on the line: update the NIC firmware and driver, check "
        "the cable and switch port; a timeout that repeats takes the box off the network "
        "(try disabling the NIC's power saving: ethtool --set-eee, pcie_aspm=off).",
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
                "NETDEV WATCHDOG: CPU: %d: transmit queue %u timed out %u ms",
                "net/sched/sch_generic.c",
                "6.8-6.18",
                "r8169 0000:05:00.0 enp5s0: ",
                args=(3, 0, 5120),
            ),
        ),
    ),
)
