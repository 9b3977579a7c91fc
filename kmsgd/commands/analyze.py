"""`kmsgd analyze FILE|DIR|-...`: pasted kernel logs and bundles in, a post-mortem report out.

Streams the input once: lines → boots → bounded timelines → one verdict per boot (each boot
judged with the next boot's early lines as evidence about its end). The report is about the
boot that matters most: the latest failure, else the latest boot. No click, no printing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import BinaryIO

from kmsgd.config import Config
from kmsgd.errors import BadInput
from kmsgd.judge.classify import Verdict, classify
from kmsgd.judge.skim import Plan, Skimmer
from kmsgd.judge.timeline import HEAD_LINES, TAIL_LINES, Timeline, TimelineBuilder
from kmsgd.logparse import BootMark, InputStats, Line, LogFormat, LogStream, MarkReason, Origin
from kmsgd.logparse.bundle import (
    DECODE_ERRORS,
    DEFAULT_LIMITS,
    LimitExceeded,
    Limits,
    open_path,
    open_stream,
)
from kmsgd.logparse.decode import read_chunks
from kmsgd.report.model import InputBoot, Report, ReportError, SourceInfo, build_report, wall_text
from kmsgd.report.redact import Redactor, hostnames_in
from kmsgd.report.render import render_clean
from kmsgd.types import FAILURES, REPORT_FORMATS, Format, Outcome

MAX_BOOTS_LISTED = 200
MAX_HOSTS = 64


@dataclass(frozen=True, slots=True)
class _Judged:
    tl: Timeline
    verdict: Verdict
    nxt: Timeline | None


def _weight(outcome: Outcome, reason: str) -> int:
    """Which boot (or input) the report is about: failures first, then boots that ended
    uncleanly or stop on a signature, then anything else; ties go to the later one."""
    if outcome in FAILURES:
        return 3
    if outcome is Outcome.UNKNOWN and reason not in ("no_end_in_log", ""):
        return 2
    return 1 if outcome is not Outcome.UNKNOWN else 0


class _Collector:
    """Groups lines into boots; judges a boot once the next one's head is complete."""

    def __init__(self, baseline: Mapping[str, float] | None) -> None:
        self.baseline = baseline
        self.builder = TimelineBuilder(index=0)
        self.waiting: Timeline | None = None  # a finished boot waiting for the next one's head
        self.best: _Judged | None = None
        self.boots: list[InputBoot] = []
        self.hosts: set[str] = set()
        self.boot_ids: set[str] = set()
        self.evidence = self.text = self.commands = 0
        self.errors: list[ReportError] = []
        self.reversed = False

    def line(self, line: Line) -> None:
        origin = line.origin
        if origin is Origin.KERNEL:
            self.evidence += 1
        elif origin is Origin.USERSPACE:
            self.evidence += 1
            if "host name to" in line.message:  # systemd-hostnamed
                self.hosts.update(hostnames_in(line.message))
        elif origin is Origin.COMMAND:
            self.commands += 1
        else:
            self.text += 1
        # systemd[1]'s "Hostname set to", "hostname=", hostnamectl's "Static hostname:",
        # the command line's ip= autoconfig: dmesg-only input names its machine this way
        # (kmsgd.report.redact.LEARNT); two substring tests keep the other lines cheap
        if "ostname" in line.message or "ip=" in line.message:
            self.hosts.update(hostnames_in(line.message))
        if line.host and len(self.hosts) < MAX_HOSTS:
            self.hosts.add(line.host)
        if line.boot_id:
            self.boot_ids.add(line.boot_id)
        try:
            self.builder.add(line)
        except Exception as err:  # a matcher that raises costs one line, not the report
            self.error(f"matching line {line.lineno}", err)
        if self.waiting is not None and len(self.builder) >= HEAD_LINES:
            self._judge_waiting(self.builder.build())

    def count(
        self, n: int, plan: Plan, ts: tuple[int, int] | None, wall: tuple[int, int] | None
    ) -> None:
        """Take `n` lines that skim.py found routine (see _feed_block): only counted."""
        self.evidence += n
        if plan.host and len(self.hosts) < MAX_HOSTS:
            self.hosts.add(plan.host)
        self.builder.count(n, plan.fmt, ts, wall)

    def error(self, where: str, err: Exception) -> None:
        if len(self.errors) < 20:  # the first ones say enough
            self.errors.append(ReportError(where, f"{type(err).__name__}: {err}"))

    def mark(self, mark: BootMark) -> None:
        boot_id = mark.boot_id
        if boot_id:
            self.boot_ids.add(boot_id)
        # journalctl prints "-- Boot X --" before the entries of boot X in its output order;
        # read in reverse (journalctl -r), X is the boot that ends here, not the next one
        names_previous = self.reversed and mark.why is MarkReason.SEPARATOR
        if not len(self.builder):
            if boot_id and not names_previous:
                self.builder.boot_id = boot_id
            return
        if names_previous and boot_id:
            self.builder.boot_id = boot_id
        done = self.builder.build()
        if self.waiting is not None:
            self._judge_waiting(done)
        self.waiting = done
        self.builder = TimelineBuilder(
            index=done.index + 1, boot_id="" if names_previous else boot_id
        )

    def _judge_waiting(self, nxt: Timeline) -> None:
        tl, self.waiting = self.waiting, None
        if tl is not None:
            self._keep(_Judged(tl, classify(tl, next_boot=nxt, baseline=self.baseline), nxt))

    def _keep(self, j: _Judged) -> None:
        if len(self.boots) < MAX_BOOTS_LISTED:
            first = j.tl.items[0].line if j.tl.items else None
            self.boots.append(
                InputBoot(
                    j.tl.index,
                    j.tl.boot_id,
                    j.tl.total,
                    j.verdict.outcome,
                    j.verdict.reason,
                    wall_text(j.tl.first_wall_us, first.fmt) if first else None,
                    wall_text(j.tl.last_wall_us, j.tl.tail[-1].line.fmt) if j.tl.tail else None,
                )
            )
        if self.best is None or _weight(j.verdict.outcome, j.verdict.reason) >= _weight(
            self.best.verdict.outcome, self.best.verdict.reason
        ):
            self.best = j

    def finish(self) -> _Judged:
        last = self.builder.build() if len(self.builder) else None
        if self.waiting is not None:
            self._judge_waiting(last if last is not None else Timeline())
        if last is not None:
            verdict = classify(last, baseline=self.baseline, previous_known=last.index > 0)
            self._keep(_Judged(last, verdict, None))
        if self.best is None:
            raise BadInput("no log lines in the input")
        return self.best


