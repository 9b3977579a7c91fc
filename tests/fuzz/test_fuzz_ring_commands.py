"""Fuzzing what the commands do with a ring: `boots`, `dump` (text and JSON) and `last-boot`
(every format) over a real ring carrying hostile but CRC-valid frames: out-of-range times,
400-digit numbers, deeply nested JSON, typed payloads with wrong types. Only the documented
clean errors may escape (RingCorrupt, BadInput: one line, exit 2); a bad frame is shown as a
damaged record and the rest is kept. tests/ring/test_fuzz_ring.py fuzzes the reader alone."""

from __future__ import annotations

import contextlib
import json
import uuid
from pathlib import Path

import pytest
from fuzz.budget import Tried, budget
from hypothesis import given
from hypothesis import strategies as st

from kmsgd.commands import lastboot
from kmsgd.errors import BadInput, RingCorrupt
from kmsgd.report.render import render
from kmsgd.ring import frame as fr
from kmsgd.ring import layout as ring
from kmsgd.ring.lines import json_line, text_line
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Boot, Heartbeat, Kind, Lost, LostReason, Stop
from kmsgd.ring.writer import RingWriter

# The smallest ring: the hostile frames land among the real records more often, and each
# example judges and renders less (the base ring's records fill a fifth of it).
SIZE = ring.MIN_SIZE
tried = Tried()


@pytest.fixture(scope="module")
def base_ring(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """Two ended boots and a running one, each with every common kind."""
    path = tmp_path_factory.mktemp("ring") / "ring"
    w = RingWriter(str(path), size=SIZE)
    wall = 1_764_400_000_000_000
    for n in range(3):
        b = uuid.uuid4().bytes
        w.add(Kind.BOOT, b, wall, fr.encode_payload(Kind.BOOT, Boot(b.hex(), "6.8", "", 1, "0.1")))
        for i in range(16):
            wall += 500_000
            w.add(
                Kind.KERNEL, b, wall, b"3,%d,%d,-;amdgpu: ring gfx timeout %d\n" % (i, i * 10**5, n)
            )
            if i % 4 == 0:
                w.add(
                    Kind.HEARTBEAT,
                    b,
                    wall,
                    fr.encode_payload(Kind.HEARTBEAT, Heartbeat(wall, i * 10**5, i * 10**5)),
                )
                w.add(Kind.LOST, b, wall, fr.encode_payload(Kind.LOST, Lost(3, i, LostReason.GAP)))
                w.add(
                    Kind.SAMPLE,
                    b,
                    wall,
                    b'{"sensor":"card0/power","power_w":12.5,"mono_us":%d}' % (i * 10**5),
                )
                w.commit()
        if n == 0:
            w.add(
                Kind.STOP, b, wall, fr.encode_payload(Kind.STOP, Stop("SIGTERM", True, "stopping"))
            )
        w.commit()
        wall += 60_000_000
    w.write_header()
    w.close()
    return path.read_bytes()


HUGE = 10**400
NUMBERS = (
    st.sampled_from(
        [0, -1, 2**63 - 1, 2**64, -(2**63), HUGE, -HUGE, 10**17, 253_402_300_800_000_000]
    )
    | st.integers()
)
FIELDS = [
    "boot_id",
    "count",
    "first_seq",
    "reason",
    "signal",
    "shutting_down",
    "wall_us",
    "mono_us",
    "boot_us",
    "kernel",
    "version",
    "pid",
    "cmdline",
    "boot_wall_us",
    "system_state",
    "sensor",
    "power_w",
    "temp_c",
    "value",
    "t_us",
    "seq",
    "ts_usec",
    "samples",
    "event",
    "device",
]


def nested(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


json_values = st.recursive(
    st.none() | st.booleans() | NUMBERS | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(FIELDS), inner),
    max_leaves=8,
)


def payload_of(d: dict[str, object]) -> bytes:
    return json.dumps(d, allow_nan=True).encode("ascii", "replace")


payloads = st.one_of(
    st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=8).map(payload_of),
    st.integers(1, 100_000).map(lambda d: b'{"sensor":"x","power_w":' + nested(d) + b"}"),
    st.builds(
        lambda seq, ts, text: b"%s,%s,-;%s\n" % (str(seq).encode(), str(ts).encode(), text),
        NUMBERS,
        NUMBERS,
        st.sampled_from([b"Kernel panic - not syncing: x", b"x", b"Oops: 0000 [#1] SMP"]),
    ),
    st.binary(max_size=200),
)


def run_commands(path: Path) -> None:
    """What `boots`, `dump` and `last-boot` do, in process."""
    with RingReader(str(path)) as r:
        rows = r.boots()
        for end in lastboot.outcomes(r, rows, None, False):
            # `boots` shows a boot whose judging raised as "error: <exception>" and goes on:
            # a hostile frame must be judged (a damaged record), never make that error
            assert not end.error, end
        for row in rows:
            for e in r.entries(row.boot_id):
                text_line(e)
                json_line(e)
        opts = lastboot.Options(None, "", False, None)
        for spec in ("-1", "0"):
            with contextlib.suppress(BadInput):
                rep = lastboot.report(r, spec, opts)
                for fmt in ("text", "md", "json"):
                    render(rep, fmt)


@pytest.mark.slow
@budget(25)
@given(
    st.lists(
        st.tuples(
            st.integers(ring.DATA_START // 8, (SIZE - 600) // 8),
            st.sampled_from(list(Kind)),
            payloads,
            NUMBERS.map(lambda n: n % 2**64),  # serial: unsigned
            NUMBERS.map(lambda n: n % 2**64 - 2**63),  # wall_us: signed
        ),
        min_size=1,
        max_size=5,
    )
)
def test_commands_on_hostile_frames(
    tmp_path: Path, base_ring: bytes, frames: list[tuple[int, Kind, bytes, int, int]]
) -> None:
    tried["ring commands"] += 1
    data = bytearray(base_ring)
    for slot, kind, payload, serial, wall in frames:
        boot = uuid.UUID(int=serial % 3).bytes if serial % 2 else uuid.uuid4().bytes
        raw = fr.encode(serial, boot, wall, kind, payload[: SIZE // 8])
        offset = slot * 8
        data[offset : offset + len(raw)] = raw[: SIZE - offset]
    path = tmp_path / "ring"
    path.write_bytes(data)
    with contextlib.suppress(RingCorrupt):
        run_commands(path)
