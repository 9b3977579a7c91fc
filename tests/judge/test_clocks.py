"""Downtime checked against both boots' clocks: an RTC hours off must not flip the verdict."""

from __future__ import annotations

import pytest

from kmsgd.judge.clocks import ClockStep, StepKind, downtime, rtc_in_local_time, steps_between

S = 1_000_000
LAST = 1_764_400_000 * S


def test_clocks_that_agree_give_the_plain_difference() -> None:
    d = downtime(LAST, LAST + 41 * S)
    assert d.seconds == 41 and d.note == "" and d.trusted


def test_a_next_boot_before_the_last_sign_of_life_is_unknown_never_negative() -> None:
    d = downtime(LAST, LAST - 5 * 3600 * S + 40 * S)
    assert d.seconds is None
    assert "4 h 59 min before the last sign of life" in d.note


def test_the_next_boots_own_early_step_corrects_its_start() -> None:
    ntp = ClockStep(StepKind.WALL, 5 * 3600.0, mono_us=25 * S)
    d = downtime(LAST, LAST - 5 * 3600 * S + 40 * S, [ntp])
    assert d.seconds == 40
    assert "stepped +18000 s" in d.note and "corrected" in d.note


def test_an_rtc_ahead_is_corrected_the_other_way() -> None:
    ntp = ClockStep(StepKind.WALL, -3600.0, mono_us=30 * S)
    assert downtime(LAST, LAST + 3600 * S + 30 * S, [ntp]).seconds == 30


def test_a_step_late_in_the_next_boot_says_nothing_about_its_start() -> None:
    late = ClockStep(StepKind.WALL, -3600.0, mono_us=3 * 3600 * S)
    assert downtime(LAST, LAST + 3630 * S, [late]).seconds == 3630


def test_rtc_in_local_time_without_a_step_is_unknown() -> None:
    d = downtime(LAST, LAST + 3630 * S, rtc_local=True)
    assert d.seconds is None and "/etc/adjtime LOCAL" in d.note


@pytest.mark.parametrize(
    ("text", "local"),
    [
        ("0.0 0 0.0\n0\nLOCAL\n", True),
        ("0.0 0 0.0\n0\nUTC\n", False),
        ("0.0 0 0.0\n0\n", False),
        ("", False),
    ],
)
def test_adjtime(text: str, local: bool) -> None:
    assert rtc_in_local_time(text) is local


def test_suspend_is_a_sleep_not_a_wall_step() -> None:
    """Suspended 40 s between two beats a second apart (monotonic): boottime ran 41 s, wall
    41 s. That is a suspend, and the wall clock did not move."""
    steps = steps_between(wall_s=41.0, mono_s=1.0, boottime_s=41.0, mono_us=100 * S)
    assert [(s.kind, round(s.seconds)) for s in steps] == [(StepKind.SUSPEND, 40)]