def analyze_report(
    source: BinaryIO, *, name: str, baseline: Mapping[str, float] | None = None
) -> tuple[Report, Redactor]:
    """Read and judge a log; returns the report and a redactor primed with its hostnames.
    Raises BadInput for unusable input (empty, binary, no log lines at all)."""
    report, hosts, keep = _judge(source, name=name, baseline=baseline)
    return report, Redactor(hosts, keep=keep)


def analyze_inputs(
    paths: Sequence[str],
    *,
    stdin: BinaryIO | None = None,
    baseline: Mapping[str, float] | None = None,
    limits: Limits = DEFAULT_LIMITS,
) -> tuple[Report, Redactor]:
    """Judge every kernel log in the inputs (files, directories, bundles, "-" for stdin;
    see bundle.py) and report on the one that matters most (a failure first, ties to the
    later input). The report names the file its evidence came from and lists the others."""
    judged: list[tuple[Report, set[str], set[str]]] = []
    refused: list[BadInput] = []
    for path in paths:
        if path == "-":
            if stdin is None:
                raise BadInput("no standard input to read")
            pieces = open_stream("<stdin>", stdin, limits=limits)
        else:
            pieces = open_path(path, limits)
        try:
            for piece in pieces:
                try:
                    judged.append(_judge(piece.stream, name=piece.name, baseline=baseline))
                except LimitExceeded:
                    raise  # the whole input is refused: a part of it could mislead
                except BadInput as err:
                    refused.append(err)
        except DECODE_ERRORS as err:  # a truncated .gz/.xz/.zst: what was read still counts
            refused.append(
                BadInput(
                    f"{path}: compressed data could not be read to the end ({err})",
                    hint="check the download; zcat/xzcat it to see where it breaks",
                )
            )
    if not judged:
        if len(refused) == 1:
            raise refused[0]
        raise BadInput(
            f"no kernel log lines found in any of {len(refused)} inputs",
            hint="pass dmesg, journalctl, syslog files or a sosreport",
        )
    best = max(
        range(len(judged)), key=lambda k: (_weight(judged[k][0].outcome, judged[k][0].reason), k)
    )
    report = judged[best][0]
    hosts = set().union(*(h for _, h, _ in judged))
    keep = set().union(*(k for _, _, k in judged))
    if len(judged) + len(refused) > 1 and report.source is not None:
        notes = [f"evidence from {report.source.name}"]
        for k, (other, _, _) in enumerate(judged):
            if k != best and other.source is not None:
                tag = other.primary.tag if other.primary else "no culprit"
                notes.append(f"also read {other.source.name}: {other.outcome.value}, {tag}")
        notes += [f"skipped: {err}" for err in refused[:20]]
        source = replace(report.source, notes=report.source.notes + tuple(notes))
        report = replace(report, source=source)
    return report, Redactor(hosts, keep=keep)


