"""What reaches the fleet's existing monitoring: a node_exporter textfile, a journal entry per
post-mortem, and the saved reports. Inputs are small plain values, not the report model, so the
daemon can use this without importing the classifier.

The textfile format is Prometheus' text exposition format 0.0.4; node_exporter's textfile collector
reads `*.prom` files in its directory on every scrape, so a file must never be seen half-written:
write a temp file in the same directory, fsync, rename.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

from kmsgd.outputs import atomic_write
from kmsgd.types import Outcome

DEFAULT_TEXTFILE = "/var/lib/node_exporter/textfile_collector/kmsgd.prom"
REPORTS_KEEP = 50

# journalctl MESSAGE_ID=55b34a3e8e9948c9a3a71671c71b533d finds every kmsgd post-mortem.
# Fixed forever: operators' log-shipper rules match on it.
MESSAGE_ID = "55b34a3e8e9948c9a3a71671c71b533d"


def journal_fields(
    *,
    boot_id: str,
    outcome: str,
    confidence: str,
    headline: str,
    primary_tag: str | None,
    fingerprint: str,
    report_path: str = "",
) -> dict[str, str]:
    """Fields for one journal entry per post-mortem (pass to systemd.journal.send(**fields)).

    MESSAGE is one line; the KMSGD_* fields let log shippers route without parsing it. PRIORITY
    is warning (4) for a boot that did not end cleanly, notice (5) otherwise.
    """
    clean = outcome in (Outcome.CLEAN_SHUTDOWN, Outcome.CLEAN_REBOOT, Outcome.STILL_RUNNING)
    primary = f" [{primary_tag}]" if primary_tag else ""
    fields = {
        "MESSAGE": f"kmsgd: boot {boot_id[:8]} ended: {outcome} ({confidence}){primary}: "
        + " ".join(headline.split()),
        "MESSAGE_ID": MESSAGE_ID,
        "PRIORITY": "5" if clean else "4",
        "SYSLOG_IDENTIFIER": "kmsgd",
        "KMSGD_BOOT_ID": boot_id,
        "KMSGD_OUTCOME": outcome,
        "KMSGD_CONFIDENCE": confidence,
        "KMSGD_PRIMARY": primary_tag or "",
        "KMSGD_FINGERPRINT": fingerprint,
    }
    if report_path:
        fields["KMSGD_REPORT"] = report_path
    return fields


def save_report(
    directory: str | Path, boot_id: str, texts: Mapping[str, str], keep: int = REPORTS_KEEP
) -> list[Path]:
    """Write `<boot_id>.<ext>` for each ext -> text (json, md) atomically, mode 0640, then keep
    the newest `keep` boots' reports. Returns the paths written."""
    if not re.fullmatch(r"[0-9a-f-]{32,36}", boot_id):
        raise ValueError(f"not a boot id: {boot_id!r}")
    directory = Path(directory)
    directory.mkdir(mode=0o750, parents=True, exist_ok=True)
    written = []
    for ext, text in texts.items():
        path = directory / f"{boot_id}.{ext}"
        atomic_write(path, text, mode=0o640)
        written.append(path)
    prune_reports(directory, keep)
    return written


def prune_reports(directory: Path, keep: int) -> list[Path]:
    """Remove all but the newest `keep` boots' reports (by mtime); returns what was removed."""
    boots: dict[str, float] = {}
    files: dict[str, list[Path]] = {}
    for p in directory.iterdir():
        if p.name.startswith(".") or not p.is_file():
            continue
        stem = p.name.split(".", 1)[0]
        boots[stem] = max(boots.get(stem, 0.0), p.stat().st_mtime)
        files.setdefault(stem, []).append(p)
    removed = []
    for stem in sorted(boots, key=lambda s: (boots[s], s), reverse=True)[keep:]:
        for p in files[stem]:
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed
