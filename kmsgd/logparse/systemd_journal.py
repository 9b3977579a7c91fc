"""The systemd journal of an earlier boot: a second witness of how that boot ended.

Reads a boot's final entries and kernel records; `shutdown` judges them. The only module
here that imports `systemd.journal` (systemd-python), lazily: the daemon never loads it.
Without the binding the same questions go to `journalctl -o json` with a fixed argument list
(no shell; the only value taken from outside is a boot id checked to be 32 hex digits, and the
journal directory the caller configured).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from kmsgd.errors import BadInput, SourceUnavailable
from kmsgd.ring.records import KernelRecord
from kmsgd.types import MONO_US_MAX, WALL_US_MAX, bounded_int

JOURNALCTL_TIMEOUT_S = 120
_HEX32 = re.compile(r"[0-9a-f]{32}")


def check_boot_id(boot_id: str) -> str:
    """A boot id as journald spells it (32 lower-case hex digits); dashes and case tolerated."""
    bid = boot_id.replace("-", "").strip().lower()
    if not _HEX32.fullmatch(bid):
        raise BadInput(f"not a boot id: {boot_id[:64]!r}", hint="give 32 hex digits")
    return bid


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One journal entry, reduced to what a post-mortem reads."""

    realtime_us: int  # __REALTIME_TIMESTAMP: when journald received it
    monotonic_us: int | None  # __MONOTONIC_TIMESTAMP, µs since that boot
    priority: int | None
    identifier: str  # SYSLOG_IDENTIFIER, else _COMM
    comm: str  # _COMM, set by journald from the sender's credentials ("" for kernel)
    pid: int | None  # _PID; for kernel-transport lines "ident[pid]:" parsed by journald
    message: str
    transport: str  # _TRANSPORT: kernel, driver, journal, syslog, stdout, audit
    unit: str  # _SYSTEMD_UNIT
    boot_id: str = ""
    message_id: str = ""
    shutdown: str = ""  # logind's SHUTDOWN= field: power-off, reboot, halt, kexec
    source_monotonic_us: int | None = None  # kernel lines: the printk stamp


@dataclass(frozen=True, slots=True)
class JournalBoot:
    boot_id: str
    first_realtime_us: int
    last_realtime_us: int


def _text(value: object) -> str:
    if isinstance(value, bytes):
        return value.decode("utf-8", errors="replace")
    if isinstance(value, list):  # JSON: binary values are byte lists, repeated fields lists
        if value and all(isinstance(b, int) for b in value):
            return bytes(b & 0xFF for b in value).decode("utf-8", errors="replace")
        return _text(value[0]) if value else ""
    return "" if value is None else str(value)


def _int(value: object, high: int = MONO_US_MAX) -> int | None:
    """A number field within [0, high]; None otherwise (a journal file from elsewhere may
    carry any value: a 400-digit or out-of-clock one is no value, never an overflow later)."""
    if isinstance(value, tuple):  # the binding's __MONOTONIC_TIMESTAMP: (usec, boot id)
        value = value[0] if value else None
    return bounded_int(value if isinstance(value, int) else _text(value), 0, high)


def entry_from_fields(fields: Mapping[str, object]) -> JournalEntry | None:
    """A journal entry as a field mapping (JSON line or the binding's raw dict) → entry."""
    realtime = _int(fields.get("__REALTIME_TIMESTAMP"), WALL_US_MAX)
    if realtime is None or "MESSAGE" not in fields:
        return None
    transport = _text(fields.get("_TRANSPORT"))
    comm = _text(fields.get("_COMM"))
    pid = _int(fields.get("_PID"))
    if pid is None and transport == "kernel":  # "systemd-shutdown[1]: ..." written to kmsg
        pid = _int(fields.get("SYSLOG_PID"))
    return JournalEntry(
        realtime_us=realtime,
        monotonic_us=_int(fields.get("__MONOTONIC_TIMESTAMP")),
        priority=_int(fields.get("PRIORITY"), 7),
        identifier=_text(fields.get("SYSLOG_IDENTIFIER")) or comm,
        comm=comm,
        pid=pid,
        message=_text(fields.get("MESSAGE")).rstrip("\n"),
        transport=transport,
        unit=_text(fields.get("_SYSTEMD_UNIT")),
        boot_id=_text(fields.get("_BOOT_ID")).replace("-", ""),
        message_id=_text(fields.get("MESSAGE_ID")).replace("-", ""),
        shutdown=_text(fields.get("SHUTDOWN")),
        source_monotonic_us=_int(fields.get("_SOURCE_MONOTONIC_TIMESTAMP")),
    )


