"""Pasted kernel logs → `Line`s (`.record` is the KernelRecord) and boot boundaries.

`read_chunks`/`read_lines` (decode.py) turn bytes into decoded, time-ordered lines;
`LogStream` and `parse_lines` (stream.py) parse them into `Line`s and `BootMark`s (why a boot
starts there: `MarkReason`). The stream asks recognise.py which known format a line is in
(parsers in formats.py and journal_json.py), undoes what consoles, pagers and copying did
(repair.py, clean.py), cuts a relay's header off every line (wrapper.py) and salvages the rest
(salvage.py). Every input line comes out: as a kernel or userspace record, as text, or as a
command. `bundle` opens the files, directories
and archives a ticket carries; `systemd_journal` reads journal files and an earlier boot's
journal.

May import: kmsgd.ring (the kernel record type), kmsgd.errors, kmsgd.types.
"""

from kmsgd.logparse.decode import InputStats, read_chunks, read_lines
from kmsgd.logparse.parsed import BootMark, Event, Line, LogFormat, MarkReason, Origin
from kmsgd.logparse.stream import LogStream, parse_lines

__all__ = [
    "BootMark",
    "Event",
    "InputStats",
    "Line",
    "LogFormat",
    "LogStream",
    "MarkReason",
    "Origin",
    "parse_lines",
    "read_chunks",
    "read_lines",
]