def _feed(stream: LogStream, col: _Collector, lines: list[str], lineno: int, step: int = 1) -> None:
    """Every line through the parser into the boots (the path every line can take)."""
    add, mark, feed = col.line, col.mark, stream.feed
    for text in lines:
        try:
            events = feed(lineno, text)
        except Exception as err:  # a parser bug costs this line its parsing, no more
            col.error(f"parsing line {lineno}", err)
            events = [Line(text, Origin.TEXT, LogFormat.TEXT, lineno, text)]
        for ev in events:
            if type(ev) is Line:
                add(ev)
            else:
                mark(ev)  # type: ignore[arg-type]
        lineno += step


def _feed_block(
    stream: LogStream, col: _Collector, lines: list[str], start: int, plan: Plan
) -> None:
    """A block by skim.py's plan: its runs of routine lines are counted when the stream
    and the boot are in a state where parsing them would only have counted them (past
    the boot's head, nothing waiting on it); all other lines are parsed."""
    fmt = plan.fmt
    at = 0
    for a, b in plan.runs:
        _feed(stream, col, lines[at:a], start + at)
        while a < b and not (
            col.waiting is None
            and len(col.builder) + stream.holding > HEAD_LINES
            and stream.countable(fmt, lines[a])
            and (not plan.stamped or stream.stamps(fmt, lines[a])[0] is not None)
        ):
            _feed(stream, col, lines[a : a + 1], start + a)
            a += 1
        # with syslog's printk stamps, the run starts and ends on one: the stream's clock
        # and the boot's first and last stamp are those of its ends
        while plan.stamped and b - a >= 2 and stream.stamps(fmt, lines[b - 1])[0] is None:
            b -= 1
        at = a
        if b - a < 2:
            continue
        first, last = stream.stamps(fmt, lines[a]), stream.stamps(fmt, lines[b - 1])
        if fmt is not LogFormat.DMESG and (first[1] is None or last[1] is None):
            continue  # a wall clock that does not parse: the parser says what it is
        for ev in stream.count(fmt, b - a, last[0]):
            col.line(ev) if isinstance(ev, Line) else col.mark(ev)
        ts = (first[0], last[0]) if first[0] is not None and last[0] is not None else None
        wall = (first[1], last[1]) if first[1] is not None and last[1] is not None else None
        col.count(b - a, plan, ts, wall)
        at = b
    _feed(stream, col, lines[at:], start + at)


