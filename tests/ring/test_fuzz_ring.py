"""Fuzzing the ring reader: arbitrary bytes over a real ring, hostile but CRC-valid frames and
header slots. Nothing may escape but RingCorrupt; memory stays bounded on hostile lengths."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import tracemalloc
import uuid
from pathlib import Path

import pytest
from fuzz.budget import Tried, budget
from fuzz.mutate import overwritten
from hypothesis import given
from hypothesis import strategies as st

from kmsgd.errors import RingCorrupt
from kmsgd.ring import frame as fr
from kmsgd.ring import layout as ring
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import KIND_CODES, Boot, Heartbeat, Kind, Lost, LostReason, Stop
from kmsgd.ring.writer import RingWriter

SIZE = ring.MIN_SIZE
MEMORY_BOUND = 4 << 20  # bytes of Python allocations while reading a 72 KiB ring


tried = Tried()


@pytest.fixture(scope="module")
def base_ring(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """A real ring that has lapped, with every typed kind in it."""
    path = tmp_path_factory.mktemp("ring") / "ring"
    w = RingWriter(str(path), size=SIZE)
    for n in range(3):
        b = uuid.uuid4().bytes
        w.add(Kind.BOOT, b, 1, fr.encode_payload(Kind.BOOT, Boot(b.hex(), "6.8", "", 1, "0.1")))
        for i in range(250):
            w.add(Kind.KERNEL, b, 2, b"3,%d,%d,-;amdgpu: ring gfx timeout %d\n" % (i, i, n))
            if i % 50 == 0:
                w.add(Kind.HEARTBEAT, b, 3, fr.encode_payload(Kind.HEARTBEAT, Heartbeat(1, 2, 3)))
                w.add(Kind.LOST, b, 4, fr.encode_payload(Kind.LOST, Lost(3, i, LostReason.GAP)))
                w.add(Kind.SAMPLE, b, 5, b'{"power_w":12.5}')
                w.commit()
        w.add(Kind.STOP, b, 6, fr.encode_payload(Kind.STOP, Stop("SIGTERM", True, "stopping")))
        w.commit()
    w.write_header()
    w.close()
    return path.read_bytes()


def read_everything(path: Path) -> int:
    """Everything a command does with a ring; returns the frames seen. Only RingCorrupt may
    escape (the CLI turns it into one line and exit 2)."""
    with RingReader(str(path)) as r:
        frames = list(r.frames())
        serials = [f.serial for f in frames]
        assert serials == sorted(set(serials))
        for f in frames:
            fr.to_entry(f)
        for row in r.boots():
            for e in r.entries(row.boot_id):
                json.dumps(e.data if isinstance(e.data, dict) else str(e.data))
        r.last_boot_id()
        return len(frames)


def check(path: Path) -> None:
    with contextlib.suppress(RingCorrupt):
        read_everything(path)


def check_bounded(path: Path) -> None:
    """check(), and the peak of Python allocations stays small (tracemalloc: slow, so only
    where lengths are hostile)."""
    tracemalloc.start()
    try:
        check(path)
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert peak < MEMORY_BOUND, peak


patches = st.lists(
    st.tuples(st.integers(0, SIZE - 1), st.binary(min_size=1, max_size=64)), max_size=12
)


@pytest.mark.slow  # 3-8 s: the full suite runs it, the quick loop does not
@budget(150)
@given(patches)
def test_arbitrary_bytes_over_a_real_ring(
    tmp_path: Path, base_ring: bytes, edits: list[tuple[int, bytes]]
) -> None:
    tried["ring bytes"] += 1
    path = tmp_path / "ring"
    path.write_bytes(overwritten(base_ring, edits))
    check(path)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner),
    max_leaves=10,
)
FIELDS = [
    "boot_id",
    "count",
    "first_seq",
    "reason",
    "signal",
    "shutting_down",
    "wall_us",
    "kernel",
    "version",
    "pid",
    "mono_us",
    "cmdline",
    "boot_wall_us",
    "system_state",
]
payloads = st.one_of(
    st.binary(max_size=300),
    st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=8), json_values, max_size=8).map(
        lambda d: json.dumps(d).encode("ascii", "replace")
    ),
    json_values.map(lambda v: json.dumps(v).encode("ascii", "replace")),
)


@pytest.mark.slow  # 3-8 s: the full suite runs it, the quick loop does not
@budget(150)
@given(
    st.lists(
        st.tuples(
            st.integers(ring.DATA_START // 8, (SIZE - 400) // 8),
            st.sampled_from(list(Kind)),
            payloads,
            st.integers(0, 2**64 - 1),
        ),
        min_size=1,
        max_size=6,
    )
)
def test_hostile_frames_with_valid_crcs(
    tmp_path: Path, base_ring: bytes, frames: list[tuple[int, Kind, bytes, int]]
) -> None:
    # A file written by someone else (or a future kmsgd): every frame checks out, its
    # contents are anything. Typed payloads with wrong types must not crash a command.
    tried["hostile frames"] += 1
    data = bytearray(base_ring)
    for slot, kind, payload, serial in frames:
        raw = fr.encode(serial, uuid.uuid4().bytes[:16], 0, kind, payload[: SIZE // 4])
        offset = slot * 8
        data[offset : offset + len(raw)] = raw[: SIZE - offset]
    path = tmp_path / "ring"
    path.write_bytes(data)
    check(path)


@pytest.mark.slow
@budget(100)
@given(
    st.integers(0, 2**63 - 1),
    st.sampled_from([SIZE, SIZE + 4096, 0, 2**63 - 1]),
    st.integers(0, 2**64 - 1),
    st.integers(0, 2**64 - 1),
    st.lists(
        st.tuples(
            st.binary(min_size=16, max_size=16),
            st.integers(0, 2**64 - 1),
            st.integers(0, 2**64 - 1),
        ),
        max_size=ring.MAX_BOOT_HINTS,
    ),
    st.sampled_from([0, 1]),
)
def test_hostile_header_slots_with_valid_crcs(
    tmp_path: Path,
    base_ring: bytes,
    gen: int,
    size: int,
    head: int,
    serial: int,
    hints: list[tuple[bytes, int, int]],
    slot: int,
) -> None:
    tried["hostile headers"] += 1
    header = ring.Header(
        gen, size, b"r" * 16, head, serial, tuple(ring.BootHint(*h) for h in hints)
    )
    data = bytearray(base_ring)
    data[slot * ring.SLOT_SIZE : slot * ring.SLOT_SIZE + ring.SLOT_SIZE] = bytes(ring.SLOT_SIZE)
    packed = header.pack()
    data[slot * ring.SLOT_SIZE : slot * ring.SLOT_SIZE + len(packed)] = packed
    path = tmp_path / "ring"
    path.write_bytes(data)
    check_bounded(path)


@budget(300)
@given(st.binary(max_size=4096))
def test_arbitrary_header_slot_bytes(slot: bytes) -> None:
    """Only a slot kmsgd itself could have written is accepted: whatever unpacks, packs back
    to the very bytes it came from."""
    tried["header slot bytes"] += 1
    for raw in (slot + bytes(max(0, ring.SLOT_SIZE - len(slot))), ring.RING_MAGIC + slot):
        header = ring.unpack_header(raw)
        if header is not None:
            assert raw.startswith(header.pack())


@budget(300)
@given(
    st.integers(1, 2**40),
    st.integers(0, 2**40),
    st.lists(st.tuples(st.binary(min_size=16, max_size=16), st.integers(0, 2**40)), max_size=4),
    st.data(),
)
def test_one_changed_byte_in_a_header_slot_is_refused(
    gen: int, head: int, hints: list[tuple[bytes, int]], data: st.DataObject
) -> None:
    """A header torn or flipped anywhere (its CRC included) is never read as another header.
    Past the boot hints (the alignment block and the padding before it) a change only costs
    the unit, which reads as 512, as before the block existed (the hints stay good)."""
    tried["header byte changes"] += 1
    boots = tuple(ring.BootHint(b, off, off) for b, off in hints)
    align = data.draw(st.sampled_from(ring.UNITS))
    header = ring.Header(gen, 1 << 26, b"r" * 16, head, head, boots, align)
    packed = header.pack()
    assert ring.unpack_header(packed) == header
    at = data.draw(st.integers(0, len(packed) - 1))
    xor = data.draw(st.integers(1, 255))
    bad = bytearray(packed)
    bad[at] ^= xor
    got = ring.unpack_header(bytes(bad))
    if at < 76 + len(boots) * 32:  # the slot's fields and its hints (layout._SLOT, _BOOT_HINT)
        assert got is None
    else:
        assert got == dataclasses.replace(header, align=ring.SECTOR)


@budget(500)
@given(st.binary(max_size=600), st.integers(0, 64))
def test_decode_at_on_arbitrary_bytes(buf: bytes, offset: int) -> None:
    tried["frame bytes"] += 1
    frame = fr.decode_at(buf, offset, len(buf))
    if frame is not None:
        assert frame.offset + fr.HEADER_SIZE + len(frame.payload) <= len(buf)
        fr.to_entry(frame)


def test_a_hostile_length_field_costs_no_memory(tmp_path: Path, base_ring: bytes) -> None:
    # Every length field set to 4 GiB - 1: the reader must neither allocate it nor fail.
    data = bytearray(base_ring)
    pos = ring.DATA_START
    while (hit := data.find(fr.MAGIC, pos)) >= 0:
        data[hit + 4 : hit + 8] = (2**32 - 1).to_bytes(4, "little")
        pos = hit + 1
    path = tmp_path / "ring"
    path.write_bytes(data)
    check_bounded(path)
    with RingReader(str(path)) as r:
        assert list(r.frames()) == []


def test_typed_payloads_with_wrong_field_types(tmp_path: Path) -> None:
    # Found by the fuzzing: a CRC-valid `lost` frame whose count is a string made
    # `kmsgd boots` die with a traceback. It must be kept as an error payload instead.
    path = tmp_path / "ring"
    w = RingWriter(str(path), size=SIZE)
    b = uuid.uuid4().bytes
    w.add(Kind.BOOT, b, 1, b'{"boot_id":"%s"}' % b.hex().encode())
    w.add(Kind.LOST, b, 2, b'{"count":"3","first_seq":0,"reason":"gap"}')
    w.commit()
    w.close()
    with RingReader(str(path)) as r:
        (row,) = r.boots()
        assert row.records == 2


def test_kind_codes_cover_every_kind() -> None:
    assert sorted(KIND_CODES.values()) == list(range(1, len(Kind) + 1))


@budget(150)
@given(st.integers(0, 10_000), st.binary(min_size=1, max_size=64), st.integers(0, 10_000))
def test_damage_in_one_frame_costs_that_frame_only(
    tmp_path: Path, base_ring: bytes, pick: int, chunk: bytes, at: int
) -> None:
    # Oracles stronger than "only RingCorrupt escapes": a ring damaged inside one frame is
    # still a ring (RingCorrupt is no answer), and every frame away from the damage (not the
    # damaged one, not its neighbours) is returned.
    tried["one damaged frame"] += 1
    path = tmp_path / "ring"
    path.write_bytes(base_ring)
    with RingReader(str(path)) as r:
        before = list(r.frames())
    victim = before[pick % len(before)]
    start = victim.offset + at % victim.size
    data = bytearray(base_ring)
    data[start : min(start + len(chunk), victim.offset + victim.size)] = chunk[
        : victim.offset + victim.size - start
    ]
    path.write_bytes(data)
    with RingReader(str(path)) as r:  # no RingCorrupt: the header slots are untouched
        after = {f.serial: f.payload for f in r.frames()}
        listed = [row.boot_id for row in r.boots()]
        assert r.boot_ids() == listed or victim.kind is Kind.BOOT
    i = before.index(victim)
    near = {f.serial for f in before[max(0, i - 1) : i + 2]}
    for f in before:
        if f.serial not in near:
            assert after.get(f.serial) == f.payload, f"frame {f.serial} lost, damage at {start}"
