"""Fuzzing journal JSON (`journalctl -o json`) as `kmsgd analyze` reads it: entries whose
fields carry hostile values (times no clock can hold, 400-digit numbers, wrong types, byte
arrays, nesting). Only BadInput may escape; every other entry is read or kept as text."""

from __future__ import annotations

import io
import json

import pytest
from fuzz.budget import Tried, budget
from hypothesis import given
from hypothesis import strategies as st

from kmsgd.commands.analyze import analyze
from kmsgd.errors import BadInput
from kmsgd.logparse.journal_json import parse_json

tried = Tried()


NUMBERS = st.sampled_from(
    [
        "9223372036854775807",
        "-9223372036854775808",
        "9" * 400,
        "253402300800000000",
        "0",
        "-1",
        "1e9",
        "nan",
        "1764400000000000",
        "١٢٣",  # Unicode digits
        "",
    ]
) | st.integers().map(str)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=12) | NUMBERS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner),
    max_leaves=6,
)
MESSAGES = (
    st.sampled_from(
        [
            "Kernel panic - not syncing: Fatal exception",
            "Oops: 0000 [#1] SMP",
            "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!",
            "Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP",
            "systemd-shutdown[1]: Syncing filesystems and block devices.",
        ]
    )
    | st.text(max_size=40)
    | st.lists(st.integers(-300, 300), max_size=10)
)
FIELDS = [
    "__REALTIME_TIMESTAMP",
    "__MONOTONIC_TIMESTAMP",
    "_SOURCE_REALTIME_TIMESTAMP",
    "_SOURCE_MONOTONIC_TIMESTAMP",
    "PRIORITY",
    "SYSLOG_FACILITY",
    "_BOOT_ID",
    "_HOSTNAME",
    "_PID",
    "SYSLOG_PID",
    "SYSLOG_IDENTIFIER",
    "_COMM",
]
entries = st.builds(
    lambda message, fields, kernel: (
        {"MESSAGE": message, **fields} | ({"_TRANSPORT": "kernel"} if kernel else {})
    ),
    MESSAGES,
    st.dictionaries(st.sampled_from(FIELDS), NUMBERS | VALUES, max_size=8),
    st.booleans(),
)


@pytest.mark.slow
@budget(60)
@given(st.lists(entries, min_size=1, max_size=12), st.sampled_from(["text", "md", "json"]))
def test_journal_json_raises_only_bad_input(batch: list[dict[str, object]], fmt: str) -> None:
    tried["journal json"] += 1
    lines = [json.dumps(e, allow_nan=True) for e in batch]
    for line in lines:
        parse_json(line)
    data = ("\n".join(lines) + "\n").encode()
    try:
        out = analyze(io.BytesIO(data), name="journal.json", fmt=fmt)
    except BadInput:
        return
    assert isinstance(out, str)
