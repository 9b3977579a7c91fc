"""What the daemon does to and asks of the host around the recording loop.

Memory locking, OOM protection, the systemd manager's state at stop, and starting the
optional sources (sensors, sysctls) that later stages plug in. Every step here may fail
on a locked-down or odd host; each failure is logged and the daemon carries on.
"""

from __future__ import annotations

import ctypes
import json
import os
import subprocess
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from kmsgd import outputs
from kmsgd.config import Config
from kmsgd.ring.payloads import Emit
from kmsgd.ring.records import Kind

MCL_CURRENT, MCL_FUTURE, MCL_ONFAULT = 1, 2, 4
EXPORT_EVERY_S = 60.0


def lock_memory(log: Any) -> None:
    """Lock what is mapped now and what gets touched later, so paging cannot stall us.

    MCL_ONFAULT keeps untouched thread stacks and arenas from being faulted in at once
    (mlockall(2); without it one thread adds its 8 MiB stack to the locked RSS).
    """
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT) != 0:
        err = ctypes.get_errno()
        log.warning(
            "mlockall_failed",
            error=os.strerror(err),
            hint="grant CAP_IPC_LOCK or raise LimitMEMLOCK",
        )
    try:
        fd = os.open("/proc/self/oom_score_adj", os.O_WRONLY)
        try:
            os.write(fd, b"-1000\n")
        finally:
            os.close(fd)
    except OSError as err:
        # Needs CAP_SYS_RESOURCE; the unit's OOMScoreAdjust= does it for us.
        log.info("oom_score_adj_unchanged", error=err.strerror)


def system_state() -> tuple[str, str]:
    """(systemd manager state, queued shutdown target) at SIGTERM time.

    Runs only when we are stopping, never on the hot path; a fork failure means "unknown".
    """
    if not os.path.isdir("/run/systemd/system"):
        return "unknown", "systemd is not the init system"
    try:
        state = _systemctl("is-system-running")
        jobs = _systemctl("list-jobs", "--no-legend", "--plain")
    except (OSError, subprocess.SubprocessError) as err:
        return "unknown", f"systemctl failed: {err}"
    targets = (
        "reboot.target",
        "poweroff.target",
        "halt.target",
        "kexec.target",
        "soft-reboot.target",
    )
    queued = sorted(
        {word for line in jobs.splitlines() for word in line.split() if word in targets}
    )
    return state.strip() or "unknown", ",".join(queued)


def _systemctl(*args: str) -> str:
    out = subprocess.run(
        ["systemctl", *args], capture_output=True, text=True, timeout=3, check=False
    )
    return out.stdout


def prepare(
    cfg: Config,
    emit: Emit,
    log: Any,
    stats: Callable[[], tuple[int, int]],
    incidents: Any = None,
    *,
    sync: Callable[[], bool] | None = None,
) -> list[Callable[[], None]]:
    """Start the optional sources (each failure logged, never fatal); return stop functions.

    `stats` gives (ring bytes, kernel records lost so far) for the fleet textfile; `sync`
    blocks until what was handed to the ring is durable (False if it did not get there).
    """
    stops: list[Callable[[], None]] = []
    steps: tuple[tuple[str, Callable[[], None]], ...] = (
        ("sysctls", lambda: _sysctls(cfg, emit, log)),
        ("pstore", lambda: _pstore(cfg, emit, log, sync=sync, ring_bytes=stats()[0])),
    )
    for name, step in steps:
        try:
            step()
        except Exception as err:  # one broken source must not keep the recorder down
            log.error("source_failed", source=name, error=repr(err))
    if cfg.sensors:
        try:
            from kmsgd.sensors.sampler import Sampler, SamplerConfig

            sampler = Sampler(
                sys_root=cfg.sys_root,
                proc_root=cfg.proc_root,
                state_dir=cfg.state_dir,
                config=SamplerConfig(
                    power_hz=cfg.power_hz,
                    sensor_hz=cfg.sample_hz,
                    procs_interval_s=cfg.top_processes_s,
                ),
            )
            sampler.start(emit)
            stops.append(sampler.stop)
            if incidents is not None:  # incident mode speeds it up and asks it for NVML
                incidents.attach_sampler(sampler)
        except Exception as err:
            log.error("source_failed", source="sensors", error=repr(err))
    if cfg.sensors:
        _say_nvidia(cfg, log)
    if cfg.recorder_textfile:
        stops.append(_start_exporter(cfg.recorder_textfile, stats, log))
    return stops


def _say_nvidia(cfg: Config, log: Any) -> None:
    """An NVIDIA GPU that NVML cannot read gets no power or temperature samples (the
    proprietary driver registers no hwmon device): say so once, at start."""
    from kmsgd.sensors.nvml import nvidia_warning

    try:
        warning = nvidia_warning(cfg.sys_root)
    except Exception as err:  # a broken NVML must not keep the recorder down
        warning = f"NVML check failed: {err!r}"
    if warning:
        log.warning(
            "nvidia_without_nvml",
            problem=warning,
            fix="apt install python3-pynvml, or pip install 'kmsgd[nvidia]'; "
            "the NVIDIA driver provides libnvidia-ml.so.1",
        )


