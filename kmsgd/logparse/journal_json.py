"""journalctl `-o json` lines and `-o export` blocks (systemd's JOURNAL_EXPORT_FORMATS.md).

Kernel entries have `_TRANSPORT=kernel`; their printk stamp is `_SOURCE_MONOTONIC_TIMESTAMP`
(µs since boot), their realtime stamp is journald's receive time. A MESSAGE that is not
valid UTF-8 is exported as an array of byte values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping

from kmsgd.logparse.formats import Fields
from kmsgd.logparse.model import LogFormat
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
