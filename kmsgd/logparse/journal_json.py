"""journalctl `-o json` lines, `-o export` blocks (systemd's JOURNAL_EXPORT_FORMATS.md) and
`-o verbose` records (systemd's src/shared/logs-show.c output_verbose).

Kernel entries have `_TRANSPORT=kernel`; their printk stamp is `_SOURCE_MONOTONIC_TIMESTAMP`
(µs since boot), their realtime stamp is journald's receive time. A MESSAGE that is not
valid UTF-8 is exported as an array of byte values.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping

from kmsgd.logparse.formats import Fields
from kmsgd.logparse.parsed import LogFormat
from kmsgd.types import MONO_US_MAX, WALL_US_MAX, bounded_int


def _int(value: object, high: int) -> int | None:
    """A number field, range-checked where it is parsed: a 400-digit or out-of-clock value
    (`__REALTIME_TIMESTAMP=9223372036854775807`) is no value, never an overflow later."""
    return bounded_int(value, 0, high)


def _text(value: object) -> str:
    if isinstance(value, list):  # binary MESSAGE: list of byte values
        try:
            return bytes(int(b) & 0xFF for b in value).decode("utf-8", errors="replace")
        except (TypeError, ValueError, OverflowError):  # int(inf): not a byte value
            return ""
    return "" if value is None else str(value)


def fields_from_entry(entry: Mapping[str, object], fmt: LogFormat) -> Fields | None:
    """One journal entry (as a field mapping) → Fields; None when it has no MESSAGE."""
    if "MESSAGE" not in entry:
        return None
    text = _text(entry["MESSAGE"]).rstrip("\n")
    prio = _int(entry.get("PRIORITY", ""), 7)  # a syslog level
    fac = _int(entry.get("SYSLOG_FACILITY", ""), 23)
    ts = _int(entry.get("_SOURCE_MONOTONIC_TIMESTAMP", ""), MONO_US_MAX)
    wall = _int(
        entry.get("_SOURCE_REALTIME_TIMESTAMP", entry.get("__REALTIME_TIMESTAMP", "")),
        WALL_US_MAX,
    )
    host = _text(entry.get("_HOSTNAME", ""))
    kernel = entry.get("_TRANSPORT") == "kernel" or entry.get("SYSLOG_IDENTIFIER") == "kernel"
    seq = None
    if kernel:
        return Fields(
            fmt, text, ts_usec=ts, wall_us=wall, level=prio, facility=0, host=host, seq=seq
        )
    ident = _text(entry.get("SYSLOG_IDENTIFIER", entry.get("_COMM", "?")))
    pid = _text(entry.get("SYSLOG_PID", entry.get("_PID", "")))
    message = f"{ident}[{pid}]: {text}" if pid else f"{ident}: {text}"
    return Fields(
        fmt,
        message,
        ts_usec=None,
        wall_us=wall,
        level=prio,
        facility=fac if fac is not None else 3,
        host=host,
        ident=ident,
        pid=pid,
    )


def parse_json(line: str) -> tuple[Fields, str] | None:
    """A `journalctl -o json` line → (fields, boot id); None if it is not such a line."""
    if not (line.startswith("{") and line.endswith("}")):
        return None
    try:
        entry = json.loads(line)
    except ValueError:
        return None
    if not isinstance(entry, dict):
        return None
    fields = fields_from_entry(entry, LogFormat.JSON)
    if fields is None:
        return None
    return fields, _text(entry.get("_BOOT_ID", ""))


class ExportBlock:
    """Collects `KEY=value` lines of one `-o export` entry until the blank line ending it."""

    __slots__ = ("fields", "lineno")

    def __init__(self, lineno: int) -> None:
        self.fields: dict[str, str] = {}
        self.lineno = lineno

    def add(self, line: str) -> bool:
        """Take one line; False if it is not a `KEY=value` line (then the block is over)."""
        key, sep, value = line.partition("=")
        if not sep or not key or not (key.replace("_", "").isalnum() and key.upper() == key):
            return False
        self.fields[key] = value
        return True

    def finish(self) -> tuple[Fields, str] | None:
        fields = fields_from_entry(self.fields, LogFormat.EXPORT)
        if fields is None:
            return None
        return fields, self.fields.get("_BOOT_ID", "")


def starts_export(line: str) -> bool:
    return line.startswith(("__CURSOR=", "__REALTIME_TIMESTAMP="))


# output_verbose's record header: the realtime stamp ("%a %Y-%m-%d %H:%M:%S.%06u %Z", the
# weekday in the user's locale) and the cursor in brackets, whose b=, m= and t= are the boot
# id, the monotonic and the realtime stamp (hex µs)
_VERBOSE_HEAD = re.compile(
    r"\s*(?:\S+ )?\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{1,6})? \S+ "
    r"\[s=[0-9a-f]{32};i=[0-9a-f]+;b=([0-9a-f]{32});m=([0-9a-f]+);t=([0-9a-f]+);x=[0-9a-f]+\]"
)
_VERBOSE_FIELD = re.compile(r"([ \t]+)([A-Z0-9_]+)=(.*)")


def starts_verbose(line: str) -> VerboseBlock | None:
    """A `-o verbose` record's header line opens a block; None for any other line."""
    if "[s=" not in line:
        return None
    m = _VERBOSE_HEAD.fullmatch(line.rstrip())
    if m is None:
        return None
    block = VerboseBlock(0)
    block.fields["_BOOT_ID"] = m.group(1)
    block.fields["__MONOTONIC_TIMESTAMP"] = str(int(m.group(2), 16))
    block.fields["__REALTIME_TIMESTAMP"] = str(int(m.group(3), 16))
    return block


class VerboseBlock:
    """Collects one `-o verbose` record: its header, then each field on a line of its own
    ("    FIELD=value", four spaces in; print_multiline indents a value's further lines
    past the "=") until a line that is neither ends it."""

    __slots__ = ("_indent", "_last", "fields", "lineno")

    def __init__(self, lineno: int) -> None:
        self.fields: dict[str, str] = {}
        self.lineno = lineno
        self._indent = 0
        self._last = ""

    def add(self, line: str) -> bool:
        """Take one line; False if it is not part of the record (then the record is over)."""
        m = _VERBOSE_FIELD.fullmatch(line)
        if m is not None and (not self._indent or len(m.group(1)) <= self._indent):
            self._indent = len(m.group(1))
            key = m.group(2)
            if key in self.fields and key.startswith("__"):
                return True  # the header's stamps win over a field of the same name
            self.fields[key] = m.group(3)
            self._last = key
            return True
        if self._last and line[: self._indent + 1].isspace() and line.strip():
            self.fields[self._last] += "\n" + line.strip()  # a value's next line
            return True
        return False

    def finish(self) -> tuple[Fields, str] | None:
        fields = fields_from_entry(self.fields, LogFormat.VERBOSE)
        if fields is None:
            return None
        return fields, self.fields.get("_BOOT_ID", "")
