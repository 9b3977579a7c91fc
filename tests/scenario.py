"""Plays boots of one machine into a ring with the real recorder code and a wound clock.

A boot gets a fake /proc (its own boot id), a regular file as /dev/kmsg that the scenario
appends kernel records to, and a clock that moves only when the scenario says so; the
Recorder's own loop step runs between. `die()` plays a machine that stopped dead (what was
handed to the ring is durable, nothing more is written); `shutdown()` a clean stop.

Incident mode is a thread of its own on the real monotonic clock, as in the daemon. A machine
played in `lockstep` runs it on the boot's wound clock instead, its turn taken after each
step of the recorder's loop and its captures one after the other: the same story then leaves
the same ring every time, whatever the load of the machine that plays it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from conftest import make_proc

from kmsgd.config import Config
from kmsgd.record.captures import CaptureKind, Captures
from kmsgd.record.incident_mode import IncidentMode
from kmsgd.record.recorder import Clock, Recorder
from kmsgd.ring.payloads import Payload
from kmsgd.ring.records import Kind

T0 = 1_764_400_000  # wall-clock seconds of the first boot
SETTLE_BOUND_S = 60.0  # real seconds an incident capture of a played boot may take
MACHINE_ID = "5e0f3c1d2b4a49e8a7c6d5e4f3a2b1c0"
# Seed 000's amdgpu death chain, in the order the kernel logged it.
AMDGPU_CHAIN = (
    "amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command: "
    "SMN_C2PMSG_66:0x00000006 SMN_C2PMSG_82:0x00000000",
    "amdgpu 0000:03:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE",
    "amdgpu: Failed to quiesce KFD",
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=18842, "
    "emitted seq=18845",
    "amdgpu 0000:03:00.0: amdgpu: GPU reset begin!",
)


class FakeClock(Clock):
    def __init__(self, wall_s: float, uptime_s: float) -> None:
        self.wall = wall_s
        self.mono = uptime_s
        self.suspended = 0.0

    def wall_us(self) -> int:
        return int(self.wall * 1e6)

    def mono_us(self) -> int:
        return int(self.mono * 1e6)

    def boottime_us(self) -> int:
        return int((self.mono + self.suspended) * 1e6)

    def advance(self, seconds: float) -> None:
        self.wall += seconds
        self.mono += seconds


class _Silent:
    def __getattr__(self, _name: str) -> Any:
        return lambda *a, **k: None


@dataclass
class BootRun:
    """One running boot of the played machine."""

    rec: Recorder
    clock: FakeClock
    kmsg: Path
    boot_id: str
    seq: int = 0
    state: list[tuple[str, str]] = field(default_factory=lambda: [("running", "")])
    lockstep: bool = False

    def log(self, message: str, level: int = 6, facility: int = 0) -> None:
        """The kernel logs a line now (kmsg-escaped as the kernel would not need here)."""
        ts = self.clock.mono_us()
        with open(self.kmsg, "ab") as f:
            f.write(b"%d,%d,%d,-;%s\n" % (facility * 8 + level, self.seq, ts, message.encode()))
        self.seq += 1

    def emit(self, kind: Kind, data: Payload, urgent: bool = False) -> None:
        self.rec.emit(kind, data, urgent)

    def run(self, seconds: float, *, every: float = 0.25) -> None:
        """Let time pass with the recorder looping (heartbeats fall due as configured)."""
        steps = max(1, round(seconds / every))
        for _ in range(steps):
            self.clock.advance(seconds / steps)
            self.rec.step()
            self.settle()
        self.rec.sync()

    def settle(self) -> None:
        """Let incident snapshots finish: they run in real threads, while this clock is fake.

        Waited for without a deadline that a loaded machine can pass (a capture that ended
        after the played boot moved on would change what the ring holds); one still running
        after a minute is a hung reader, and says so."""
        if self.rec.incidents is not None:
            if self.lockstep:
                self.rec.incidents.tick()
            for cap in list(self.rec.incidents.captures.running.values()):
                if cap.thread.ident is not None:  # registered just before it starts
                    cap.thread.join(SETTLE_BOUND_S)
                    if cap.thread.is_alive():
                        raise AssertionError(f"capture {cap.name} still running after a minute")

    def step(self) -> None:
        self.rec.step()
        self.rec.step()

    def die(self) -> None:
        """Power cut, freeze or reset: no stop record; what was handed over is durable."""
        self.rec.step()
        self.rec.step()  # a file source hands out its last record once nothing new came
        self.settle()
        self.rec.close()

    def shutdown(self, *, reboot: bool = False) -> None:
        """systemd stops the service during a system shutdown."""
        self.rec.step()
        self.state[0] = ("stopping", "reboot.target" if reboot else "poweroff.target")
        self.rec.finish("SIGTERM")

    def stop_service_only(self) -> None:
        """An operator stops kmsgd while the system keeps running."""
        self.rec.step()
        self.rec.finish("SIGTERM")


class Machine:
    """A machine whose boots are recorded into one ring under `root`."""

    def __init__(self, root: Path, *, heartbeat_s: float = 1.0, lockstep: bool = False) -> None:
        self.root = root
        self.ring = root / "ring"
        self.sys = root / "sys"
        self.sys.mkdir(parents=True, exist_ok=True)
        self.etc = root / "etc"
        self.etc.mkdir(exist_ok=True)
        (self.etc / "machine-id").write_text(MACHINE_ID + "\n")
        self.heartbeat_s = heartbeat_s
        self.lockstep = lockstep
        self.wall = float(T0)
        self.boots: list[BootRun] = []

    def boot(
        self,
        *,
        after_s: float = 0.0,
        uptime_s: float = 8.0,
        early: tuple[str, ...] = ("Linux version 6.8.0-test",),
        config: dict[str, Any] | None = None,
        boot_id: str | None = None,
    ) -> BootRun:
        """Power on `after_s` seconds after the previous boot's last moment; the kernel has
        logged `early` before kmsgd starts `uptime_s` seconds into the boot."""
        if self.boots:
            self.wall = self.boots[-1].clock.wall + after_s
        n = len(self.boots)
        boot_id = str(uuid.UUID(boot_id) if boot_id else uuid.uuid4())
        proc = make_proc(self.root / f"proc{n}", boot_id, uptime_s=uptime_s)
        (proc / "stat").write_text(f"btime {int(self.wall)}\n")
        clock = FakeClock(self.wall, 0.0)
        kmsg = self.root / f"kmsg{n}"
        kmsg.touch()
        cfg = Config(
            ring=str(self.ring),
            ring_size=4 << 20,
            kmsg=str(kmsg),
            proc_root=proc,
            sys_root=self.sys,
            etc_root=self.etc,
            heartbeat_s=self.heartbeat_s,
            lock_memory=False,
            apply_sysctl=False,
            sensors=False,
            **(config or {}),
        )
        state: list[tuple[str, str]] = [("running", "")]
        for line in early:
            _append(kmsg, clock, line)
        clock.advance(uptime_s)
        rec = Recorder(cfg, _Silent(), lambda _s: None, clock=clock, system_state=lambda: state[0])
        if self.lockstep and rec.incidents is not None:
            _lockstep(rec.incidents, clock)
        run = BootRun(
            rec,
            clock,
            kmsg,
            uuid.UUID(boot_id).hex,
            seq=len(early),
            state=state,
            lockstep=self.lockstep,
        )
        rec.start()
        rec.step()
        rec.step()  # a file source hands out its last record once nothing new came
        rec.sync()
        self.boots.append(run)
        return run


def _lockstep(incidents: IncidentMode, clock: FakeClock) -> None:
    """Incident mode without its thread, on the wound clock, one capture at a time
    (BootRun.settle gives it its turn)."""
    incidents.clock = incidents.captures.clock = lambda: clock.mono_us() / 1e6
    incidents.start = lambda: None  # type: ignore[method-assign]
    captures = incidents.captures
    start = Captures.start

    def one_at_a_time(what: CaptureKind, *args: Any) -> bool:
        started = start(captures, what, *args)
        if started:
            captures.running[what].thread.join()
        return started

    captures.start = one_at_a_time  # type: ignore[method-assign]


def _append(kmsg: Path, clock: FakeClock, line: str) -> None:
    seq = kmsg.read_bytes().count(b"\n")
    with open(kmsg, "ab") as f:
        f.write(b"6,%d,%d,-;%s\n" % (seq, clock.mono_us(), line.encode()))
        clock.advance(0.01)
