"""The ring file: a preallocated file of frames holding many boots, oldest overwritten first.

Layout: two 4 KiB header slots (the valid one with the higher generation wins, so a torn
header write never loses the other), then the data area. Frames never straddle the end:
one that does not fit starts again at the data area's start. Frames are found by walking:
the next frame lies right after the current one (or at the data start after a wrap), and a
bad frame is skipped by searching for the next magic; a serial that goes down marks the end
of the newest lap. Headers only hold hints (head, boot starts), and every hint is verified.
"""

from __future__ import annotations

import mmap
import os
import re
import struct
import uuid
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NamedTuple

from kmsgd.errors import RingCorrupt
from kmsgd.ring.frame import ALIGN, HEADER_SIZE, MAGIC, MAX_PAYLOAD, Buf, RawFrame, decode_at
from kmsgd.ring.records import KIND_CODES, Kind

RING_MAGIC = b"KMSGDRNG"
VERSION = 1
SLOT_SIZE = 4096
DATA_START = 2 * SLOT_SIZE
MIN_SIZE = DATA_START + 64 * 1024
MAX_BOOT_HINTS = 96
TAIL_GUARD = HEADER_SIZE  # zero bytes written after every batch: marks a clean end
# Every commit starts on a sector boundary, its end padded with zeros up to it: a power cut
# tearing a commit then never touches a sector that holds an acknowledged frame (the sector
# of the previous commit's last frame could come back as garbage; docs/ring-format.md,
# tests/ring/test_powercut.py). Readers look at the next boundary when a frame is not
# adjacent: 512 bytes, or 4 KiB for a writer that aligns to the file system's block.
SECTOR = 512
_BOUNDARIES = (SECTOR, 4096)
UNITS = (SECTOR, 4096)  # the write alignments a writer may use (`[ring] align`)
_SLOT = struct.Struct("<8sIIQQQ16sQQI")  # magic ver crc gen size data_start ring_id head serial n
_BOOT_HINT = struct.Struct("<16sQQ")  # boot_id, offset of its first frame, its serial
# Fields appended to the format since version 1 live at a fixed offset past the largest list of
# boot hints, with CRCs of their own: readers of version 1 never look there (their CRC stops at
# the last hint), and a slot written by one of their writers has zeros there or a block of an
# older generation, which reads as the defaults. The block: b"ALGN", the writer's commit
# alignment, the generation, a CRC of those, and a CRC of the whole slot up to there (the
# padding after the hints included, so no byte of a slot goes unchecked).
_EXT_AT = _SLOT.size + MAX_BOOT_HINTS * _BOOT_HINT.size
_EXT = struct.Struct("<4sIQII")
_EXT_TAG = b"ALGN"
_EXT_OWN = _EXT.size - 8  # the bytes the block's own CRC covers


@dataclass(frozen=True, slots=True)
class BootHint:
    boot_id: bytes
    offset: int
    serial: int


@dataclass(frozen=True, slots=True)
class Header:
    generation: int
    size: int
    ring_id: bytes
    head_offset: int  # offset of a durable frame at or before the head (a hint)
    head_serial: int
    boots: tuple[BootHint, ...]
    # The unit every commit starts on: readers skip the rest of the head's unit, which a torn
    # write may have left holding an older frame (docs/ring-format.md). A ring written before
    # the field existed reads as 512, the only unit its writers used.
    align: int = SECTOR

    def pack(self) -> bytes:
        hints = b"".join(_BOOT_HINT.pack(h.boot_id, h.offset, h.serial) for h in self.boots)
        fields = (self.generation, self.size, DATA_START, self.ring_id)
        rest = (self.head_offset, self.head_serial, len(self.boots))
        body = _SLOT.pack(RING_MAGIC, VERSION, 0, *fields, *rest) + hints
        crc = zlib.crc32(body[:12] + body[16:])
        main = (body[:12] + crc.to_bytes(4, "little") + body[16:]).ljust(_EXT_AT, b"\0")
        ext = _EXT.pack(_EXT_TAG, self.align, self.generation, 0, 0)[:_EXT_OWN]
        ext += zlib.crc32(ext).to_bytes(4, "little")
        return main + ext + zlib.crc32(main + ext).to_bytes(4, "little")


