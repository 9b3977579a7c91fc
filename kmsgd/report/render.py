"""Renderers: a Report as terminal text, Markdown for a ticket, or JSON. Only rendering here.

Text and Markdown put the headline first, then the culprit with its meaning and next step,
then the final kernel lines (important ones marked), then everything else. Colour is used
only when the caller asks for it (the CLI asks when stdout is a TTY).
"""

from __future__ import annotations

import json
from collections.abc import Callable

from kmsgd.judge.changes import MAJOR
from kmsgd.report import render_json
from kmsgd.report.model import FinalLine, LineRef, Report, SignatureReport
from kmsgd.report.redact import Redactor
from kmsgd.report.render_incident import incident_lines, incident_md
from kmsgd.report.render_ring import clock_line, ring_death_line, telemetry_lines
from kmsgd.text.escape import escape, escape_tree, json_text
from kmsgd.types import CLEAN, FAILURES, REPORT_FORMATS, Format, Subject

_RESET, _BOLD, _RED, _YELLOW, _DIM, _GREEN = (
    "\x1b[0m",
    "\x1b[1m",
    "\x1b[31m",
    "\x1b[33m",
    "\x1b[2m",
    "\x1b[32m",
)


def render(report: Report, fmt: Format, *, color: bool = False, plot: str = "") -> str:
    """The report in `fmt` (text, md, json or html: kmsgd/report/render_html.py);
    ValueError for another name. `plot`: the picture saved beside it, linked from Markdown.

    Text, Markdown and HTML show every control character from the input escaped (kmsgd.text),
    so a kernel line cannot drive the reader's terminal or forge a line; JSON holds the values
    exactly."""
    if fmt == Format.JSON:
        return (
            json_text(json.dumps(render_json.report_json(report), indent=2, ensure_ascii=False))
            + "\n"
        )
    if fmt == Format.MD:
        return escape(render_md(escape_tree(report), plot=plot), keep="\n")
    if fmt == Format.HTML:
        from kmsgd.report.render_html import escaped, page

        return page(escaped(report))
    if fmt == Format.TEXT:
        out = render_text(escape_tree(report), color=color)
        return out if color else escape(out, keep="\n")
    raise ValueError(f"unknown format {fmt!r} (expected one of {', '.join(REPORT_FORMATS)})")


def render_clean(
    report: Report,
    fmt: Format,
    *,
    redactor: Redactor | None = None,
    color: bool = False,
    plot: str = "",
) -> str:
    """`render`, with `redactor` (`--redact`) applied to all it says: to the finished text, to
    each JSON value, or for HTML to each text before it is escaped (a placeholder such as
    `<host-1>` must stay text, not become markup), after it learnt the names the whole report
    holds. `plot`: also save the timeline picture there (.svg/.png)."""
    clean: Callable[[str], str] = str
    if redactor is not None:
        redactor.learn(render(report, Format.TEXT))
        clean = redactor.redact
    if plot:
        save_picture(report, plot, clean=clean)
    if fmt == Format.HTML:
        from kmsgd.report.render_html import escaped, page

        return page(escaped(report), clean=clean)
    out = render(report, fmt, color=color and redactor is None, plot=plot)
    return redactor.output(out, fmt) if redactor is not None else out


def save_picture(report: Report, path: str, *, clean: Callable[[str], str] = str) -> None:
    """`--plot PATH`: the timeline alone (.svg or .png); BadInput for another suffix or
    without matplotlib. Nothing is written for a report without a time series."""
    from kmsgd.report import plot as pictures

    if report.series is not None:
        pictures.save(report.series, path, title=report.headline, clean=clean)


def _paint(color: bool, code: str, text: str) -> str:
    return f"{code}{text}{_RESET}" if color else text


def _sig_line(s: SignatureReport) -> str:
    notes = [
        n
        for n, on in (
            ("noise", s.noise),
            ("routine", s.routine),
            ("final window", s.in_final_window),
        )
        if on
    ]
    dev = f" {s.device}" if s.device else ""
    when = s.first.when if s.count == 1 else f"{s.first.when} … {s.last.when}"
    note = f" [{', '.join(notes)}]" if notes else ""
    return f"{s.tag}{dev}: {s.count}× ({when}){note}"


