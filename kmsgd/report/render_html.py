"""The report as one self-contained HTML page: `--format html`.

The page needs nothing but itself: no script, no network (a Content-Security-Policy forbids
any fetch), inline CSS, the timeline inlined as SVG so its hover titles and tag labels are part
of the page. The verdict comes first, as in Markdown (outcome, confidence, culprit,
evidence, time of death); then the picture of the last minutes (kmsgd/report/plot.py), then
the tables. Without matplotlib the page has the tables and one line saying how to get the
picture. Every text taken from the report goes through `clean` (the `--redact` redactor)
before it is escaped, so a placeholder such as `<host-1>` shows as text, never as markup.
"""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Callable, Iterable

from kmsgd.judge.changes import MAJOR
from kmsgd.judge.series import OLD_BUCKETS, OLD_PER_BUCKET, Trace
from kmsgd.report.model import Report
from kmsgd.report.render_incident import incident_lines
from kmsgd.report.render_ring import clock_line, ring_death_line, telemetry_lines
from kmsgd.text.escape import escape, escape_tree
from kmsgd.types import CLEAN, FAILURES

Clean = Callable[[str], str]
_CSP = "default-src 'none'; style-src 'unsafe-inline'; img-src data:"
_CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0 auto;
max-width:1240px;padding:12px 20px;color:#1a1a1a;background:#fff}
h1{font-size:20px;margin:8px 0}h2{font-size:16px;margin:22px 0 6px;border-bottom:1px solid #ddd}
table{border-collapse:collapse;max-width:100%}td,th{border:1px solid #ccc;padding:3px 8px;
text-align:left;vertical-align:top;overflow-wrap:anywhere}th{background:#f3f3f3}
pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f7f7f7;padding:8px;
font-size:12px;margin:4px 0}code{overflow-wrap:anywhere}
.failure{border-left:6px solid #c62828;padding-left:10px}
.clean{border-left:6px solid #2e7d32;padding-left:10px}
.other{border-left:6px solid #f9a825;padding-left:10px}
.important{color:#b71c1c;font-weight:600}.major{font-weight:600}
#timeline svg{width:100%;height:auto;display:block}
.no-plot{background:#fff8e1;padding:8px;border:1px solid #ffe082}
"""


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _section(ident: str, title: str, body: Iterable[str]) -> list[str]:
    return [f'<section id="{ident}">', f"<h2>{_e(title)}</h2>", *body, "</section>"]


def _items(lines: Iterable[str], clean: Clean) -> list[str]:
    return ["<ul>", *(f"<li>{_e(clean(x))}</li>" for x in lines), "</ul>"]


def render_html(r: Report, *, clean: Clean = str, picture: Callable[[], str] | None = None) -> str:
    """The page. `picture` returns the timeline's SVG (plot.svg), or raises ImportError when
    matplotlib is missing; None: no picture (and the page says how to get one)."""
    tone = "failure" if r.outcome in FAILURES else ("clean" if r.outcome in CLEAN else "other")
    out = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        f'<meta http-equiv="Content-Security-Policy" content="{_CSP}">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>kmsgd: {_e(clean(r.headline))}</title>",
        f"<style>{_CSS}</style></head><body>",
        f'<header id="verdict" class="{tone}">',
        f"<h1>{_e(clean(r.headline))}</h1>",
        "<table><tr><th>outcome</th><th>reason</th><th>confidence</th><th>fingerprint</th></tr>",
        f"<tr><td><code>{_e(r.outcome.value)}</code></td><td>{_e(r.reason or '-')}</td>"
        f"<td>{_e(r.confidence)}</td><td><code>{_e(r.fingerprint)}</code></td></tr></table>",
    ]
    if r.boot_id:
        host = f" on <code>{_e(clean(r.hostname))}</code>" if r.hostname else ""
        out.append(f"<p>Boot <code>{_e(r.boot_id)}</code>{host}</p>")
    out.append("</header>")
    if r.primary is not None:
        p = r.primary
        dev = f" on <code>{_e(clean(p.device))}</code>" if p.device else ""
        out += _section(
            "culprit",
            "Culprit",
            [
                f"<p><strong><code>{_e(p.tag)}</code></strong>{dev}, {p.count}×: "
                f"{_e(p.meaning)}</p>",
                f"<p><strong>Next step:</strong> {_e(p.next_step)}</p>",
                f"<pre>{_e(clean(p.first.text))}</pre>",
            ],
        )
    if r.evidence:
        rows = [f"{e.why}: {e.line.text}" if e.line is not None else e.why for e in r.evidence]
        out += _section("evidence", "Evidence", _items(rows, clean))
    ring = r.time_of_death.ring if r.time_of_death is not None else None
    if ring is not None and ring.last_sign_of_life_wall_us is not None:
        lines = [ring_death_line(ring), *(x for x in (clock_line(ring),) if x)]
        out += _section("time-of-death", "Time of death", _items(lines, clean))
    out += _section("timeline", "The last minutes", [*_picture(picture), *_caption(r)])
    if r.final_kernel:
        body = ["<pre>"]
        for f in r.final_kernel:
            text = _e(clean(f.line.text))
            tags = f"   [{_e(', '.join(f.tags))}]" if f.tags else ""
            body.append(
                f'<span class="important">▶ {text}{tags}</span>'
                if f.important
                else f"  {text}{tags}"
            )
        out += _section(
            "final-lines", f"Final lines (last {len(r.final_kernel)})", ["\n".join(body) + "</pre>"]
        )
    if r.telemetry:
        title = f"Telemetry at the end (final {r.telemetry.window_s} s)"
        out += _section("telemetry", title, _items(telemetry_lines(r.telemetry), clean))
    if r.changes:
        rows = [
            f'<li class="major">{_e(clean(c.text))}</li>'
            if c.severity is MAJOR
            else f"<li>{_e(clean(c.text))}</li>"
            for c in r.changes
        ]
        out += _section("changes", "Changes", ["<ul>", *rows, "</ul>"])
    if r.signatures:
        rows = [
            "<table><tr><th>tag</th><th>device</th><th>count</th><th>first</th><th>last</th>"
            "<th>note</th></tr>"
        ]
        for s in r.signatures:
            note = s.note
            rows.append(
                f"<tr><td><code>{_e(s.tag)}</code></td><td>{_e(clean(s.device or '-'))}</td>"
                f"<td>{s.count}</td><td>{_e(s.first.when)}</td><td>{_e(s.last.when)}</td>"
                f"<td>{_e(note or '-')}</td></tr>"
            )
        out += _section("signatures", "Signatures", [*rows, "</table>"])
    if r.incidents:
        out += _section("incidents", "Incident", _items(incident_lines(r.incidents), clean))
    details = _details(r)
    if details:
        out += _section("details", "Details", [f"<pre>{_e(clean(chr(10).join(details)))}</pre>"])
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def _picture(picture: Callable[[], str] | None) -> list[str]:
    from kmsgd.report.plot import INSTALL_HINT

    if picture is None:
        return [f'<p class="no-plot">No picture: {_e(INSTALL_HINT)}.</p>']
    try:
        return [picture()]
    except ImportError:
        return [f'<p class="no-plot">No picture: {_e(INSTALL_HINT)}.</p>']


def _caption(r: Report) -> list[str]:
    """What the reader of the picture should know about its data."""
    s = r.series
    if s is None:
        return []
    said = []
    if s.thinned_before_s is not None:
        said.append(
            f"Samples before {s.thinned_before_s:.0f} s are thinned (at most {OLD_PER_BUCKET} "
            f"in each of {OLD_BUCKETS} buckets of the boot); the last minutes are drawn as "
            "recorded."
        )
    if s.skipped_samples:
        said.append(f"{s.skipped_samples} sample records could not be read and are left out.")
    if s.clock == "printk":
        said.append("The log has no wall clock: times are the kernel's, from its last line.")
    return [f"<p>{_e(x)}</p>" for x in said]


def _details(r: Report) -> list[str]:
    out: list[str] = []
    if len(r.boots) > 1:
        out.append("Boots in the input:")
        out += [
            f"  #{b.index} {b.boot_id or '-'}: {b.outcome}"
            f"{' (' + b.reason + ')' if b.reason else ''}, {b.lines} lines"
            for b in r.boots
        ]
    if r.errors:
        out.append("Errors (the report may be incomplete):")
        out += [f"  {e.where}: {e.error}" for e in r.errors]
    s = r.source
    if s is not None:
        out.append(
            f"Input: {s.name}: {s.lines} lines, formats {', '.join(s.formats) or '-'}; "
            f"{s.evidence_lines} log lines, {s.text_lines} other text, {s.commands} commands"
            f"; boot {s.boot_index + 1} of {s.boots}"
        )
        out += [f"  note: {n}" for n in s.notes]
    return out


def escaped(r: Report) -> Report:
    """The report with every string escaped (kmsgd/text/escape.py) before it is laid out; the
    time series' texts escaped one by one, their tens of thousands of numbers left as they are."""
    s = r.series
    out = escape_tree(dataclasses.replace(r, series=None))
    if s is None:
        return out

    def trace(t: Trace) -> Trace:
        return dataclasses.replace(t, label=escape(t.label), unit=escape(t.unit))

    gpus = tuple(
        dataclasses.replace(
            g,
            device=escape(g.device),
            driver=escape(g.driver),
            power=tuple(map(trace, g.power)),
            raw_power=tuple(map(trace, g.raw_power)),
            temps=tuple(map(trace, g.temps)),
            vram_used=None if g.vram_used is None else trace(g.vram_used),
        )
        for g in s.gpus
    )
    series = dataclasses.replace(
        s, marks=escape_tree(s.marks), incidents=escape_tree(s.incidents), gpus=gpus
    )
    return dataclasses.replace(out, series=series)


def page(r: Report, *, clean: Clean = str) -> str:
    """The page with its picture when matplotlib is there (the `plot` extra); `r` escaped
    already (`escaped`)."""
    from kmsgd.report import plot

    series = r.series
    if series is None or not plot.available():
        return render_html(r, clean=clean)
    return render_html(r, clean=clean, picture=lambda: plot.svg(series, clean=clean))
