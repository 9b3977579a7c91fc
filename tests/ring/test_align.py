"""The ring's commit alignment, recorded in its header: readers skip the rest of the head's
unit (512 bytes, or 4 KiB), where a torn write may have left an older frame
(docs/ring-format.md, *Commits*)."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import pytest

from kmsgd.ring import frame as fr
from kmsgd.ring import layout as ring
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind
from kmsgd.ring.writer import RingWriter

RING_SIZE = ring.MIN_SIZE  # 72 KiB: laps after a few hundred records


def kline(seq: int, size: int = 100) -> bytes:
    return b"4,%d,%d,-;%s\n" % (seq, seq * 1000, b"x" * size)


def lapped(path: Path, align: int) -> RingWriter:
    w = RingWriter(str(path), size=RING_SIZE, align=align)
    boot = uuid.uuid4().bytes
    for seq in range(900):  # twice round the data area, commits of 10 frames
        w.add(Kind.KERNEL, boot, seq, kline(seq))
        if seq % 10 == 9:
            w.commit()
    w.commit()
    return w


def ring_with_an_old_frame_in_the_head_block(path: Path) -> tuple[fr.RawFrame, int]:
    """A ring written at 4 KiB that has lapped; a commit whose last frame (the head) ends in
    the first sector of a 4 KiB block; a power cut tore the block: its first sector new, the
    rest the old lap's bytes, a whole old frame among them past the head's sector. Returns
    (the old frame, the head's end)."""
    w = lapped(path, 4096)
    synced = path.read_bytes()
    start = w.pos
    for size in range(10, 400):  # the first head size leaving a whole old frame in its block
        end = start + fr.padded(fr.HEADER_SIZE + len(kline(1000, size)))
        sector, block = ring.sector_end(end), ring.sector_end(end, 4096)
        old = next(ring.frames_from(synced, sector, block, RING_SIZE), None)
        if old is not None and old.offset + old.size <= block and end % 512:
            break
    else:
        pytest.fail("no head size leaves an old frame past its sector")
    w.add(Kind.KERNEL, uuid.uuid4().bytes, 1000, kline(1000, size))
    w.commit()
    w.close()
    image = bytearray(path.read_bytes())
    image[sector:block] = synced[sector:block]  # the torn block: the old lap's bytes
    path.write_bytes(image)
    return old, end


def test_a_ring_written_at_4k_is_read_back_with_no_stale_frame(tmp_path: Path) -> None:
    path = tmp_path / "ring"
    old, end = ring_with_an_old_frame_in_the_head_block(path)
    with RingReader(str(path)) as r:
        assert r.header.align == 4096
        assert r.head is not None and r.head.offset + r.head.size == end
        got = list(r.frames())
        # What a reader using 512 would have shown: the old frame, as the oldest record.
        at_512 = ring.oldest_frame(r.map, r.head, r.size, 512)
    assert at_512 is not None and at_512.serial == old.serial
    assert old.serial not in {f.serial for f in got}
    serials = [f.serial for f in got]
    assert serials == sorted(serials) and serials[-1] == got[-1].serial
    # A new writer at 4 KiB appends after the head's block (over the oldest commit); the old
    # frame stays hidden.
    w = RingWriter(str(path), size=RING_SIZE, align=4096)
    w.add(Kind.KERNEL, uuid.uuid4().bytes, 0, kline(2000))
    w.commit()
    w.close()
    with RingReader(str(path)) as r:
        after = list(r.frames())
    assert old.serial not in {f.serial for f in after}
    kept = [f.payload for f in after[:-1]]
    assert kept == [f.payload for f in got][len(got) - len(kept) :] and len(kept) > 100
    assert after[-1].payload == kline(2000) and after[-1].offset % 4096 == 0


def test_the_header_records_the_unit_and_an_old_ring_reads_as_512(tmp_path: Path) -> None:
    path = tmp_path / "ring"
    lapped(path, 4096).close()
    with RingReader(str(path)) as r:
        header, frames = r.header, list(r.frames())
    assert header.align == 4096
    slot = bytearray(header.pack())
    assert ring.unpack_header(bytes(slot)) == header
    # A header slot as a writer before the field wrote it: nothing past the boot hints.
    old = bytes(slot[: ring._EXT_AT]).ljust(ring.SLOT_SIZE, b"\0")
    assert ring.unpack_header(old) == dataclasses.replace(header, align=512)
    # An alignment block left behind by another generation (an older writer wrote the slot
    # since) is not this header's: 512.
    older = dataclasses.replace(header, generation=header.generation - 1)
    stale = old[: ring._EXT_AT] + older.pack()[ring._EXT_AT :]
    got = ring.unpack_header(stale)
    assert got is not None and got.align == 512
    # A writer at 512 reopening the ring records 512 before its first commit, and the reader
    # still returns every frame.
    RingWriter(str(path), size=RING_SIZE).close()
    with RingReader(str(path)) as r:
        assert r.header.align == 512
        assert [f.payload for f in r.frames()] == [f.payload for f in frames]


def test_a_writer_refuses_an_unknown_unit(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="alignment"):
        RingWriter(str(tmp_path / "ring"), size=RING_SIZE, align=1000)
