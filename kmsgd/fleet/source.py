"""Post-mortem entries from the journal files of a collector (systemd-journal-remote's output).

The only fleet module that imports `systemd.journal` (systemd-python). Files are opened in
batches, not as one directory: sd_journal keeps every file it reads open and mapped, and a
collector for 10,000 boxes holds more files than sd_journal takes at once (JOURNAL_FILES_MAX,
7168 in systemd 252) or than a default file-descriptor limit allows. A batch that cannot be
opened or read (a truncated or corrupt file) is read again file by file, so one bad file
costs only itself; it is named in `Scan.skipped`.

Entries are matched on MESSAGE_ID (journal files index it, so foreign entries cost nothing).
Their small fields are looked up one by one (`_get`): libsystemd walks an entry's fields in
file order and stops at the one asked for, and the writer puts KMSGD_REPORT_JSON last, so the
large compressed report is never decompressed (libsystemd 252 sets up a zstd context per
decompression: reading every field of 300k entries whole takes 3 times as long). The
attribute fields are read whole once per KMSGD_CONFIG_ID.

A box is keyed by the file its entries are in as well as by what they claim:
systemd-journal-remote writes one file per peer, `remote-<peer>.journal` (the peer's
certificate name or address; archived as `remote-<peer>@….journal~`), and `_MACHINE_ID` and
`_HOSTNAME` are written by the box itself. So one box's entries claiming another's identity
make a box of their own, flagged (kmsgd.fleet.cluster), and cannot stand in for the box they
name. An entry's file is found from its cursor: `s=` is the seqnum id of the file the entry is
in, which a file's header holds at byte 72 (src/libsystemd/sd-journal/journal-def.h,
`Header.seqnum_id`; a rotated file keeps it). Entries of files not named for one peer have
no source.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any

from kmsgd.errors import BadInput
from kmsgd.fleet import entry_format
from kmsgd.fleet.postmortem import Builder, PostMortem

BATCH_FILES = 256  # files per sd_journal handle: well under fd limits and JOURNAL_FILES_MAX
# and bytes per handle: sd_journal keeps what it mapped until it is closed, and mapped pages
# it touched count in the reader's RSS (64 MiB batches keep 10,000 boxes under 200 MiB).
BATCH_BYTES = 64 << 20
_PEER = re.compile(r"remote-(?P<peer>[^@/]+?)(?:@[^/]*)?\.journal~?")
_SEQNUM_ID = slice(72, 88)  # Header.seqnum_id: signature 8, flags 8, state 8, 3 ids of 16


def peer_of(path: str) -> str:
    """The peer a systemd-journal-remote file is named for; "" for another file."""
    m = _PEER.fullmatch(os.path.basename(path))
    return m.group("peer") if m else ""


def peers(files: list[str]) -> dict[str, str]:
    """Seqnum id (hex, as in a cursor's `s=`) -> peer, for the files named for one peer. An id
    two peers' files share (a copied file) names no peer."""
    out: dict[str, str] = {}
    for path in files:
        peer = peer_of(path)
        if not peer:
            continue
        try:
            with open(path, "rb") as fh:
                head = fh.read(88)
        except OSError:
            continue
        if len(head) < 88 or head[:8] != b"LPKSHHRH":
            continue
        key = head[_SEQNUM_ID].hex()
        out[key] = peer if out.get(key, peer) == peer else ""
    return out


def batches(files: list[str]) -> Iterator[list[str]]:
    """`files` in groups of at most BATCH_FILES files and, but for a single larger file,
    BATCH_BYTES bytes."""
    group: list[str] = []
    size = 0
    for path in files:
        try:
            n = os.stat(path).st_size
        except OSError:
            n = 0
        if group and (len(group) >= BATCH_FILES or size + n > BATCH_BYTES):
            yield group
            group, size = [], 0
        group.append(path)
        size += n
    if group:
        yield group


@dataclass(slots=True)
class Scan:
    """What reading a journal directory found."""

    directory: str
    files: int = 0
    entries: int = 0  # kmsgd entries in the window, duplicates included
    duplicates: int = 0  # the same box and judged boot sent again (kept: the newest)
    unusable: int = 0  # kmsgd's MESSAGE_ID but no outcome, boot id or host
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (file, why)
    post_mortems: list[PostMortem] = field(default_factory=list)


def journal_files(directory: str) -> list[str]:
    """Every journal file under `directory` (active `.journal` and archived `.journal~`),
    sorted. Raises BadInput when the directory is missing or holds none."""
    if not os.path.isdir(directory):
        why = "no such directory" if not os.path.exists(directory) else "not a directory"
        raise BadInput(
            f"{directory}: {why}",
            hint="give the directory systemd-journal-remote writes (--journal-dir)",
        )
    found = []
    for base, _dirs, names in os.walk(directory):
        found += [os.path.join(base, n) for n in names if n.endswith((".journal", ".journal~"))]
    if not found:
        raise BadInput(
            f"{directory}: no journal files (*.journal) in it",
            hint="is systemd-journal-remote writing there? see docs/fleet.md",
        )
    return sorted(found)


def _binding() -> Any:
    try:
        from systemd import journal  # the C extension needs libsystemd
    except ImportError:
        raise BadInput(
            "kmsgd fleet needs systemd-python (python3-systemd) to read journal files",
            hint="apt-get install python3-systemd",
        ) from None
    return journal


class _Current:
    """The fields of the reader's current entry (`postmortem.Fields`); one per reader, valid
    for the entry the reader is on."""

    __slots__ = ("all", "get")

    def __init__(self, reader: Any) -> None:
        look = reader._get

        def get(name: str) -> object:
            try:
                return look(name)
            except KeyError:
                return None

        self.get = get
        self.all = reader._get_all


def _entries(files: list[str], since_us: int, until_us: int) -> Iterator[tuple[_Current, int, str]]:
    """(fields, realtime µs, peer) of kmsgd entries in [since, until) of these files; the
    fields are valid until the next one is yielded. Raises OSError or ValueError when a file
    cannot be opened or read."""
    by_id = peers(files)
    journal = _binding()
    reader = journal._Reader(0, None, files)  # flags 0: exactly these files
    try:
        reader.add_match(f"MESSAGE_ID={entry_format.MESSAGE_ID}")
        if since_us > 0:
            reader.seek_realtime(since_us)
        current = _Current(reader)
        while reader._next():
            t = reader._get_realtime()
            # A file's entries follow the collector's arrival order; a box that uploads late
            # can put older times after newer ones, so each entry is checked, not just sought.
            if since_us <= t < until_us:
                peer = ""
                if by_id:
                    cursor = reader._get_cursor()
                    peer = by_id.get(cursor[2 : cursor.find(";")], "")
                yield current, t, peer
    finally:
        reader.close()


def _why(err: Exception) -> str:
    """ "unreadable (No data available)": libsystemd says no more than errno; a file cut short
    or overwritten gives EBADMSG or ENODATA, one being rotated EBUSY."""
    what = err.strerror if isinstance(err, OSError) and err.strerror else str(err)
    return f"unreadable ({what or type(err).__name__}): truncated or corrupt?"


def _collect(
    files: list[str], since_us: int, until_us: int, builder: Builder, out: list[PostMortem | None]
) -> None:
    """Append the entries of `files` to `out` (None for an unusable one) as they are read, so
    that what came before an error is still there when it raises."""
    for fields, t, peer in _entries(files, since_us, until_us):
        out.append(builder.build(fields, t, peer))


def _verdict(pm: PostMortem) -> tuple[str, str]:
    return pm.outcome, pm.fingerprint


def read(directory: str, since_us: int, until_us: int) -> Scan:
    """The post-mortems in the window, one per (box, judged boot): a boot judged twice (the
    service and an operator's `last-boot --format export`) counts once, the newest entry.
    Two collector files that say different things of one boot are both kept: a box writing a
    clean end for another box's boot must not replace the bad end that box sent."""
    files = journal_files(directory)
    scan = Scan(directory=directory, files=len(files))
    builder = Builder()
    kept: dict[tuple[str, str, str], PostMortem] = {}  # (source, box, boot id)
    sources: dict[tuple[str, str], list[str]] = {}  # (box, boot id) -> sources kept
    for batch in batches(files):
        got: list[PostMortem | None] = []
        try:
            _collect(batch, since_us, until_us, builder, got)
        except (OSError, ValueError):
            # One file spoilt the batch: read its files one by one, keeping what each gave
            # before it failed (a truncated file's first entries are good).
            got = []
            for path in batch:
                one: list[PostMortem | None] = []
                try:
                    _collect([path], since_us, until_us, builder, one)
                except (OSError, ValueError) as err:
                    kept_note = f" after {len(one)} entries, which are kept" if one else ""
                    scan.skipped.append((path, _why(err) + kept_note))
                got += one
        for pm in got:
            scan.entries += 1
            if pm is None:
                scan.unusable += 1
                continue
            seen = sources.setdefault((pm.box, pm.boot_id), [])
            # the same file again, else another file saying the same of this boot
            same = pm.source if pm.source in seen else None
            if same is None:
                agree = (s for s in seen if _verdict(kept[s, pm.box, pm.boot_id]) == _verdict(pm))
                same = next(agree, None)
            if same is None:
                seen.append(pm.source)
                kept[pm.source, pm.box, pm.boot_id] = pm
                continue
            scan.duplicates += 1
            old = kept[same, pm.box, pm.boot_id]
            if old.realtime_us > pm.realtime_us:
                continue
            del kept[same, pm.box, pm.boot_id]
            seen[seen.index(same)] = pm.source
            kept[pm.source, pm.box, pm.boot_id] = pm
    scan.post_mortems = sorted(kept.values(), key=attrgetter("realtime_us", "box"))
    return scan
