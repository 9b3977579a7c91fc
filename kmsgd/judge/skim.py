"""Which lines of a block need the per-line parser, and which can only be counted.

A 100 MiB log is a million lines, and most of them are routine: a plain dmesg or journal
line, no trigger word of the catalogue, no boot boundary, outside the head and the final
window of its boot. For those the post-mortem needs nothing but their count and the clock
of the first and last one. `Skimmer.plan` finds them per block of decoded text with a few
whole-block string operations instead of a parser call per line:

- Lines are grouped by their *key*: the line with its stamp cut off and its digits turned
  into 0 (`usb 1-4: new device number 17` and `… number 23` share one). A key is judged
  once, and judged conservatively: anything that might make the line parse differently
  (a second stamp, markup, a pager's `>`, systemd's status column), start a boot
  ("Linux version"), name a host, or carry a trigger word sends its lines to the parser.
- A line whose key has a trigger word is matched against the catalogue (`match_text`, as
  the timeline would); only lines that show a tag are kept.
- dmesg stamps must rise strictly (a step back may be a new boot, an equal one a console
  copy): checked by comparing the stamps as strings, which all have the block's width.
- The last TAIL_LINES lines before any line that needs the parser, and at the end of every
  block, always go through the parser: a boot's final window is made of parsed lines.

The plan is only an offer: `analyze` counts a run after asking the stream
(`LogStream.countable`) and the timeline whether the state they are in allows it, so the
report is the same as with every line parsed (tests/judge/test_skim.py).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass
from itertools import compress, islice, repeat

from kmsgd.catalogue.table import TRIGGERS, WORD_SPLIT, match_text
from kmsgd.judge.timeline import TAIL_LINES
from kmsgd.logparse import formats
from kmsgd.logparse.parsed import LogFormat

MAX_KEYS = 1 << 16  # judged keys kept; a log with more distinct ones starts afresh
MAX_QUIET = 1 << 14  # messages known to show no tag
_DIGITS = str.maketrans("0123456789", "0" * 10)
_NORM_TRIGGERS = frozenset(t.translate(_DIGITS) for t in TRIGGERS)
# the dmesg fast path's line (stream.py _FAST) and a journal short/short-precise line
_DMESG_PREFIX = re.compile(r"\[ *\d+\.\d{6}\] ")
_JOURNAL_PREFIX = re.compile(r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d{1,9})? (\S+) ")
# what may make a line parse as something else, or start a boot, or name a host
# what may start a boot: a (second) printk stamp (glued lines, syslog's "kernel: [ 1.2]"),
# a kernel banner (stream._boundaries), a glued journal line
_BOUNDARY = re.compile(r"\.000000\]|Linux ve|[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d")
# what else the parser or the collector treat apart: a host name (analyze._Collector), HTML
# entities (html.unescape), a pager's cut mark, trailing blanks, systemd's status column
_APART = re.compile(
    r"Hostname set to|host name to|&[^\t\n\f <&;]|[>\s]$"
    r"|\[(?:  OK  |FAILED|DEPEND| TIME | INFO | WARN |\s*\*+\s*)\]"
)
_PLAIN, _TRIGGER, _APART_KEY, _PARSE = 0, 1, 2, 3
_NEEDS = 3  # the bits above
_STAMPED = 4  # a syslog kernel line with printk's stamp: its stamps must rise (_stamp_order)
# rsyslog's kernel lines with printk's stamp (formats._EMBEDDED_TS), digits as 0
_KERNEL_STAMP = re.compile(r"kernel: \[ *0+\.000000\] ")
_stamp_shape = re.compile(r"\[ *\d+\.\d{6}\] ").fullmatch
_kernel_stamp_shape = re.compile(r"\[ *\d+\.\d{6}\]").fullmatch


@dataclass(frozen=True, slots=True)
class Plan:
    """Runs of lines [start, end) of a block that may be counted, all of format `fmt`
    and, for a journal, of host `host`."""

    fmt: LogFormat
    runs: list[tuple[int, int]]
    host: str = ""
    stamped: bool = False  # journal/syslog kernel lines with printk's stamp ("kernel: [ 1.2]")


class Skimmer:
    """Plans block after block; keeps what it judged (bounded) across blocks."""

    def __init__(self) -> None:
        self._keys: dict[str, int] = {}
        # lines without their stamp that show no tag (at any stamp: see _TIMED_WORDS)
        self._quiet: dict[LogFormat, set[str]] = {LogFormat.DMESG: set(), LogFormat.JOURNAL: set()}

    def plan(self, lines: list[str], text: str) -> Plan | None:
        """The countable runs of a block (`text` is `lines` joined, each ending in a
        newline); None when the block is not of one plain format."""
        n = len(lines)
        if n <= TAIL_LINES:
            return None
        for first in islice(lines, 8):
            if (m := _DMESG_PREFIX.match(first)) is not None:
                fmt, host = LogFormat.DMESG, ""
                break
            if (m := _JOURNAL_PREFIX.match(first)) is not None and m.group()[:3] in formats.MONTHS:
                fmt, host = LogFormat.JOURNAL, m.group(1)
                break
        else:
            return None
        width = m.end()
        prefix = m.group().translate(_DIGITS)  # a journal line's stamp and host, digits as 0
        norm = text.translate(_DIGITS).split("\n")
        norm.pop()
        if len(norm) != n:
            return None
        keys = list(map(operator.itemgetter(slice(width, None)), norm))
        if fmt is LogFormat.DMESG:
            # "[%5lu.%06lu] ": as many digits as the uptime has, so compare the shape, and
            # the stamps as strings (of one width they sort as numbers); they must rise
            # strictly: a step back may be a new boot, an equal stamp a console's copy
            stamps = list(map(operator.itemgetter(slice(0, width)), lines))
            flat = "".join(stamps).translate(_DIGITS)  # "[  000.000000] " when well made
            shape = "[" + "0" * (width - 10) + ".000000]0"
            if "0 " not in flat and flat.replace(" ", "0") == shape * n:
                parse = set()
            else:  # find the lines of another shape
                parse = set(compress(range(n), map(operator.not_, map(_stamp_shape, stamps))))
            parse.update(compress(range(1, n), map(operator.ge, stamps, islice(stamps, 1, None))))
        else:
            starts = map(str.startswith, norm, repeat(prefix))
            parse = set(compress(range(n), map(operator.not_, starts)))
            if not host.isalpha():  # digits in the host name: compare the real ones
                at = m.start(1)
                got = map(operator.itemgetter(slice(at, width)), lines)
                parse.update(compress(range(n), map(operator.ne, got, repeat(host + " "))))
        judged = self._keys
        uniq = set(keys)
        if len(judged) > MAX_KEYS:
            judged.clear()
        for key in uniq.difference(judged):
            judged[key] = _judge_key(key, prefix, fmt)
        stamped = {k for k in uniq if judged[k] & _STAMPED}
        if stamped:
            parse.update(_stamp_order(lines, keys, stamped, width))
        flagged = {k for k in uniq if judged[k] & _NEEDS}
        keep: set[int] = set()
        if flagged:
            for i in compress(range(n), map(flagged.__contains__, keys)):
                verdict = judged[keys[i]] & _NEEDS
                if verdict == _PARSE:
                    parse.add(i)
                elif i in parse:  # not of the block's shape: the key says nothing
                    continue
                elif verdict == _APART_KEY or self._shows_tag(
                    fmt, lines[i], width, stamped=keys[i] in stamped
                ):
                    keep.add(i)
        return Plan(fmt, _runs(n, parse, keep), host, bool(stamped))

    def _shows_tag(self, fmt: LogFormat, line: str, width: int, *, stamped: bool) -> bool:
        """Whether a plain line with a trigger word shows a tag, as TimelineBuilder.add
        would match it (same message, facility and stamp)."""
        key = line[width:]  # with the block's format, it says the message and facility
        if stamped:  # "kernel: [ 12.3] text" is "kernel: text" at another stamp
            key = "kernel: " + key[key.index("] ", 9) + 2 :]
        quiet = self._quiet[fmt]
        if key in quiet:
            return False
        if fmt is LogFormat.DMESG:
            msg, facility = key, None
            ts: int | None = int(line[1 : width - 9]) * 1_000_000 + int(line[width - 8 : width - 2])
        else:
            fields = formats.parse_journal(line)
            if fields is None:
                return True  # let the parser say what it is
            msg, facility, ts = fields.message, fields.facility, fields.ts_usec
        words = TRIGGERS.intersection(msg.translate(WORD_SPLIT).split())
        if not words:
            _remember(quiet, key)
            return False
        if match_text(msg, facility, ts, words):
            return True
        if not words & _TIMED_WORDS:  # the answer does not depend on the stamp
            _remember(quiet, key)
        return False


def _remember(quiet: set[str], key: str) -> None:
    if len(quiet) > MAX_QUIET:
        quiet.clear()
    quiet.add(key)


def _judge_key(key: str, prefix: str, fmt: LogFormat) -> int:
    """What its lines need, for a key (a line without its stamp, digits as 0): _PARSE
    (may start a boot), _APART_KEY (parsed alone), _TRIGGER (matched), _PLAIN (counted)."""
    stamp = _KERNEL_STAMP.match(key) if fmt is LogFormat.JOURNAL else None
    flag = _STAMPED if stamp is not None else 0
    if _BOUNDARY.search(key, stamp.end() if stamp is not None else 0) is not None:
        return _PARSE
    if fmt is LogFormat.JOURNAL and formats.parse_journal(prefix + key) is None:
        return _PARSE
    if _APART.search(key) is not None:
        return _APART_KEY | flag
    body = key
    if fmt is LogFormat.JOURNAL:
        # the catalogue's trigger words are looked for in the message (_shows_tag, table.py),
        # never in the ident before it: "kernel: " on every kernel line of a journal would
        # send each one down the per-line path for a word its message does not hold
        cut = key.find(": ")
        body = key[cut + 2 :] if cut >= 0 else key
    if not _NORM_TRIGGERS.isdisjoint(body.translate(WORD_SPLIT).split()):
        return _TRIGGER | flag
    return _PLAIN | flag


def _stamp_order(lines: list[str], keys: list[str], stamped: set[str], width: int) -> list[int]:
    """Syslog kernel lines whose printk stamp does not rise strictly from the kernel line
    before it (the stream's clock check and console copies, as for dmesg), or has another
    width than the first: they go to the parser."""
    idx = list(compress(range(len(keys)), map(stamped.__contains__, keys)))
    at = width + len("kernel: ")
    end = at + keys[idx[0]].index("] ", len("kernel: ")) + 1 - len("kernel: ")
    stamps = [lines[i][at:end] for i in idx]
    flat = "".join(stamps).translate(_DIGITS)
    shape = "[" + "0" * (end - at - 9) + ".000000]"
    if "0 " in flat or flat.replace(" ", "0") != shape * len(idx):  # find the odd ones
        bad = [i for i, st in zip(idx, stamps, strict=True) if _kernel_stamp_shape(st) is None]
    else:
        bad = []
    bad += compress(islice(idx, 1, None), map(operator.ge, stamps, islice(stamps, 1, None)))
    return bad


def _runs(n: int, parse: Iterable[int], keep: Iterable[int]) -> list[tuple[int, int]]:
    """The complement of what must be parsed: each parsed line and the TAIL_LINES before
    it, each kept line, and the last TAIL_LINES lines of the block."""
    spans = [(max(0, i - TAIL_LINES), i + 1) for i in parse] + [(i, i + 1) for i in keep]
    spans.append((n - TAIL_LINES, n))
    spans.sort()
    runs = []
    at = 0
    for start, end in spans:
        if start > at:
            runs.append((at, start))
        at = max(at, end)
    return runs


def _timed_words() -> frozenset[str]:
    """Trigger words of entries whose check reads the printk stamp (MatchInput.ts_usec):
    a message's answer there is not the same at every stamp, so it is never remembered."""
    from kmsgd.catalogue.table import CATALOGUE

    return frozenset(k for s in CATALOGUE if s.timed for k in s.keywords)


_TIMED_WORDS = _timed_words()
