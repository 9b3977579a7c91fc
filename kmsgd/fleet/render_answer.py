"""Text, Markdown and JSON for the fleet's answer. Renderers only render.

Every string in the answer came from a box (host names, tags, messages, command lines): text
and Markdown show their control characters escaped (kmsgd.text), so an entry cannot forge a
line of the report or drive the reader's terminal; JSON holds them exactly."""

from __future__ import annotations

import json

from kmsgd.fleet.answer import Box, Cluster, Fleet, Shared
from kmsgd.fleet.window import iso
from kmsgd.text.escape import escape_tree, json_text
from kmsgd.types import Format

SHOW_CLUSTERS = 20  # text and Markdown; JSON holds every cluster and box
SHOW_BOXES = 100
SHOW_SHARED = 5


def _day(t_us: int) -> str:
    return iso(t_us)[:10]


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def _boxes(n: int) -> str:
    return f"{n} {'box' if n == 1 else 'boxes'}"


def summary(fl: Fleet) -> str:
    hosts = len(fl.boxes)
    bad_boxes = sum(1 for b in fl.boxes if b.bad_ends)
    fps = sum(1 for c in fl.clusters if c.kind == "fingerprint")
    return (
        f"{_plural(fl.post_mortems, 'post-mortem')} from {_boxes(hosts)}; "
        f"{_plural(fl.bad_ends, 'bad end')} on {bad_boxes} of them, in "
        f"{_plural(fps, 'cluster')}"
    )


def cluster_title(c: Cluster) -> str:
    outcome = c.outcomes[0][0] if c.outcomes else "?"
    if c.kind == "primary":
        outcomes = ", ".join(o for o, _ in c.outcomes)
        what = f"[{c.key}] across {len(c.fingerprints)} fingerprints ({outcomes})"
    else:
        tag = f" [{c.primary}]" if c.primary else ""
        what = f"{outcome}{tag}, fingerprint {c.key}"
    span = (
        _day(c.first_us)
        if _day(c.first_us) == _day(c.last_us)
        else f"{_day(c.first_us)} to {_day(c.last_us)}"
    )
    boxes = _boxes(len(c.boxes))
    return f"{what}: {_plural(c.count, 'bad end')} on {boxes}, {span}"


def shared_line(s: Shared) -> str:
    """`without cmdline iommu=pt: 12 of 12 (100 %), fleet 40 %, +60 points, 7 boxes`"""
    return (
        f"{s.label()}: {s.cluster_count} of {s.cluster_n} ({s.cluster_share:.0%}), "
        f"fleet {s.fleet_share:.0%}, +{s.difference * 100:.0f} points, "
        f"{_boxes(s.boxes)}"
    )


def _box_hosts(c: Cluster, limit: int = 8) -> str:
    shown = ", ".join(f"{h} ({n})" for h, n in c.boxes[:limit])
    more = len(c.boxes) - limit
    return shown + (f", and {more} more" if more > 0 else "")


def _last_bad(b: Box) -> str:
    lb = b.last_bad
    if lb is None:
        return "-"
    tag = f" [{lb.primary}]" if lb.primary else ""
    return f"{iso(lb.when_us)} {lb.outcome}{tag} {lb.fingerprint}"


