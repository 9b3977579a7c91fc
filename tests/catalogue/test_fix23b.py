"""Cluster-storage wordings corpus batch 23 (docs/accuracy.md) showed missing: each line as
its source's format string prints it (file named in the catalogue entry), the lines with the
same words that must not match, and what the judge makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from kmsgd.logparse.origin import kernel_opening
from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
FIX23B_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "drbd_network_failure": (
        [
            "drbd r0: PingAck did not arrive in time.",
            "drbd u12215 nodeA: PingAck did not arrive in time.",
            "block drbd0: PingAck did not arrive in time.",
            "d-con r0: PingAck did not arrive in time.",
            "drbd pgsql peer1: meta connection shut down by peer.",
            "block drbd0: meta connection shut down by peer.",
            "drbd r0: sock was shut down by peer",
            "drbd r0: conn( Connected -> NetworkFailure ) ",
            "drbd r0 nodeA: conn( Connected -> NetworkFailure ) peer( Secondary -> Unknown )",
            "drbd r0 nodeB: conn( Connected -> Timeout ) peer( Primary -> Unknown )",
            "block drbd0: role( Primary -> Secondary ) conn( WFReportParams -> BrokenPipe ) ",
            "drbd r0: conn( Connected -> ProtocolError ) ",
        ],
        [
            # the reconnect after the failure, an administrator's disconnect, role changes
            "drbd r0 nodeA: conn( NetworkFailure -> Unconnected ) [disconnected]",
            "drbd r0 nodeA: conn( Unconnected -> Connecting ) [connecting]",
            "drbd r0: conn( Connected -> Disconnecting ) peer( Secondary -> Unknown )",
            "drbd r0: conn( Disconnecting -> StandAlone ) ",
            "drbd r0 nodeA: conn( Connected -> TearDown ) peer( Primary -> Unknown )",
            "drbd r0: role( Secondary -> Primary ) ",
            "drbd r0 nodeA: Connection closed",
            "drbd r0 nodeA: helper command: /sbin/drbdadm disconnected exit code 0",
            "drbd r0/0 drbd1: disk( UpToDate -> Consistent )",
            # other programs' sockets
            "sshd[812]: Connection closed by peer",
        ],
    ),
    "nic_probe_failure": (
        [
            "i40e 03:00.0 PF reset polling failed to complete.",  # out-of-tree hw_dbg
            "i40e 0000:03:00.0: PF reset polling failed to complete.",
            "ice 0000:17:00.0: PF reset polling failed to complete.",
            "i40e 0000:03:00.0: Initial pf_reset failed: -15",
            "i40e 0000:03:00.0: previous errors forcing module to load in debug mode",
        ],
        [
            "i40e 0000:03:00.0: PF reset done",
            "i40e: Intel(R) Ethernet Connection XL710 Network Driver",
            "i40e 0000:03:00.0 eth2: NIC Link is Up, 40 Gbps Full Duplex",
            "ixgbe 0000:01:00.0: PF reset polling failed to complete.",  # not its wording
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX23B_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(FIX23B_EXAMPLES, tag)


def _primary(text: str) -> str:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return report.primary.tag if report.primary else ""


def test_a_lost_drbd_link_in_a_host_less_paste_is_the_culprit() -> None:
    # bare dmesg lines: the DRBD prefix alone says they are the kernel's
    paste = (
        "drbd r0 nodeB: PingAck did not arrive in time.\n"
        "drbd r0 nodeB: conn( Connected -> NetworkFailure ) peer( Primary -> Unknown )\n"
        "drbd r0 nodeB: Connection closed\n"
        "drbd r0 nodeB: conn( NetworkFailure -> Unconnected )\n"
    )
    assert _primary(paste) == "drbd_network_failure"


def test_routine_drbd_state_changes_name_no_culprit() -> None:
    paste = (
        "[  10.000000] drbd r0: conn( StandAlone -> Unconnected ) \n"
        "[  10.100000] drbd r0: conn( Unconnected -> WFConnection ) \n"
        "[  11.000000] drbd r0: conn( WFConnection -> WFReportParams ) \n"
        "[  11.200000] block drbd0: conn( WFReportParams -> Connected ) pdsk( DUnknown -> "
        "UpToDate ) \n"
        "[  12.000000] block drbd0: role( Secondary -> Primary ) \n"
    )
    assert _primary(paste) == ""


def test_a_bare_i40e_probe_paste_is_read_and_names_the_nic() -> None:
    # no stamp, no "kernel:": the driver's banner and its out-of-tree hw_dbg prefix say so
    paste = (
        "i40e: Intel(R) 40-10 Gigabit Ethernet Connection Network Driver - version 2.4.6\n"
        "i40e 03:00.0 Core and Global modules ready 0\n"
        "i40e 03:00.0 PF reset polling failed to complete.\n"
    )
    assert _primary(paste) == "nic_probe_failure"


def test_prose_about_the_driver_is_not_a_kernel_line() -> None:
    assert not kernel_opening("i40e is the driver, and 03:00.0 is the port")
    assert not kernel_opening("ice cream: PF reset polling failed to complete.")
    assert kernel_opening("i40e: Copyright(c) 2013-2018 Intel Corporation.")
