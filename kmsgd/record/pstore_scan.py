"""Scanning pstore at record time: the dumps in /sys/fs/pstore and in systemd-pstore's
archive, grouped into whole dumps (the dump record type and its file format: ring/pstore.py).

systemd-pstore copies the files to /var/lib/systemd/pstore/ (EFI: `<timestamp>/<count>/`,
ERST: `<first id>/`, other backends at the top) with a reassembled `dmesg.txt`, then unlinks
them from pstore. Both places are read; nothing is ever unlinked (that is systemd-pstore's job,
and a dump left in place is harmless: `new_dumps` skips it). Stdlib only: this runs in the
recorder.
"""

from __future__ import annotations

import hashlib
import os
import re
import zlib
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from pathlib import Path

from kmsgd.ring.pstore import _HEADER, DumpReason, PstoreDump, parse_lines

ARCHIVE = "var/lib/systemd/pstore"
MAX_FILE_BYTES = 4 << 20  # ramoops records are ≤ record_size; refuse anything absurd
PART_GAP_S = 120  # parts of one dump are written within one kmsg_dump() call
_NAME = re.compile(r"dmesg-(?P<backend>.+)-(?P<id>\d+)(?P<enc>\.enc\.z)?")


@dataclass(frozen=True, slots=True)
class Skipped:
    path: str
    why: str


@dataclass(frozen=True, slots=True)
class PstoreScan:
    dumps: tuple[PstoreDump, ...]
    skipped: tuple[Skipped, ...]  # unreadable, binary or empty files: say so, carry on


@dataclass(frozen=True, slots=True)
class _Chunk:
    path: str
    group: tuple[str, ...]  # files that may belong to one dump
    backend: str
    reason: DumpReason
    count: int | None
    part: int
    text: str
    mtime_us: int
    archived: bool
    undecodable: bool = False


def _read(path: str) -> tuple[bytes, int]:
    with open(path, "rb") as f:
        data = f.read(MAX_FILE_BYTES + 1)
        mtime_us = os.fstat(f.fileno()).st_mtime_ns // 1000
    if len(data) > MAX_FILE_BYTES:
        raise ValueError(f"larger than {MAX_FILE_BYTES} bytes")
    return data, mtime_us


def _inflate(data: bytes) -> bytes | None:
    """pstore compresses with raw deflate (6.6+) or zlib; a `.enc.z` failed in the kernel."""
    for wbits in (-15, 15):
        try:
            return zlib.decompress(data, wbits)
        except zlib.error:
            continue
    return None


def _is_binary(data: bytes) -> bool:
    control = sum(1 for b in data if b < 32 and b not in (9, 10, 13))
    return b"\x00" in data.rstrip(b"\x00") or control > len(data) // 100


def split_chunks(text: str) -> list[tuple[DumpReason, int | None, int, str]]:
    """Text of one file → (reason, count, part, body) per header; dmesg.txt holds several."""
    out: list[tuple[DumpReason, int | None, int, str]] = []
    head: tuple[DumpReason, int | None, int] = (DumpReason.UNKNOWN, None, 1)
    body: list[str] = []
    for line in text.splitlines():
        m = _HEADER.fullmatch(line.strip())
        if m:
            if body and any(s.strip() for s in body):
                out.append((*head, "\n".join(body).strip("\n")))
            head = (DumpReason.parse(m["reason"]), int(m["count"]), int(m["part"]))
            body = []
        elif not line.startswith("ECC: "):  # ramoops' ECC notice, not log text
            body.append(line)
    if body and any(s.strip() for s in body):
        out.append((*head, "\n".join(body).strip("\n")))
    return out