def unpack_header(slot: bytes) -> Header | None:
    """A header slot's contents, or None when it is blank, foreign or fails its CRC."""
    if len(slot) < _SLOT.size or not slot.startswith(RING_MAGIC):
        return None
    _, version, crc, gen, size, data_start, ring_id, head, serial, n = _SLOT.unpack_from(slot)
    if version != VERSION or data_start != DATA_START or n > MAX_BOOT_HINTS:
        return None
    end = _SLOT.size + n * _BOOT_HINT.size
    if zlib.crc32(slot[:12] + slot[16:end]) != crc:
        return None
    boots = tuple(
        BootHint(*_BOOT_HINT.unpack_from(slot, _SLOT.size + i * _BOOT_HINT.size)) for i in range(n)
    )
    return Header(gen, size, ring_id, head, serial, boots, _align(slot, gen))


def _align(slot: bytes, generation: int) -> int:
    """The alignment block's unit when it is whole and of this slot's generation; else 512, as
    before the block existed: zeros (a writer that knows no block), a block of an older
    generation (such a writer rewrote the slot since), or one a torn header write cut (the slot
    spans several sectors, and the head hint in its first one is still good)."""
    block = slot[_EXT_AT : _EXT_AT + _EXT.size]
    if len(block) < _EXT.size:
        return SECTOR
    tag, unit, gen, own, whole = _EXT.unpack(block)
    if tag != _EXT_TAG or gen != generation or zlib.crc32(block[:_EXT_OWN]) != own:
        return SECTOR
    if zlib.crc32(slot[: _EXT_AT + _EXT_OWN + 4]) != whole:
        return SECTOR
    return unit if unit >= SECTOR and unit & (unit - 1) == 0 else SECTOR


def read_header(path: str, buf: Buf, file_size: int) -> tuple[Header, int]:
    """The newest valid header and its slot index; RingCorrupt when the file is no ring."""
    if file_size < MIN_SIZE:
        raise RingCorrupt(path, 0, f"file too small ({file_size} bytes)")
    slots = [unpack_header(bytes(buf[i * SLOT_SIZE : (i + 1) * SLOT_SIZE])) for i in (0, 1)]
    valid = [(h.generation, i, h) for i, h in enumerate(slots) if h is not None]
    if not valid:
        raise RingCorrupt(path, 0, "no valid header")
    _, index, header = max(valid)
    if header.size != file_size:
        raise RingCorrupt(path, index * SLOT_SIZE, f"header says {header.size} bytes")
    return header, index


FIND_CHUNK = 1 << 20


def magic_hits(buf: Buf, start: int, limit: int) -> Iterator[int]:
    """Aligned offsets in [start, limit) where a frame magic stands, in order.

    Searches copies of 1 MiB chunks, never the mapping itself: mmap.find() of Python < 3.11.5
    reads past the end of the mapping and can crash (CPython gh-105235; Debian bookworm ships
    3.11.2, and the crash lab hit it)."""
    pos = start + (-start % ALIGN)
    while pos + HEADER_SIZE <= limit:
        end = min(limit, pos + FIND_CHUNK + len(MAGIC) - 1)
        chunk = bytes(buf[pos:end])
        i = chunk.find(MAGIC)
        while i >= 0:
            if (pos + i) % ALIGN == 0:
                yield pos + i
            i = chunk.find(MAGIC, i + 1)
        pos += FIND_CHUNK


