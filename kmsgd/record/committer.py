"""The group-commit thread: the only code that waits on the disk.

The kmsg loop hands records over with `put` and never blocks on I/O. Urgent records wake
the thread at once (one fdatasync covers everything queued so far); the rest wait at most
`flush_s`. A backlog larger than one commit may place is committed in parts, each at most
half the ring's data area: placed-but-unsynced frames never lap onto each other, and the ring
overwrites its oldest records, never the newest. When the disk refuses writes, records stay in
memory up to `max_pending_bytes`, the error is logged once per episode, and commits are
retried every second.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any

from kmsgd.ring.records import Kind
from kmsgd.ring.writer import RingWriter

RETRY_S = 1.0


class Committer(threading.Thread):
    def __init__(
        self,
        writer: RingWriter,
        boot_id: bytes,
        *,
        flush_s: float,
        header_every_s: float,
        max_pending_bytes: int,
        log: Any,
    ) -> None:
        super().__init__(name="kmsgd-commit", daemon=True)
        self.writer = writer
        self.boot_id = boot_id
        self.flush_s = flush_s
        self.header_every_s = header_every_s
        # Memory, not the ring, bounds the backlog: a healthy disk takes any backlog in
        # commits of `commit_bytes` (a bound of half the ring made a 1 MiB ring drop the
        # newest records of a one-second burst; tests/record/test_large_commits.py).
        self.max_pending_bytes = max_pending_bytes
        # Placed-but-unsynced frames must never lap the ring onto each other.
        self.commit_bytes = writer.data_bytes // 2
        self.log = log
        self._queue: deque[tuple[Kind, int, bytes]] = deque()
        self._cond = threading.Condition()
        self._urgent = False
        self._oldest: float | None = None  # monotonic time the oldest queued record arrived
        self._closing = False
        self.failing: str | None = None  # the error while the disk refuses writes
        self.queued_bytes = 0
        self._queued_total = 0  # records ever handed over ...
        self._durable_total = 0  # ... and made durable
        self._retried = 0  # placed in the writer by a commit that failed
        self.durable_serial = writer.durable_serial
        self.last_commit = time.monotonic()
        # incident mode: until this monotonic time every record is urgent (no flush window)
        self.urgent_until = 0.0

    def backlog_bytes(self) -> int:
        """Bytes not yet durable (unlocked read: an estimate for back-pressure)."""
        return self.queued_bytes + self.writer.pending_bytes

    def over_memory_bound(self) -> bool:
        """The backlog has reached `max_pending_bytes`: only a disk that refuses writes (or
        one slower than the source for that many bytes) gets here."""
        return self.backlog_bytes() > self.max_pending_bytes

    def put(self, kind: Kind, payload: bytes, *, urgent: bool, wall_us: int | None = None) -> None:
        wall = time.time_ns() // 1000 if wall_us is None else wall_us
        urgent = urgent or (self.urgent_until > 0 and time.monotonic() < self.urgent_until)
        with self._cond:
            self._queue.append((kind, wall, payload))
            self._queued_total += 1
            self.queued_bytes += len(payload)
            if self._oldest is None:
                self._oldest = time.monotonic()
            if urgent and not self._urgent:
                self._urgent = True
                self._cond.notify()

    def put_many(self, items: list[tuple[Kind, int, bytes]], *, urgent: bool) -> None:
        """Hand over (kind, wall_us, payload) records at once: one lock for a storm's batch."""
        if not items:
            return
        urgent = urgent or (self.urgent_until > 0 and time.monotonic() < self.urgent_until)
        with self._cond:
            self._queue.extend(items)
            self._queued_total += len(items)
            self.queued_bytes += sum(len(p) for _, _, p in items)
            if self._oldest is None:
                self._oldest = time.monotonic()
            if urgent and not self._urgent:
                self._urgent = True
                self._cond.notify()

    def flush(self, timeout_s: float = 10.0) -> bool:
        """Wait until every record handed over so far is durable; False on timeout."""
        with self._cond:
            target = self._queued_total
            self._urgent = True
            self._cond.notify_all()
            return self._cond.wait_for(lambda: self._durable_total >= target, timeout_s)

    def close(self, timeout_s: float = 10.0) -> bool:
        """Commit everything queued, stop the thread; False if the disk did not take it all."""
        with self._cond:
            self._closing = True
            self._cond.notify()
        self.join(timeout_s)
        # Records, not the header: a header write that failed last costs hints only (the
        # injected-failure test found a clean close reported incomplete for it).
        return not self.is_alive() and self._durable_total >= self._queued_total

    def run(self) -> None:
        last_header = time.monotonic()
        while True:
            batch, closing = self._next_batch()
            cut = self.writer.cut_records
            for kind, wall, payload in batch:
                self.writer.add(kind, self.boot_id, wall, payload)
            if self.writer.cut_records != cut:
                self.log.warning(
                    "record_cut",
                    records=self.writer.cut_records - cut,
                    max_payload=self.writer.max_payload,
                    effect="too large for the ring: kept cut, with a marker",
                )
            if self._commit():
                with self._cond:
                    self._durable_total += len(batch) + self._retried
                    self._retried = 0
                    self._cond.notify_all()
            else:
                self._retried += len(batch)
            now = time.monotonic()
            if self.failing is None and (closing or now - last_header >= self.header_every_s):
                try:
                    self.writer.write_header()
                    last_header = now
                except OSError as err:
                    self._failed(err)
            if closing and (not batch if self.failing is not None else not self._queue):
                return

    def _next_batch(self) -> tuple[list[tuple[Kind, int, bytes]], bool]:
        with self._cond:
            while not self._closing and not self._urgent:
                now = time.monotonic()
                due = self.flush_s if self._oldest is None else self._oldest + self.flush_s - now
                if self.failing is not None:
                    due = min(due, RETRY_S)
                if due <= 0:
                    break
                self._cond.wait(due)
                if self.failing is not None and not self._urgent:
                    break
            batch = self._take(self.commit_bytes - self.writer.pending_bytes)
            # What did not fit this commit goes in the next one at once.
            self._urgent = bool(self._queue) and self.failing is None
            return batch, self._closing

    def _take(self, room: int) -> list[tuple[Kind, int, bytes]]:
        """The oldest queued records whose frames fit in `room` bytes (lock held). None while
        a failed commit's frames fill it: they stay queued until the disk recovers."""
        batch: list[tuple[Kind, int, bytes]] = []
        queue, size = self._queue, self.writer.frame_size
        while queue and room >= (need := size(len(queue[0][2]))):
            item = queue.popleft()
            batch.append(item)
            room -= need
            self.queued_bytes -= len(item[2])
        if not queue:
            self.queued_bytes = 0
            self._oldest = None
        elif batch:
            self._oldest = time.monotonic()  # the rest waits for the next commit only
        return batch

    def _commit(self) -> bool:
        try:
            self.durable_serial = self.writer.commit()
        except OSError as err:
            self._failed(err)
            return False
        self.last_commit = time.monotonic()
        if self.failing is not None:
            self.log.warning("ring_writable_again", ring=self.writer.path, was=self.failing)
            self.failing = None
        return True

    def _failed(self, err: OSError) -> None:
        text = f"{type(err).__name__}: {err.strerror or err}"
        if self.failing != text:
            self.log.error(
                "ring_write_failed",
                ring=self.writer.path,
                error=text,
                pending_bytes=self.backlog_bytes(),
                action="keeping records in memory, retrying every second",
            )
        self.failing = text