def _final_text(f: FinalLine, color: bool) -> str:
    if f.important:
        return _paint(color, _RED, f"  ▶ {f.line.text}") + f"   [{', '.join(f.tags)}]"
    if f.tags:
        return f"    {f.line.text}   " + _paint(color, _DIM, f"[{', '.join(f.tags)}]")
    return f"    {f.line.text}"


def render_text(r: Report, *, color: bool = False) -> str:
    out: list[str] = []
    tone = _RED if r.outcome in FAILURES else (_GREEN if r.outcome in CLEAN else _YELLOW)
    out.append(_paint(color, _BOLD + tone, r.headline))
    reason = f" ({r.reason})" if r.reason else ""
    out.append(
        f"outcome: {r.outcome.value}{reason}   confidence: {r.confidence}   "
        f"fingerprint: {r.fingerprint}"
    )
    if r.boot_id:
        out.append(f"boot: {r.boot_id}" + (f" on {r.hostname}" if r.hostname else ""))
    if r.subject is Subject.PREVIOUS_BOOT:
        out.append("note: this verdict is about the boot before the one in the log")
    if r.primary is not None:
        p = r.primary
        out += [
            "",
            _paint(color, _BOLD, f"Culprit: {_sig_line(p)}"),
            f"  {p.meaning}",
            f"  Next step: {p.next_step}",
            f"  first: {p.first.text}",
        ]
        if p.count > 1:
            out.append(f"  last:  {p.last.text}")
    if r.evidence:
        out += ["", _paint(color, _BOLD, "Evidence:")]
        out += [f"  - {e.why}" + (f": {_ref(e.line)}" if e.line else "") for e in r.evidence]
    if r.final_kernel:
        out += ["", _paint(color, _BOLD, f"Final lines (last {len(r.final_kernel)}):")]
        out += [_final_text(f, color) for f in r.final_kernel]
    ring = r.time_of_death.ring if r.time_of_death is not None else None
    if ring is not None and ring.last_sign_of_life_wall_us is not None:
        out += ["", f"Time of death: {ring_death_line(ring)}"]
        out += [line for line in (clock_line(ring),) if line]
    elif r.time_of_death is not None and r.time_of_death.last_line is not None:
        t = r.time_of_death
        tail = f"; next boot {t.next_boot_wall}" if t.next_boot_wall else ""
        gap = f"; {t.silence_s:.0f} s until the next boot" if t.silence_s is not None else ""
        out += ["", f"Last sign of life: {t.last_line.when if t.last_line else '?'}{tail}{gap}"]
    if r.telemetry:
        head = f"Telemetry at the end (final {r.telemetry.window_s} s):"
        out += ["", _paint(color, _BOLD, head)] + [f"  {x}" for x in telemetry_lines(r.telemetry)]
    if r.changes:
        out += ["", _paint(color, _BOLD, "Changes:")]
        out += [f"  {'!' if c.severity is MAJOR else '-'} {c.text}" for c in r.changes]
    others = [
        s
        for s in r.signatures
        if r.primary is None or (s.tag, s.device) != (r.primary.tag, r.primary.device)
    ]
    if others:
        out += ["", _paint(color, _BOLD, "Signatures:")]
        out += [f"  {_sig_line(s)}: {s.meaning}" for s in others]
    if r.incidents:
        out += ["", _paint(color, _BOLD, "Incident:")] + [
            f"  {x}" for x in incident_lines(r.incidents)
        ]
    out += _tail_sections(r)
    return "\n".join(out) + "\n"


def _ref(line: LineRef | None) -> str:
    return f"{line.text}  (line {line.lineno})" if line else "-"


