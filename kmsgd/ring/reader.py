"""Reading a ring, also while a daemon writes it: boots, and the entries of one boot.

The reader maps the file read-only and takes no lock. A frame the writer is rewriting at
that moment fails its CRC and is skipped, exactly like a torn one.
"""

from __future__ import annotations

import dataclasses
import errno
import mmap
import os
import stat
from collections.abc import Iterator, MutableMapping, Sequence
from dataclasses import dataclass, field

from kmsgd.errors import BadInput, NothingToJudge, RingCorrupt, SourceUnavailable
from kmsgd.ring import frame
from kmsgd.ring import layout as ring
from kmsgd.ring.records import KIND_CODES, KINDS_BY_CODE, Entry, Kind, Lost, LostReason, Stop

DROP_EVERY = 32768  # frames walked between releases of the mapping (~10 MiB)


@dataclass
class BootSummary:
    """One boot as the ring holds it (the `kmsgd boots` row)."""

    boot_id: str
    first_wall_us: int
    last_wall_us: int
    first_serial: int
    first_offset: int
    records: int = 0
    kernel_records: int = 0
    lost: int = 0  # kernel records lost while kmsgd recorded (overruns, restarts, drops)
    lost_before_start: int = 0  # gone from the kernel buffer before kmsgd first read it
    stopped: bool = False  # the last record of the boot is a clean `stop`
    shutting_down: bool = False
    kinds: dict[str, int] = field(default_factory=dict)