def find_frame(buf: Buf, start: int, limit: int) -> RawFrame | None:
    """The first valid frame at an aligned offset in [start, limit)."""
    for hit in magic_hits(buf, start, limit):
        frame = decode_at(buf, hit, limit)
        if frame is not None:
            return frame
    return None


def _find_between(buf: Buf, start: int, limit: int, low: int, high: int | None) -> RawFrame | None:
    """The first valid frame in [start, limit) whose serial is above `low` and at most `high`."""
    frame = find_frame(buf, start, limit)
    while frame is not None and (frame.serial <= low or (high is not None and frame.serial > high)):
        frame = find_frame(buf, frame.offset + frame.size, limit)
    return frame


def following(buf: Buf, end: int, size: int) -> RawFrame | None:
    """The valid frame right after a frame ending at `end`: adjacent, or at the next sector
    (or 4 KiB) boundary when only zeros lie between (the padding that ends a commit)."""
    frame = decode_at(buf, end, size)
    if frame is not None:
        return frame
    at = _boundary_after(buf, end, size)
    return decode_at(buf, at, size) if at >= 0 else None


def next_frame(
    buf: Buf, after: RawFrame, size: int, last: int | None = None, unit: int = SECTOR
) -> RawFrame | None:
    """The frame written right after `after`, skipping corrupt bytes; None at the head.

    Without `last`: the successor is the valid frame with a higher serial found first from
    `after`'s end, wrapping once to the data start; a lower serial means the old lap, so we
    are at the head. With `last` (the head's serial, known to a reader), frames older than
    `after` or newer than the head are passed over in both searches: after a power cut,
    writes that were never synced may have reached the disk out of order, leaving new frames
    beyond a hole and old ones between new ones (tests/ring/test_powercut.py).
    """
    pos = after.offset + after.size
    frame = following(buf, pos, size)
    if frame is not None and after.serial < frame.serial and (last is None or frame.serial <= last):
        return frame
    if last is None:
        # Adjacent slot is torn, old or empty: the writer may have wrapped, or bytes are bad.
        # The search starts past `after`'s unit: the next commit starts on a boundary, and
        # an older frame torn back into the rest of the unit (see oldest_frame) must not pass
        # for the old lap: a reopening writer starts past it, and its records would be hidden.
        frame = find_frame(buf, sector_end(pos, unit), size)
        if frame is None or frame.serial <= after.serial:
            frame = find_frame(buf, DATA_START, after.offset)
    else:
        frame = _find_between(buf, pos, size, after.serial, last)
        if frame is None:
            frame = _find_between(buf, DATA_START, after.offset, after.serial, last)
    if frame is None or frame.serial <= after.serial:
        return None
    return frame


def walk(
    buf: Buf, first: RawFrame, size: int, last: int | None = None, unit: int = SECTOR
) -> Iterator[RawFrame]:
    """Frames from `first` to the head (the frame with serial `last`, when known), in order;
    `unit` is the ring's commit alignment (Header.align)."""
    frame: RawFrame | None = first
    while frame is not None:
        yield frame
        if frame.serial == last:
            return
        # The common case inline (a walk visits every frame): the next frame lies adjacent,
        # or past the padding that ends a commit.
        end = frame.offset + frame.size
        nxt = decode_at(buf, end, size) or following(buf, end, size)
        if nxt is not None and frame.serial < nxt.serial and (last is None or nxt.serial <= last):
            frame = nxt
        else:
            frame = next_frame(buf, frame, size, last, unit)


class Skimmed(NamedTuple):
    offset: int
    size: int
    serial: int
    boot_id: bytes
    wall_us: int
    code: int  # the kind's on-disk code


_SKIM = struct.Struct("<4sIQ16sqB")


