"""Two 2.6-3.x wordings corpus batch 21 (docs/accuracy.md) showed missing: the bonding
driver's link-down line under its old pr_fmt "bonding: ", alone on a bare line, and
clocksource_unstable's "Clocksource %s unstable (delta = %Ld ns)" (kernel/time/
clocksource.c before "Marking clocksource … as unstable"), with RHEL 6's failover hint."""

from __future__ import annotations

from tests.catalogue.lines import paste_primary


def test_old_bonding_link_down_on_a_bare_line_is_read_not_refused() -> None:
    line = "bonding: bond0: link status definitely down for interface eth0, disabling it\n"
    assert paste_primary(line) == "bond_link_down"
    # the up event of the same driver is no failure
    assert paste_primary("bonding: bond0: link status definitely up for interface eth0.\n") is None


def test_the_2_6_clocksource_wording_with_rhel_6s_hint_is_clocksource_unstable() -> None:
    line = (
        "2013-07-16T05:00:05.181538-04:00 host kernel: Clocksource tsc unstable (delta = "
        "-95170507948 ns).  Enable clocksource failover by adding clocksource_failover kernel "
        "parameter.\n"
    )
    assert paste_primary(line) == "clocksource_unstable"
    stall = "host kernel: BUG: soft lockup - CPU#2 stuck for 67s! [java:4111]\n"
    assert paste_primary(stall.replace("host", "2013-07-16T05:00:04.000000-04:00 host") + line) == (
        "soft_lockup"
    )  # routine: never a culprit over the stall it follows
