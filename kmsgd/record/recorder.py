"""`kmsgd run`: follow /dev/kmsg into the ring, with heartbeats, until SIGTERM/SIGINT.

The main thread only reads kmsg, stamps records and hands them to the committer thread;
it never waits on the disk or on a sensor. What the daemon needs while the machine runs out
of memory is set up before the loop: memory locked, no fork on the hot path.
"""

from __future__ import annotations

import contextlib
import os
import select
import signal
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from kmsgd import __version__
from kmsgd.config import Config
from kmsgd.record import hostenv, incident_mode
from kmsgd.record.committer import Committer
from kmsgd.record.kmsgpump import Shed, open_source
from kmsgd.record.procfs import BootIdentity, read_identity
from kmsgd.ring.frame import encode_payload
from kmsgd.ring.payloads import Payload
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Boot, Heartbeat, Kind, Lost, LostReason, Stop, peek
from kmsgd.ring.writer import RingWriter

THREAD_STACK = 256 * 1024
BATCH = 256  # kernel records handed to the committer under one lock
SWITCH_INTERVAL_S = 0.0005


class Clock:
    """The three clocks a heartbeat records; tests pass one they can wind forward."""

    def wall_us(self) -> int:
        return time.time_ns() // 1000

    def mono_us(self) -> int:
        return time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000

    def boottime_us(self) -> int:
        return time.clock_gettime_ns(time.CLOCK_BOOTTIME) // 1000


@dataclass
class _SeqTracker:
    """Kernel sequence numbers: what we have stored, what we expect next."""

    stored: int  # highest seq already in the ring for this boot (-1: none)
    expected: int | None = None
    overrun: bool = False
    shed: int = 0  # records the pump shed since the last one stored (kmsgpump.Shed) ...
    shed_first: int = -1  # ... from this seq on


