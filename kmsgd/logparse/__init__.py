"""Pasted kernel logs → `Line`s (`.record` is the KernelRecord) and boot boundaries.

`read_chunks`/`read_lines` turn bytes into decoded, time-ordered lines; `LogStream` and
`parse_lines` parse them. Every input line comes out: as a kernel or userspace record, as
text, or as a command.

May import: kmsgd.ring (the kernel record type), kmsgd.errors, kmsgd.types.
"""

from kmsgd.logparse.model import BootMark, Event, Line, LogFormat, Origin
from kmsgd.logparse.reader import InputStats, read_chunks, read_lines
from kmsgd.logparse.stream import LogStream, parse_lines

__all__ = [
    "BootMark",
    "Event",
    "InputStats",
    "Line",
    "LogFormat",
    "LogStream",
    "Origin",
    "parse_lines",
    "read_chunks",
    "read_lines",
]
