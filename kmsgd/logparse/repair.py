"""What consoles, pagers and copying did to log lines, found so the stream can undo it.

Two consoles print into each other (systemd's `[  OK  ]` status column in the middle of a
kernel line, the same record twice), a copy glues two lines into one or wraps one into two,
`less -S` cuts a line at the screen edge and marks it with ">", a web page escapes `<` as
`&lt;`, /dev/kmsg puts a record's subsystem and device on continuation lines. These functions
say where; `stream.LogStream` decides what the pieces become. The stream's hot loop tests the
cheap signs inline (`"[" in msg`, `GLUE_HINT`) and calls in here only when one is there.
Pure string functions.
"""

from __future__ import annotations

import html
import re
from itertools import pairwise

from kmsgd.logparse.parsed import LogFormat

PAGER_WIDTH = 79  # a line this long ending in ">" was cut by the pager
WRAP_MIN = 70  # a line this long followed by an unstamped line was probably wrapped
# terminal widths: a line cut at one of these was cut mid-word, so it joins without a space
_PREFIX_ONLY = re.compile(r"^[\w.-]+: \[\w+\]$")
# a console's record prefix: a line that opens with it is a record of its own, never the
# wrapped rest of the line before (the Xen hypervisor's "(XEN) ", xen/drivers/char/console.c,
# and the guest consoles it relays, "(d12) "; `xl dmesg` prints its register and VMCS dumps
# as such records, which a long first line would otherwise swallow; Genode's session label
# "[init -> usb_drv] ", logparse/salvage.py)
_RECORD_PREFIX = re.compile(r"\((?:XEN|d\d+)\) |\[(?:[\w.:-]+ -> )+[\w.:-]+\] ")
_WRAP_WIDTHS = frozenset({80, 100, 120, 132, 160, 200})
_KMSG_KV = re.compile(r" (SUBSYSTEM|DEVICE)=(.*)")
# where a second line starts inside a glued one, per format
_GLUE = {
    LogFormat.DMESG: re.compile(r"(?:<\d{1,3}>)?\[\s*\d+\.\d{6}\]"),
    LogFormat.JOURNAL: re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)? \S+ \S+?:"),
    LogFormat.JOURNAL_ISO: re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S* \S+ \S+?:"),
}
GLUE_DMESG = _GLUE[LogFormat.DMESG]
# a character every glued second line of the format has: no search without it
GLUE_HINT = {LogFormat.DMESG: "[", LogFormat.JOURNAL: ":", LogFormat.JOURNAL_ISO: "T"}
# systemd's console status column (src/core/unit.c, status_printf): "[  OK  ]", "[FAILED]",
# "[ *** ]" (a job still running), "[DEPEND]", "[ TIME ]", "[ INFO ]", "[ WARN ]"
_STATUS = re.compile(r"\[(?:  OK  |FAILED|DEPEND| TIME | INFO | WARN |\s*\*+\s*)\]")
# what a job prints as it begins, after the status column's blank indent (systemd
# src/core/job.c job_get_begin_status_message_format; mount.c and swap.c status_message_formats):
# "Starting %s...", "Stopping %s...", "Reloading %s...", "Mounting %s...", "Unmounting %s...",
# "Activating swap %s...", "Deactivating swap %s..."
_JOB = re.compile(r"(?:Starting|Stopping|Reloading|Mounting|Unmounting|(?:Dea|A)ctivating swap) \S")


# printk's level prefix "<%d>" at the start of each record (KERN_EMERG … KERN_DEBUG as the
# record's text held it before 3.5, and as /proc/kmsg, syslog(2) and a console with the level
# shown still print it): where a paste runs records together, each prefix opens one
_LEVEL_MARK = re.compile(r"(?<!\S)<[0-7]>(?=\S)")
# the markers a report prints as records of their own: lib/bug.c and kernel/panic.c CUT_HERE
# before a WARNING or BUG, kernel/panic.c print_oops_end_marker after it ("---[ end trace
# %016llx ]---", 2.6.2x-6.18; "---[ end trace 0000000000000000 ]---" from 5.19)
_CUT_HERE = "------------[ cut here ]------------"
_END_TRACE = re.compile(r"---\[ end trace [0-9a-f]+ \]---")


