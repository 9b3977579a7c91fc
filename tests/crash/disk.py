"""A file layer that records every pwrite and fdatasync, and the disk images a power cut leaves.

The model (what a power cut may do to writes not yet covered by an fdatasync):
- `drop`: none of them reached the disk;
- `torn`: they reached it in order up to one, which stopped at a 512-byte sector boundary;
- `pages`: any subset of the dirty 4 KiB pages reached it, each as it was after any one of the
  writes that touched it (the page cache writes pages back in any order, at any time);
- `sectors`: the same per 512-byte sector (a multi-sector page write that the cut tore);
- `shorn`: sectors are not atomic either: each dirty sector holds its old bytes, any version
  it went through, or two of them cut apart at any byte (SQLite's crash VFS and CrashMonkey
  model the same; a drive promises at most one atomic logical sector, and a 512e drive
  rewrites a whole 4 KiB physical sector for it);
- `garbage`: `shorn`, and a dirty sector may also hold garbage, bytes the write did not
  change included (not in MODES: it loses acknowledged frames, see test_powercut.py).
Everything before the last completed fdatasync is on the disk, whole.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass

SECTOR = 512
PAGE = 4096
MODES = ("drop", "torn", "pages", "sectors", "shorn")


@dataclass(frozen=True, slots=True)
class Write:
    offset: int
    data: bytes

    @property
    def end(self) -> int:
        return self.offset + len(self.data)


@dataclass(frozen=True, slots=True)
class Sync:
    pass


@dataclass(frozen=True, slots=True)
class Ack:
    """The driver's mark: a commit() returned here, so everything written so far is promised."""

    serial: int


Op = Write | Sync | Ack


class RecordingIO:
    """Passes writes to the real file (so the writer reads back what it wrote, as through the
    page cache) and records them; fdatasync is only recorded: durability is simulated.

    `lying=True` models a disk that acknowledges a flush it never did (no Sync is recorded):
    the harness must then find lost records, which shows that it can fail.
    """

    def __init__(self, *, lying: bool = False) -> None:
        self.ops: list[Op] = []
        self.lying = lying

    def pwrite(self, fd: int, data: bytes | memoryview, offset: int, /) -> int:
        chunk = bytes(data)
        done = os.pwrite(fd, chunk, offset)
        self.ops.append(Write(offset, chunk[:done]))
        return done

    def fdatasync(self, fd: int, /) -> None:
        if not self.lying:
            self.ops.append(Sync())

    def pread(self, fd: int, length: int, offset: int, /) -> bytes:
        return os.pread(fd, length, offset)


def apply(image: bytearray, w: Write) -> None:
    image[w.offset : w.end] = w.data


def crash_image(synced: bytes, unsynced: list[Write], mode: str, rng: random.Random) -> bytearray:
    """What the disk holds after a cut: `synced` plus what `mode` lets through of `unsynced`."""
    image = bytearray(synced)
    if not unsynced or mode == "drop":
        return image
    if mode == "torn":
        last = rng.randrange(len(unsynced))
        for w in unsynced[:last]:
            apply(image, w)
        w = unsynced[last]
        cuts = [c for c in range(w.offset - w.offset % SECTOR + SECTOR, w.end, SECTOR)]
        cut = rng.choice([w.offset, *cuts])  # the write stopped at a sector boundary
        image[w.offset : cut] = w.data[: cut - w.offset]
        return image
    if mode in ("shorn", "garbage"):
        return shorn_image(image, unsynced, rng, garbage=mode == "garbage")
    unit = PAGE if mode == "pages" else SECTOR
    # Every version each dirty unit went through, oldest first.
    versions: dict[int, list[bytes]] = {}
    current = bytearray(synced)
    for w in unsynced:
        apply(current, w)
        for start in range(w.offset - w.offset % unit, w.end, unit):
            versions.setdefault(start, []).append(bytes(current[start : start + unit]))
    for start, seen in versions.items():
        if rng.random() < 0.5:
            image[start : start + unit] = rng.choice(seen)
    return image


def shorn_image(
    image: bytearray, unsynced: list[Write], rng: random.Random, *, garbage: bool = False
) -> bytearray:
    """Each dirty sector: untouched, one of its versions, two versions torn apart at a byte
    (an old prefix and a new suffix, or the reverse), or with `garbage`, random bytes."""
    old = bytes(image)
    versions: dict[int, list[bytes]] = {}
    current = bytearray(image)
    for w in unsynced:
        apply(current, w)
        for start in range(w.offset - w.offset % SECTOR, w.end, SECTOR):
            versions.setdefault(start, []).append(bytes(current[start : start + SECTOR]))
    for start, seen in versions.items():
        before = old[start : start + SECTOR]
        roll = rng.random()
        if roll < 0.35:
            continue
        if roll < 0.7:
            image[start : start + SECTOR] = rng.choice(seen)
        elif roll < 0.8 and garbage:
            image[start : start + SECTOR] = rng.randbytes(len(before))
        else:
            a, b = rng.sample([before, *seen], 2) if seen else (before, before)
            cut = rng.randrange(len(before) + 1)
            image[start : start + SECTOR] = a[:cut] + b[cut:]
    return image
