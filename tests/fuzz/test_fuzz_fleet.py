"""Fuzzing fleet entries: what `kmsgd fleet` makes of a box's post-mortem entry whose fields
carry anything (400-digit numbers, impossible times, wrong types, repeated fields, bytes
that are not UTF-8), through clustering and every renderer. Nothing may raise; the reading
of journal files themselves is libsystemd's (tests/fuzz/test_fuzz_journal_files.py)."""

from __future__ import annotations

import json

import pytest
from fuzz.budget import Tried, budget
from hypothesis import given
from hypothesis import strategies as st

from kmsgd.fleet import cluster
from kmsgd.fleet import entry_format as f
from kmsgd.fleet.postmortem import Builder, RawFields
from kmsgd.fleet.render_answer import render
from kmsgd.fleet.source import Scan
from kmsgd.fleet.window import Window
from kmsgd.types import FLEET_FORMATS

tried = Tried()
NOW_US = 1_764_400_000_000_000


NAMES = sorted(
    {v for k, v in vars(f).items() if k.isupper() and isinstance(v, str) and v.startswith("KMSGD")}
    | {f.gpu_field(i, k) for i in (0, 1, 15, 16) for k in ("NAME", "DRIVER", "VBIOS")}
    | {"_HOSTNAME", "_MACHINE_ID", "MESSAGE", "MESSAGE_ID", "__REALTIME_TIMESTAMP"}
)
SCALARS = st.one_of(
    st.sampled_from(["9" * 400, "-1", "0", "16", "17", "253402300800000000", "nan", "", "\x00"]),
    st.integers().map(str),
    st.text(max_size=16),
    st.sampled_from(["hard_freeze", "clean_reboot", "kernel_panic", "unknown", "x" * 300]),
).map(str.encode) | st.binary(max_size=16)
VALUES = SCALARS | st.lists(SCALARS, min_size=2, max_size=3)  # a repeated field: a list
entries = st.dictionaries(st.sampled_from(NAMES), VALUES, max_size=20).map(
    lambda d: d | {"MESSAGE_ID": f.MESSAGE_ID.encode()}
)


@pytest.mark.slow
@budget(80)
@given(
    st.lists(st.tuples(entries, st.integers(0, 2**63 - 1)), min_size=1, max_size=8),
    st.sampled_from(sorted(FLEET_FORMATS)),
)
def test_fleet_entries_never_raise(batch: list[tuple[dict[str, object], int]], fmt: str) -> None:
    tried["fleet entries"] += 1
    builder = Builder()
    scan = Scan(directory="/fuzz", files=1)
    for raw, t in batch:
        scan.entries += 1
        pm = builder.build(RawFields(raw), t % (NOW_US * 2))
        if pm is None:
            scan.unusable += 1
        else:
            scan.post_mortems.append(pm)
    out = render(cluster.fleet(scan, Window(0, NOW_US * 2)), fmt)
    if fmt == "json":
        json.loads(out)
