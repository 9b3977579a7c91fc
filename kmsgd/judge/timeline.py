"""One boot's records in order, kept within bounded memory.

A `TimelineBuilder` takes lines one by one (from a pasted log or from ring entries) and keeps
what a post-mortem needs: the first HEAD lines (next-boot evidence about the boot before),
the last TAIL lines (the final window), and per (tag, device) counts with first/last lines.
A 100 MB log therefore costs the same memory as a 1 MB one.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from kmsgd.catalogue.base import DeviceKind, Signature
from kmsgd.catalogue.indirect import (
    CPER_LOOKBACK,
    CPER_SECTIONS,
    CPER_SEVERITY,
    HUNG_ECHO_LOOKBACK,
    HUNG_TASK_BODY,
    HUNG_TASK_ECHO,
    REGS_BODY,
    REGS_HEADER_TEXT,
    REGS_HEADERS,
    REGS_LOOKBACK,
)
from kmsgd.catalogue.table import TRIGGERS, WORD_SPLIT, SignatureHit, match_text
from kmsgd.catalogue.tags import Tag
from kmsgd.logparse.parsed import Line, LogFormat, Origin
from kmsgd.ring.records import Entry, KernelRecord

HEAD_LINES = 200
TAIL_LINES = 400
MAX_GROUPS = 512  # distinct (tag, device) pairs kept; more are counted in `overflow`
# drivers/tty/sysrq.c: SysRq w's "Show Blocked State" and SysRq t's "Show State" (after "sysrq: "
# or "SysRq : ") head a dump of tasks (every D-state one, or every one) that prints the task lines
# the hung-task report does (kmsgd/catalogue/indirect.py HUNG_TASK_BODY)
_SYSRQ_WORDS = frozenset({"sysrq", "SysRq"})
_SHOW_STATE = re.compile(r"(?:sysrq|SysRq) ?: Show (?:Blocked )?State")


class Item(NamedTuple):
    """A kept line with its position in the boot (0-based) and the tags it showed.
    (A NamedTuple: one is made per input line.)"""

    pos: int
    line: Line
    tags: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TagStats:
    """Every occurrence of one tag on one device, summarised."""

    tag: str
    device: str
    count: int
    first: Item
    last: Item
    hit: SignatureHit  # the first hit (entry, record)


@dataclass(frozen=True, slots=True)
class Timeline:
    """One boot: kept lines, tag statistics and (for the ring) non-kernel entries."""

    index: int = 0
    boot_id: str = ""
    head: tuple[Item, ...] = ()
    tail: tuple[Item, ...] = ()
    total: int = 0
    evidence_lines: int = 0  # kernel + userspace lines
    tags: tuple[TagStats, ...] = ()
    first_ts_usec: int | None = None
    last_ts_usec: int | None = None
    first_wall_us: int | None = None
    last_wall_us: int | None = None
    overflow: int = 0
    formats: tuple[tuple[LogFormat, int], ...] = ()
    entries: tuple[Entry, ...] = field(default=(), compare=False)

    @property
    def items(self) -> tuple[Item, ...]:
        """Head and tail merged in order, without duplicates."""
        if not self.head:
            return self.tail
        last = self.head[-1].pos
        return self.head + tuple(i for i in self.tail if i.pos > last)

    @property
    def records(self) -> tuple[KernelRecord, ...]:
        return tuple(i.line.record for i in self.items)

    @property
    def span_hours(self) -> float | None:
        """How long the boot's lines cover, by the printk clock when it has one, else the wall
        clock: the one base of every per-hour rate (noise baseline, the report's rates)."""
        if self.first_ts_usec is not None and self.last_ts_usec is not None:
            return (self.last_ts_usec - self.first_ts_usec) / 3.6e9
        if self.first_wall_us is not None and self.last_wall_us is not None:
            return (self.last_wall_us - self.first_wall_us) / 3.6e9
        return None

    @property
    def omitted(self) -> int:
        return self.total - len(self.items)

    def stats(self, tag: str) -> list[TagStats]:
        return [t for t in self.tags if t.tag == tag]

    def count(self, tag: str) -> int:
        return sum(t.count for t in self.tags if t.tag == tag)

    @classmethod
    def from_records(
        cls,
        records: Iterable[KernelRecord],
        *,
        index: int = 0,
        boot_id: str = "",
        entries: Sequence[Entry] = (),
    ) -> Timeline:
        """A timeline from ring KernelRecords (facility > 0 means a userspace line)."""
        builder = TimelineBuilder(index=index, boot_id=boot_id)
        for n, rec in enumerate(records, 1):
            origin = Origin.USERSPACE if rec.facility else Origin.KERNEL
            builder.add(Line.of(rec, origin, LogFormat.KMSG, n))
        return builder.build(entries=entries)


# a NamedTuple's own constructor costs twice as much as tuple.__new__; this runs per line
_new_item: Callable[[tuple[object, ...]], Item] = functools.partial(tuple.__new__, Item)


@dataclass(slots=True)
class _Group:
    count: int
    first: Item
    last: Item
    hit: SignatureHit
    counted: bool = True  # False while only context lines (Signature.context) showed it


class TimelineBuilder:
    """Accumulates one boot's lines; `build()` freezes it into a Timeline."""

    def __init__(self, *, index: int = 0, boot_id: str = "") -> None:
        self.index = index
        self.boot_id = boot_id
        self._head: list[Item] = []
        self._tail: deque[Item] = deque(maxlen=TAIL_LINES)
        self._groups: dict[tuple[str, str], _Group] = {}
        self._total = 0
        self._evidence = 0
        self._overflow = 0
        self._ts: list[int | None] = [None, None]
        self._wall: list[int | None] = [None, None]
        self._formats: dict[LogFormat, int] = {}
        self._devices: dict[str, set[str]] = {}
        self._sysrq_w = False  # a SysRq w dump was printed: bare task lines are its

    def __len__(self) -> int:
        return self._total

    def add(self, line: Line) -> tuple[str, ...]:
        """Take the next line of this boot; returns the tags it showed."""
        pos = self._total
        self._total = pos + 1
        if line.boot_id and not self.boot_id:
            self.boot_id = line.boot_id
        fmts = self._formats
        fmts[line.fmt] = fmts.get(line.fmt, 0) + 1
        origin = line.origin
        tags: tuple[str, ...] = ()
        msg = line.message
        words = TRIGGERS.intersection(msg.translate(WORD_SPLIT).split())  # inlined: runs per line
        found: list[tuple[str, Signature, str]] = []
        if origin is Origin.KERNEL or origin is Origin.USERSPACE:
            self._evidence += 1
            ts, wall = line.ts_usec, line.wall_us
            if ts is not None and origin is Origin.KERNEL:
                if self._ts[0] is None:
                    self._ts[0] = ts
                self._ts[1] = ts
            if wall is not None:
                if self._wall[0] is None:
                    self._wall[0] = wall
                self._wall[1] = wall
            if words:
                found = match_text(msg, line.facility, ts, words)
        elif origin is Origin.TEXT and words:
            # an unparsed line may be a kernel line in a format we do not know
            found = match_text(msg, None, None, words)
        if words and not self._sysrq_w and words & _SYSRQ_WORDS and _SHOW_STATE.search(msg):
            self._sysrq_w = True
        if found and self._sysrq_w:
            found = [f for f in found if f[1] is not HUNG_TASK_BODY]
        if found and any(f[1] is REGS_BODY for f in found) and self._regs_header_before():
            found = [f for f in found if f[1] is not REGS_BODY]
        if found and found[0][1] is HUNG_TASK_ECHO and self._hung_header_before():
            found = found[1:]
        if found and "section_type" in words:
            found = self._cper_sections(found)
        if not found:
            item = _new_item((pos, line, ()))
        else:
            item = Item(pos, line, tuple(t for t, _, _ in found))
            tags = item.tags
            rec = line.record
            for tag, sig, dev in found:
                self._count(SignatureHit(tag, sig, rec, dev, pos), item)
        if pos < HEAD_LINES:
            self._head.append(item)
        self._tail.append(item)
        return tags

    def _cper_sections(
        self, found: list[tuple[str, Signature, str]]
    ) -> list[tuple[str, Signature, str]]:
        """A firmware error record's section read with its own severity line, a few lines
        before it (kmsgd/catalogue/indirect.py CPER_SECTIONS)."""
        tail = self._tail
        severity = ""
        for k in range(len(tail) - 1, max(-1, len(tail) - 1 - CPER_LOOKBACK), -1):
            m = CPER_SEVERITY.search(tail[k].line.message)
            if m is not None:
                severity = m.group(1)
                break
        if not severity:
            return found
        out: list[tuple[str, Signature, str]] = []
        for tag, sig, dev in found:
            alt = CPER_SECTIONS.get((tag, severity))
            out.append((tag, sig, dev) if alt is None else (alt.tag, alt, dev))
        return out

    def _hung_header_before(self) -> bool:
        """Whether the hung-task header ("INFO: task %s:%d blocked for more than") came just
        before its report's second line (kmsgd/catalogue/indirect.py HUNG_TASK_ECHO)."""
        tail = self._tail
        for k in range(len(tail) - 1, max(-1, len(tail) - 1 - HUNG_ECHO_LOOKBACK), -1):
            item = tail[k]
            if Tag.HUNG_TASK in item.tags and "blocked for more than" in item.line.message:
                return True
        return False

    def _regs_header_before(self) -> bool:
        """Whether a register dump's own report header came in the lines before it (its hit
        counts only where the cut lost the header: kmsgd/catalogue/indirect.py REGS_BODY)."""
        tail = self._tail
        for k in range(len(tail) - 1, max(-1, len(tail) - 1 - REGS_LOOKBACK), -1):
            item = tail[k]
            if REGS_HEADERS.intersection(item.tags) or REGS_HEADER_TEXT.search(item.line.message):
                return True
        return False

    def count(
        self,
        n: int,
        fmt: LogFormat,
        ts: tuple[int, int] | None,
        wall: tuple[int, int] | None,
    ) -> None:
        """Take `n` evidence lines that show no tag and lie outside the head and the final
        window (skim.py): counted, with the (first, last) kernel stamp and wall clock of
        the run; nothing else of them is kept."""
        self._total += n
        self._evidence += n
        self._formats[fmt] = self._formats.get(fmt, 0) + n
        if ts is not None:
            if self._ts[0] is None:
                self._ts[0] = ts[0]
            self._ts[1] = ts[1]
        if wall is not None:
            if self._wall[0] is None:
                self._wall[0] = wall[0]
            self._wall[1] = wall[1]
        self._tail.clear()  # what is kept of the tail lies after the counted lines

    def _count(self, hit: SignatureHit, item: Item) -> None:
        sub = hit.signature.subsystem
        if hit.device and hit.signature.device_kind is DeviceKind.PCI:
            self._devices.setdefault(sub, set()).add(hit.device)
        elif not hit.device and sub.startswith("gpu") and len(self._devices.get(sub, ())) == 1:
            # "[drm:amdgpu_job_timedout [amdgpu]] ring sdma0 timeout" names no device; with
            # one GPU of that driver seen so far, it is that one
            hit = dataclasses.replace(hit, device=next(iter(self._devices[sub])))
        key = (hit.tag, hit.device)
        group = self._groups.get(key)
        if group is None:
            if len(self._groups) >= MAX_GROUPS:
                self._overflow += 1
                return
            self._groups[key] = _Group(1, item, item, hit, not hit.signature.context)
            return
        if group.hit.signature.routine and not hit.signature.routine:
            # a tag's routine lines (ext4's summary of errors recorded before) say nothing of
            # when its failure began: the first failure line starts the event
            self._groups[key] = _Group(1, item, item, hit, not hit.signature.context)
            return
        group.last = item
        if hit.signature.context:
            return  # part of a report already counted, or to be counted by its own line
        if group.counted:
            group.count += 1
        else:
            group.counted = True  # the event line of the report its context lines opened

    def build(self, *, entries: Sequence[Entry] = ()) -> Timeline:
        tags = [
            TagStats(tag, dev, g.count, g.first, g.last, g.hit)
            for (tag, dev), g in self._groups.items()
        ]
        tags.sort(key=lambda t: t.first.pos)
        return Timeline(
            index=self.index,
            boot_id=self.boot_id,
            head=tuple(self._head),
            tail=tuple(self._tail),
            total=self._total,
            evidence_lines=self._evidence,
            tags=tuple(tags),
            first_ts_usec=self._ts[0],
            last_ts_usec=self._ts[1],
            first_wall_us=self._wall[0],
            last_wall_us=self._wall[1],
            overflow=self._overflow,
            formats=tuple(sorted(self._formats.items(), key=lambda kv: -kv[1])),
            entries=tuple(entries),
        )
