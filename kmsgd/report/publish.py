"""What the boot-time report service does with a post-mortem: save it, log it, export it."""

from __future__ import annotations

import contextlib
import json
from typing import Any

from kmsgd import outputs
from kmsgd.report import export
from kmsgd.report.model import Report
from kmsgd.report.render import render


def publish(
    report: Report,
    boot_id: str,
    *,
    save_dir: str | None,
    keep: int,
    journal: bool,
    textfile: str | None,
    ring_bytes: int,
    log: Any = None,
) -> str:
    """Save `<boot_id>.json/.md`, send one journal entry, update the textfile; return a
    one-line summary. A missing node_exporter directory or journal is not an error."""
    saved = ""
    if save_dir:
        texts = {
            "json": json.dumps(report.to_json_dict(), indent=2) + "\n",
            "md": render(report, "md"),
        }
        paths = export.save_report(save_dir, boot_id, texts, keep=keep)
        saved = str(next(p for p in paths if p.suffix == ".json"))
    primary = report.primary.tag if report.primary else None
    if journal:
        fields = export.journal_fields(
            boot_id=boot_id,
            outcome=report.outcome.value,
            confidence=report.confidence,
            headline=report.headline,
            primary_tag=primary,
            fingerprint=report.fingerprint,
            report_path=saved,
        )
        send_entry(fields)
    if textfile:
        lost = (
            int(report.time_of_death.extra.get("kernel_records_lost") or 0)
            if report.time_of_death
            else 0
        )
        metrics = outputs.Metrics(True, ring_bytes, lost, report.outcome.value, primary)
        with contextlib.suppress(FileNotFoundError):  # no node_exporter on this box
            outputs.write_textfile(textfile, metrics)
    tag = f" [{primary}]" if primary else ""
    where = f" -> {saved}" if saved else ""
    return f"boot {boot_id[:8]}: {report.outcome.value} ({report.confidence}){tag}{where}"


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
