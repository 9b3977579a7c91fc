"""Checks of kmsgd itself: the configuration, the recorder, its ring, the units' sandbox, room.

The recorder holds an exclusive flock on its ring (kmsgd/ring/writer.py); /proc/locks names the
holder's pid and the file's device and inode (proc(5), /proc/locks), so "running" is read
without touching the lock a starting recorder needs.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path

from kmsgd.check.findings import Finding, fail, ok, warn
from kmsgd.config import DEFAULT_CONFIG, STATE_DIR, Config, Settings
from kmsgd.errors import KmsgdError
from kmsgd.record.procfs import read_boot_id
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind

STALE_BEATS = 10  # heartbeats missed before the ring counts as not being written
UNIT_DIRS = (
    "etc/systemd/system",
    "run/systemd/system",
    "usr/lib/systemd/system",
    "lib/systemd/system",
)
TROUBLE = "docs/troubleshooting.md"


def config_findings(s: Settings) -> list[Finding]:
    """One FAIL per bad line (the recorder runs with the default for it), else one OK."""
    where = s.path or DEFAULT_CONFIG
    if s.problems:
        return [
            fail("config", f"{where}: {p.message}", f"edit {where}; `kmsgd check` again")
            for p in s.problems
        ]
    if s.path is None:
        return [ok("config", f"no {where}: every setting at its default")]
    return [ok("config", f"{where}: valid")]


def ring_holder(proc_root: Path, ring: str) -> int | None:
    """The pid holding a write flock on `ring`, from /proc/locks; None when none does."""
    try:
        st = os.stat(ring)
        with open(os.path.join(proc_root, "locks"), encoding="ascii", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    want = (os.major(st.st_dev), os.minor(st.st_dev), st.st_ino)
    for line in lines:
        # "1: FLOCK  ADVISORY  WRITE 1234 fd:01:12345 0 EOF" (maj:min in hex, inode decimal)
        parts = line.split()
        if len(parts) < 6 or parts[1] != "FLOCK" or parts[3] != "WRITE":
            continue
        try:
            major, minor, inode = parts[5].split(":")
            found = (int(major, 16), int(minor, 16), int(inode))
            pid = int(parts[4])
        except ValueError:
            continue
        if found == want:
            return pid
    return None


def recorder_findings(cfg: Config, now_us: int | None = None) -> list[Finding]:
    """Is the recorder running, is it writing this boot, how much did it lose?"""
    now_us = now_us if now_us is not None else time.time_ns() // 1000
    start = "systemctl enable --now kmsgd.service"
    if not os.path.lexists(cfg.ring):
        return [fail("recorder", f"no ring at {cfg.ring}: the recorder never ran here", start)]
    pid = ring_holder(cfg.proc_root, cfg.ring)
    found = [
        ok("recorder", f"running (pid {pid}), recording into {cfg.ring}")
        if pid is not None
        else fail(
            "recorder",
            f"not running: nothing holds {cfg.ring}",
            f"{start}; journalctl -u kmsgd.service -b says why it stopped ({TROUBLE})",
        )
    ]
    try:
        boot_id = read_boot_id(cfg.proc_root)
        with RingReader(cfg.ring) as reader:
            beat = reader.last_frame_of(boot_id, Kind.HEARTBEAT)
            summary = reader.summary_of(boot_id) if beat is not None else None
    except KmsgdError as err:
        return [*found, fail("ring", str(err), err.hint or f"see {TROUBLE}")]
    except PermissionError:
        return [*found, warn("ring", f"{cfg.ring}: not readable", "run as root (or group adm)")]
    if beat is None:
        return [*found, fail("ring", "no heartbeat of this boot in the ring", start)]
    age_s = (now_us - beat.wall_us) / 1e6
    if age_s > max(STALE_BEATS * cfg.heartbeat_s, 30.0):
        found.append(
            fail("ring", f"last heartbeat {age_s:.0f} s ago: not being written", f"see {TROUBLE}")
        )
    else:
        found.append(ok("ring", f"last heartbeat {max(age_s, 0.0):.1f} s ago"))
    lost = summary.lost if summary is not None else 0
    if lost:
        found.append(
            warn(
                "records_lost",
                f"{lost} kernel records lost this boot (kernel buffer overran while recording)",
                "journalctl -u kmsgd.service -b -p warning shows when; "
                "a larger log_buf_len= kernel parameter gives the recorder more slack",
            )
        )
    else:
        found.append(ok("records_lost", "no kernel record lost this boot"))
    return found


def room_finding(cfg: Config) -> Finding:
    """A ring is preallocated: once it exists it never grows; a new one needs ring_size free."""
    if os.path.exists(cfg.ring):
        size = os.stat(cfg.ring).st_size
        return ok("room", f"ring preallocated: {size >> 20} MiB, it never grows")
    parent = os.path.dirname(os.path.abspath(cfg.ring))
    while not os.path.isdir(parent):
        parent = os.path.dirname(parent)
    st = os.statvfs(parent)
    free = st.f_bavail * st.f_frsize
    if free < cfg.ring_size:
        return fail(
            "room",
            f"{free >> 20} MiB free under {parent}, a new ring needs {cfg.ring_size >> 20} MiB",
            "free space there, or set a smaller ring_size or another ring in the config file",
        )
    return ok("room", f"{free >> 20} MiB free under {parent} for a {cfg.ring_size >> 20} MiB ring")


def _unit_lines(fs_root: Path, unit: str) -> Iterator[tuple[str, str]]:
    """(key, value) of the unit file systemd would load and its drop-ins, in order."""
    files = []
    for d in UNIT_DIRS:
        path = os.path.join(fs_root, d, unit)
        if os.path.isfile(path):
            files.append(path)
            break
    if not files:
        return
    drop: dict[str, str] = {}
    for d in reversed(UNIT_DIRS):  # a drop-in in /etc replaces a same-named one in /usr/lib
        try:
            names = os.listdir(os.path.join(fs_root, d, unit + ".d"))
        except OSError:
            continue
        drop |= {n: os.path.join(fs_root, d, unit + ".d", n) for n in names if n.endswith(".conf")}
    files += [drop[n] for n in sorted(drop)]
    for path in files:
        try:
            with open(path, encoding="utf-8", errors="replace") as f:
                text = f.read()
        except OSError:
            continue
        for raw in text.splitlines():
            key, sep, value = raw.strip().partition("=")
            if sep and not key.startswith(("#", ";")):
                yield key.strip(), value.strip()


def writable_paths(fs_root: Path, unit: str) -> list[str] | None:
    """Where `unit` may write under ProtectSystem=strict (systemd.exec(5)): its StateDirectory=
    and ReadWritePaths=; None when the unit is not installed."""
    lines = list(_unit_lines(fs_root, unit))
    if not lines:
        return None
    paths: list[str] = []
    for key, value in lines:
        if key == "ReadWritePaths" and not value:
            paths = []  # an empty assignment resets the list
        elif key == "ReadWritePaths":
            paths += [p.lstrip("-+") for p in value.split()]
        elif key == "StateDirectory":
            paths += [os.path.join(os.path.dirname(STATE_DIR), p) for p in value.split()]
    return paths


def dropin(paths: list[str]) -> str:
    """The drop-in (`systemctl edit <unit>`) that lets a unit write `paths` and waits for
    the mounts holding them."""
    dirs = " ".join(sorted(set(paths)))
    return f"[Unit]\nRequiresMountsFor={dirs}\n[Service]\nReadWritePaths={dirs}\n"


def sandbox_findings(cfg: Config) -> list[Finding]:
    """A moved ring, report or textfile directory must be writable inside the units' sandbox."""
    needs = {
        "kmsgd.service": [os.path.dirname(cfg.ring), cfg.state_dir, cfg.textfile_dir],
        "kmsgd-report.service": [cfg.report_dir, cfg.textfile_dir],
    }
    found = []
    for unit, wanted in needs.items():
        allowed = writable_paths(cfg.fs_root, unit)
        if allowed is None:
            continue
        missing = [
            p for p in wanted if p and os.path.isabs(p) and not any(_under(p, a) for a in allowed)
        ]
        if not missing:
            found.append(ok(f"sandbox:{unit}", "every configured path is writable inside it"))
            continue
        text = dropin(missing).replace("\n", " ").strip()
        found.append(
            fail(
                f"sandbox:{unit}",
                f"{', '.join(missing)} not writable under its ProtectSystem=strict",
                f"systemctl edit {unit} and add: {text} (docs/operator-guide.md)",
            )
        )
    return found


def _under(path: str, root: str) -> bool:
    path, root = os.path.normpath(path), os.path.normpath(root)
    return path == root or path.startswith(root.rstrip("/") + "/")
