"""The stateful line parser: decoded input lines in, `Line`s and `BootMark`s out.

A plain dmesg line after another one takes a fast path; any other line is tried in the known
formats (recognise.py), then cleaned and tried again, then salvaged (salvage.py), else kept
as text or a command; what a console, pager or copy did to it (repair.py) is undone on the
way. Kept here across lines: an open `-o export` block, and what draws boot boundaries (the
printk clock seen last, the journal boot id, lines since the last `BootMark`). Memory is
constant. Each line is held back until the next one arrives, so a wrapped continuation can
still be joined to it. Methods append to an output list instead of yielding: this is the
hot loop of `analyze`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator

from kmsgd.logparse import clean, formats, repair, salvage, wrapper
from kmsgd.logparse.formats import Fields
from kmsgd.logparse.journal_json import ExportBlock, VerboseBlock, starts_export, starts_verbose
from kmsgd.logparse.parsed import BootMark, Event, Line, LogFormat, MarkReason, Origin
from kmsgd.logparse.recognise import Recogniser
from kmsgd.logparse.repair import GLUE_DMESG, GLUE_HINT

RESTART_SLACK_US = 5_000_000  # printk stamps may step back a little across CPUs, not seconds
_LINUX_VERSION = re.compile(r"Linux version \d")
_FAST = re.compile(r"\[\s*(\d{1,12})\.(\d{6})\] (.*)")
# Line's fields after ts_usec when a plain dmesg line has none of them
_NO_MORE: tuple[object, ...] = (None,) * 7 + ("", "")
# a NamedTuple's own constructor costs twice as much as tuple.__new__; this runs per line
_new_line: Callable[[tuple[object, ...]], Line] = functools.partial(tuple.__new__, Line)


class LogStream:
    """Feed decoded lines in time order with `feed`; it returns the events they complete;
    `close` returns the rest at the end."""

    def __init__(self) -> None:
        self._counts: dict[LogFormat, int] = {}
        self._known = Recogniser()
        self._parse = self._known.parse
        self._export: ExportBlock | VerboseBlock | None = None
        self._last_ts: int | None = None
        self._current_boot = ""
        self._since_mark = 0
        self._pending: Line | None = None
        self._fast = False  # the last line was plain dmesg: try the fast path first
        self._fast_count = 0  # dmesg lines that took it (added to counts on demand)
        self._console = False  # systemd's console status lines came: its job lines may too
        self._wrap: wrapper.Shape | None = None  # a relay's header on every line (wrapper.py)
        self._unwrapping = False  # reading what follows such a header

    # -- public -------------------------------------------------------------------------
    def feed(self, lineno: int, text: str) -> list[Event]:
        """Parse one input line (without its newline)."""
        out: list[Event] = []
        if self._fast and (m := _FAST.match(text)) is not None:
            # the common case, a plain dmesg line after another one, without the layers
            msg = m.group(3)
            ts = int(m.group(1)) * 1_000_000 + int(m.group(2))
            last = self._last_ts
            glued = "[" in msg and GLUE_DMESG.search(msg) is not None
            restart = last is not None and ts + RESTART_SLACK_US < last
            banner = msg[:8] == "Linux ve" and self._since_mark
            if not (glued or restart or banner or ts == last):
                self._last_ts = ts
                self._fast_count += 1
                if self._pending is not None:
                    out.append(self._pending)
                self._pending = _new_line(
                    (msg, Origin.KERNEL, LogFormat.DMESG, lineno, text, ts, *_NO_MORE)
                )
                self._since_mark += 1
                return out
        if self._export is not None:
            if text.strip() == "":
                self._finish_export(out)
                return out
            if self._export.add(text):
                return out
            self._finish_export(out)
        if starts_export(text):
            self._export = ExportBlock(lineno)
            self._export.add(text)
            return out
        if (verbose := starts_verbose(text)) is not None:
            verbose.lineno = lineno
            self._export = verbose
            return out
        if text[:1] == " " and self._pending is not None and self._kmsg_kv(text):
            return out
        self._line(lineno, text, out)
        return out

    def countable(self, fmt: LogFormat, text: str) -> bool:
        """Whether `feed` would take the plain line `text` of `fmt` (a dmesg or journal line
        that skim.py vouched for) without looking back at the lines before it: no export
        block open, the dmesg fast path on, a printk stamp after the last one, the
        journal's month the one seen last (no new year)."""
        if self._export is not None:
            return False
        if fmt is LogFormat.DMESG:
            if not self._fast:
                return False
            m = _FAST.match(text)
            if m is None:
                return False
            last = self._last_ts
            return last is None or int(m.group(1)) * 1_000_000 + int(m.group(2)) > last
        fields = formats.parse_journal(text) if fmt is LogFormat.JOURNAL else None
        if fields is None or fields.month_day is None or fields.month_day[0] != self._known.month:
            return False
        ts, last = fields.ts_usec, self._last_ts  # syslog's "kernel: [ 12.3]"
        return ts is None or last is None or ts > last

    def stamps(self, fmt: LogFormat, text: str) -> tuple[int | None, int | None]:
        """(printk stamp, wall clock) that `feed` would give a countable line."""
        if fmt is LogFormat.DMESG:
            m = _FAST.match(text)
            assert m is not None
            return int(m.group(1)) * 1_000_000 + int(m.group(2)), None
        fields = formats.parse_journal(text)
        assert fields is not None
        return fields.ts_usec, self._known.wall(fields)

    def count(self, fmt: LogFormat, n: int, last_ts: int | None) -> list[Event]:
        """Take `n` countable lines without making them: what `feed` would have done for
        each, but the lines themselves never come out (`last_ts`: the last one's printk
        stamp, if they have one). Returns the line held back before."""
        out: list[Event] = []
        if self._pending is not None:
            out.append(self._pending)
            self._pending = None
        if fmt is LogFormat.DMESG:
            self._fast_count += n
        else:
            self._counts[fmt] = self._counts.get(fmt, 0) + n
        if last_ts is not None:
            self._last_ts = last_ts
        self._since_mark += n
        return out

    @property
    def holding(self) -> bool:
        """Whether a line is held back (it joins the boot when the next line comes)."""
        return self._pending is not None

    @property
    def counts(self) -> dict[LogFormat, int]:
        """Lines parsed per format."""
        counts = dict(self._counts)
        if self._fast_count:
            counts[LogFormat.DMESG] = counts.get(LogFormat.DMESG, 0) + self._fast_count
        return counts

    def close(self) -> list[Event]:
        out: list[Event] = []
        if self._export is not None:
            self._finish_export(out)
        if self._pending is not None:
            out.append(self._pending)
            self._pending = None
        return out

    # -- internals ----------------------------------------------------------------------
    def _kmsg_kv(self, text: str) -> bool:
        """/dev/kmsg continuation lines (" SUBSYSTEM=pci", " DEVICE=+pci:…") belong above."""
        pending = self._pending
        kv = repair.kmsg_kv(text)
        if pending is None or kv is None or pending.fmt is not LogFormat.KMSG:
            return False
        key, value = kv
        if key == "SUBSYSTEM":
            self._pending = pending._replace(subsystem=value)
        else:
            self._pending = pending._replace(device=value)
        return True

    def _finish_export(self, out: list[Event]) -> None:
        block, self._export = self._export, None
        got = block.finish() if block is not None else None
        if got is not None and block is not None:
            fields, boot_id = got
            self._emit(block.lineno, fields.message, fields, out, boot_id=boot_id)

    def _line(self, lineno: int, text: str, out: list[Event]) -> None:
        line = repair.unescape(text.rstrip())
        stripped = line.lstrip()
        if not stripped:
            if self._pending is not None:  # a blank line ends any wrapped line
                out.append(self._pending)
                self._pending = None
            return
        fields = self._parse(stripped)
        if fields is None:
            cleaned = clean.strip_decoration(line)
            if cleaned and cleaned != stripped:
                stripped = cleaned
                fields = self._parse(stripped)
        if fields is None and self._wrap is not None and not self._unwrapping:
            at = wrapper.cut(stripped, self._wrap)
            if at is not None:
                self._unwrapped(lineno, stripped[at:], out)
                return
        if fields is None:
            fields, stripped = self._salvage(stripped)
            if not stripped:  # nothing but markup (a fence, `<details>`)
                return
        if (
            fields is None
            and "<" in stripped
            and (recs := repair.level_records(stripped))
            and any(r[:1] == "<" and salvage.kernelish(r[3:]) for r in recs)
        ):
            # records run together on one line, each behind its printk level prefix (one
            # of them kernel wording: not prose that quotes a few "<n>")
            for rec in recs:
                self._line(lineno, rec, out)
            return
        if fields is None:
            self._unparsed(lineno, stripped, out, indented=line[:1] in " \t")
            return
        if stripped[-1] == ">" and repair.pager_cut(stripped):
            stripped = stripped[:-1]
            fields = fields._replace(message=fields.message[:-1])
        msg = fields.message
        if "[" in msg and (st := repair.status_inside(msg)) is not None:
            # systemd's console status line printed into the middle of a kernel line
            cut = len(stripped) - len(msg) + st
            fields = fields._replace(message=msg[:st])
            self._emit(lineno, stripped[:cut], fields, out)
            status = repair.console_status(stripped[cut:], False)
            self._emit(lineno, stripped[cut:], _pid1(status) if status else None, out)
            return
        if "---" in msg and (pieces := repair.marker_records(msg)) is not None:
            # a report's cut-here or end-trace record run into the lines around it
            for piece in pieces:
                self._emit(lineno, piece, fields._replace(message=piece), out)
            return
        hint = GLUE_HINT.get(fields.fmt)
        if hint is not None and len(msg) > 10 and hint in msg:
            at = repair.glued_at(fields.fmt, msg)
            if at is not None and stripped.endswith(msg):
                # two lines glued together: emit the first, parse the rest as a line
                cut = len(stripped) - len(msg) + at
                first, second = stripped[:cut].rstrip(), stripped[cut:]
                head = self._parse(first)
                if head is not None:
                    self._emit(lineno, first, head, out)
                    self._line(lineno, second, out)
                    return
        self._emit(lineno, stripped, fields, out)

    def _salvage(self, text: str) -> tuple[Fields | None, str]:
        """The tolerant path (salvage.py): markup removed, then the known formats again,
        then the message found behind any prefix. Returns (fields or None, cleaned text)."""
        cleaned = salvage.clean_markup(text)
        if not cleaned:
            return None, ""
        if cleaned != text:
            fields = self._parse(cleaned)
            if fields is not None:
                return fields, cleaned
        if (at := clean.record_after_prompt(cleaned)) is not None:
            fields = self._parse(cleaned[at:])
            if fields is not None:
                return fields, cleaned[at:]
        if clean.is_command(cleaned) or clean.boot_separator(cleaned)[0]:
            return None, cleaned
        return salvage.salvage(cleaned), cleaned

    def _unparsed(
        self, lineno: int, text: str, out: list[Event], *, indented: bool = False
    ) -> None:
        status = repair.console_status(text, indented or self._console)
        if status is not None:
            # PID 1's console status ("[  OK  ] Stopped target …", "         Unmounting …"):
            # its own record, as the journal would hold it, evidence of what systemd did
            self._console = True
            self._emit(lineno, text, _pid1(status), out)
            return
        is_sep, boot_id = clean.boot_separator(text)
        if is_sep:
            self._mark(lineno, MarkReason.SEPARATOR, boot_id, out)
            return
        if clean.journal_note(text):  # "-- Logs begin at … --": kept as text, not evidence
            self._emit(lineno, text, None, out, origin=Origin.TEXT)
            return
        if formats.parse_pstore_header(text):
            self._mark(lineno, MarkReason.PSTORE_HEADER, "", out)
            return
        if clean.is_command(text):
            self._emit(lineno, text, None, out, origin=Origin.COMMAND)
            return
        pending = self._pending
        if (
            pending is not None
            and pending.origin is Origin.TEXT
            and self._wrap is None
            and not self._unwrapping
            and (got := wrapper.learn(pending.raw, text, self._readable)) is not None
        ):
            # this line and the one before share a relay's header: read both behind it
            self._wrap, before, at = got
            self._pending = None
            self._unwrapped(pending.lineno, pending.raw[before:], out)
            self._unwrapped(lineno, text[at:], out)
            return
        if (
            pending is not None
            and pending.origin is not Origin.TEXT
            and not repair.opens_record(text)
            and (glue := repair.wrap_joint(pending.raw, indented)) is not None
            and salvage.k8s_event(text) is None  # another row of an events table
        ):
            # a wrapped continuation of the line before: join, keep the first line number
            self._pending = pending._replace(
                message=pending.message + glue + text, raw=pending.raw + glue + text
            )
            return
        self._emit(lineno, text, None, out, origin=Origin.TEXT)

    def _unwrapped(self, lineno: int, text: str, out: list[Event]) -> None:
        """A line read behind a relay's header (wrapper.py), as if it stood alone."""
        self._unwrapping = True
        try:
            self._line(lineno, text, out)
        finally:
            self._unwrapping = False

    def _readable(self, text: str) -> bool:
        """Whether text reads as a log line: a known format, a kernel or program line
        behind a prefix (salvage.py), systemd's console status."""
        stripped = text.strip()
        if not stripped:
            return False
        if repair.console_status(text, True) is not None or self._parse(stripped) is not None:
            return True
        cleaned = salvage.clean_markup(stripped)
        return bool(cleaned) and salvage.salvage(cleaned) is not None

    def _mark(self, lineno: int, why: MarkReason, boot_id: str, out: list[Event]) -> None:
        if self._pending is not None:
            out.append(self._pending)
            self._pending = None
        if self._since_mark:
            out.append(BootMark(lineno, why, boot_id))
        elif boot_id:
            out.append(BootMark(lineno, MarkReason.BOOT_ID, boot_id))
        self._since_mark = 0
        self._last_ts = None

    def _emit(
        self,
        lineno: int,
        raw: str,
        fields: Fields | None,
        out: list[Event],
        *,
        origin: Origin = Origin.TEXT,
        boot_id: str = "",
    ) -> None:
        if fields is None:
            self._fast = False
            line = Line(raw, origin, LogFormat.TEXT, lineno, raw)
        else:
            fmt = fields.fmt
            self._counts[fmt] = self._counts.get(fmt, 0) + 1
            if fmt is LogFormat.JSON:
                boot_id = boot_id or self._known.boot_id
            self._boundaries(lineno, fields, boot_id, out)
            wall = fields.wall_us
            if fields.month_day is not None or fields.delta_us is not None:
                wall = self._known.wall(fields)
            kind = Origin.KERNEL if fields.ident is None else Origin.USERSPACE
            self._fast = fmt is LogFormat.DMESG and fields.level is None and fields.caller is None
            line = Line(
                fields.message,
                kind,
                fmt,
                lineno,
                raw,
                fields.ts_usec,
                wall,
                fields.level,
                fields.facility,
                fields.seq,
                fields.caller,
                None,
                None,
                fields.host,
                boot_id,
            )
            if fields.host and fmt is LogFormat.JOURNAL_MONO:
                self._known.host = fields.host
            pending = self._pending
            if (
                pending is not None
                and pending.ts_usec is not None
                and pending.ts_usec == line.ts_usec
                and pending.origin is line.origin
                and line.message.startswith(pending.message)
            ):
                # two consoles (serial + VT, or console + dmesg) print each record twice;
                # glued mid-line, the first copy is cut short: keep the longer copy once
                self._pending = line
                return
        if self._pending is not None:
            out.append(self._pending)
        self._pending = line
        self._since_mark += 1

    def _boundaries(self, lineno: int, fields: Fields, boot_id: str, out: list[Event]) -> None:
        """New boot when the journal's boot id changes, printk's clock restarts, or a kernel
        banner ("Linux version …") appears after other lines."""
        if boot_id:
            changed = bool(self._current_boot) and boot_id != self._current_boot
            self._current_boot = boot_id
            if changed:
                self._mark(lineno, MarkReason.BOOT_ID, boot_id, out)
        if fields.ident is not None:
            return
        ts = fields.ts_usec
        if ts is not None:
            last = self._last_ts
            if last is not None and ts + RESTART_SLACK_US < last:
                self._mark(lineno, MarkReason.CLOCK_RESTART, "", out)
            self._last_ts = ts
        msg = fields.message
        if self._since_mark and msg[:8] == "Linux ve" and _LINUX_VERSION.match(msg):
            self._mark(lineno, MarkReason.LINUX_VERSION, "", out)
            self._last_ts = ts


def _pid1(message: str) -> Fields:
    """A console status message as PID 1's record (journal: SYSLOG_IDENTIFIER=systemd, _PID=1,
    facility daemon)."""
    return Fields(LogFormat.LOOSE, f"systemd[1]: {message}", facility=3, ident="systemd", pid="1")


def parse_lines(lines: Iterable[str]) -> Iterator[Event]:
    """Parse an iterable of decoded lines (numbered from 1) into events."""
    stream = LogStream()
    for lineno, text in enumerate(lines, start=1):
        yield from stream.feed(lineno, text)
    yield from stream.close()
