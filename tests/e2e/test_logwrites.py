"""The crash lab's dm-log-writes replayer and ring check (lab/guest/logwrites.py) on synthetic
logs laid out as drivers/md/dm-log-writes.c writes them: no root, no device mapper, no VM."""

from __future__ import annotations

import struct
import sys
import uuid
from pathlib import Path

import pytest

from kmsgd.ring.records import Kind
from kmsgd.ring.writer import RingWriter

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "lab" / "guest"))
import logwrites as lw  # noqa: E402

SS = 512
FLUSH, FUA, MARK = lw.LOG_FLUSH_FLAG, lw.LOG_FUA_FLAG, lw.LOG_MARK_FLAG


def build_log(entries: list[tuple[int, int, int, bytes | str]]) -> bytes:
    """(sector, nr_sectors, flags, data or mark text) -> a log: super, then per entry one
    sector of `struct log_write_entry` (+ mark text) and its data sectors."""
    out = bytearray(struct.pack("<QQQI", lw.WRITE_LOG_MAGIC, 1, len(entries), SS).ljust(SS, b"\0"))
    for sector, nr, flags, data in entries:
        text = data.encode() if isinstance(data, str) else b""
        head = struct.pack("<QQQQ", sector, nr, flags, len(text)) + text
        out += head.ljust(SS, b"\0")
        if isinstance(data, bytes):
            assert len(data) == nr * SS
            out += data
    return bytes(out)


def w(sector: int, fill: int, nr: int = 1, flags: int = 0) -> tuple[int, int, int, bytes]:
    return (sector, nr, flags, bytes([fill]) * (nr * SS))


def flush() -> tuple[int, int, int, bytes]:
    return (0, 0, FLUSH, b"")


def mark(text: str) -> tuple[int, int, int, str]:
    return (0, 0, MARK, text)


LOG = [
    w(0, 1, nr=2),  # 0
    flush(),  # 1
    mark("ready"),  # 2
    w(4, 2),  # 3
    w(2, 3),  # 4
    w(4, 4),  # 5  (sector 4 again: a subset may hold either version)
    flush(),  # 6
    mark("ack:7"),  # 7
    w(6, 5, flags=FUA),  # 8
    w(8, 6),  # 9
    mark("ack:9"),  # 10
    flush(),  # 11
]


def test_parse_reads_flags_marks_and_data_as_the_kernel_lays_them_out() -> None:
    raw = build_log(LOG)
    ss, entries = lw.parse(raw)
    assert ss == SS and len(entries) == len(LOG)
    assert [e.index for e in entries if e.boundary] == [1, 6, 8, 11]
    assert [e.mark for e in entries if e.mark] == ["ready", "ack:7", "ack:9"]
    assert [e.writes for e in entries] == [bool(x[1]) for x in LOG]
    # the first write's data follows its entry sector, which follows the super's sector
    assert entries[0].data_at == 2 * SS and raw[entries[0].data_at] == 1
    assert lw.acks(entries) == [(7, 7), (10, 9)]
    assert lw.acked_serial(lw.acks(entries), 9) == 7
    assert lw.acked_serial(lw.acks(entries), 6) == -1


def test_replay_prefix_gives_the_device_at_that_entry() -> None:
    raw = build_log(LOG)
    ss, entries = lw.parse(raw)
    img = lw.replayed(raw, entries, 4, ss, size=16 * SS)
    assert img[0:SS] == bytes([1]) * SS and img[SS : 2 * SS] == bytes([1]) * SS
    assert img[2 * SS] == 3 and img[4 * SS] == 2 and img[6 * SS] == 0
    full = lw.replayed(raw, entries, len(entries) - 1, ss, size=16 * SS)
    assert (full[4 * SS], full[6 * SS], full[8 * SS]) == (4, 5, 6)


def test_parse_refuses_what_is_not_a_whole_log() -> None:
    raw = build_log(LOG)
    with pytest.raises(lw.LogError, match="not a log-writes log"):
        lw.parse(b"\0" * len(raw))
    with pytest.raises(lw.LogError, match="past the end"):
        lw.parse(raw[: len(raw) - SS])
    with pytest.raises(lw.LogError, match="past the end of the device"):
        _, entries = lw.parse(raw)
        lw.apply(bytearray(4 * SS), raw, entries[9], SS)  # sector 8 of a 4-sector device


def test_plan_checks_every_boundary_and_mark_and_cuts_inside_epochs() -> None:
    _, entries = lw.parse(build_log(LOG))
    states = lw.plan(entries, 2, seed=1, every=1)
    prefix = {(s.upto, s.kind) for s in states if s.kind in ("flush", "mark")}
    assert prefix == {(2, "mark"), (6, "flush"), (7, "mark"), (8, "flush"), (10, "mark"),
                      (11, "flush")}  # fmt: skip
    # the only epoch with two writes or more is (2, 6): entries 3, 4, 5
    inside = [s for s in states if s.kind == "inside"]
    subset = [s for s in states if s.kind == "subset"]
    assert len(inside) == len(subset) == 1
    assert inside[0].upto in (3, 4) and inside[0].acked_upto == inside[0].upto
    # a subset lies on the flush before its epoch and may need acks marked before the next
    assert subset[0].upto == 1 and subset[0].acked_upto == 5
    assert set(subset[0].extra) <= {3, 4, 5} and subset[0].extra
    assert lw.plan(entries, 2, seed=1, every=1) == states  # reproducible from its seed
    assert [s.upto for s in states] == sorted(s.upto for s in states)  # replay only forward


def make_ring(path: Path, lines: int) -> list[int]:
    wr = RingWriter(str(path), size=1 << 20)
    boot = uuid.uuid4().bytes
    serials = [wr.add(Kind.BOOT, boot, 1, b'{"boot_id":"%s"}' % boot.hex().encode())]
    for n in range(lines):
        serials.append(wr.add(Kind.KERNEL, boot, 2 + n, b"4,%d,%d,-;lab-blk %d\n" % (n, n, n)))
        if n % 7 == 0:
            wr.commit()
    wr.commit()
    wr.close()
    return serials


def test_check_ring_passes_what_was_written_and_names_what_is_not(tmp_path: Path) -> None:
    ring = tmp_path / "ring"
    serials = make_ring(ring, 40)
    truth = lw.read_truth(str(ring))
    assert sorted(truth) == serials
    good = lw.check_ring(str(ring), truth, serials)
    assert good.problems == [] and good.returned == len(serials)
    # a record the recorder never wrote, or one it wrote otherwise, is reported
    changed = dict(truth)
    boot, kind, wall, payload = changed[serials[5]]
    changed[serials[5]] = (boot, kind, wall, payload.replace(b"lab", b"LAB"))
    assert any("never written" in p for p in lw.check_ring(str(ring), changed, []).problems)
    # an acknowledged record the ring does not return is reported missing
    late = lw.check_ring(str(ring), truth, [*serials, serials[-1] + 1])
    assert late.problems == [f"1 acknowledged frame(s) missing, first serial {serials[-1] + 1}"]
    # a file that is no ring is unreadable, not a crash of the check
    (tmp_path / "junk").write_bytes(b"\xff" * (1 << 20))
    junk = lw.check_ring(str(tmp_path / "junk"), truth, serials)
    assert junk.problems and junk.problems[0].startswith("unreadable: ")