def _sysctls(cfg: Config, emit: Emit, log: Any) -> None:
    """Set the forensic sysctls (admin overrides win) and record old and new values; with
    `apply_sysctl` off (the service sets them in a privileged step of its own), record the
    values this boot runs with, so the report can still say what they were."""
    from kmsgd.record import sysctl_conf, sysctl_set

    desired = sysctl_conf.resolve_desired(cfg.fs_root)
    if not cfg.apply_sysctl:
        states = sysctl_set.check(cfg.proc_root, desired)
        emit(Kind.SYSCTL, sysctl_set.to_record(sysctl_set.observed(states)), True)
        return
    changes = sysctl_set.apply(cfg.proc_root, desired)
    emit(Kind.SYSCTL, sysctl_set.to_record(changes), True)
    lines, status = sysctl_set.apply_report(changes)
    (log.warning if status else log.info)("sysctls_applied", report="; ".join(lines))


def _pstore(
    cfg: Config,
    emit: Emit,
    log: Any,
    *,
    sync: Callable[[], bool] | None = None,
    ring_bytes: int = 0,
) -> None:
    """Import panic dumps that no earlier run imported (systemd-pstore may have moved them).

    A dump is marked seen only once its ring record is durable: marked before, a crash or a
    failing disk in between lost it for good (tests/record/test_pstore_seen.py)."""
    from kmsgd.record import pstore_scan
    from kmsgd.ring import pstore as ring_pstore

    found = pstore_scan.scan_tree(cfg.sys_root, cfg.fs_root)
    for skip in found.skipped:
        log.info("pstore_file_skipped", path=skip.path, reason=skip.why)
    seen_path = os.path.join(cfg.state_dir, "pstore-seen.json")
    try:
        with open(seen_path, encoding="utf-8") as f:
            seen = [str(d) for d in json.load(f)]
    except (OSError, ValueError, TypeError):
        seen = []
    fresh = pstore_scan.new_dumps(found.dumps, seen)
    for dump in fresh:
        emit(Kind.PSTORE, ring_pstore.for_ring(dump, text_bytes=_pstore_text(ring_bytes)), True)
        log.warning("pstore_imported", reason=dump.reason.value, files=len(dump.paths))
    if fresh and sync is not None and not sync():
        log.warning(
            "pstore_seen_not_saved",
            error="the ring has not made the pstore records durable",
            effect="imported again at the next start",
        )
        return
    if fresh:
        seen = (seen + [d.digest for d in fresh])[-256:]
        try:
            outputs.atomic_write(Path(seen_path), json.dumps(seen), mode=0o600)
        except OSError as err:
            log.warning("pstore_seen_not_saved", error=err.strerror, effect="may import again")


def _pstore_text(ring_bytes: int) -> int:
    """Bytes of a dump's text kept in its record: its tail, small enough that the record
    (JSON escapes included) fits the ring's largest frame, which a small ring makes small."""
    from kmsgd.ring import pstore as ring_pstore

    if ring_bytes <= 0:
        return ring_pstore.PAYLOAD_TEXT_BYTES
    return min(ring_pstore.PAYLOAD_TEXT_BYTES, max(1024, ring_bytes // 64))


def _start_exporter(
    path: str, stats: Callable[[], tuple[int, int]], log: Any
) -> Callable[[], None]:
    """Refresh the node_exporter textfile every minute from a thread of its own."""
    stop = threading.Event()

    said: set[str] = set()

    def write(up: bool) -> None:
        ring_bytes, lost = stats()
        try:
            text = outputs.render_textfile(outputs.Metrics(up, ring_bytes, lost))
            outputs.write_textfile(path, text)
        except OSError as err:
            # Once per kind of failure, not once a minute. A missing directory is the usual
            # case (node_exporter not installed, or reading another directory): say which
            # directory node_exporter must read (docs/operator-guide.md, fleet monitoring).
            kind = "missing" if isinstance(err, FileNotFoundError) else str(err.errno)
            if kind in said:
                return
            said.add(kind)
            if kind == "missing":
                log.warning(
                    "textfile_dir_missing",
                    path=os.path.dirname(path),
                    fix="install prometheus-node-exporter (it reads this directory), or set "
                    "textfile_dir in /etc/kmsgd/kmsgd.toml to the directory yours reads "
                    '(textfile_dir = "" turns the metrics off)',
                )
            else:
                log.warning("textfile_failed", path=path, error=err.strerror or str(err))

    def loop() -> None:
        while not stop.wait(EXPORT_EVERY_S):
            write(True)

    write(True)
    thread = threading.Thread(target=loop, name="kmsgd-export", daemon=True)
    thread.start()

    def finish() -> None:
        stop.set()
        thread.join(1.0)
        write(False)

    return finish
