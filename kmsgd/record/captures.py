"""Incident mode's capture actions: each snapshot in a thread of its own, with a timeout.

The manager (kmsgd/record/incident_mode.py) decides when to capture; this module runs the capture
(`procs` and `gpus` snapshots, kmsgd/sensors/snapshot.py and gpu_snapshot.py; SysRq keys) in a
short-lived daemon thread, emits its record, and tells the manager which capture is still
reading past `capture_timeout_s` and on which path. A thread in a kernel read cannot be
cancelled: it is left behind, and no second capture of its kind starts while it hangs.
"""

from __future__ import annotations

import enum
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kmsgd.config import IncidentConfig
from kmsgd.ring.incident import RecordName
from kmsgd.ring.inventory import Attributes
from kmsgd.sensors import gpu_snapshot, snapshot

# (incident number, record name, the record's other fields in order)
EmitRecord = Callable[[int, str, Attributes], None]


class CaptureKind(enum.StrEnum):
    """What incident mode captures; each writes the incident record of the same name."""

    PROCS = RecordName.PROCS.value
    GPUS = RecordName.GPUS.value
    SYSRQ = RecordName.SYSRQ.value


@dataclass
class Capture:
    name: CaptureKind
    thread: threading.Thread
    started: float
    busy: list[str]  # the path being read (one slot, written by the capture thread)
    reported: bool = False


@dataclass(frozen=True, slots=True)
class Blocked:
    """A capture still reading at its timeout: what it was reading and for how long."""

    capture: CaptureKind
    path: str
    blocked_s: float


class Captures:
    """The capture threads of one recorder, at most one running per kind."""

    def __init__(
        self,
        cfg: IncidentConfig,
        emit_record: EmitRecord,
        *,
        proc_root: Path,
        sys_root: Path,
        clock: Callable[[], float],
        sampler: Callable[[], Any],
    ) -> None:
        self.cfg = cfg
        self.emit_record = emit_record
        self.proc_root, self.sys_root = proc_root, sys_root
        self.clock = clock
        self.sampler = sampler  # the attached Sampler, or None
        self.running: dict[CaptureKind, Capture] = {}

    def start(
        self,
        what: CaptureKind,
        number: int,
        start: float,
        now: float,
        done: Callable[[int, CaptureKind], None],
    ) -> bool:
        """Run capture `what` for incident `number` (started at `start`) in a new thread;
        `done(number, record name)` after its record is emitted. False, and nothing started,
        while the previous capture of this kind is still blocked."""
        running = self.running.get(what)
        if running is not None and running.thread.is_alive():
            return False
        busy = [""]

        def mark(path: str) -> None:
            busy[0] = path

        def work() -> None:
            t0 = self.clock()
            try:
                data = self.collect(what, mark)
            except Exception as err:  # a reader bug is evidence too, never a crash
                data = {"error": repr(err)[:200]}
            took = self.clock() - t0
            late = took > self.cfg.capture_timeout_s
            self.emit_record(
                number,
                what.value,
                {
                    "at_s": round(t0 - start, 1),
                    "took_ms": round(took * 1000, 1),
                    **({"late": True} if late else {}),
                    **data,
                },
            )
            done(number, what)

        thread = threading.Thread(target=work, name=f"kmsgd-capture-{what}", daemon=True)
        self.running[what] = Capture(what, thread, now, busy)
        thread.start()
        return True

    def collect(self, what: CaptureKind, mark: Callable[[str], None]) -> dict[str, Any]:
        """One capture's record fields (its name, `what`, aside), read in the calling thread."""
        sampler = self.sampler()
        if what is CaptureKind.SYSRQ:
            keys = ("w" if self.cfg.sysrq_w else "") + ("l" if self.cfg.sysrq_l else "")
            return sysrq(self.proc_root, keys, mark)
        if what is CaptureKind.PROCS:
            nv = sampler.gpu_processes() if sampler is not None else {}
            data = snapshot.snapshot_procs(self.proc_root, nv, mark)
        else:
            nvml = sampler.nvml_gpus() if sampler is not None else []
            debugfs = self.sys_root / "kernel" / "debug"
            data = gpu_snapshot.snapshot_gpus(self.sys_root, debugfs, nvml, mark)
        del data["record"]  # the snapshot's own name for it: `what`
        return data

    def newly_blocked(self, now: float) -> list[Blocked]:
        """Captures that passed their timeout since the last call (each reported once)."""
        out = []
        for cap in self.running.values():
            if cap.reported or not cap.thread.is_alive():
                continue
            blocked = now - cap.started
            if blocked < self.cfg.capture_timeout_s:
                continue
            cap.reported = True
            out.append(Blocked(cap.name, cap.busy[0], round(blocked, 1)))
        return out


def trigger_path(proc_root: Path, runtime_dir: str | None = None) -> str:
    """Where to write SysRq keys: the unit's bind mount of /proc/sysrq-trigger in the
    service's runtime directory when there is one (ProtectKernelTunables= keeps the file
    itself read-only, and systemd lets no other setting of the same path override that:
    units/kmsgd.service), else <proc>/sysrq-trigger."""
    runtime = os.environ.get("RUNTIME_DIRECTORY", "") if runtime_dir is None else runtime_dir
    bound = os.path.join(runtime.split(":")[0], "sysrq-trigger") if runtime else ""
    if proc_root == Path("/proc") and bound and os.path.exists(bound):
        return bound
    return os.path.join(proc_root, "sysrq-trigger")


def sysrq(proc_root: Path, keys: str, mark: Callable[[str], None]) -> dict[str, Any]:
    """Write each SysRq key to the trigger file (`w`: blocked tasks' stacks into the kernel
    log, so into the ring; `l`: every CPU's backtrace). Errors are the result."""
    path = trigger_path(proc_root)
    done: dict[str, Any] = {"keys": keys}
    for key in keys:
        mark(path)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
            try:
                os.write(fd, key.encode())
            finally:
                os.close(fd)
            done[key] = "ok"
        except OSError as err:
            done[key] = err.strerror or str(err)
    return done
