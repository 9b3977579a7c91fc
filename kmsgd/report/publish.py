"""What the boot-time report service does with a post-mortem: save it, log it, export it."""

from __future__ import annotations

import json
import os
import time

from kmsgd import outputs
from kmsgd.report import export, render_json
from kmsgd.report.entry import entry_fields
from kmsgd.report.model import Report
from kmsgd.report.render import render, save_picture
from kmsgd.types import Format


def publish(
    report: Report,
    boot_id: str,
    *,
    save_dir: str | None,
    keep: int,
    journal: bool,
    textfile: str | None,
    plot: str = "",
) -> list[str]:
    """Save `<boot_id>.json/.md`, send one journal entry, write the last-boot textfile;
    with `plot` (`--plot`), first the timeline picture there, which the saved .md links.

    Returns a one-line summary, then one line per thing that could not be done and should be
    said (a missing node_exporter directory). A missing journal is not worth a line."""
    notes: list[str] = []
    saved = ""
    doc = render_json.report_json(report)
    if plot:  # first: a bad --plot is refused (exit 2) before anything is written
        save_picture(report, plot)
    if save_dir:
        md = render(report, Format.MD, plot=plot)
        texts = {"json": json.dumps(doc, indent=2) + "\n", "md": md}
        paths = export.save_report(save_dir, boot_id, texts, keep=keep)
        saved = str(next(p for p in paths if p.suffix == ".json"))
    primary = report.primary.tag if report.primary else None
    if journal:
        # the whole report and what the boot ran on travel with it (docs/fleet.md)
        send_entry(dict(entry_fields(report, report_path=saved)))
    if textfile:
        tod = doc.get("time_of_death") or {}
        end = tod.get("last_sign_of_life_wall_us")
        metrics = export.LastBoot(
            boot_id=boot_id,
            outcome=report.outcome.value,
            confidence=report.confidence,
            primary_tag=primary,
            fingerprint=report.fingerprint,
            end_wall_us=end if isinstance(end, int) else None,
            judged_wall_us=time.time_ns() // 1000,
        )
        try:
            outputs.write_textfile(textfile, export.render_last_boot(metrics))
        except FileNotFoundError:
            notes.append(
                f"{os.path.dirname(textfile)} does not exist: no metrics for node_exporter "
                "(install prometheus-node-exporter, or set textfile_dir in /etc/kmsgd/kmsgd.toml)"
            )
    tag = f" [{primary}]" if primary else ""
    where = f" -> {saved}" if saved else ""
    summary = f"boot {boot_id[:8]}: {report.outcome.value} ({report.confidence}){tag}{where}"
    return [summary, *notes]


def send_entry(fields: dict[str, str]) -> bool:
    """Log one structured entry to the journal; False when no journal can be reached."""
    try:
        from systemd import journal as sd_journal
    except ImportError:
        return False
    message = fields.get("MESSAGE", "")
    rest = {k: v for k, v in fields.items() if k != "MESSAGE"}
    try:
        sd_journal.send(message, **rest)
    except OSError:
        return False
    return True
