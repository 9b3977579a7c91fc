"""The network and virtualisation families swept from their source (the format strings are
in each catalogue entry's `formats`): each failure line as its source prints it, with the
prefix its macro adds, the routine lines with the same words that must stay routine or
untagged, and each entry's place in the culprit order."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord

LATE = 566322.867110  # a printk stamp days into a boot
E1000E = "e1000e 0000:00:1f.6: "
R8169 = "r8169 0000:02:00.0 enp2s0: "

# tag → (positives, negatives); "@<seconds> " gives the line a printk stamp
SWEEP_NET_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "nic_link_down": (
        [
            "e1000e: eth0 NIC Link is Down",
            "e1000: eth1 NIC Link is Down",
            "igb 0000:02:00.0 eno1: igb: eno1 NIC Link is Down",
            "ixgbe 0000:01:00.0 enp1s0f0: NIC Link is Down",
            "i40e 0000:3b:00.0 ens1f0: NIC Link is Down",
            "ice 0000:17:00.0 ens2f0: NIC Link is Down",
            "igc 0000:05:00.0 enp5s0: NIC Link is Down",
            "bnxt_en 0000:3b:00.0 eno1np0: NIC Link is Down",
            "bnx2 0000:01:00.0 eno1: NIC Copper Link is Down",
            "bnx2 0000:01:00.0 eno2: NIC Remote Copper Link is Down",
            "bnx2: eth0 NIC SerDes Link is Down",
            # phylib, tg3, r8169 and mlx5 print it at every open too: only past the boot
            f"@{LATE} {R8169}Link is Down",
            f"@{LATE} tg3 0000:03:00.0 eth0: Link is down",
            f"@{LATE} tg3 0000:03:00.0: eth0: Link is down",  # 3.x: dev_printk, then "%s: "
            f"@{LATE} tg3: eth0: Link is down.",  # 2.6.3x: printk(PFX "%s: …")
            f"@{LATE} r8169 0000:02:00.0 eth0: link down",
            f"@{LATE} r8169: eth0: link down",
            f"@{LATE} mlx5_core 0000:3b:00.0 ens1f0np0: Link down",
            f"@{LATE} st_gmac ff540000.ethernet eth0: Link is Down",
        ],
        [
            "e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx",
            "bnx2 0000:01:00.0 eno1: NIC Copper Link is Up, 1000 Mbps full duplex",
            f"@{LATE} {R8169}Link is Up - 1Gbps/Full - flow control rx/tx",
            # an interface opened at boot before its PHY negotiated, or with no stamp
            f"@5.684830 {R8169}Link is Down",
            f"{R8169}Link is Down",
            "@19.934194 tg3 0000:03:00.0: eth0: Link is down",
            "IPv6: ADDRCONF(NETDEV_UP): enp2s0: link is not ready",
            "bond0: (slave eth0): link status definitely down, disabling slave",
            "pcieport 0000:00:01.1: pciehp: Slot(0): Link Down",
            f"@{LATE} usb 1-1: USB disconnect, device number 2",
        ],
    ),
    "nic_probe_failure": (
        [
            E1000E + "The NVM Checksum Is Not Valid",
            "e1000e 0000:00:19.0: (unregistered net_device): The NVM Checksum Is Not Valid",
            "e1000e 0000:02:00.0: NVM Read Error while reading MAC address",
            "e1000e 0000:02:00.0: Invalid MAC Address: 00:00:00:00:00:00",
            "igb 0000:01:00.0: The NVM Checksum Is Not Valid",
            "igb 0000:01:00.0: NVM Read Error",
            "ixgbe 0000:01:00.0: The EEPROM Checksum Is Not Valid",
            "ixgbe 0000:01:00.0: HW Init failed: -17",
            "i40e 0000:3b:00.0: The driver for the device stopped because the NVM image v1.12 "
            "is newer than expected v1.9. You must install the most recent version of the "
            "network driver.",
            "i40e 0000:3b:00.0: The driver for the device stopped because the device firmware "
            "failed to init. Try updating your NVM image.",
            "ice 0000:17:00.0: The driver for the device stopped because the NVM image is "
            "newer than expected. You must install the most recent version of the network "
            "driver.",
            "ice 0000:17:00.0: ice_init_hw failed: -105",
            "r8169 0000:03:00.0: unknown chip XID 641",
            "r8169 0000:03:00.0: unknown chip XID 6c9, contact r8169 maintainers (see "
            "MAINTAINERS file)",
            # drivers/base/dd.c, for the NIC drivers (4.4-6.8, then 6.12's dev_err)
            "e1000e: probe of 0000:00:1f.6 failed with error -5",
            "igb: probe of 0000:01:00.0 failed with error -2",
            "r8169: probe of 0000:03:00.0 failed with error -22",
            "bnxt_en 0000:3b:00.0: probe with driver bnxt_en failed with error -16",
        ],
        [
            "e1000e: Intel(R) PRO/1000 Network Driver - 3.2.6-k",
            E1000E + "Interrupt Throttling Rate (ints/sec) set to dynamic conservative mode",
            "i40e 0000:3b:00.0: fw 8.5.67516 api 1.15 nvm 8.60 0x8000be1e 1.3179.0 "
            "[8086:1572] [8086:0006]",
            "r8169 0000:03:00.0 eth0: RTL8168h/8111h, 00:e0:4c:68:00:01, XID 541, IRQ 128",
            # other drivers' probe failures say nothing of a NIC
            "snd_hda_intel: probe of 0000:00:1f.3 failed with error -22",
            "intel_rapl_msr: probe of intel_rapl_msr.0 failed with error -22",
            "r8152: probe of 2-1:1.0 failed with error -71",  # a USB NIC on a flaky hub
        ],
    ),
    "kvm_virtualization_enable_failure": (
        [
            "kvm: enabling virtualization on CPU7 failed",
            "kvm: enabling virtualization on CPU3 failed during hardware_enable_all()",
        ],
        [
            # a configuration printed at module load on every boot of such a box
            "kvm: disabled by bios",
            "kvm: no hardware support",
            "kvm_intel: VMX not supported by CPU 0",
            "kvm_amd: SVM not supported by CPU 1, not amd or hygon",
            "kvm: Nested Virtualization enabled",
        ],
    ),
    "r8169_chip_timeout": (
        [
            "r8169 0000:03:00.0 eth0: rtl_chipcmd_cond == 1 (loop: 100, delay: 100).",
            "r8169 0000:03:00.0 enp3s0: rtl_eriar_cond == 1 (loop: 100, delay: 100).",
            "r8169 0000:03:00.0 enp3s0: rtl_txcfg_empty_cond == 0 (loop: 42, delay: 100).",
            "r8125 0000:22:04.0 eth4: rtl_rxtx_empty_cond == 0 (loop: 42, delay: 100).",
        ],
        [
            "r8169 0000:03:00.0 eth0: RTL8168h/8111h, 00:e0:4c:68:00:01, XID 541, IRQ 128",
            "r8169 0000:03:00.0: can't disable ASPM; OS doesn't have ASPM control",
        ],
    ),
    "ena_keep_alive_timeout": (
        ["ena 0000:00:05.0 eth0: Keep alive watchdog timeout."],
        [
            "ena 0000:00:05.0: Elastic Network Adapter (ENA) found at mem febf4000, mac addr "
            "02:c5:8a:1b:2c:3d",
            "ena 0000:00:05.0 eth0: Device reset completed successfully, Driver info: "
            "Elastic Network Adapter (ENA) v2.8.0g",
        ],
    ),
    "mlx4_firmware_error": (
        [
            "mlx4_core 0000:04:00.0: command 0x23 timed out (go bit not cleared)",
            "mlx4_core 0000:04:00.0: Internal error detected:",
        ],
        [
            "mlx4_core 0000:04:00.0: DMFS high rate steer mode is: disabled performance "
            "optimized steering",
            "mlx4_core: Mellanox ConnectX core driver v4.0-0",
        ],
    ),
    "ath_firmware_crash": (
        [
            "ath10k_pci 0000:02:00.0: firmware crashed! (guid "
            "5c7b1f53-a2f9-4d2f-b5a2-62d1a5b5f5e1)",
            "ath10k_pci 0000:02:00.0: firmware crashed! (uuid n/a)",
            "ath11k_pci 0000:01:00.0: firmware crashed: MHI_CB_EE_RDDM",
            "ath12k_pci 0000:03:00.0: firmware crashed: MHI_CB_SYS_ERROR",
        ],
        [
            "ath10k_pci 0000:02:00.0: qca6174 hw3.2 target 0x05030000 chip_id 0x00340aff "
            "sub 1a56:1535",
            "ath11k_pci 0000:01:00.0: boot notify status reason MHI_CB_EE_RDDM",
        ],
    ),
    "mt76_mcu_timeout": (
        [
            "mt7921e 0000:01:00.0: Message 00020007 (seq 10) timeout",
            "mt7615e 0000:01:00.0: Message 23 (seq 4) timeout",
        ],
        [
            "mt7921e 0000:01:00.0: HW/SW Version: 0x8a108a10, Build Time: 20230526130917a",
            "mt7921e 0000:01:00.0: Retry message 00020007 (seq 11)",
        ],
    ),
    "tcp_syn_flood": (
        [
            "TCP: request_sock_TCP: Possible SYN flooding on port 80. Sending cookies.  Check "
            "SNMP counters.",
            "TCP: request_sock_TCPv6: Possible SYN flooding on port 34391. Dropping request.  "
            "Check SNMP counters.",
            "TCP: request_sock_TCP: Possible SYN flooding on port 127.0.0.1:23456. Sending "
            "cookies.",
            "possible SYN flooding on port 4671. Sending cookies.",
        ],
        ["TCP: out of memory -- consider tuning tcp_mem"],
    ),
    # widened: tg3's and ENA's own transmit hang reports
    "netdev_tx_timeout": (
        [
            # the watchdog before it named a queue (2.6.18-2.6.26, 2.6.27-2.6.30)
            "NETDEV WATCHDOG: eth0: transmit timed out",
            "NETDEV WATCHDOG: eth0 (e1000): transmit timed out",
            "tg3 0000:02:00.0 eth0: transmit timed out, resetting",
            "tg3: eth0: transmit timed out, resetting",
            "ena 0000:00:05.0 eth0: The number of lost tx completions is above the threshold "
            "(129 > 128). Reset the device",
            # virtio_net's virtnet_tx_timeout (5.x+): the existing "TX timeout on queue"
            "virtio_net virtio0 eth0: TX timeout on queue: 0, sq: output.0, vq: 0x1, name: "
            "output.0, 5432000 usecs ago",
        ],
        ["tg3 0000:02:00.0 eth0: Tigon3 [partno(BCM95720) rev 5720000] (PCI Express)"],
    ),
    # widened: iwlwifi's lines under its pre-3.1 name and the iwlegacy drivers'
    "iwlwifi_firmware_error": (
        [
            "iwlagn 0000:03:00.0: Microcode SW error detected.  Restarting 0x2000000.",
            "iwl4965 0000:03:00.0: Microcode SW error detected.  Restarting 0x2000000.",
            "iwl3945 0000:02:00.0: Error sending REPLY_TX_PWR_TABLE_CMD: time out after 500ms.",
        ],
        ["iwlagn 0000:03:00.0: loaded firmware version 9.221.4.1 build 25532"],
    ),
    # widened: a firmware (HWRM) command that got no answer
    "bnxt_fw_fault": (
        [
            "bnxt_en 0000:3b:00.0 eno1np0: Error (timeout: 500015) msg {0x23 0x1a4} len:0",
            "bnxt_en 0000:3b:00.0 eth0: Error (timeout: 500015) msg {0xb4 0x12} len:0",
        ],
        [
            "bnxt_en 0000:3b:00.0 eth0: Broadcom BCM57414 NetXtreme-E 10Gb/25Gb RDMA Ethernet "
            "Controller found at mem 383fffe10000, node addr 00:0a:f7:aa:bb:cc",
            "bnxt_en 0000:3b:00.0: QPLIB: cmdq[0x5]=0x4 status 0x1",
        ],
    ),
    "mlx5_probe_failure": (
        ["mlx5_core: probe of 0000:61:00.0 failed with error -22"],
        ["mlx5_core 0000:61:00.0: firmware version: 16.35.2000"],
    ),
}

# lines a virtualisation host prints that are not failures: they tag nothing
ROUTINE_UNTAGGED = [
    "kvm: disabled by bios",
    "kvm [1234]: vcpu0, guest rIP: 0xffffffff8106b3a4 unhandled rdmsr: 0x34",
    "kvm [2088]: vcpu1, guest rIP: 0xffffffff9f07aef4 disabled perfctr wrmsr: 0xc2 data 0xffff",
    "e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx",
    # net/core/utils.c net_ratelimit's count of the messages it held back
    "net_ratelimit: 23 callbacks suppressed",
]


def _record(line: str, n: int = 0) -> KernelRecord:
    ts = None
    if line.startswith("@"):
        stamp, line = line[1:].split(" ", 1)
        ts = int(float(stamp) * 1e6)
    return KernelRecord(line, 3, 0, n, ts, "-")


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(_record(line))}


@pytest.mark.parametrize("tag", sorted(SWEEP_NET_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    positives, negatives = SWEEP_NET_EXAMPLES[tag]
    for line in positives:
        assert tag in _tags(line), line
    for line in negatives:
        assert tag not in _tags(line), line


@pytest.mark.parametrize("line", ROUTINE_UNTAGGED)
def test_routine_host_lines_tag_nothing(line: str) -> None:
    assert _tags(line) == set()


@pytest.mark.parametrize("tag", ["nic_link_down", "tcp_syn_flood"])
def test_a_link_down_and_a_syn_flood_are_routine(tag: str) -> None:
    """Every cable pull prints the one, every busy or attacked service the other: reported,
    never blamed over a failure of the box."""
    line = SWEEP_NET_EXAMPLES[tag][0][0]
    (hit,) = [h for h in match_record(_record(line)) if h.tag == tag]
    assert hit.signature.routine
    assert _primary(line, HUNG) == "hung_task"
    assert _primary(line) == tag


def _primary(*lines: str) -> str | None:
    """The culprit of `lines`, one a second from `LATE` on (the stamp a line gives wins)."""
    recs = []
    for n, line in enumerate(lines):
        if not line.startswith("@"):
            line = f"@{LATE + n} {line}"
        recs.append(_record(line, n))
    p = classify(Timeline.from_records(recs)).primary
    return p.tag if p is not None else None


DOWN = "e1000e: eth0 NIC Link is Down"
UP = "e1000e: eth0 NIC Link is Up 1000 Mbps Full Duplex, Flow Control: Rx/Tx"
HUNG = "INFO: task nfsd:1234 blocked for more than 122 seconds."


def test_a_flapping_link_alone_is_the_culprit() -> None:
    assert _primary(DOWN, UP, DOWN, UP, DOWN, UP) == "nic_link_down"


def test_a_link_down_never_leads_a_failure() -> None:
    # e1000e's hang check resets the NIC, which drops its link
    hang = E1000E.replace(": ", " eno1: ") + "Detected Hardware Unit Hang:"
    assert _primary(hang, DOWN, UP) == "netdev_tx_timeout"
    # the storage behind the link fails: the failure the labellers name leads
    iscsi = " connection1:0: ping timeout of 5 secs expired, recv timeout 5, last rx 1, "
    iscsi += "last ping 2, now 3"
    assert _primary(DOWN, iscsi) == "iscsi_connection_error"
    assert _primary(DOWN, HUNG) == "hung_task"


def test_a_bond_member_goes_down_with_its_nic_link() -> None:
    bond = "bond0: (slave eth0): link status definitely down, disabling slave"
    assert _primary(DOWN, bond) == "nic_link_down"
    assert _primary(bond) == "bond_link_down"


def test_a_nic_that_fails_its_probe_is_the_culprit() -> None:
    assert (
        _primary(
            "e1000e: Intel(R) PRO/1000 Network Driver - 3.2.6-k",
            E1000E + "The NVM Checksum Is Not Valid",
            "e1000e: probe of 0000:00:1f.6 failed with error -5",
        )
        == "nic_probe_failure"
    )


def test_the_missing_firmware_leads_the_probe_it_fails() -> None:
    fw = 'bnx2: Can\'t load firmware file "bnx2/bnx2-mips-09-6.2.1b.fw"'
    assert _primary(fw, "bnx2: probe of 0000:01:00.0 failed with error -2") == (
        "firmware_load_failure"
    )


def test_kvm_failing_to_enable_is_the_culprit_and_its_refusals_at_load_are_not() -> None:
    fails = [f"kvm: enabling virtualization on CPU{c} failed" for c in (7, 6, 10, 0)]
    assert _primary(*fails) == "kvm_virtualization_enable_failure"
    assert _primary("kvm: disabled by bios", "kvm: no hardware support") is None


def test_a_realtek_chip_that_stops_answering_after_its_watchdog_is_one_stall() -> None:
    """r8169's transmit timeout resets the chip, whose register polls then time out: the
    watchdog, printed first, leads; alone, the poll's timeout does."""
    watchdog = (
        "r8125 0000:22:04.0 eth4: NETDEV WATCHDOG: CPU: 3: transmit queue 0 timed out 5010 ms"
    )
    poll = "r8125 0000:22:04.0 eth4: rtl_rxtx_empty_cond == 0 (loop: 42, delay: 100)."
    assert _primary(watchdog, poll) == "netdev_tx_timeout"
    assert _primary(poll) == "r8169_chip_timeout"


@pytest.mark.parametrize(
    "cause",
    [
        "ena 0000:00:05.0 eth0: Keep alive watchdog timeout.",
        "mlx4_core 0000:04:00.0: command 0x23 timed out (go bit not cleared)",
    ],
)
def test_a_stopped_nic_firmware_leads_its_transmit_timeout(cause: str) -> None:
    tx = "NETDEV WATCHDOG: eth0 (ena): transmit queue 0 timed out"
    assert _primary(cause, tx) not in (None, "netdev_tx_timeout")


def test_a_wifi_firmware_crash_never_leads_a_gpu_failure() -> None:
    """Like iwlwifi's: the GPU's stage is upstream of a Wi-Fi adapter's, whichever is first."""
    gpu = (
        "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, "
        "emitted seq=3"
    )
    for crash in (
        "ath11k_pci 0000:01:00.0: firmware crashed: MHI_CB_EE_RDDM",
        "mt7921e 0000:01:00.0: Message 00020007 (seq 10) timeout",
    ):
        assert _primary(crash, gpu) == "amdgpu_ring_timeout"
    assert _primary("ath11k_pci 0000:01:00.0: firmware crashed: MHI_CB_EE_RDDM") == (
        "ath_firmware_crash"
    )
