"""Wordings and culprit-order rules corpus batch 11 (docs/accuracy.md) showed missing: each
line as its source's format string prints it (file named in the catalogue entry), the lines
with the same words that must not match, and the order rules with a small timeline each."""

from __future__ import annotations

import pytest

from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord
from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
BATCH11_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "hpwdt_nmi": (
        [
            "Kernel panic - not syncing: 04: An NMI occurred. Depending on your system the "
            "reason for the NMI is logged in any one of the following resources:",
            "Kernel panic - not syncing: An NMI occurred. Depending on your system the reason "
            "for the NMI is logged in any one of the following resources:",
            "Kernel panic - not syncing: An NMI occurred, but unable to determine source.",
        ],
        [
            "Uhhuh. NMI received for unknown reason 2d on CPU 0.",
            "hpwdt 0000:01:00.0: HPE Watchdog Timer Driver: Version: 2.0.4",
            "INFO: NMI handler (hpwdt_pretimeout) took too long to run: 1.234 msecs",
        ],
    ),
    "kernel_panic": (
        [
            "Kernel panic: CPU context corrupt",  # 2.4 and early 2.6 panic()
            "Kernel panic: Attempted to kill init!",
            "Kernel panic - not syncing: Fatal hardware error!",
        ],
        ["Kernel panic:", "kernel panic: boot loader message"],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH11_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH11_EXAMPLES, tag)


def _primary(*stamped: tuple[float, str]) -> str | None:
    recs = [
        KernelRecord(m, 3, 0, n, int(secs * 1_000_000), "-")
        for n, (secs, m) in enumerate(stamped, 1)
    ]
    verdict = classify(Timeline.from_records(recs))
    return verdict.primary.tag if verdict.primary else None


def test_the_iLO_watchdog_nmi_leads_the_panic_it_calls() -> None:
    assert (
        _primary(
            (
                479.9,
                "Kernel panic - not syncing: 04: An NMI occurred. Depending on your system "
                "the reason for the NMI is logged in any one of the following resources:",
            ),
            (479.9, "CPU: 0 PID: 3397 Comm: packet-filter Tainted: G OE 3.10.0-1160.el7.x86_64"),
        )
        == "hpwdt_nmi"
    )


SOFT = "watchdog: BUG: soft lockup - CPU#{} stuck for 27s! [node:1984]"
HARD = "NMI watchdog: Watchdog detected hard LOCKUP on cpu {}"


def test_a_stall_chain_longer_than_the_final_window_is_led_by_its_first_report() -> None:
    # soft lockups from 55716 s, a hard lockup at 55787 s, reports to 56076 s: the final
    # window (300 s back from the last line) starts in the middle of the chain
    assert (
        _primary(
            (55716.3, SOFT.format(0)),
            (55773.1, SOFT.format(1)),
            (55787.1, HARD.format(3)),
            (55937.2, SOFT.format(23)),
            (55939.9, HARD.format(10)),
            (56076.2, SOFT.format(20)),
        )
        == "soft_lockup"
    )
    # the first of the two detectors to report a stuck machine leads, either way round
    assert _primary((100.0, HARD.format(3)), (130.0, SOFT.format(5))) == "hard_lockup"
    assert _primary((100.0, SOFT.format(5)), (130.0, HARD.format(3))) == "soft_lockup"


def test_a_failure_long_before_the_final_window_stays_out_of_its_chain() -> None:
    # an hour between them: the earlier lockup is another incident, not this chain's start
    assert _primary((100.0, SOFT.format(0)), (3800.0, HARD.format(3))) == "hard_lockup"