def _judge(
    source: BinaryIO, *, name: str, baseline: Mapping[str, float] | None = None
) -> tuple[Report, set[str], set[str]]:
    stats = InputStats()
    stream = LogStream()
    col = _Collector(baseline)
    skim = Skimmer()
    # a block's last TAIL_LINES lines are planned again with the next block: whether they
    # are in a boot's final window is only known from what follows them
    carry: list[str] = []
    carry_text, carry_start = "", 1
    for start, step, lines, text in read_chunks(source, name, stats):
        col.reversed = stats.reversed
        if carry:
            start, lines, carry = carry_start, carry + lines, []
            text = carry_text + text if text is not None else None
        plan = skim.plan(lines, text) if text is not None else None
        if plan is None or text is None:
            _feed(stream, col, lines, start, step)
            continue
        cut = len(lines) - TAIL_LINES  # plan.runs end before it
        _feed_block(stream, col, lines[:cut], start, plan)
        carry, carry_start = lines[cut:], start + cut
        carry_text = text[len(text) - sum(map(len, carry)) - len(carry) :]
    _feed(stream, col, carry, carry_start)
    for ev in stream.close():
        col.line(ev) if isinstance(ev, Line) else col.mark(ev)
    if col.evidence == 0 and not any(b for b in col.boots):
        raise BadInput(f"{name}: no kernel log lines found", hint="pass dmesg or journalctl output")
    best = col.finish()
    if col.evidence == 0 and not best.tl.tags:
        raise BadInput(
            f"{name}: no kernel log lines found ({stats.lines} lines of other text)",
            hint="pass the output of dmesg, journalctl -k or a /dev/kmsg dump",
        )
    n_boots = max(1, len(col.boots))
    info = SourceInfo(
        name=name,
        formats=tuple(f.value for f, _ in sorted(stream.counts.items(), key=lambda kv: -kv[1])),
        lines=stats.lines,
        evidence_lines=col.evidence,
        text_lines=col.text,
        commands=col.commands,
        boots=n_boots,
        boot_index=best.tl.index,
        reversed=stats.reversed,
        cut_lines=stats.cut_lines,
        notes=tuple(stats.notes)
        + ((f"{stats.cut_lines} overlong lines cut to 64 KiB",) if stats.cut_lines else ()),
    )
    report = build_report(
        best.tl,
        best.verdict,
        source=info,
        boots=col.boots,
        baseline=baseline,
        next_boot=best.nxt,
        extra_errors=col.errors,
    )
    return report, col.hosts, col.boot_ids | {b.boot_id for b in col.boots}


def analyze(
    source: BinaryIO,
    *,
    name: str,
    fmt: Format = Format.TEXT,
    redact: bool = False,
    color: bool = False,
    baseline: Mapping[str, float] | None = None,
) -> str:
    """The rendered report of a pasted log (`fmt`: text, md, json or html).
    Raises kmsgd.errors.BadInput for unusable input or an unknown format."""
    _check_format(fmt)
    report, redactor = analyze_inputs(["-"], stdin=source, baseline=baseline)
    if report.source is not None and report.source.name == "<stdin>":
        report = replace(report, source=replace(report.source, name=name))
    return render_clean(report, fmt, redactor=redactor if redact else None, color=color)


def _check_format(fmt: str) -> None:
    """A caller's format name (the command line offers only these)."""
    if fmt not in REPORT_FORMATS:
        raise BadInput(f"unknown format {fmt!r}", hint=f"use one of {', '.join(REPORT_FORMATS)}")


def input_limits(cfg: Config) -> Limits:
    """The settings' bounds on one input (archive members, nesting, expanded bytes)."""
    return Limits(cfg.archive_max_members, cfg.archive_max_depth, cfg.input_max_bytes)


def analyze_paths(
    paths: Sequence[str],
    *,
    stdin: BinaryIO | None = None,
    fmt: Format = Format.TEXT,
    redact: bool = False,
    color: bool = False,
    plot: str = "",
    limits: Limits = DEFAULT_LIMITS,
) -> str:
    """The rendered report of files, directories and bundles (`kmsgd analyze A B DIR`);
    `plot`: the timeline picture saved there too (.svg or .png)."""
    _check_format(fmt)
    report, redactor = analyze_inputs(paths, stdin=stdin, limits=limits)
    return render_clean(report, fmt, redactor=redactor if redact else None, color=color, plot=plot)