# --- reading: systemd-python when present, journalctl otherwise ------------------------------


def _binding() -> Any:
    """`systemd.journal`, or None when systemd-python is not installed."""
    try:
        from systemd import journal  # the C extension needs libsystemd; optional
    except ImportError:
        return None
    return journal


def _reader(directory: str | None) -> Any:
    mod = _binding()
    # Raw values: the default converters make datetimes and UUIDs we would only undo.
    raw = {key: (lambda v: v) for key in mod.DEFAULT_CONVERTERS}
    if directory is None:
        return mod.Reader(converters=raw)
    return mod.Reader(path=directory, converters=raw)


def _journalctl(args: list[str], directory: str | None) -> list[str]:
    exe = shutil.which("journalctl")
    if exe is None:
        raise SourceUnavailable(
            "neither systemd-python nor journalctl is available to read the journal",
            hint="install python3-systemd or systemd",
        )
    argv = [exe, "--no-pager", "-q", *args]
    if directory is not None:
        argv.append(f"--directory={os.path.abspath(directory)}")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
    try:
        done = subprocess.run(
            argv, capture_output=True, timeout=JOURNALCTL_TIMEOUT_S, check=False, env=env
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise SourceUnavailable(f"journalctl failed: {err}") from None
    if done.returncode != 0:
        why = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise SourceUnavailable(f"journalctl failed: {why[-1] if why else done.returncode}")
    return done.stdout.decode("utf-8", errors="replace").splitlines()


def _json_entries(lines: list[str]) -> Iterator[JournalEntry]:
    for line in lines:
        try:
            fields = json.loads(line)
        except ValueError:
            continue
        if isinstance(fields, dict) and (entry := entry_from_fields(fields)) is not None:
            yield entry


def final_entries(
    boot_id: str, *, n: int = 200, directory: str | None = None
) -> list[JournalEntry]:
    """The last `n` entries of that boot, oldest first (empty when the journal lacks it)."""
    bid = check_boot_id(boot_id)
    if n <= 0:
        return []
    if _binding() is None:
        lines = _journalctl(["-o", "json", "-n", str(n), f"_BOOT_ID={bid}"], directory)
        return list(_json_entries(lines))
    out: list[JournalEntry] = []
    with _reader(directory) as r:
        r.add_match(_BOOT_ID=bid)
        r.seek_tail()
        for fields in _readable(r, backward=True):
            if len(out) >= n:
                break
            if (entry := entry_from_fields(fields)) is not None:
                out.append(entry)
    out.reverse()
    return out


def list_boots(directory: str | None = None) -> list[JournalBoot]:
    """Boots in the journal, ordered by their first entry (systemd-python has no such call)."""
    if _binding() is None:
        try:
            rows = json.loads("\n".join(_journalctl(["--list-boots", "-o", "json"], directory)))
        except ValueError:
            rows = []  # an empty journal prints nothing
        return sorted(
            (
                JournalBoot(str(b["boot_id"]), int(b["first_entry"]), int(b["last_entry"]))
                for b in rows
                if isinstance(b, dict) and _HEX32.fullmatch(str(b.get("boot_id", "")))
            ),
            key=lambda b: (b.first_realtime_us, b.boot_id),
        )
    boots: list[JournalBoot] = []
    with _reader(directory) as r:
        for value in r.query_unique("_BOOT_ID"):
            bid = _text(value).replace("-", "")
            if not _HEX32.fullmatch(bid):
                continue
            r.flush_matches()
            r.add_match(_BOOT_ID=bid)
            r.seek_head()
            first = _int(next(_readable(r), {}).get("__REALTIME_TIMESTAMP"), WALL_US_MAX)
            r.seek_tail()
            last = _int(
                next(_readable(r, backward=True), {}).get("__REALTIME_TIMESTAMP"), WALL_US_MAX
            )
            if first is not None and last is not None:
                boots.append(JournalBoot(bid, first, last))
    return sorted(boots, key=lambda b: (b.first_realtime_us, b.boot_id))


def _kernel_record(e: JournalEntry) -> KernelRecord:
    message = e.message
    if e.identifier and e.identifier != "kernel":  # userspace wrote it to /dev/kmsg
        message = f"{e.identifier}[{e.pid}]: {message}" if e.pid else f"{e.identifier}: {message}"
    wall = None
    if e.source_monotonic_us is not None and e.monotonic_us is not None:
        # journald stamps kernel lines when it reads them (early lines: seconds late); step
        # back by the delay between printk and receipt, both on the monotonic clock.
        delay = e.monotonic_us - e.source_monotonic_us
        wall = e.realtime_us - delay if delay >= 0 else e.realtime_us
    return KernelRecord(
        message=message,
        level=e.priority,
        facility=0 if e.identifier in ("", "kernel") else 3,
        ts_usec=e.source_monotonic_us,
        wall_us=wall,
    )


def kernel_records(
    boot_id: str, *, n: int | None = None, directory: str | None = None
) -> list[KernelRecord]:
    """The journal's kernel messages (`_TRANSPORT=kernel`) of a boot, oldest first.

    `n` keeps only the last n. For a timeline of a boot the ring never saw.
    """
    bid = check_boot_id(boot_id)
    match = ["_TRANSPORT=kernel", f"_BOOT_ID={bid}"]
    if _binding() is None:
        limit = ["-n", str(n)] if n is not None else []
        entries = list(_json_entries(_journalctl(["-o", "json", *limit, *match], directory)))
    else:
        entries = []
        with _reader(directory) as r:
            r.add_match(*match)
            if n is None:
                entries = [e for f in _readable(r) if (e := entry_from_fields(f)) is not None]
            else:
                r.seek_tail()
                for fields in _readable(r, backward=True):
                    if len(entries) >= n:
                        break
                    if (entry := entry_from_fields(fields)) is not None:
                        entries.append(entry)
                entries.reverse()
    return [_kernel_record(e) for e in entries]


def file_entries(path: str) -> Iterator[JournalEntry]:
    """Every entry of one journal file (`*.journal`, as attached to a ticket or found in a
    sosreport), oldest first: systemd-python's Reader(files=…), else `journalctl --file`."""
    mod = _binding()
    if mod is not None:
        raw = {key: (lambda v: v) for key in mod.DEFAULT_CONVERTERS}
        reader = mod.Reader(files=[os.path.abspath(path)], converters=raw)
        for fields in _readable(reader):
            if (entry := entry_from_fields(_plain(fields))) is not None:
                yield entry
        return
    yield from _json_entries(_journalctl(["-o", "json", f"--file={os.path.abspath(path)}"], None))


def _readable(reader: Any, *, backward: bool = False) -> Iterator[dict[str, Any]]:
    """The reader's entries from where it stands (forward, or `backward`), without those whose
    field names are not UTF-8: a damaged file's entry (a journal cut by a power loss, or a
    stranger's file), which libsystemd hands over and systemd-python's Reader decodes strictly
    (UnicodeDecodeError). It is skipped as a damaged ring record is; the reader has moved past
    it before decoding, so the next call reads the next entry."""
    step = reader.get_previous if backward else reader.get_next
    while True:
        try:
            fields = step()
        except UnicodeDecodeError:
            continue
        if not fields:
            return
        yield fields


def _plain(fields: Mapping[str, Any]) -> dict[str, object]:
    """The binding's raw values (bytes, ints, UUIDs) as the JSON output spells them."""
    out: dict[str, object] = {}
    for key, value in fields.items():
        if isinstance(value, bytes):
            value = value.decode("utf-8", errors="replace")
        out[key] = str(value) if not isinstance(value, str) else value
    return out