def skim(buf: Buf, first: RawFrame, size: int, last: int) -> Iterator[Skimmed]:
    """Frames from `first` to the head `last`, reading headers only: a fast count for
    listings. Nothing here is a checked record: decode_at() each frame whose payload is used.
    A header that does not follow (no magic, length out of bounds, serial not next in order)
    hands over to the checked walk for one step, which resynchronises as walk() does."""
    frame: RawFrame | None = first
    unpack = _SKIM.unpack_from
    while frame is not None:
        offset, fsize, serial = frame.offset, frame.size, frame.serial
        yield Skimmed(offset, fsize, serial, frame.boot_id, frame.wall_us, KIND_CODES[frame.kind])
        while serial != last:
            pos = offset + fsize
            if pos + HEADER_SIZE > size:
                break
            magic, length, nserial, boot, wall, code = unpack(buf, pos)
            if magic != MAGIC:
                # the padding that ends a commit: the next frame starts at a boundary
                pos = _boundary_after(buf, pos, size)
                if pos < 0:
                    break
                magic, length, nserial, boot, wall, code = unpack(buf, pos)
            if length > MAX_PAYLOAD or pos + HEADER_SIZE + length > size:
                break
            if not serial < nserial <= last:
                break
            offset, fsize, serial = pos, (HEADER_SIZE + length + ALIGN - 1) & ~(ALIGN - 1), nserial
            yield Skimmed(offset, fsize, serial, boot, wall, code)
        if serial == last:
            return
        checked = decode_at(buf, offset, size)
        frame = (
            next_frame(buf, checked, size, last)
            if checked is not None
            else _resync(buf, offset, size, serial, last)
        )


def sector_end(offset: int, unit: int = SECTOR) -> int:
    """`offset` rounded up to a boundary of the ring's unit: where the commit after it starts."""
    return offset + (-offset % unit)


def _boundary_after(buf: Buf, end: int, size: int) -> int:
    """The next sector (or 4 KiB) boundary after `end` holding a frame magic with only zeros
    before it (a commit's padding), unchecked; -1 if none."""
    for unit in _BOUNDARIES:
        at = end + (-end % unit)
        if at != end and at + HEADER_SIZE <= size and buf[at : at + 4] == MAGIC:
            return -1 if bytes(buf[end:at]).strip(b"\0") else at
    return -1


def _resync(buf: Buf, offset: int, size: int, serial: int, last: int) -> RawFrame | None:
    """After a skimmed frame whose own checks fail: the next valid frame above its serial."""
    frame = _find_between(buf, offset + ALIGN, size, serial, last)
    return frame or _find_between(buf, DATA_START, offset, serial, last)


# A `boot` frame's header up to its kind byte: magic, length, serial, boot id, wall clock (36
# bytes of any value), then the kind code. A regex finds them at C speed, without a walk.
_BOOT_FRAME = re.compile(re.escape(MAGIC) + b".{36}" + bytes((KIND_CODES[Kind.BOOT],)), re.DOTALL)


def boot_frames(buf: Buf, size: int) -> list[RawFrame]:
    """Every valid `boot` frame in the data area, in file order.

    Every `kmsgd run` writes one first (a boot, and each restart within it), so these name the
    ring's boots from the frames themselves: the header's boot hints may never have reached the
    disk or been pushed out (docs/ring-format.md). About 0.2 s for 256 MiB.
    """
    found: list[RawFrame] = []
    pos = DATA_START
    while pos < size:
        end = min(size, pos + FIND_CHUNK + HEADER_SIZE)
        for m in _BOOT_FRAME.finditer(bytes(buf[pos:end])):
            hit = pos + m.start()
            if hit % ALIGN or hit >= pos + FIND_CHUNK:
                continue  # unaligned, or the next chunk's (the overlap)
            frame = decode_at(buf, hit, size)
            if frame is not None and frame.kind is Kind.BOOT:
                found.append(frame)
        if isinstance(buf, mmap.mmap):
            # Unmap what was read: a scan of 256 MiB must not hold 256 MiB of RSS (the
            # pages stay in the page cache).
            buf.madvise(mmap.MADV_DONTNEED, pos, min(FIND_CHUNK, size - pos))
        pos += FIND_CHUNK
    return found


