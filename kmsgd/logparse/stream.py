"""The stateful line parser: decoded input lines in, `Line`s and `BootMark`s out.

State kept across lines: the format that parsed last (tried first), the year of yearless
stamps, dmesg -H's running clock, the journal host, an open `-o export` block, the clock
seen last (a printk clock that restarts means a new boot). Memory is constant.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kmsgd.logparse import clean, formats
from kmsgd.logparse.formats import Fields
from kmsgd.logparse.journal_json import ExportBlock, parse_json, starts_export
from kmsgd.logparse.model import BootMark, Event, Line, LogFormat, Origin
from kmsgd.types import KernelRecord

RESTART_SLACK_US = 5_000_000  # printk stamps may step back a little across CPUs, not seconds
WRAP_MIN = 70  # a line this long followed by an unstamped line was probably wrapped
_KMSG_KV = re.compile(r" (SUBSYSTEM|DEVICE)=(.*)")
_LINUX_VERSION = re.compile(r"Linux version \d")
# where a second line starts inside a glued one, per format
_GLUE = {
    LogFormat.DMESG: re.compile(r"(?:<\d{1,3}>)?\[\s*\d+\.\d{6}\]"),
    LogFormat.JOURNAL: re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \S+?:"),
    LogFormat.JOURNAL_ISO: re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S* \S+ \S+?:"),
}

Parser = Callable[[str], Fields | None]
_PARSERS: tuple[Parser, ...] = (
    formats.parse_kmsg,
    formats.parse_dmesg,
    formats.parse_journal,
    formats.parse_journal_iso,
    formats.parse_dmesg_iso,
    formats.parse_dmesg_ctime,
    formats.parse_dmesg_delta,
    formats.parse_dmesg_decode,
)


class LogStream:
    """Feed decoded lines in time order with `feed`; iterate the events; `close` at the end."""

    def __init__(self) -> None:
        self.counts: dict[LogFormat, int] = {}
        self._order: list[Parser] = list(_PARSERS)
        self._year = 2000  # yearless stamps get a leap year so "Feb 29" stays valid
        self._month = 0
        self._delta_wall: int | None = None
        self._host = ""
        self._export: ExportBlock | None = None
        self._last_ts: int | None = None
        self._boot_id = ""
        self._current_boot = ""
        self._since_mark = 0
        self._pending: Line | None = None  # held one line so a wrapped tail can be joined

    # -- public -------------------------------------------------------------------------
    def feed(self, lineno: int, text: str) -> Iterator[Event]:
        """Parse one input line (without its newline)."""
        if self._export is not None:
            if text.strip() == "":
                yield from self._finish_export()
                return
            if self._export.add(text):
                return
            yield from self._finish_export()
        if starts_export(text):
            self._export = ExportBlock(lineno)
            self._export.add(text)
            return
        if text.startswith(" ") and self._pending is not None and self._kmsg_kv(text):
            return
        yield from self._line(lineno, text)

    def close(self) -> Iterator[Event]:
        if self._export is not None:
            yield from self._finish_export()
        if self._pending is not None:
            yield self._pending
            self._pending = None

    # -- internals ----------------------------------------------------------------------
    def _kmsg_kv(self, text: str) -> bool:
        """/dev/kmsg continuation lines (" SUBSYSTEM=pci", " DEVICE=+pci:…") belong above."""
        pending = self._pending
        m = _KMSG_KV.fullmatch(text)
        if pending is None or m is None or pending.fmt is not LogFormat.KMSG:
            return False
        rec = pending.record
        sub = m.group(2) if m.group(1) == "SUBSYSTEM" else rec.subsystem
        dev = m.group(2) if m.group(1) == "DEVICE" else rec.device
        self._pending = _replace_record(pending, _record_with(rec, subsystem=sub, device=dev))
        return True

    def _finish_export(self) -> Iterator[Event]:
        block, self._export = self._export, None
        got = block.finish() if block is not None else None
        if got is not None and block is not None:
            fields, boot_id = got
            yield from self._emit(block.lineno, fields.message, fields, boot_id=boot_id)

    def _line(self, lineno: int, text: str) -> Iterator[Event]:
        line = text.rstrip()
        stripped = line.lstrip()
        if not stripped:
            return
        fields = self._parse(stripped)
        if fields is None:
            cleaned = clean.strip_decoration(line)
            if cleaned and cleaned != stripped:
                stripped = cleaned
                fields = self._parse(stripped)
        if fields is not None:
            yield from self._split_glued(lineno, stripped, fields)
            return
        yield from self._unparsed(lineno, stripped)

    def _unparsed(self, lineno: int, text: str) -> Iterator[Event]:
        is_sep, boot_id = clean.boot_separator(text)
        if is_sep:
            yield from self._mark(lineno, "separator", boot_id)
            return
        if clean.journal_note(text):
            return
        if formats.parse_pstore_header(text):
            yield from self._mark(lineno, "pstore_header", "")
            return
        if clean.is_command(text):
            yield from self._emit(lineno, text, None, origin=Origin.COMMAND)
            return
        pending = self._pending
        if (
            pending is not None
            and pending.origin is not Origin.TEXT
            and len(pending.raw) >= WRAP_MIN
        ):
            # a wrapped continuation of the line before: join, keep the first line number
            glue = "" if len(pending.raw) in (80, 100, 120, 132, 160, 200) else " "
            rec = _record_with(pending.record, message=pending.record.message + glue + text)
            self._pending = Line(
                rec,
                pending.origin,
                pending.fmt,
                pending.lineno,
                pending.raw + glue + text,
                pending.host,
                pending.boot_id,
            )
            return
        yield from self._emit(lineno, text, None, origin=Origin.TEXT)

    def _parse(self, text: str) -> Fields | None:
        if text[0] == "[" and (self._host or " kernel:" in text or "]: " in text):
            # short-monotonic looks like dmesg; it must get the first word on such lines
            mono = formats.parse_journal_mono(text, self._host)
            if mono is not None:
                return mono
        order = self._order
        for i, parser in enumerate(order):
            fields = parser(text)
            if fields is not None:
                if i:  # most pastes are one format: try the last good parser first
                    order.insert(0, order.pop(i))
                return fields
        got = parse_json(text)
        if got is None:
            return None
        fields, boot_id = got
        if boot_id and boot_id != self._boot_id:
            self._boot_id = boot_id
        return fields

    def _split_glued(self, lineno: int, text: str, fields: Fields) -> Iterator[Event]:
        glue = _GLUE.get(fields.fmt)
        if glue is not None and len(fields.message) > 10:
            m = glue.search(fields.message, 1)
            if m is not None and text.endswith(fields.message):
                cut = len(text) - len(fields.message) + m.start()
                first, second = text[:cut].rstrip(), text[cut:]
                head = self._parse(first)
                if head is not None:
                    yield from self._emit(lineno, first, head)
                    yield from self._line(lineno, second)
                    return
        yield from self._emit(lineno, text, fields)

    def _mark(self, lineno: int, why: str, boot_id: str) -> Iterator[Event]:
        if self._pending is not None:
            yield self._pending
            self._pending = None
        if self._since_mark:
            yield BootMark(lineno, why, boot_id)
        elif boot_id:
            yield BootMark(lineno, "boot_id", boot_id)
        self._since_mark = 0
        self._last_ts = None

    def _emit(
        self,
        lineno: int,
        raw: str,
        fields: Fields | None,
        *,
        origin: Origin | None = None,
        boot_id: str = "",
    ) -> Iterator[Event]:
        if fields is None:
            record = KernelRecord(message=raw)
            fmt = LogFormat.TEXT
            host = ""
        else:
            fmt = fields.fmt
            self.counts[fmt] = self.counts.get(fmt, 0) + 1
            boot_id = boot_id or (self._boot_id if fmt is LogFormat.JSON else "")
            yield from self._boundaries(lineno, fields, boot_id)
            record = KernelRecord(
                message=fields.message,
                level=fields.level,
                facility=fields.facility,
                seq=fields.seq,
                ts_usec=fields.ts_usec,
                caller=fields.caller,
                wall_us=self._wall(fields),
            )
            origin = Origin.KERNEL if fields.ident is None else Origin.USERSPACE
            host = fields.host
            if host and fmt is LogFormat.JOURNAL_MONO:
                self._host = host
        line = Line(record, origin or Origin.TEXT, fmt, lineno, raw, host, boot_id)
        if self._pending is not None:
            yield self._pending
        self._pending = line
        self._since_mark += 1

    def _boundaries(self, lineno: int, fields: Fields, boot_id: str) -> Iterator[Event]:
        """New boot when the journal's boot id changes, printk's clock restarts, or a kernel
        banner ("Linux version …") appears after other lines."""
        if boot_id and self._mark_boot_id(boot_id):
            yield from self._mark(lineno, "boot_id", boot_id)
        ts = fields.ts_usec
        if ts is not None and fields.ident is None:
            last = self._last_ts
            if last is not None and ts + RESTART_SLACK_US < last:
                yield from self._mark(lineno, "clock_restart", "")
            self._last_ts = ts
        if fields.ident is None and self._since_mark and _LINUX_VERSION.match(fields.message):
            yield from self._mark(lineno, "linux_version", "")
            self._last_ts = ts

    def _mark_boot_id(self, boot_id: str) -> bool:
        changed = bool(self._current_boot) and boot_id != self._current_boot
        self._current_boot = boot_id
        return changed

    def _wall(self, fields: Fields) -> int | None:
        if fields.minute_header:
            self._delta_wall = fields.wall_us
            return self._resolve_year(fields)
        if fields.delta_us is not None:
            if self._delta_wall is None:
                return None
            self._delta_wall += fields.delta_us
            return self._delta_wall
        if fields.month_day is not None:
            return self._resolve_year(fields)
        return fields.wall_us

    def _resolve_year(self, fields: Fields) -> int | None:
        """Yearless stamps (journal short, syslog) count from 2000 and roll over at New Year."""
        assert fields.month_day is not None
        month = fields.month_day[0]
        if self._month and month < self._month - 6:
            self._year += 1
        self._month = month
        if fields.wall_us is None or self._year == 2000:
            return fields.wall_us
        # the parser used 2000: shift by the whole years since
        shift = formats.wall_from_parts(self._year, 1, 1, "00:00:00", None)
        base = formats.wall_from_parts(2000, 1, 1, "00:00:00", None)
        return fields.wall_us + (shift or 0) - (base or 0)


def _record_with(rec: KernelRecord, **changes: Any) -> KernelRecord:
    return dataclasses.replace(rec, **changes)


def _replace_record(line: Line, rec: KernelRecord) -> Line:
    return Line(rec, line.origin, line.fmt, line.lineno, line.raw, line.host, line.boot_id)


def parse_lines(lines: Iterable[str]) -> Iterator[Event]:
    """Parse an iterable of decoded lines (numbered from 1) into events."""
    stream = LogStream()
    for lineno, text in enumerate(lines, start=1):
        yield from stream.feed(lineno, text)
    yield from stream.close()
