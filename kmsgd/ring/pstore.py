"""pstore dumps as a ring record: kernel logs written at panic/oops time that userspace never saw.

The kernel's kmsg dumper writes the log's tail to a persistent backend (ramoops RAM, EFI
variables, ERST) in chunks; after the next boot each chunk is a file `dmesg-<backend>-<id>`
under /sys/fs/pstore (Documentation/ABI/testing/pstore) whose first line is the header
`"%s#%d Part%u"` (fs/pstore/platform.c): reason, dump count, part. Part1 holds the newest tail;
higher parts are older. Here: the dump type, its lines parsed into kernel records, and the
`pstore` record's payload. Stdlib only: the recorder writes it.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from kmsgd.errors import BadInput
from kmsgd.ring.records import KernelRecord

PAYLOAD_TEXT_BYTES = 64 * 1024  # a ring payload must stay under 1 MiB, JSON escapes included
PAYLOAD_VERSION = 1

_HEADER = re.compile(r"(?P<reason>[A-Za-z]+)#(?P<count>\d+) Part(?P<part>\d+)")
# kmsg_dump_get_buffer(syslog=true) lines: "<6>[   12.345678] text", with CONFIG_PRINTK_CALLER
# "[    T1]" after the stamp; a multi-line record repeats the prefix on each of its lines.
_LINE = re.compile(
    r"(?:<(?P<prio>\d{1,3})>)?(?:\[\s*(?P<sec>\d{1,12})\.(?P<frac>\d{1,9})\])?"
    r"(?:\[\s*(?P<caller>[TC]\d+)\])? ?(?P<msg>.*)"
)


class DumpReason(enum.StrEnum):
    """`kmsg_dump_reason_str()`; older kernels also wrote Restart, Halt and Poweroff."""

    PANIC = "panic"
    OOPS = "oops"
    EMERGENCY = "emergency"
    SHUTDOWN = "shutdown"
    RESTART = "restart"
    HALT = "halt"
    POWEROFF = "poweroff"
    UNKNOWN = "unknown"

    @classmethod
    def parse(cls, word: str) -> DumpReason:
        try:
            return cls(word.lower())
        except ValueError:
            return cls.UNKNOWN


@dataclass(frozen=True, slots=True)
class PstoreDump:
    """One kmsg dump, its parts joined oldest first (headers removed)."""

    backend: str  # "ramoops", "efi", "efi_pstore", "erst", ...
    reason: DumpReason
    count: int | None  # N of "Panic#N": dumps since that boot started
    parts: tuple[int, ...]  # part numbers in text order, e.g. (2, 1)
    paths: tuple[str, ...]
    mtimes_us: tuple[int, ...]  # per path; pstorefs sets it to the record's time
    text: str
    digest: str  # identity of the dump: the same dump is imported once
    missing_parts: tuple[int, ...] = ()  # e.g. Part2 gone while Part1 and Part3 remain
    undecodable: bool = False  # a `.enc.z` the kernel could not decompress, nor could we
    archived: bool = False  # found in systemd-pstore's archive
    truncated_bytes: int = 0  # text dropped from the front to fit a ring payload
    records: tuple[KernelRecord, ...] = field(default=(), compare=False)

    def to_payload(self) -> dict[str, Any]:
        """The `pstore` record's JSON object, cut to nothing: `for_ring` makes it fit."""
        return {
            "v": PAYLOAD_VERSION,
            "digest": self.digest,
            "backend": self.backend,
            "reason": str(self.reason),
            "count": self.count,
            "parts": list(self.parts),
            "missing_parts": list(self.missing_parts),
            "paths": list(self.paths),
            "mtimes_us": list(self.mtimes_us),
            "undecodable": self.undecodable,
            "archived": self.archived,
            "truncated_bytes": self.truncated_bytes,
            "text": self.text,
        }


def parse_line(line: str) -> KernelRecord:
    """One dump line → KernelRecord; fields the line lacks stay None."""
    m = _LINE.fullmatch(line)
    if m is None:  # only a stray "\r" or similar defeats `.*`
        return KernelRecord(message=line)
    prio = int(m["prio"]) if m["prio"] else None
    ts = None
    if m["sec"]:
        ts = int(m["sec"]) * 1_000_000 + int(m["frac"].ljust(6, "0")[:6])
    return KernelRecord(
        message=m["msg"],
        level=None if prio is None else prio & 7,
        facility=None if prio is None else prio >> 3,
        ts_usec=ts,
        caller=m["caller"],
    )


def parse_lines(text: str) -> list[KernelRecord]:
    """Every non-blank line of a dump's text, in order."""
    return [parse_line(line) for line in text.splitlines() if line.strip()]


def _tail_text(text: str, limit: int) -> tuple[str, int]:
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text, 0
    cut = raw[-limit:]
    nl = cut.find(b"\n")
    if 0 <= nl < len(cut) - 1:  # start at a whole line when one fits
        cut = cut[nl + 1 :]
    return cut.decode("utf-8", errors="ignore"), len(raw) - len(cut)


def for_ring(dump: PstoreDump, *, text_bytes: int = PAYLOAD_TEXT_BYTES) -> PstoreDump:
    """The dump as its `pstore` record holds it: the last `text_bytes` of text (the panic
    end), at most 64 paths of at most 512 characters."""
    text, dropped = _tail_text(dump.text, text_bytes)
    return replace(
        dump,
        paths=tuple(p[-512:] for p in dump.paths[:64]),
        mtimes_us=dump.mtimes_us[:64],
        text=text,
        truncated_bytes=dump.truncated_bytes + dropped,
        records=tuple(parse_lines(text)) if dropped else dump.records,
    )


def to_payload(dump: PstoreDump, *, text_bytes: int = PAYLOAD_TEXT_BYTES) -> dict[str, Any]:
    """A `pstore` ring record: metadata and the last `text_bytes` of text (the panic end)."""
    return for_ring(dump, text_bytes=text_bytes).to_payload()


def from_payload(data: Mapping[str, Any]) -> PstoreDump:
    """Inverse of `to_payload`; BadInput when the record is not one we wrote."""
    try:
        if data["v"] != PAYLOAD_VERSION:
            raise BadInput(f"pstore record version {data['v']!r} is not {PAYLOAD_VERSION}")
        text = str(data["text"])
        count = data["count"]
        return PstoreDump(
            backend=str(data["backend"]),
            reason=DumpReason.parse(str(data["reason"])),
            count=None if count is None else int(count),
            parts=tuple(int(p) for p in data["parts"]),
            paths=tuple(str(p) for p in data["paths"]),
            mtimes_us=tuple(int(t) for t in data["mtimes_us"]),
            text=text,
            digest=str(data["digest"]),
            missing_parts=tuple(int(p) for p in data.get("missing_parts", ())),
            undecodable=bool(data["undecodable"]),
            archived=bool(data.get("archived", False)),
            truncated_bytes=int(data.get("truncated_bytes", 0)),
            records=tuple(parse_lines(text)),
        )
    except (KeyError, TypeError, ValueError) as err:
        raise BadInput(f"malformed pstore record: {err!r}") from None
