"""The known formats line after line: which parser takes a line, and what a format says once
for many lines.

`Recogniser.parse` tries formats.py's parsers, the one that took the last line first (most
pastes are one format), journalctl's short-monotonic before dmesg (it looks like dmesg) and
JSON last. It keeps what lines do not repeat: the journal host short-monotonic lines start
with, the boot id of JSON lines, and `wall` the wall clock of stamps that are not whole: the
year journal short and syslog leave out (counted from 2000, rolled over at New Year) and
dmesg -H's running clock (a minute header, then offsets). Memory is constant.
"""

from __future__ import annotations

from collections.abc import Callable

from kmsgd.logparse import formats
from kmsgd.logparse.formats import Fields
from kmsgd.logparse.journal_json import parse_json

Parser = Callable[[str], Fields | None]
_PARSERS: tuple[Parser, ...] = (
    formats.parse_kmsg,
    formats.parse_dmesg,
    formats.parse_journal,
    formats.parse_rfc5424,
    formats.parse_journal_iso,
    formats.parse_journal_full,
    formats.parse_dmesg_iso,
    formats.parse_dmesg_ctime,
    formats.parse_dmesg_delta,
    formats.parse_dmesg_decode,
)


class Recogniser:
    """One per input: `parse` a line's fields, then `wall` its wall clock (in input order)."""

    def __init__(self) -> None:
        self._order: list[Parser] = list(_PARSERS)
        self.host = ""  # the journal host of short-monotonic lines (the stream sets it)
        self.boot_id = ""  # boot id of the last JSON line
        self.month = 0  # month of the last yearless stamp (0: none yet)
        self._year = 2000  # yearless stamps get a leap year so "Feb 29" stays valid
        self._delta_wall: int | None = None

    def parse(self, text: str) -> Fields | None:
        """The fields of a non-empty, stripped line in a known format, or None."""
        if text[0] == "[" and (self.host or " kernel:" in text or "]: " in text):
            # short-monotonic looks like dmesg; it must get the first word on such lines
            mono = formats.parse_journal_mono(text, self.host)
            if mono is not None:
                return mono
        order = self._order
        for i, parser in enumerate(order):
            fields = parser(text)
            if fields is not None:
                if i:  # most pastes are one format: try the last good parser first
                    order.insert(0, order.pop(i))
                return fields
        if text[0] != "{":
            return None
        got = parse_json(text)
        if got is None:
            return None
        fields, self.boot_id = got
        return fields

    def wall(self, fields: Fields) -> int | None:
        """The wall clock of a line whose stamp has a month and day but no year, or is
        dmesg -H's (a minute header or an offset from the line before)."""
        if fields.minute_header:
            self._delta_wall = fields.wall_us
            return self._resolve_year(fields)
        if fields.delta_us is not None:
            if self._delta_wall is None:
                return None
            self._delta_wall += fields.delta_us
            return self._delta_wall
        return self._resolve_year(fields)

    def _resolve_year(self, fields: Fields) -> int | None:
        """Yearless stamps (journal short, syslog) count from 2000 and roll over at New Year."""
        assert fields.month_day is not None
        month = fields.month_day[0]
        if self.month and month < self.month - 6:
            self._year += 1
        self.month = month
        if fields.wall_us is None or self._year == 2000:
            return fields.wall_us
        # the parser used 2000: shift by the whole years since
        shift = formats.wall_from_parts(self._year, 1, 1, "00:00:00", None)
        base = formats.wall_from_parts(2000, 1, 1, "00:00:00", None)
        return fields.wall_us + (shift or 0) - (base or 0)
