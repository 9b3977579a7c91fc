"""Drive the real RingWriter through a chain of boots, cut the power at random points, and
check the real RingReader on every image a cut can leave.

The chain: each boot opens a new writer on the disk the previous cut left (so the garbage of
earlier cuts stays on the disk), writes a random burst with commits and header refreshes, and
is cut at several random points; one of those images (or the clean end) is what the next boot
finds. At each cut the reader must return every record still promised (acknowledged by a
commit that returned, and not since overwritten by the ring going round), in serial order,
and nothing that was not written. Then a new writer appends on top of the image, and the
reader must still return what it returned before (where not overwritten) plus the new boot.
"""

from __future__ import annotations

import bisect
import itertools
import os
import random
import uuid
from collections import ChainMap, Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from crash.disk import MODES, Ack, Op, RecordingIO, Sync, Write, apply, crash_image
from kmsgd.errors import RingCorrupt
from kmsgd.ring import frame as fr
from kmsgd.ring import layout as ring
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind
from kmsgd.ring.writer import RingWriter

RING_SIZE = ring.MIN_SIZE  # 72 KiB: small, so boots lap the ring often


@dataclass(frozen=True, slots=True)
class Truth:
    boot_id: bytes
    kind: Kind
    payload: bytes


@dataclass
class Counts:
    cuts: int = 0
    boots: int = 0
    writes: int = 0
    promised: int = 0  # acknowledged records required at a cut, summed over cuts
    returned: int = 0  # records the reader returned, summed over cuts
    lost: int = 0  # promised records the reader did not return
    corrupt: int = 0  # returned records that were never written (or differ from it)
    disorder: int = 0  # returned records out of serial order
    unreadable: int = 0  # images the reader refused (RingCorrupt)
    header_cuts: int = 0  # cuts placed right before or right after a header write
    reopen_lost: int = 0  # records lost when a new writer appended on top
    modes: Counter[str] = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)

    def fail(self, text: str) -> None:
        if len(self.failures) < 20:
            self.failures.append(text)


@dataclass(slots=True)
class Live:
    """A frame as the writer last wrote it at its place; `acked` once a commit returned."""

    offset: int
    end: int
    serial: int
    acked: bool


class LiveFrames:
    """The frames the ring is meant to hold: non-overlapping, sorted by offset.

    The ring drops the oldest first: once a promised frame is overwritten, every older one is
    released too, even where the writer happened not to reach it (a lap that wrapped early
    leaves the tail of the lap before it on the disk, older than what it overwrote).
    """

    def __init__(self, frames: list[Live] | None = None, floor: int = -1) -> None:
        self.frames = sorted(frames or [], key=lambda f: f.offset)
        self.floor = floor  # the newest serial the writer ever overwrote

    def overwrite(self, w: Write) -> None:
        """A write was issued over [offset, end): what it covers is no longer promised."""
        if w.offset < ring.DATA_START:
            return  # a header slot
        starts = [f.offset for f in self.frames]
        i = max(0, bisect.bisect_right(starts, w.offset) - 1)
        j = i
        while j < len(self.frames) and self.frames[j].offset < w.end:
            j += 1
        keep = [f for f in self.frames[i:j] if f.end <= w.offset]
        for f in self.frames[i:j]:
            if f.end > w.offset:  # never garbage: only what was shown or this boot wrote
                self.floor = max(self.floor, f.serial)
        self.frames[i:j] = keep
        new = [
            Live(w.offset + f.offset, w.offset + f.offset + f.size, f.serial, False)
            for f in frames_in(w.data)
        ]
        k = bisect.bisect_left([f.offset for f in self.frames], w.offset)
        self.frames[k:k] = new

    def ack(self) -> None:
        for f in self.frames:
            f.acked = True

    def promised(self) -> list[Live]:
        return [f for f in self.frames if f.acked and f.serial > self.floor]


def frames_in(data: bytes) -> list[fr.RawFrame]:
    """The frames a run write carries (it is frames back to back, then the zero guard)."""
    out, pos = [], 0
    while (f := fr.decode_at(data, pos, len(data))) is not None:
        out.append(f)
        pos += f.size
    return out