def render_text(fl: Fleet) -> str:
    lines = [
        f"kmsgd fleet: {fl.directory}, {iso(fl.window.since_us)} to {iso(fl.window.until_us)}",
        summary(fl),
    ]
    lines += [f"note: {n}" for n in fl.notes]
    lines += [f"skipped {path}: {why}" for path, why in fl.skipped]
    if fl.clusters:
        lines += ["", "Clusters (most bad ends first)"]
    for i, c in enumerate(fl.clusters[:SHOW_CLUSTERS], 1):
        lines.append(f"{i:>2}. {cluster_title(c)}")
        lines.append(f"    boxes: {_box_hosts(c)}")
        if c.headline:
            lines.append(f"    latest: {c.headline}")
        if c.shared:
            lines.append("    what its boxes share, against the fleet's boots:")
            lines += [f"      {shared_line(s)}" for s in c.shared[:SHOW_SHARED]]
        if c.note:
            lines.append(f"    ({c.note})")
    if len(fl.clusters) > SHOW_CLUSTERS:
        lines.append(
            f"... {len(fl.clusters) - SHOW_CLUSTERS} more clusters (--format json lists all)"
        )
    bad = [b for b in fl.boxes if b.bad_ends]
    if bad:
        rows = [("box", "boots", "bad", "last outcome", "last bad end")]
        rows += [
            (b.label, str(b.boots), str(b.bad_ends), b.last_outcome, _last_bad(b))
            for b in bad[:SHOW_BOXES]
        ]
        widths = [max(len(r[i]) for r in rows) for i in range(4)]
        lines += ["", "Boxes with bad ends (most first)"]
        lines += [
            "  " + "  ".join(c.ljust(w) for c, w in zip(r[:4], widths, strict=True)) + "  " + r[4]
            for r in rows
        ]
        if len(bad) > SHOW_BOXES:
            lines.append(f"  ... {len(bad) - SHOW_BOXES} more (--format json lists all)")
    clean = len(fl.boxes) - len(bad)
    if clean:
        lines.append(f"{_boxes(clean)} ended every boot in the window cleanly")
    return "\n".join(lines) + "\n"


def _md(text: str) -> str:
    return text.replace("|", "\\|")


def render_md(fl: Fleet) -> str:
    lines = [
        "# kmsgd fleet",
        "",
        f"`{fl.directory}`, {iso(fl.window.since_us)} to {iso(fl.window.until_us)}: {summary(fl)}.",
    ]
    if fl.notes or fl.skipped:
        lines.append("")
        lines += [f"- note: {n}" for n in fl.notes]
        lines += [f"- skipped `{p}`: {w}" for p, w in fl.skipped]
    if fl.clusters:
        lines += ["", "## Clusters"]
    for i, c in enumerate(fl.clusters[:SHOW_CLUSTERS], 1):
        lines += ["", f"### {i}. {_md(cluster_title(c))}", "", f"Boxes: {_md(_box_hosts(c))}"]
        if c.headline:
            lines += ["", f"Latest: `{c.headline}`"]
        if c.shared:
            lines += [
                "",
                "| shared | cluster | fleet | difference | boxes |",
                "|---|---|---|---|---|",
            ]
            lines += [
                f"| {_md(s.label())} | {s.cluster_count} of {s.cluster_n} ({s.cluster_share:.0%}) "
                f"| {s.fleet_share:.0%} | +{s.difference * 100:.0f} points | {s.boxes} |"
                for s in c.shared[:SHOW_SHARED]
            ]
        if c.note:
            lines += ["", f"*{_md(c.note)}*"]
    if len(fl.clusters) > SHOW_CLUSTERS:
        lines += ["", f"{len(fl.clusters) - SHOW_CLUSTERS} more clusters in `--format json`."]
    bad = [b for b in fl.boxes if b.bad_ends]
    if bad:
        lines += [
            "",
            "## Boxes with bad ends",
            "",
            "| box | boots | bad ends | last outcome | last bad end |",
            "|---|---|---|---|---|",
        ]
        lines += [
            f"| {_md(b.label)} | {b.boots} | {b.bad_ends} | {b.last_outcome} "
            f"| {_md(_last_bad(b))} |"
            for b in bad[:SHOW_BOXES]
        ]
        if len(bad) > SHOW_BOXES:
            lines += ["", f"{len(bad) - SHOW_BOXES} more in `--format json`."]
    clean = len(fl.boxes) - len(bad)
    if clean:
        lines += ["", f"{_boxes(clean)} ended every boot in the window cleanly."]
    return "\n".join(lines) + "\n"


def render(fl: Fleet, fmt: Format) -> str:
    """`fmt` is one of FLEET_FORMATS."""
    if fmt == Format.JSON:
        return json_text(json.dumps(fl.to_json_dict(), indent=2)) + "\n"
    if fmt == Format.MD:
        return render_md(escape_tree(fl))
    return render_text(escape_tree(fl))
