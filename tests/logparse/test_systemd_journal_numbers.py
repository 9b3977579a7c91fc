"""A journal entry (a file from a ticket, the journal witness of last-boot) whose numbers no
clock can hold: the times are no value, or the entry is none, never an overflow later."""

from __future__ import annotations

import pytest

from kmsgd.logparse.systemd_journal import entry_from_fields

HUGE = "9" * 400


@pytest.mark.parametrize("realtime", [HUGE, "9223372036854775807", "-1", 2**70])
def test_an_impossible_realtime_makes_no_entry(realtime: object) -> None:
    assert entry_from_fields({"__REALTIME_TIMESTAMP": realtime, "MESSAGE": "x"}) is None


def test_other_numbers_out_of_range_are_no_value() -> None:
    e = entry_from_fields(
        {
            "__REALTIME_TIMESTAMP": "1764400000000000",
            "__MONOTONIC_TIMESTAMP": HUGE,
            "_SOURCE_MONOTONIC_TIMESTAMP": (10**30, "boot"),
            "PRIORITY": "99",
            "_PID": HUGE,
            "MESSAGE": "x",
        }
    )
    assert e is not None and e.realtime_us == 1764400000000000
    assert (e.monotonic_us, e.source_monotonic_us, e.priority, e.pid) == (None, None, None, None)
