"""What reaches the fleet's existing monitoring: a node_exporter textfile, a journal entry per
post-mortem, and the saved reports. Inputs are small plain values, not the report model, so the
daemon can use this without importing the classifier.

The textfile format is Prometheus' text exposition format 0.0.4; node_exporter's textfile collector
reads `*.prom` files in its directory on every scrape, so a file must never be seen half-written:
write a temp file in the same directory, fsync, rename.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from kmsgd.types import Outcome

DEFAULT_TEXTFILE = "/var/lib/node_exporter/textfile_collector/kmsgd.prom"
REPORTS_KEEP = 50

# journalctl MESSAGE_ID=55b34a3e8e9948c9a3a71671c71b533d finds every kmsgd post-mortem.
# Fixed forever: operators' log-shipper rules match on it.
MESSAGE_ID = "55b34a3e8e9948c9a3a71671c71b533d"

_LAST_BOOT_PREFIX = "kmsgd_last_boot_"


@dataclass(frozen=True, slots=True)
class Metrics:
    """One snapshot for the textfile. `outcome` None: no post-mortem in this snapshot (the daemon
    writing); the last-boot series already in the file are then kept as they are."""

    up: bool
    ring_bytes: int
    lost_total: int  # kernel records lost over the ring's life (overruns, restarts)
    outcome: str | None = None
    primary_tag: str | None = None  # None: the post-mortem named no primary signature


def _label(value: str) -> str:
    """Escape a label value as the exposition format requires."""
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")


def _last_boot_lines(m: Metrics) -> list[str]:
    assert m.outcome is not None
    outcomes = [o.value for o in Outcome]
    if m.outcome not in outcomes:  # a newer classifier's outcome: still exported
        outcomes.append(m.outcome)
    lines = [
        "# HELP kmsgd_last_boot_outcome How the previous boot ended (1 for the outcome found).",
        "# TYPE kmsgd_last_boot_outcome gauge",
    ]
    lines += [
        f'kmsgd_last_boot_outcome{{outcome="{_label(o)}"}} {int(o == m.outcome)}' for o in outcomes
    ]
    lines += [
        "# HELP kmsgd_last_boot_primary The primary signature of the previous boot (tag, or none).",
        "# TYPE kmsgd_last_boot_primary gauge",
        f'kmsgd_last_boot_primary{{tag="{_label(m.primary_tag or "none")}"}} 1',
    ]
    return lines


def render_textfile(m: Metrics, keep_last_boot: list[str] | None = None) -> str:
    """The whole .prom text. `keep_last_boot`: last-boot lines to carry over when `m` has none."""
    lines = [
        "# HELP kmsgd_up 1 while the kmsgd recorder runs; 0 after it stopped cleanly.",
        "# TYPE kmsgd_up gauge",
        f"kmsgd_up {int(m.up)}",
        "# HELP kmsgd_ring_bytes Size of the ring file in bytes.",
        "# TYPE kmsgd_ring_bytes gauge",
        f"kmsgd_ring_bytes {m.ring_bytes}",
        "# HELP kmsgd_ring_records_lost_total Kernel records that never reached the ring.",
        "# TYPE kmsgd_ring_records_lost_total counter",
        f"kmsgd_ring_records_lost_total {m.lost_total}",
    ]
    if m.outcome is not None:
        lines += _last_boot_lines(m)
    elif keep_last_boot:
        lines += keep_last_boot
    return "\n".join(lines) + "\n"


_METRIC_NAME = re.compile(r"^(?:# (?:HELP|TYPE) )?([a-zA-Z_:][a-zA-Z0-9_:]*)")


def last_boot_lines(text: str) -> list[str]:
    """The last-boot series (and their HELP/TYPE lines) of an existing textfile."""
    out = []
    for line in text.splitlines():
        m = _METRIC_NAME.match(line)
        if m and m.group(1).startswith(_LAST_BOOT_PREFIX):
            out.append(line)
    return out


@contextmanager
def _dir_lock(directory: Path) -> Iterator[None]:
    """Serialise the daemon and the report oneshot: flock on the directory, no lock file left."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def atomic_write(path: Path, text: str, mode: int = 0o644) -> None:
    """Write `text` to `path` so readers see the old or the new file, never a mix."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, mode)
    try:
        os.fchmod(fd, mode)  # the umask (0027 in the units) must not hide it from the reader
        os.write(fd, text.encode())
        os.fsync(fd)
    except BaseException:
        os.close(fd)
        tmp.unlink(missing_ok=True)
        raise
    os.close(fd)
    os.replace(tmp, path)
    dfd = os.open(path.parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    try:
        os.fsync(dfd)
    finally:
        os.close(dfd)


def write_textfile(path: str | Path, m: Metrics) -> None:
    """Write the node_exporter textfile atomically, mode 0644 (node_exporter runs unprivileged).

    A snapshot without an outcome keeps the last-boot series the file already holds, so the
    recorder refreshing `kmsgd_up` does not erase what the report oneshot wrote. Raises OSError
    (a missing collector directory is the caller's to ignore: node_exporter is not installed).
    """
    path = Path(path)
    with _dir_lock(path.parent):
        keep: list[str] = []
        if m.outcome is None:
            with suppress(FileNotFoundError):
                keep = last_boot_lines(path.read_text(encoding="utf-8", errors="replace"))
        atomic_write(path, render_textfile(m, keep))


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
