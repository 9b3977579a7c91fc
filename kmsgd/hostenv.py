"""What the daemon does to and asks of the host around the recording loop.

Memory locking, OOM protection, the systemd manager's state at stop, and starting the
optional sources (sensors, sysctls) that later stages plug in. Every step here may fail
on a locked-down or odd host; each failure is logged and the daemon carries on.
"""

from __future__ import annotations

import ctypes
import os
import subprocess
from collections.abc import Callable
from typing import Any

from kmsgd.config import Config
from kmsgd.types import Kind, Payload

MCL_CURRENT, MCL_FUTURE, MCL_ONFAULT = 1, 2, 4
Emit = Callable[[Kind, Payload, bool], None]


def lock_memory(log: Any) -> None:
    """Lock what is mapped now and what gets touched later, so paging cannot stall us.

    MCL_ONFAULT keeps untouched thread stacks and arenas from being faulted in at once
    (kernel-facts.md §10: without it one thread adds 8 MiB of locked RSS).
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


def prepare(cfg: Config, emit: Emit, log: Any) -> list[Callable[[], None]]:
    """Start the optional sources; return their stop functions."""
    return []