def _chunks_of(path: str, rel_dir: str, archived: bool, backend_hint: str) -> list[_Chunk]:
    name = os.path.basename(path)
    m = _NAME.fullmatch(name)
    backend = m["backend"] if m else backend_hint
    group: tuple[str, ...] = (rel_dir, backend)
    if m and not archived and backend.startswith("efi"):
        # EFI record id = (timestamp * 100 + part) * 1000 + count (efi-pstore.c generic_id)
        rid = int(m["id"])
        group = (rel_dir, backend, str(rid // 100000), str(rid % 1000))
    data, mtime_us = _read(path)
    if m and m["enc"]:
        raw = _inflate(data)
        if raw is None:
            return [
                _Chunk(path, (*group, name), backend, DumpReason.UNKNOWN, None, 1,
                       "", mtime_us, archived, undecodable=True)
            ]  # fmt: skip
        data = raw
    data = data.rstrip(b"\x00")
    if not data.strip():
        raise ValueError("empty")
    if _is_binary(data):
        raise ValueError("binary data, not a kernel log")
    text = data.decode("utf-8", errors="replace")
    return [
        _Chunk(path, group, backend, reason, count, part, body, mtime_us, archived)
        for reason, count, part, body in split_chunks(text)
    ]


def _dirs(sys_root: Path, state_root: Path, skipped: list[Skipped]) -> list[tuple[str, str, bool]]:
    """(directory, path relative to its root, archived) for every directory to look in."""
    found = [(os.path.join(sys_root, "fs/pstore"), "", False)]
    archive = os.path.join(state_root, ARCHIVE)

    def unreadable(err: OSError) -> None:
        if not isinstance(err, FileNotFoundError):
            skipped.append(Skipped(str(err.filename), err.strerror or str(err)))

    for dirpath, dirnames, _ in os.walk(archive, onerror=unreadable):
        dirnames.sort()
        found.append((dirpath, os.path.relpath(dirpath, archive), True))
    return found


def _collect(sys_root: Path, state_root: Path) -> tuple[list[_Chunk], list[Skipped]]:
    chunks: list[_Chunk] = []
    skipped: list[Skipped] = []
    for directory, rel, archived in _dirs(sys_root, state_root, skipped):
        try:
            names = sorted(os.listdir(directory))
        except FileNotFoundError:
            continue
        except OSError as err:
            skipped.append(Skipped(directory, err.strerror or str(err)))
            continue
        dumps = [n for n in names if n.startswith("dmesg-")]
        hint = next((m["backend"] for n in dumps if (m := _NAME.fullmatch(n))), "unknown")
        # systemd-pstore's dmesg.txt repeats the parts beside it: read it only when they are gone
        if "dmesg.txt" in names and not dumps:
            dumps = ["dmesg.txt"]
        for name in dumps:
            path = os.path.join(directory, name)
            try:
                chunks.extend(_chunks_of(path, rel, archived, hint))
            except OSError as err:
                skipped.append(Skipped(path, err.strerror or str(err)))
            except ValueError as err:
                skipped.append(Skipped(path, str(err)))
    return chunks, skipped


def _digest(reason: DumpReason, count: int | None, text: str) -> str:
    return hashlib.sha256(f"{reason}#{count}\n{text}".encode()).hexdigest()[:32]


def _assemble(chunks: list[_Chunk]) -> PstoreDump:
    by_part = sorted(chunks, key=lambda c: -c.part)  # highest part is the oldest text
    first = by_part[0]
    parts = tuple(c.part for c in by_part)
    missing = tuple(p for p in range(1, max(parts) + 1) if p not in parts)
    text = "\n".join(c.text for c in by_part)
    digest = _digest(first.reason, first.count, text)
    if first.undecodable:
        with open(first.path, "rb") as f:  # identity of an opaque blob: its bytes
            digest = hashlib.sha256(f.read(MAX_FILE_BYTES)).hexdigest()[:32]
    return PstoreDump(
        backend=first.backend,
        reason=first.reason,
        count=first.count,
        parts=parts,
        paths=tuple(c.path for c in by_part),
        mtimes_us=tuple(c.mtime_us for c in by_part),
        text=text,
        digest=digest,
        missing_parts=missing,
        undecodable=first.undecodable,
        archived=first.archived,
        records=tuple(parse_lines(text)),
    )


def _group(chunks: list[_Chunk]) -> list[list[_Chunk]]:
    """Chunks of one dump: same place, reason and count, distinct parts, written together."""
    keyed: dict[tuple[object, ...], list[_Chunk]] = {}
    for c in chunks:
        keyed.setdefault((c.group, c.reason, c.count), []).append(c)
    groups: list[list[_Chunk]] = []
    for members in keyed.values():
        current: list[_Chunk] = []
        for c in sorted(members, key=lambda c: (c.mtime_us, c.part)):
            # ramoops restarts its counter each boot: an old Part2 can sit beside a new Part1
            stale = current and c.mtime_us - current[0].mtime_us > PART_GAP_S * 1_000_000
            if current and (stale or any(p.part == c.part for p in current)):
                groups.append(current)
                current = []
            current.append(c)
        groups.append(current)
    return groups


def scan_tree(sys_root: Path, state_root: Path) -> PstoreScan:
    """Every dmesg dump in <sys_root>/fs/pstore and systemd-pstore's archive, newest last."""
    chunks, skipped = _collect(sys_root, state_root)
    seen: dict[str, PstoreDump] = {}
    for group in _group(chunks):
        dump = _assemble(group)
        # copied by systemd-pstore with Unlink=no: the same dump in both places, keep one
        seen.setdefault(dump.digest, dump)
    dumps = sorted(seen.values(), key=lambda d: (max(d.mtimes_us), d.paths))
    return PstoreScan(tuple(dumps), tuple(skipped))


def scan(sys_root: Path, state_root: Path) -> list[PstoreDump]:
    """The dumps of `scan_tree`; files that could not be used are left out."""
    return list(scan_tree(sys_root, state_root).dumps)


def new_dumps(dumps: Iterable[PstoreDump], seen_hashes: Collection[str]) -> list[PstoreDump]:
    """Dumps whose digest is not in `seen_hashes` (the recorder's memory), each once."""
    out: list[PstoreDump] = []
    taken = set(seen_hashes)
    for d in dumps:
        if d.digest not in taken:
            taken.add(d.digest)
            out.append(d)
    return out