# Every byte to a printable ASCII character other than a backslash, as the kernel escapes.
_PRINTABLE = bytes(0x20 + b % 0x5F for b in range(256)).replace(b"\\", b"/")


def kernel_line(rng: random.Random, seq: int) -> bytes:
    n = rng.choice((rng.randrange(10, 120), rng.randrange(120, 600), rng.randrange(600, 3000)))
    text = rng.randbytes(n).translate(_PRINTABLE)
    return b"%d,%d,%d,-;%s\n" % (rng.randrange(8), seq, seq * 997, text)


def run_boot(w: RingWriter, io: RecordingIO, rng: random.Random, truth: dict[int, Truth]) -> None:
    """One boot's writing: a boot record, a burst of kernel lines, commits, header refreshes."""
    boot = uuid.uuid4().bytes

    def add(kind: Kind, payload: bytes) -> None:
        serial = w.add(kind, boot, 1_700_000_000_000_000 + len(truth), payload)
        truth[serial] = Truth(boot, kind, payload)

    add(Kind.BOOT, b'{"boot_id":"%s"}' % boot.hex().encode())
    n = rng.choice((rng.randrange(1, 40), rng.randrange(40, 250), rng.randrange(250, 700)))
    every = rng.choice((1, 3, 10, 30))
    for seq in range(n):
        add(Kind.KERNEL, kernel_line(rng, seq))
        if rng.randrange(every) == 0:
            io.ops.append(Ack(w.commit()))
        if rng.random() < 0.01:
            w.write_header()  # the committer refreshes the head hint every header_every_s
    if rng.random() < 0.8:
        io.ops.append(Ack(w.commit()))
        w.write_header()  # a clean stop writes the header last


def check(
    counts: Counts,
    got: list[fr.RawFrame],
    promised: list[Live],
    truth: Mapping[int, Truth],
    where: str,
) -> bool:
    """Count what is wrong in `got`; True when nothing is."""
    ok = True
    serials = [f.serial for f in got]
    if any(a >= b for a, b in itertools.pairwise(serials)):
        counts.disorder += 1
        counts.fail(f"{where}: serials out of order")
        ok = False
    for f in got:
        t = truth.get(f.serial)
        if t is None or (t.boot_id, t.kind, t.payload) != (f.boot_id, f.kind, f.payload):
            counts.corrupt += 1
            counts.fail(f"{where}: returned serial {f.serial} at {f.offset} was never written")
            ok = False
    have = set(serials)
    missing = [p for p in promised if p.serial not in have]
    if missing:
        counts.lost += len(missing)
        first = missing[0]
        counts.fail(
            f"{where}: {len(missing)} promised lost, first serial {first.serial} at "
            f"{first.offset}; reader returned {len(got)}"
        )
        ok = False
    return ok


def read(path: Path) -> list[fr.RawFrame]:
    with RingReader(str(path)) as r:
        return list(r.frames())


def reopen_and_check(
    counts: Counts,
    path: Path,
    got: list[fr.RawFrame],
    truth: dict[int, Truth],
    rng: random.Random,
) -> None:
    """A new boot's writer appends on top of the cut image: nothing earlier may go missing."""
    io = RecordingIO()
    w = RingWriter(str(path), size=RING_SIZE, io=io)
    branch: ChainMap[int, Truth] = ChainMap({}, truth)  # this boot lives in this branch only
    boot = uuid.uuid4().bytes
    for i in range(rng.randrange(1, 6)):
        payload = b"6,%d,0,-;after the cut %d\n" % (i, i)
        serial = w.add(Kind.KERNEL if i else Kind.BOOT, boot, 1, payload)
        branch[serial] = Truth(boot, Kind.KERNEL if i else Kind.BOOT, payload)
    w.commit()
    w.close()
    live = LiveFrames([Live(f.offset, f.offset + f.size, f.serial, True) for f in got])
    for op in io.ops:
        if isinstance(op, Write):
            live.overwrite(op)
    live.ack()
    got2 = read(path)
    lost_before = counts.lost
    check(counts, got2, live.promised(), branch, "after reopen")
    counts.reopen_lost += counts.lost - lost_before
    counts.lost = lost_before


