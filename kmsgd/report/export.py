"""What reaches the fleet's existing monitoring: the last boot's node_exporter textfile, a
journal entry per post-mortem, and the saved reports. Inputs are small plain values, not the
report model.

The textfile format is Prometheus' text exposition format 0.0.4; node_exporter's textfile collector
reads `*.prom` files in its directory on every scrape. The boot-time report writes
kmsgd-last-boot.prom and nothing else; the recorder writes kmsgd.prom (kmsgd_up) and nothing
else, so neither ever reads or merges the other's file.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from kmsgd.fleet import entry_format as fleet_entry
from kmsgd.outputs import atomic_write, label
from kmsgd.types import Outcome

REPORTS_KEEP = 50  # as Config.reports_keep; callers pass the configured value
# The only names kmsgd writes into a report directory, so the only ones it ever removes: an
# operator's --save-dir may hold other documents. A boot id is the 128-bit id in lower-case hex
# (/proc/sys/kernel/random/boot_id without its dashes, as the ring stores it).
BOOT_ID = re.compile(r"[0-9a-f]{32}")
REPORT_NAME = re.compile(r"(?P<boot>[0-9a-f]{32})\.(?:json|md|html)")
CLEAN = frozenset({Outcome.CLEAN_SHUTDOWN, Outcome.CLEAN_REBOOT, Outcome.STILL_RUNNING})


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
    clean = outcome in CLEAN
    primary = f" [{primary_tag}]" if primary_tag else ""
    fields = {
        "MESSAGE": f"kmsgd: boot {boot_id[:8]} ended: {outcome} ({confidence}){primary}: "
        + " ".join(headline.split()),
        "MESSAGE_ID": fleet_entry.MESSAGE_ID,  # the contract with `kmsgd fleet`
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
    the newest `keep` boots' reports (at least 1: the one just written). Returns the paths
    written."""
    if not BOOT_ID.fullmatch(boot_id):
        raise ValueError(f"not a boot id: {boot_id!r}")
    if keep < 1:
        raise ValueError(f"reports kept must be at least 1, got {keep}")
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
    """Remove all but the newest `keep` boots' reports (by mtime), kmsgd's own names only
    (REPORT_NAME); returns what was removed."""
    boots: dict[str, float] = {}
    files: dict[str, list[Path]] = {}
    for p in directory.iterdir():
        m = REPORT_NAME.fullmatch(p.name)
        if m is None or not p.is_file() or p.is_symlink():
            continue
        stem = m["boot"]
        boots[stem] = max(boots.get(stem, 0.0), p.stat().st_mtime)
        files.setdefault(stem, []).append(p)
    removed = []
    for stem in sorted(boots, key=lambda s: (boots[s], s), reverse=True)[keep:]:
        for p in files[stem]:
            p.unlink(missing_ok=True)
            removed.append(p)
    return removed


@dataclass(frozen=True, slots=True)
class LastBoot:
    """What the last-boot textfile says about the judged boot."""

    boot_id: str
    outcome: str
    confidence: str
    primary_tag: str | None  # None: the post-mortem named no primary signature
    fingerprint: str
    end_wall_us: int | None  # the boot's last sign of life; None when unknown (pasted logs)
    judged_wall_us: int  # when this post-mortem was made


def render_last_boot(m: LastBoot) -> str:
    """The whole kmsgd-last-boot.prom text.

    `kmsgd_last_boot_end_timestamp_seconds` lets an alert ask for "a bad end in the last 24 h"
    (`time() - ... < 86400`) rather than firing for the whole next boot;
    `kmsgd_last_boot_info` carries the words (outcome, primary tag, fingerprint) as labels, as
    Prometheus' naming conventions ask of an info metric.
    """
    outcomes = [o.value for o in Outcome]
    if m.outcome not in outcomes:  # a newer classifier's outcome: still exported
        outcomes.append(m.outcome)
    info = {
        "boot_id": m.boot_id,
        "outcome": m.outcome,
        "confidence": m.confidence,
        "primary": m.primary_tag or "none",
        "fingerprint": m.fingerprint,
    }
    labels = ",".join(f'{k}="{label(v)}"' for k, v in info.items())
    lines = [
        "# HELP kmsgd_last_boot_info The previous boot's post-mortem (labels), always 1.",
        "# TYPE kmsgd_last_boot_info gauge",
        f"kmsgd_last_boot_info{{{labels}}} 1",
        "# HELP kmsgd_last_boot_outcome How the previous boot ended (1 for the outcome found).",
        "# TYPE kmsgd_last_boot_outcome gauge",
        *(
            f'kmsgd_last_boot_outcome{{outcome="{label(o)}"}} {int(o == m.outcome)}'
            for o in outcomes
        ),
        "# HELP kmsgd_last_boot_clean 1 when the previous boot ended cleanly, else 0.",
        "# TYPE kmsgd_last_boot_clean gauge",
        f"kmsgd_last_boot_clean {int(m.outcome in CLEAN)}",
    ]
    if m.end_wall_us is not None:
        lines += [
            "# HELP kmsgd_last_boot_end_timestamp_seconds The previous boot's last sign of life.",
            "# TYPE kmsgd_last_boot_end_timestamp_seconds gauge",
            f"kmsgd_last_boot_end_timestamp_seconds {m.end_wall_us / 1e6:.3f}",
        ]
    lines += [
        "# HELP kmsgd_last_boot_report_timestamp_seconds When this post-mortem was made.",
        "# TYPE kmsgd_last_boot_report_timestamp_seconds gauge",
        f"kmsgd_last_boot_report_timestamp_seconds {m.judged_wall_us / 1e6:.3f}",
    ]
    return "\n".join(lines) + "\n"