class RingReader:
    def __init__(self, path: str) -> None:
        self.path = path
        try:
            # O_NONBLOCK: opening a FIFO for reading would wait for a writer forever (fifo(7));
            # it opens at once, and fstat below refuses it.
            fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            raise SourceUnavailable(f"{path}: no such ring", hint="is kmsgd running?") from None
        except OSError as err:
            if err.errno == errno.ELOOP:
                raise RingCorrupt(path, 0, "path is a symbolic link") from None
            raise SourceUnavailable(f"{path}: cannot open ring ({err.strerror})") from None
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise RingCorrupt(path, 0, "not a regular file")
            if st.st_size < ring.MIN_SIZE:
                raise RingCorrupt(path, 0, f"file too small ({st.st_size} bytes)")
            self.size = st.st_size
            self.map = mmap.mmap(fd, self.size, mmap.MAP_SHARED, mmap.PROT_READ)
        finally:
            os.close(fd)
        self.header, _ = ring.read_header(path, self.map, self.size)
        self.head = ring.find_head(self.map, self.header, self.size)
        self.torn_bytes = ring.torn_tail_bytes(self.map, self.head, self.size)
        self._starts: list[frame.RawFrame] | None = None

    def close(self) -> None:
        self.map.close()

    def release(self) -> None:
        """Unmap the pages read so far: a walk over a 256 MiB ring must not hold 256 MiB of
        RSS. The data stays in the page cache; a later read faults it back in."""
        self.map.madvise(mmap.MADV_DONTNEED)

    def __enter__(self) -> RingReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def frames(self, start: frame.RawFrame | None = None) -> Iterator[frame.RawFrame]:
        """Every frame from `start` (default: the oldest) to the head, in order."""
        if self.head is None:
            return
        first = start or ring.oldest_frame(self.map, self.head, self.size, self.header.align)
        if first is not None:
            for n, f in enumerate(ring.walk(self.map, first, self.size, self.head.serial), 1):
                if n % DROP_EVERY == 0:
                    self.release()
                yield f

    def boots(
        self, known: MutableMapping[str, list[BootSummary]] | None = None
    ) -> list[BootSummary]:
        """Every boot in the ring, oldest first. Skims the whole ring once: headers only,
        except the frames that start a boot, stop one or count lost records (checked).

        With `known` (a cache kept by the caller, `kmsgd boots`), the ring is listed in
        segments, from each boot's first `boot` frame to the next one's: a segment between
        the same two frames holds the same frames, so one listed before is taken from `known`
        instead of walked, and each one walked is added to it. The oldest segment (a lap
        eats its start) and the newest (it grows) are always walked."""
        if self.head is None:
            return []
        first = ring.oldest_frame(self.map, self.head, self.size, self.header.align)
        if first is None:
            return []
        out: dict[bytes, BootSummary] = {}
        if known is None:
            self._skim_into(out, first, None)
            return list(out.values())
        starts = [first, *(f for f in self._boot_starts() if f.serial > first.serial)]
        ring_id = self.header.ring_id.hex()
        for j, start in enumerate(starts):
            end = starts[j + 1] if j + 1 < len(starts) else None
            key = None
            if j > 0 and end is not None:
                key = f"{ring_id}:{start.offset}:{start.serial}:{end.offset}:{end.serial}"
                got = known.get(key)
                if got is not None:
                    for summary in got:
                        _merge(out, dataclasses.replace(summary, kinds=dict(summary.kinds)))
                    continue
            part: dict[bytes, BootSummary] = {}
            self._skim_into(part, start, end.serial if end is not None else None)
            if key is not None:
                known[key] = [dataclasses.replace(p, kinds=dict(p.kinds)) for p in part.values()]
            for summary in part.values():
                _merge(out, summary)
        return list(out.values())

    def _skim_into(
        self, out: dict[bytes, BootSummary], first: frame.RawFrame, stop: int | None
    ) -> None:
        """Count the frames from `first` up to the head, or up to serial `stop` (excluded)."""
        assert self.head is not None
        s: BootSummary | None = None
        current = b""
        for n, h in enumerate(ring.skim(self.map, first, self.size, self.head.serial), 1):
            if stop is not None and h.serial >= stop:
                return
            if n % DROP_EVERY == 0:
                self.release()
            if h.boot_id != current or h.code in _CHECKED:
                f = frame.decode_at(self.map, h.offset, self.size)
                if f is None:
                    continue  # damaged: neither counted nor trusted to start a boot
                if f.boot_id != current:
                    current = f.boot_id
                    s = out.get(current)
                    if s is None:
                        s = out[current] = BootSummary(
                            current.hex(), f.wall_us, f.wall_us, f.serial, f.offset
                        )
                if f.kind is _LOST or f.kind is _STOP:
                    _count_checked(s, f)  # type: ignore[arg-type]
            assert s is not None
            kind = KINDS_BY_CODE.get(h.code)
            s.records += 1
            s.last_wall_us = h.wall_us
            s.stopped = kind is _STOP
            if kind is not None:
                s.kinds[kind] = s.kinds.get(kind, 0) + 1  # a StrEnum: equal to its name
            if kind is _KERNEL:
                s.kernel_records += 1

    def boot_ids(self) -> list[str]:
        """The boots in the ring, oldest first, found from the frames themselves (no walk, no
        header hint: a hint may never have reached the disk, or been pushed out by restarts).

        `boots()` lists the same boots (tests/ring/test_boot_list.py keeps them in step)."""
        ids = [f.boot_id.hex() for f in self._boot_starts()]
        if self.head is not None and self.head.boot_id.hex() not in ids:
            ids.append(self.head.boot_id.hex())  # the newest boot's `boot` frame was torn
        return ids

    def _boot_starts(self) -> list[frame.RawFrame]:
        """The first frame still in the ring of each boot, by serial: its oldest `boot` frame
        (a boot and every restart within it write one), or the oldest frame of the ring for the
        boot whose start the ring has overwritten (it is always the oldest boot)."""
        if self._starts is not None:
            return self._starts
        self._starts = []
        if self.head is None:
            return self._starts
        oldest = ring.oldest_frame(self.map, self.head, self.size, self.header.align)
        if oldest is None:
            return self._starts
        first: dict[bytes, frame.RawFrame] = {oldest.boot_id: oldest}
        for f in ring.boot_frames(self.map, self.size):
            # Outside [oldest, head]: remains of a cut write, or of an earlier lap in a hole.
            if oldest.serial <= f.serial <= self.head.serial:
                known = first.get(f.boot_id)
                if known is None or f.serial < known.serial:
                    first[f.boot_id] = f
        self._starts = sorted(first.values(), key=lambda f: f.serial)
        return self._starts

    def summary_of(self, boot_id: str) -> BootSummary | None:
        """One boot's summary (as in boots()), skimming only that boot."""
        s: BootSummary | None = None
        for h in self.skim_of(boot_id):
            if s is None:
                s = BootSummary(boot_id, h.wall_us, h.wall_us, h.serial, h.offset)
            kind = KINDS_BY_CODE.get(h.code)
            s.records += 1
            s.last_wall_us = h.wall_us
            s.stopped = kind is _STOP
            if kind is not None:
                s.kinds[kind] = s.kinds.get(kind, 0) + 1
            if kind is _KERNEL:
                s.kernel_records += 1
            elif kind is _LOST or kind is _STOP:
                f = self.check(h)
                if f is not None:
                    _count_checked(s, f)
        return s

    def boot_start(self, boot_id: str) -> frame.RawFrame | None:
        """The first frame of a boot still in the ring; None if it has none we can find."""
        want = bytes.fromhex(boot_id)
        return next((f for f in self._boot_starts() if f.boot_id == want), None)

    def last_frame_of(self, boot_id: str, kind: Kind) -> frame.RawFrame | None:
        """The newest frame of `kind` in the boot the head belongs to (the running boot, for a
        restarted recorder); None if it has none. Searches back from the head in growing
        windows down to the boot's first frame: bounded by the boot, not the ring, and blind
        to the header's hints (a ring lapped within one boot has overwritten its start)."""
        want = bytes.fromhex(boot_id)
        head, start = self.head, self.boot_start(boot_id)
        if head is None or head.boot_id != want:
            return None
        low = start.serial if start is not None else 0
        end, window, left = head.offset + head.size, 64 * 1024, self.size - ring.DATA_START
        while left > 0:
            if end <= ring.DATA_START:
                end = self.size  # wrapped: the lap before lies at the end of the file
            lo = max(ring.DATA_START, end - window, end - left)
            best = None
            for f in ring.frames_from(self.map, lo, end, self.size):
                # Other serials: a cut write's remains past the head, or an earlier lap's.
                ours = f.kind is kind and f.boot_id == want and low <= f.serial <= head.serial
                if ours and (best is None or f.serial > best.serial):
                    best = f
            if best is not None or (start is not None and lo <= start.offset < end):
                return best
            left -= end - lo
            end, window = lo, window * 2
        return None

    def entries(self, boot_id: str) -> Iterator[Entry]:
        """The entries of one boot, in order."""
        for f in self.frames_of(boot_id):
            yield frame.to_entry(f)

    def skim_of(self, boot_id: str) -> Iterator[ring.Skimmed]:
        """One boot's frame headers, unchecked (ring.skim): `check()` those whose payload is
        used. A header that seems to start another boot is checked before it ends this one."""
        if self.head is None:
            return
        want = bytes.fromhex(boot_id)
        start = self.boot_start(boot_id)
        first = start or ring.oldest_frame(self.map, self.head, self.size, self.header.align)
        if first is None:
            return
        seen = False
        for n, h in enumerate(ring.skim(self.map, first, self.size, self.head.serial), 1):
            if n % DROP_EVERY == 0:
                self.release()
            if h.boot_id == want:
                seen = True
                yield h
            elif seen and start is not None and self.check(h) is not None:
                return  # boots do not interleave: the next boot began

    def check(self, h: ring.Skimmed) -> frame.RawFrame | None:
        """The checked frame behind a skimmed header, or None if it fails its checks."""
        f = frame.decode_at(self.map, h.offset, self.size)
        return f if f is not None and f.serial == h.serial else None

    def payload_head(self, h: ring.Skimmed, n: int) -> bytes:
        """The first `n` bytes of a frame's payload, unchecked (a cheap look at its shape)."""
        start = h.offset + frame.HEADER_SIZE
        return bytes(self.map[start : min(start + n, h.offset + h.size)])

    def frames_of(self, boot_id: str) -> Iterator[frame.RawFrame]:
        """The frames of one boot, in order; the boot hint spares a walk from the oldest."""
        want = bytes.fromhex(boot_id)
        start = self.boot_start(boot_id)
        seen = False
        for f in self.frames(start):
            if f.boot_id == want:
                seen = True
                yield f
            elif seen and start is not None:
                return  # boots do not interleave: the next boot began

    def last_boot_id(self) -> str | None:
        return self.head.boot_id.hex() if self.head is not None else None


def _merge(out: dict[bytes, BootSummary], part: BootSummary) -> None:
    """A segment's summary of a boot into the listing: a boot's later segment (a restart's
    `boot` frame starts none: a boot starts at its oldest one) continues its summary."""
    key = bytes.fromhex(part.boot_id)
    s = out.get(key)
    if s is None:
        out[key] = part
        return
    s.records += part.records
    s.kernel_records += part.kernel_records
    s.lost += part.lost
    s.lost_before_start += part.lost_before_start
    s.last_wall_us = part.last_wall_us
    s.stopped = part.stopped
    if part.kinds.get(Kind.STOP):  # the last `stop` record says it
        s.shutting_down = part.shutting_down
    for kind, count in part.kinds.items():
        s.kinds[kind] = s.kinds.get(kind, 0) + count


def _count_checked(s: BootSummary, f: frame.RawFrame) -> None:
    """What a lost or stop record adds to its boot's summary."""
    data = frame.to_entry(f).data
    if isinstance(data, Lost):
        if data.reason is LostReason.BEFORE_START:
            s.lost_before_start += data.count
        else:
            s.lost += data.count
    elif isinstance(data, Stop):
        s.shutting_down = data.shutting_down


_KERNEL, _LOST, _STOP = Kind.KERNEL, Kind.LOST, Kind.STOP
_CHECKED = (KIND_CODES[Kind.LOST], KIND_CODES[Kind.STOP])


def pick_boot(ids: Sequence[str], spec: str | None, current: str | None) -> int:
    """Index into `ids` (boot ids, oldest first): `spec` an id prefix or 0/-N; default the
    newest boot that is not the running one (the "last boot" after a reboot)."""
    rows = ids
    if not rows:
        raise NothingToJudge("the ring holds no boots yet", hint="is kmsgd running?")
    if spec is None:
        ended = [i for i, r in enumerate(rows) if r != current]
        if not ended:
            raise NothingToJudge("the ring holds only the running boot: no earlier boot to judge")
        return ended[-1]
    want = spec.replace("-", "").lower()
    prefixed = [i for i, r in enumerate(rows) if r.startswith(want)]
    if len(spec) < 8 and spec.lstrip("+-").isdigit():
        n = int(spec)
        if not spec.startswith(("-", "+")) and n > 0 and len(prefixed) == 1:
            return prefixed[0]  # an id whose first hex digits are all decimal digits
        if n > 0 or -n >= len(rows):
            raise BadInput(
                f"--boot {spec}: the ring holds {len(rows)} boot(s), 0 to {1 - len(rows)}"
            )
        return len(rows) - 1 + n
    hits = prefixed
    if len(hits) != 1:
        raise BadInput(f"--boot {spec}: {'more than one' if hits else 'no'} boot matches")
    return hits[0]