def simulate(
    workdir: Path,
    *,
    cuts: int,
    seed: int,
    modes: tuple[str, ...] = MODES,
    lying: bool = False,
) -> Counts:
    """Cut the power `cuts` times across a chain of boots; return what the reader got wrong."""
    rng = random.Random(seed)
    counts = Counts()
    path, cut_path = workdir / "ring", workdir / "cut"
    RingWriter(str(path), size=RING_SIZE).close()
    disk = path.read_bytes()  # what the next boot finds
    truth: dict[int, Truth] = {}
    live = LiveFrames()
    while counts.cuts < cuts:
        path.write_bytes(disk)
        io = RecordingIO(lying=lying)
        w = RingWriter(str(path), size=RING_SIZE, io=io)
        run_boot(w, io, rng, truth)
        w.close()
        counts.boots += 1
        ops: list[Op] = io.ops
        # Around every header write: right before it, and right after it (not yet synced),
        # where the write itself may be torn; plus random points anywhere.
        around = [
            i + d
            for i, op in enumerate(ops)
            if isinstance(op, Write) and op.offset < ring.DATA_START
            for d in (0, 1)
        ]
        n_cuts = min(cuts - counts.cuts, rng.randrange(4, 16) + len(around))
        points = sorted(
            around[:n_cuts]
            + [rng.randrange(len(ops) + 1) for _ in range(n_cuts - len(around[:n_cuts]))]
        )
        at_header = set(around)
        go_on = rng.randrange(n_cuts + 1)  # the cut the chain continues from (n_cuts: clean end)
        synced, unsynced = bytearray(disk), list[Write]()
        next_disk: bytes | None = None
        next_live = LiveFrames()
        cut_no = 0
        for i in range(len(ops) + 1):
            while cut_no < len(points) and points[cut_no] == i:
                header_cut = i in at_header
                if header_cut:
                    counts.header_cuts += 1
                    # the header write in flight is what these cuts are for: tear it
                    torn = [m for m in modes if m in ("shorn", "garbage")]
                    mode = rng.choice(torn) if torn and rng.random() < 0.7 else rng.choice(modes)
                else:
                    mode = rng.choice(modes)
                image = crash_image(bytes(synced), unsynced, mode, rng)
                counts.modes[mode] += 1
                counts.cuts += 1
                cut_path.write_bytes(image)
                where = f"boot {counts.boots} cut at op {i}/{len(ops)} ({mode})"
                try:
                    got = read(cut_path)
                except RingCorrupt as err:
                    counts.unreadable += 1
                    counts.lost += len(live.promised())
                    counts.fail(f"{where}: {err}")
                    got = []
                else:
                    promised = live.promised()
                    counts.promised += len(promised)
                    counts.returned += len(got)
                    check(counts, got, promised, truth, where)
                    reopen_and_check(counts, cut_path, got, truth, rng)
                if cut_no == go_on:
                    # What the reader showed after the cut is history now: the next boot
                    # appends on top of it, so it must stay (unacknowledged or not).
                    next_disk = bytes(image)
                    shown = [Live(f.offset, f.offset + f.size, f.serial, True) for f in got]
                    next_live = LiveFrames(shown, live.floor)
                cut_no += 1
            if i == len(ops):
                break
            op = ops[i]
            if isinstance(op, Write):
                counts.writes += 1
                unsynced.append(op)
                live.overwrite(op)
            elif isinstance(op, Sync):
                for w_ in unsynced:
                    apply(synced, w_)
                unsynced.clear()
            elif isinstance(op, Ack):
                live.ack()
        if next_disk is None:  # a clean end: everything written reached the disk
            for w_ in unsynced:
                apply(synced, w_)
            next_disk, next_live = bytes(synced), LiveFrames(live.frames, live.floor)
            next_live.ack()
        disk, live = next_disk, next_live
    os.unlink(cut_path)
    return counts