def level_records(text: str) -> list[str] | None:
    """The records of a line that holds two or more printk level prefixes ("… <1>BUG: …
    <4>PGD … <0>Oops: …"), each from its prefix on, and the text before the first; None
    when the line is not such a run."""
    starts = [m.start() for m in _LEVEL_MARK.finditer(text)]
    if len(starts) < 2:
        return None
    edges = [*starts, len(text)]
    pieces = [text[: starts[0]].strip()] + [text[a:b].strip() for a, b in pairwise(edges)]
    return [p for p in pieces if p]


def marker_records(msg: str) -> list[str] | None:
    """A message run together with a report's own marker records (the cut-here line before a
    WARNING, the end-trace line after it), split at them; None when none is inside it."""
    cut = msg.find(_CUT_HERE)
    end = _END_TRACE.search(msg)
    bounds = set()
    if cut >= 0:
        bounds |= {cut, cut + len(_CUT_HERE)}
    if end is not None:
        bounds |= {end.start(), end.end()}
    bounds -= {0, len(msg)}
    if not bounds:
        return None
    edges = [0, *sorted(bounds), len(msg)]
    pieces = [msg[a:b].strip() for a, b in pairwise(edges)]
    pieces = [p for p in pieces if p]
    return pieces if len(pieces) > 1 else None


def unescape(line: str) -> str:
    """A line copied from an HTML page (`&lt;`, `&gt;`, `&amp;`) as the kernel wrote it."""
    return html.unescape(line) if "&" in line and ";" in line else line


def status_line(text: str) -> bool:
    """systemd's status line on its own ("[  OK  ] Started …"): text, never kernel wording."""
    return _STATUS.match(text) is not None


def console_status(text: str, indented: bool) -> str | None:
    """The message of PID 1's console status line, without its status column: "[  OK  ]
    Stopped target …" (systemd src/core/show-status.c status_vprintf), or a job's start
    line that the status column's blank width indents ("         Stopping …",
    src/core/job.c, mount.c, swap.c); None for any other line. A job line whose indent a
    copy lost counts only where the caller has seen status lines already (`indented`
    true)."""
    m = _STATUS.match(text)
    if m is not None:
        return text[m.end() :].strip() or None
    if indented and _JOB.match(text) is not None:
        return text.strip()
    return None


def status_inside(msg: str) -> int | None:
    """Where systemd's status column starts inside a message, if one was printed into it."""
    m = _STATUS.search(msg)
    return None if m is None else m.start()


def pager_cut(text: str) -> bool:
    """Whether the line ends in the ">" that `less -S` (journalctl's pager) puts at the edge."""
    return len(text) >= PAGER_WIDTH and text[-1] == ">" and text[-2] != " "


def glued_at(fmt: LogFormat, msg: str) -> int | None:
    """Where a second line of the same format starts inside a message, if two were glued."""
    glue = _GLUE.get(fmt)
    m = glue.search(msg, 1) if glue is not None else None
    return None if m is None else m.start()


def opens_record(text: str) -> bool:
    """Whether an unparsed line opens with a console's record prefix ("(XEN) ")."""
    return text[:1] in "([" and _RECORD_PREFIX.match(text) is not None


def wrap_joint(before: str, indented: bool) -> str | None:
    """How an unparsed line joins the line `before` it as that line's wrapped continuation:
    "" after a cut at a terminal's width, " " after a cut at a word or a prefix printed
    alone, None if it is no continuation (an indented line, or a line before too short to
    have been wrapped)."""
    if indented:
        return None
    if _PREFIX_ONLY.search(before) is not None:
        # a driver's prefix printed alone, its message in the next record (4.x powerplay's
        # "amdgpu: [powerplay] " then "failed to send message …": a printk without KERN_CONT)
        return " "
    if len(before) < WRAP_MIN:
        return None
    return "" if len(before) in _WRAP_WIDTHS else " "


def kmsg_kv(text: str) -> tuple[str, str] | None:
    """(SUBSYSTEM or DEVICE, value) of a /dev/kmsg continuation line (" DEVICE=+pci:…")."""
    m = _KMSG_KV.fullmatch(text)
    return None if m is None else (m.group(1), m.group(2))