def frames_from(buf: Buf, start: int, limit: int, size: int) -> Iterator[RawFrame]:
    """Valid frames starting in [start, limit), in file order (a frame may end past `limit`)."""
    pos = start
    for hit in magic_hits(buf, start, min(size, limit + HEADER_SIZE)):
        if hit >= limit:
            return
        if hit < pos:
            continue  # inside the frame just returned
        frame = decode_at(buf, hit, size)
        if frame is not None:
            yield frame
            pos = hit + frame.size


def find_head(buf: Buf, header: Header, size: int) -> RawFrame | None:
    """The newest valid frame: from the verified hint if it holds, else from the data start."""
    start = decode_at(buf, header.head_offset, size) if header.head_offset >= DATA_START else None
    if start is None or start.serial != header.head_serial:
        start = find_frame(buf, DATA_START, size)
        if start is None:
            return None
    last = start
    for last in walk(buf, start, size, unit=header.align):  # noqa: B007 - the final frame
        pass
    return last


def frames_above(buf: Buf, serial: int, size: int) -> list[int]:
    """Offsets of the valid frames with a serial above `serial`, anywhere in the data area.

    A cheap pass: a frame's header is read without its CRC, and only a serial above the
    bound costs a full check.
    """
    found, pos = [], DATA_START
    for hit in magic_hits(buf, DATA_START, size):
        if hit < pos or hit + HEADER_SIZE > size:
            continue
        if int.from_bytes(buf[hit + 8 : hit + 16], "little") <= serial:
            continue
        frame = decode_at(buf, hit, size)
        if frame is not None and frame.serial > serial:
            found.append(hit)
            pos = hit + frame.size
    return found


def oldest_frame(buf: Buf, head: RawFrame, size: int, unit: int = SECTOR) -> RawFrame | None:
    """The oldest frame still in the ring: the first valid one after the head's unit (the
    ring's commit alignment, Header.align), in file order.

    The rest of the head's unit is never the oldest frame: the write that placed the head
    covered it (its frames, or the zeros padding its commit to the boundary), so a frame there
    is a leftover of an older lap that a power cut tore back in (a torn sector: the new bytes
    up to the head's end, then the old ones), released by the ring when the head's commit was
    issued. A reopening writer starts at the next boundary, so such a frame would be shown
    once, then vanish without being overwritten (docs/reliability.md, rule 4)."""
    after = _find_between(buf, sector_end(head.offset + head.size, unit), size, -1, head.serial)
    if after is not None and after.serial < head.serial:
        return after
    first = _find_between(buf, DATA_START, head.offset + head.size, -1, head.serial)
    return first if first is not None and first.serial <= head.serial else None


def torn_tail_bytes(buf: Buf, head: RawFrame | None, size: int) -> int:
    """Bytes of a write that did not complete after the head (0 for a clean tail).

    Every write is followed by TAIL_GUARD zero bytes, so a clean head is followed by zeros;
    anything else up to the next valid frame is the torn remains of the last batch.
    """
    end = head.offset + head.size if head is not None else DATA_START
    guard = bytes(buf[end : min(end + TAIL_GUARD, size)])
    if not guard.strip(b"\0"):
        return 0
    limit = min(end + (1 << 20), size)
    after = find_frame(buf, end, limit)
    stop = after.offset if after is not None else limit
    seg = bytes(buf[end:stop])
    return len(seg) - seg.count(0)


def new_ring_id() -> bytes:
    return uuid.uuid4().bytes


def zero_fill(fd: int, size: int) -> None:
    """Write real zeros over the whole file: no unwritten extents, so no metadata per write."""
    chunk = b"\0" * (1 << 20)
    offset = 0
    while offset < size:
        offset += os.pwrite(fd, chunk[: min(len(chunk), size - offset)], offset)