class Recorder:
    def __init__(
        self,
        cfg: Config,
        log: Any,
        notify: Callable[[str], None],
        *,
        clock: Clock | None = None,
        system_state: Callable[[], tuple[str, str]] = hostenv.system_state,
    ) -> None:
        threading.stack_size(THREAD_STACK)  # before any thread exists: locked memory is precious
        # The kmsg loop blocks in read() between records, and each return waits for the GIL
        # while the committer encodes a storm's batch: at the default 5 ms switch interval
        # that starves the loop and the kernel overwrites records (measured: bench storms).
        sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.cfg = cfg
        self.clock = clock or Clock()
        self.system_state = system_state
        self._next_beat = 0
        self.log = log
        self.notify = notify
        self.identity: BootIdentity = read_identity(cfg.proc_root, cfg.etc_root)
        self.boot_id = bytes.fromhex(self.identity.boot_id)
        # Forked here, before any thread: the pump process that drains a kmsg device.
        self.kmsg = open_source(cfg.kmsg, size=cfg.kmsg_buffer_bytes, lock_memory=cfg.lock_memory)
        self.writer = RingWriter(
            cfg.ring, size=cfg.ring_size, replace_corrupt=True, align=cfg.ring_layout.align
        )
        self.ring_replaced = ""
        if self.writer.replaced is not None:
            # Loud: the earlier boots are in the moved file, not in the ring. The boot record
            # carries it too, so the report on this boot says so (Boot.ring_replaced).
            moved = self.writer.replaced
            self.ring_replaced = f"{cfg.ring}: {moved.why}; moved to {moved.moved_to}"
            log.error(
                "ring_replaced",
                ring=cfg.ring,
                problem=moved.why,
                moved_to=moved.moved_to,
                effect="earlier boots are only in the moved file; recording into a new ring",
            )
        self.seq = _SeqTracker(stored=_stored_kernel_seq(cfg.ring, self.identity.boot_id))
        self.committer = Committer(
            self.writer,
            self.boot_id,
            flush_s=cfg.flush_s,
            header_every_s=cfg.header_every_s,
            max_pending_bytes=cfg.max_pending_bytes,
            log=log,
        )
        self.incidents = incident_mode.build(cfg, self.emit, self.committer, log)
        self.importing = True
        self.dropped_first: int | None = None
        self.dropped = 0
        self.lost_total = 0
        self._stop_signal: str | None = None

    def emit(self, kind: Kind, data: Payload, urgent: bool) -> None:
        """Hand a non-kernel record to the ring (sources call this from any thread)."""
        payload = encode_payload(kind, data)
        self.committer.put(kind, payload, urgent=urgent, wall_us=self.clock.wall_us())
        if self.incidents is not None:
            self.incidents.observe(kind, data, len(payload))

    def start(self) -> None:
        """Begin recording: the committer thread and the `boot` record."""
        self.committer.start()
        self._write_boot()
        self._next_beat = self.clock.mono_us()
        if self.incidents is not None:
            self.incidents.start()

    def step(self) -> None:
        """One turn of the loop: everything kmsg has now, and a heartbeat when one is due."""
        self._drain_kmsg()
        now = self.clock.mono_us()
        if now >= self._next_beat:
            if self.incidents is not None:  # a loop that wakes late is a symptom itself
                self.incidents.heartbeat_late((now - self._next_beat) / 1e6)
            self._heartbeat()
            self._next_beat = now + int(self.cfg.heartbeat_s * 1e6)

    def run(self) -> int:
        wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
        signal.set_wakeup_fd(wake_w)
        for sig in (signal.SIGTERM, signal.SIGINT):
            signal.signal(sig, self._on_signal)
        self.start()
        extra = hostenv.prepare(
            self.cfg, self.emit, self.log, self._stats, self.incidents, sync=self._sync_briefly
        )
        if self.cfg.lock_memory:
            hostenv.lock_memory(self.log)
        poller = select.poll()
        poller.register(wake_r, select.POLLIN)
        if not self.kmsg.is_regular:
            poller.register(self.kmsg.fd, select.POLLIN | select.POLLPRI)
        self.notify("READY=1")
        self.log.info(
            "recording",
            ring=self.cfg.ring,
            boot_id=self.identity.boot_id,
            torn_bytes_skipped=self.writer.torn_bytes,
        )
        while self._stop_signal is None:
            self.step()
            wait_ms = (self._next_beat - self.clock.mono_us()) // 1000
            if self.kmsg.arm():
                poller.poll(max(0, min(wait_ms, 100 if self.kmsg.is_regular else wait_ms)))
            with contextlib.suppress(OSError):
                os.read(wake_r, 64)
        self.kmsg.stop()  # the pump's last drain of the device
        self._drain_kmsg()
        self._flush_drops()  # records dropped last are counted too
        if self.incidents is not None:
            self.incidents.stop()  # an open incident ends with reason "stopped"
        for stop in extra:
            stop()
        return self.finish(self._stop_signal)

    def _stats(self) -> tuple[int, int]:
        return self.writer.size, self.lost_total

    def _on_signal(self, signum: int, _frame: object) -> None:
        self._stop_signal = signal.Signals(signum).name

    def _write_boot(self) -> None:
        ident = self.identity
        boot = Boot(
            boot_id=ident.boot_id,
            kernel=ident.kernel,
            cmdline=ident.cmdline,
            boot_wall_us=ident.boot_wall_us,
            version=__version__,
            hostname=ident.hostname,
            machine_id=ident.machine_id,
            uptime_us=ident.uptime_us,
            pid=os.getpid(),
            ring_replaced=self.ring_replaced,
        )
        self.emit(Kind.BOOT, boot, urgent=True)

    def _drain_kmsg(self) -> None:
        """Everything kmsg holds now, handed to the committer in batches (one lock each); a
        record at the urgent level goes at once, with everything before it."""
        urgent_level = self.cfg.urgent_level
        seq = self.seq
        batch: list[tuple[Kind, int, bytes]] = []
        watch = self.incidents.see_kernel if self.incidents is not None else None
        for raw in self.kmsg.read_available():
            if not isinstance(raw, bytes):
                if isinstance(raw, Shed):
                    self._hand_over(batch, urgent=False)
                    self.lost_total += raw.count
                    # not urgent: a storm's warnings are, and they take this along
                    self.emit(
                        Kind.LOST, Lost(raw.count, raw.first_seq, LostReason.SHED), urgent=False
                    )
                    if not seq.shed:
                        seq.shed_first = raw.first_seq
                    seq.shed += raw.count
                else:
                    seq.overrun = True
                continue
            if watch is not None and raw[1:2] == b",":  # a kernel record: facility 0
                watch(raw, self.importing)
            n, level = peek(raw)
            if n >= 0:
                if n <= seq.stored:
                    continue  # a restart within the same boot: already in the ring
                if seq.expected is None:  # the first record of this run
                    expected = seq.stored + 1
                    reason = LostReason.RESTART if seq.stored >= 0 else LostReason.BEFORE_START
                else:
                    expected = seq.expected
                    reason = LostReason.OVERRUN if seq.overrun else LostReason.GAP
                missing = n - expected - seq.shed  # those the pump shed are counted already
                if missing > 0:
                    self._hand_over(batch, urgent=False)
                    if reason != "before_start":  # the fleet metric: loss while recording
                        self.lost_total += missing
                    first = expected + seq.shed if seq.shed_first == expected else expected
                    self.emit(Kind.LOST, Lost(missing, first, reason), urgent=True)
                seq.expected = n + 1
                seq.overrun = False
                seq.shed = 0
            wall = self.clock.wall_us()
            if self.importing:
                ts = _ts_usec(raw)
                if ts is not None:
                    wall = self.identity.boot_wall_us + ts
            batch.append((Kind.KERNEL, wall, raw))
            if level <= urgent_level or len(batch) >= BATCH:
                self._hand_over(batch, urgent=level <= urgent_level)
        self._hand_over(batch, urgent=False)
        if self.kmsg.caught_up():  # records from now on are live, not the kernel's backlog
            self.importing = False

    def _hand_over(self, batch: list[tuple[Kind, int, bytes]], *, urgent: bool) -> None:
        """Give the batch to the committer (and empty it), or count it lost when the disk has
        refused writes for so long that memory is full."""
        if not batch:
            return
        if self.committer.over_memory_bound():
            for _, _, raw in batch:
                self._count_drop(peek(raw)[0])
        else:
            self._flush_drops()
            self.committer.put_many(list(batch), urgent=urgent)
        batch.clear()

    def _count_drop(self, seq_no: int) -> None:
        if self.dropped == 0:
            self.dropped_first = seq_no
            self.log.error("dropping_kernel_records", reason="ring unwritable, memory bound hit")
        self.dropped += 1

    def _flush_drops(self) -> None:
        if self.dropped:
            first = self.dropped_first if self.dropped_first is not None else -1
            self.lost_total += self.dropped
            self.emit(Kind.LOST, Lost(self.dropped, first, LostReason.DROPPED), urgent=True)
            self.dropped = 0

    def _heartbeat(self) -> None:
        beat = Heartbeat(
            wall_us=self.clock.wall_us(),
            mono_us=self.clock.mono_us(),
            boottime_us=self.clock.boottime_us(),
            kernel_seq=(self.seq.expected - 1) if self.seq.expected is not None else None,
        )
        # Heartbeats bound the time of death, so they are synced at once (one fdatasync/s).
        self.emit(Kind.HEARTBEAT, beat, urgent=True)
        # Tell systemd we are alive only while the disk keeps up: a hung fsync should show.
        if self.committer.failing is None and time.monotonic() - self.committer.last_commit < 30:
            self.notify("WATCHDOG=1")
        status = f"boot {self.identity.boot_id[:8]}, serial {self.committer.durable_serial}"
        self.notify(
            f"STATUS={status}"
            + (f", DISK FAILING: {self.committer.failing}" if self.committer.failing else "")
        )

    def finish(self, signal_name: str) -> int:
        """Clean stop: a `stop` record saying whether the system is going down, then close."""
        self.notify("STOPPING=1")
        state, detail = self.system_state()
        shutting_down = state in ("stopping", "offline")
        stop = Stop(signal_name, shutting_down, state, detail)
        self.emit(Kind.STOP, stop, urgent=True)
        complete = self.close()
        self.log.info(
            "stopped",
            signal=stop.signal,
            shutting_down=shutting_down,
            system_state=state,
            all_records_durable=complete,
        )
        return 0

    def _sync_briefly(self) -> bool:
        """sync(), waiting at most 2 s: the kmsg loop has not started yet when it is asked."""
        return self.committer.flush(timeout_s=2.0)

    def sync(self) -> bool:
        """Block until everything handed to the ring so far is durable (tests, tools)."""
        return self.committer.flush()

    def close(self) -> bool:
        """Make everything handed over durable and release the ring; no `stop` record.

        Scenario tests call this alone to play a machine that died: what was durable stays.
        """
        if self.incidents is not None:
            self.incidents.stop(end=False)  # no `end` record: a machine that died writes none
        complete = self.committer.close()
        self.writer.close()
        self.kmsg.close()  # a pump is stopped first
        return complete


def _ts_usec(raw: bytes) -> int | None:
    head = raw.split(b";", 1)[0].split(b",", 3)
    try:
        return int(head[2])
    except (IndexError, ValueError):
        return None


def _stored_kernel_seq(ring_path: str, boot_id: str) -> int:
    """Highest kernel seq the ring already holds for this boot (-1 if none): after a restart
    of the daemon we continue from there instead of storing the kernel buffer twice. Found
    from the newest frames of this boot, never from a header hint: a ring lapped within the
    boot has overwritten the boot's start (tests/record/test_restart.py)."""
    with RingReader(ring_path) as reader:
        last = reader.last_frame_of(boot_id, Kind.KERNEL)
    return peek(last.payload)[0] if last is not None else -1