def _tail_sections(r: Report) -> list[str]:
    out: list[str] = []
    if len(r.boots) > 1:
        out += ["", "Boots in the input:"]
        out += [
            f"  #{b.index} {b.boot_id or '-'}: {b.outcome}"
            f"{' (' + b.reason + ')' if b.reason else ''}, {b.lines} lines"
            for b in r.boots
        ]
    if r.errors:
        out += ["", "Errors (the report may be incomplete):"]
        out += [f"  {e.where}: {e.error}" for e in r.errors]
    s = r.source
    if s is not None:
        out += [
            "",
            f"Input: {s.name}: {s.lines} lines, formats {', '.join(s.formats) or '-'}; "
            f"{s.evidence_lines} log lines, {s.text_lines} other text, {s.commands} commands"
            f"; boot {s.boot_index + 1} of {s.boots}",
        ]
        out += [f"  note: {n}" for n in s.notes]
    return out


def render_md(r: Report, *, plot: str = "") -> str:
    out = [
        f"### kmsgd: {r.headline}",
        "",
        "| outcome | reason | confidence | fingerprint |",
        "|---|---|---|---|",
        f"| `{r.outcome.value}` | {r.reason or '-'} | {r.confidence} | `{r.fingerprint}` |",
    ]
    if r.boot_id:
        host = f" on `{r.hostname}`" if r.hostname else ""
        out += ["", f"Boot `{r.boot_id}`{host}"]
    if r.subject is Subject.PREVIOUS_BOOT:
        out += ["", "_This verdict is about the boot before the one in the log._"]
    if r.primary is not None:
        p = r.primary
        out += [
            "",
            f"**Culprit: `{p.tag}`**{' on `' + p.device + '`' if p.device else ''}, "
            f"{p.count}×: {p.meaning}",
            "",
            f"**Next step:** {p.next_step}",
            "",
            "```text",
            p.first.text,
            "```",
        ]
    if r.evidence:
        out += ["", "**Evidence**", ""]
        out += [
            f"- {e.why}" + (f": `{_md_code(e.line.text)}`" if e.line else "") for e in r.evidence
        ]
    ring = r.time_of_death.ring if r.time_of_death is not None else None
    if ring is not None and ring.last_sign_of_life_wall_us is not None:
        out += ["", f"**Time of death:** {_md_text(ring_death_line(ring))}"]
        out += [f"**{_md_text(line)}**" for line in (clock_line(ring),) if line]
    if plot:
        out += ["", f"![The last minutes: power, temperatures, memory, kernel]({plot})"]
    if r.final_kernel:
        out += ["", "<details><summary>Final lines (▶ = signature)</summary>", "", "```text"]
        out += [("▶ " if f.important else "  ") + f.line.text for f in r.final_kernel]
        out += ["```", "", "</details>"]
    if r.telemetry:
        out += ["", f"**Telemetry at the end** (final {r.telemetry.window_s} s)", ""]
        out += [f"- {_md_text(x)}" for x in telemetry_lines(r.telemetry)]
    if r.changes:
        out += ["", "**Changes**", ""]
        for c in r.changes:
            text = _md_text(c.text)
            out.append(f"- **{text}**" if c.severity is MAJOR else f"- {text}")
    if r.signatures:
        out += ["", "| tag | device | count | first | last | note |", "|---|---|---|---|---|---|"]
        for s in r.signatures:
            note = s.note
            out.append(
                f"| `{s.tag}` | {s.device or '-'} | {s.count} | {s.first.when} | "
                f"{s.last.when} | {note or '-'} |"
            )
    if r.incidents:
        out += ["", "**Incident**", "", *incident_md(r.incidents, _md_text)]
    rest = _tail_sections(r)
    if rest:
        out += [
            "",
            "<details><summary>Details</summary>",
            "",
            "```text",
            *rest[1:],
            "```",
            "",
            "</details>",
        ]
    return "\n".join(out) + "\n"


def _md_code(text: str) -> str:
    return text.replace("`", "'")


def _md_text(text: str) -> str:
    """Paths and process names hold `_` and `*`: keep Markdown from reading them as emphasis."""
    return "".join("\\" + ch if ch in "\\`*_[]<>|" else ch for ch in text)
