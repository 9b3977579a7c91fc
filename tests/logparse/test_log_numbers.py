"""Numbers in a pasted log that no clock can hold: each line is kept (as text, or with no
time), never an OverflowError (`__REALTIME_TIMESTAMP` 9223372036854775807 is the one a
mutation fuzz of journal JSON finds first)."""

from __future__ import annotations

import io
import json

import pytest

from kmsgd.commands.analyze import analyze
from kmsgd.logparse.journal_json import parse_json

HUGE = "9" * 400


def journal_line(**fields: str) -> bytes:
    entry = {"MESSAGE": "Oops: 0000 [#1] SMP", "_TRANSPORT": "kernel", "PRIORITY": "3"} | fields
    return json.dumps(entry).encode() + b"\n"


@pytest.mark.parametrize(
    "fields",
    [
        {"__REALTIME_TIMESTAMP": "9223372036854775807"},
        {"__REALTIME_TIMESTAMP": HUGE},
        {"__REALTIME_TIMESTAMP": "-5", "_SOURCE_MONOTONIC_TIMESTAMP": HUGE},
        {"_SOURCE_REALTIME_TIMESTAMP": "253402300800000000"},  # 10000-01-01
        {"PRIORITY": HUGE, "SYSLOG_FACILITY": HUGE},
    ],
)
def test_journal_json_numbers_out_of_range_are_no_value(fields: dict[str, str]) -> None:
    line = journal_line(**fields).decode().strip()
    got = parse_json(line)
    assert got is not None
    parsed, _ = got
    assert parsed.message == "Oops: 0000 [#1] SMP"
    assert parsed.wall_us is None or 0 <= parsed.wall_us < 253402300800000000
    assert parsed.ts_usec is None or parsed.ts_usec < 10**18
    for fmt in ("text", "md", "json"):
        out = analyze(io.BytesIO(journal_line(**fields) * 2), name="j.json", fmt=fmt)
        assert "Oops" in out


@pytest.mark.parametrize(
    "line",
    [
        f"[{HUGE}.000000] Oops: 0000 [#1] SMP",
        f"<3>[{'9' * 40}.000000] Oops: 0000 [#1] SMP",
        f"[+{'9' * 40}.000000] Oops: 0000 [#1] SMP",
        f"6,1,{HUGE},-;Oops: 0000 [#1] SMP",
        f"6,{HUGE},1,-;Oops: 0000 [#1] SMP",
    ],
)
def test_printk_stamps_no_clock_can_hold_are_no_stamp(line: str) -> None:
    data = (line + "\n[    1.000000] next line\n").encode()
    for fmt in ("text", "md", "json"):
        assert "next line" in analyze(io.BytesIO(data), name="dmesg.txt", fmt=fmt)


@pytest.mark.parametrize("value", ["[Infinity]", "[1e400]", "[NaN, 65]", '["x"]', "[[1]]"])
def test_a_byte_array_field_of_non_bytes_is_empty_text(value: str) -> None:
    """A byte array holding Infinity: int(inf) is an OverflowError, not a ValueError."""
    fields = f'"_BOOT_ID": {value}, "_HOSTNAME": {value}'
    line = '{"MESSAGE": "Oops", "_TRANSPORT": "kernel", ' + fields + "}"
    got = parse_json(line)
    assert got is not None and got[0].message == "Oops" and got[1] == ""
