"""The kmsg pump: a process started with the daemon that only drains /dev/kmsg into memory.

Why a process: the kernel keeps ~4,000 records here (a 128 KiB log buffer,
docs/performance.md), 50 ms of an 80,000 lines/s storm. In one interpreter the kmsg loop
waits for the GIL after every read() while the commit thread encodes frames, and the kernel
overwrites what it has not read. The pump has an interpreter of its own and does almost no
Python work a record: one readv() straight into a shared buffer and an 8-byte publish. The
daemon (`KmsgPump`, the same interface as `KmsgReader`) parses and stamps them in batches.

It is forked once, in the daemon's constructor, before any thread exists: a box that is
dying may be unable to fork (docs/architecture.md), so nothing is forked later. It dies with
the daemon (PR_SET_PDEATHSIG), so a SIGKILL of the daemon leaves no reader behind.

When the daemon falls behind and the buffer fills past three quarters, the pump sheds: it
keeps a record whose level is warning or worse, a kernel record the incident triggers want
(kmsgd/record/triggers.py) and the first `KEEP_PER_KIND` lines of each message kind, and
counts the rest exactly; the count reaches the ring as a `lost` record (reason "shed").
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
import platform
import select
import signal
import struct
import time
from collections.abc import Iterator
from dataclasses import dataclass
from mmap import mmap

from kmsgd.record import triggers
from kmsgd.record.kmsg import READ_SIZE, KmsgReader, Overrun

BUFFER_BYTES = 32 << 20  # ~240,000 records of 140 bytes: 3 s of an 80,000 lines/s storm
KEEP_PER_KIND = 4  # a message kind: its priority and first 40 bytes of text without digits
MAX_KINDS = 4096
NAP_S = 0.001  # in a storm the pump reads in batches, at most 1,000 wake-ups a second
RESTART_AT = 1 << 20  # an empty buffer starts over at 0, so a daemon that keeps up touches 1 MiB
# control words (8 bytes each, at the start of the mapping); each has one writer
HEAD, TAIL, WAITING, LIVE, JUMP_FROM, JUMP_TO = range(6)  # TAIL: the daemon's; WAITING: both
# LIVE: 1 + the position where the pump first found the device empty (the backlog's end);
# JUMP_FROM/JUMP_TO: the pump started over at 0 when the buffer was empty at JUMP_FROM
# (a daemon whose tail is there goes on at JUMP_TO); published before HEAD (x86-TSO keeps
# stores in order, so a daemon that sees the new HEAD sees them too)
CTL_BYTES = 64
ENTRY = struct.Struct("<IIQQ")  # length, flags, shed count, first shed seq
F_OVERRUN, F_WRAP = 1, 2
PR_SET_PDEATHSIG = 1
TSO_MACHINES = ("x86_64", "amd64", "i686", "i386")  # platform.machine() of x86 CPUs


@dataclass(frozen=True, slots=True)
class Shed:
    """The pump read `count` records from `first_seq` on and dropped them (buffer full)."""

    count: int
    first_seq: int


def _align(n: int) -> int:
    return (n + 7) & ~7


NEED = ENTRY.size + _align(READ_SIZE)  # room one read needs


class KmsgPump:
    """/dev/kmsg read by a pump process; the daemon's side of the shared buffer."""

    is_regular = False
    is_device = True

    def __init__(self, path: str, *, size: int = BUFFER_BYTES, lock_memory: bool = False) -> None:
        self.path = path
        source = KmsgReader(path)  # the errors of an unreadable device, as before
        self.size = size
        self._mm = mmap(-1, CTL_BYTES + size)  # MAP_SHARED | MAP_ANONYMOUS: the child sees it
        self._view = memoryview(self._mm)
        self._ctl = self._view[:CTL_BYTES].cast("Q")
        self._data = self._view[CTL_BYTES:]
        self.fd = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        parent = os.getpid()
        self.pid = os.fork()
        if self.pid == 0:  # the pump; never returns
            code = 1
            try:
                code = _pump(source.fd, self._data, self._ctl, self.fd, size, lock_memory, parent)
            finally:
                os._exit(code)
        source.close()

    def arm(self) -> bool:
        """Ask the pump for a wake-up (the eventfd); False when records are already waiting,
        so the caller must not sleep. The eventfd read between the store and the check is a
        syscall that takes a lock: a full barrier, so the pump cannot miss WAITING while we
        miss its HEAD (the pump checks WAITING after a syscall too)."""
        self._ctl[WAITING] = 1
        with contextlib.suppress(BlockingIOError):
            os.eventfd_read(self.fd)
        return self._ctl[HEAD] == self._ctl[TAIL]

    def caught_up(self) -> bool:
        """True once every record of the kernel's backlog at start has been read here."""
        live = self._ctl[LIVE]
        return live != 0 and self._ctl[TAIL] >= live - 1

    def wait(self, timeout_s: float) -> None:
        if self.arm():
            select.select([self.fd], [], [], timeout_s)

    def read_available(self) -> Iterator[bytes | Overrun | Shed]:
        """Every record the pump has published, in order, with its markers."""
        self._ctl[WAITING] = 0
        data, ctl, size = self._data, self._ctl, self.size
        unpack = ENTRY.unpack_from
        tail = ctl[TAIL]
        while (head := ctl[HEAD]) != tail:
            done = 0
            if tail == ctl[JUMP_FROM]:
                tail = ctl[JUMP_TO]
            while tail != head:
                off = tail % size
                if size - off < ENTRY.size:
                    tail += size - off
                    continue
                length, flags, shed, first = unpack(data, off)
                if flags & F_WRAP:
                    tail += size - off
                    continue
                if flags & F_OVERRUN:
                    yield Overrun()
                if shed:
                    yield Shed(shed, first)
                start = off + ENTRY.size
                raw = bytes(data[start : start + length])
                tail += ENTRY.size + _align(length)
                done += 1
                if done == 256:  # give the room back to the pump as we go
                    ctl[TAIL] = tail
                    done = 0
                yield raw
            ctl[TAIL] = tail

    def stop(self) -> None:
        """Stop the pump after its last drain of the device, and reap it."""
        if self.pid > 0:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.pid, signal.SIGTERM)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(self.pid, 0)
            self.pid = 0

    def close(self) -> None:
        """Stop the pump and free the shared buffer."""
        self.stop()
        os.close(self.fd)
        self._data.release()
        self._ctl.release()
        self._view.release()
        self._mm.close()


def open_source(
    path: str, *, size: int = BUFFER_BYTES, lock_memory: bool = False, machine: str = ""
) -> KmsgReader | KmsgPump:
    """The kmsg source for the daemon: a pump for the character device, the in-process
    reader for a FIFO or file (tests and benchmarks feed those), and for the device on a CPU
    that may reorder stores: the pump publishes a record with plain stores and relies on x86's
    total store order to make the record visible before HEAD (see the control words above);
    Python has no release/acquire fence to make that hold on arm64 (Grace, Ampere boxes),
    where the in-process reader is slower in a storm but never reads a record half-written."""
    probe = KmsgReader(path)
    device = probe.is_device
    if not device or (machine or platform.machine()) not in TSO_MACHINES:
        return probe
    probe.close()
    return KmsgPump(path, size=max(size, 32 * NEED) & ~7, lock_memory=lock_memory)


def _pump(
    fd: int, data: memoryview, ctl: memoryview, note: int, size: int, lock: bool, parent: int
) -> int:
    """The pump's loop (in the child): read, publish, and wake the daemon when it sleeps."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # the daemon died before the line above took effect
        return 0
    stop_r, stop_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    stopping: list[int] = []
    signal.set_wakeup_fd(stop_w)  # a SIGTERM wakes the poll below; the handler only notes it
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the daemon handles ^C and stops us
    signal.signal(signal.SIGTERM, lambda sig, _frame: stopping.append(sig))
    if lock:
        libc.mlockall(1 | 2 | 4)  # MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT, as hostenv
    _raise_priority()
    pump = _Pump(fd, data, ctl, note, size)
    poller = select.poll()
    poller.register(fd, select.POLLIN | select.POLLPRI)
    poller.register(stop_r, select.POLLIN)
    last = 0.0
    while True:
        got = pump.drain()  # after a SIGTERM too: what the kernel logged until the daemon stopped
        if stopping:
            return 0
        now = time.monotonic()
        if got and now - last < NAP_S:
            # A storm: records come faster than one wake-up each can take (poll, read, the
            # empty read: ~6 µs a record here). Reading in batches, 1,000 a second, costs
            # about one read() a record; the kernel keeps ~3,300 records, 20 ms at 160,000/s.
            time.sleep(NAP_S)
        else:
            poller.poll()
        last = now


def _raise_priority() -> None:
    """Run before the daemon's threads and the storm's writers whenever a record is waiting.
    SCHED_FIFO at the lowest real-time priority: the pump blocks in poll() between records
    and does ~3 µs of work a record, so it takes a CPU only as long as the kernel logs; the
    kernel's RT throttling (sched_rt_runtime_us) bounds it anyway. Without CAP_SYS_NICE it
    stays where it is."""
    with contextlib.suppress(OSError):
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(1))


class _Pump:
    def __init__(self, fd: int, data: memoryview, ctl: memoryview, note: int, size: int) -> None:
        self.fd, self.data, self.ctl, self.note, self.size = fd, data, ctl, note, size
        self.head = ctl[HEAD]
        self.flags = 0
        self.shed = 0
        self.shed_first = 0
        self.kinds: dict[bytes, int] = {}
        self.scratch = bytearray(READ_SIZE)

    def drain(self) -> int:
        """Read until the device is empty; then wake the daemon if it asked. Records read."""
        fd, data, ctl, size = self.fd, self.data, self.ctl, self.size
        readv, pack = os.readv, ENTRY.pack_into
        reserve = size // 4
        got = -1  # turns of the loop but the last (the empty read): records, about
        while True:
            got += 1
            head = self.head
            off = head % size
            tail = ctl[TAIL]
            if tail == ctl[JUMP_FROM]:
                tail = ctl[JUMP_TO]
            free = size - (head - tail)
            if free == size and off > RESTART_AT:  # empty: start over at 0, less memory
                ctl[JUMP_FROM] = head
                ctl[JUMP_TO] = head = self.head = head + size - off
                ctl[HEAD] = head
                off = 0
            waste = size - off if off + NEED > size else 0
            if free - waste < NEED:
                if not self._read_full():
                    break
                continue
            if waste:  # the entry would straddle the end: mark the rest unused
                if waste >= ENTRY.size:
                    pack(data, off, 0, F_WRAP, 0, 0)
                head = self.head = head + waste
                ctl[HEAD] = head
                off = 0
            start = off + ENTRY.size
            try:
                n = readv(fd, [data[start : start + READ_SIZE]])
            except BlockingIOError:
                break
            except BrokenPipeError:  # the kernel overwrote records we had not read
                self.flags |= F_OVERRUN
                continue
            except InterruptedError:
                continue
            if n == 0:
                break
            if free - waste < reserve and not self._keep(bytes(data[start : start + n])):
                continue
            pack(data, off, n, self.flags, self.shed, self.shed_first)
            self.flags = self.shed = 0
            self.head = head + ENTRY.size + _align(n)
            ctl[HEAD] = self.head
            if self.kinds and free - waste >= size // 2:
                self.kinds.clear()  # the daemon caught up: the next shedding starts afresh
        if not ctl[LIVE]:
            ctl[LIVE] = self.head + 1
        # The EAGAIN read above was a syscall that takes a lock (a full barrier), so this
        # load sees the daemon's WAITING if it could have missed our HEAD (KmsgPump.arm).
        if ctl[WAITING]:
            ctl[WAITING] = 0
            os.eventfd_write(self.note, 1)
        return got

    def _read_full(self) -> bool:
        """The buffer is full: read into scratch, keep nothing, count. False at the end."""
        try:
            n = os.readv(self.fd, [self.scratch])
        except BlockingIOError:
            return False
        except BrokenPipeError:
            self.flags |= F_OVERRUN
            return True
        except OSError as err:
            return err.errno == errno.EINTR
        if n:
            self._count(bytes(self.scratch[:n]))
        return n > 0

    def _keep(self, raw: bytes) -> bool:
        """Shedding: True for a record that matters, else count it (False)."""
        head, _, text = raw.partition(b";")
        prio, _, rest = head.partition(b",")
        value = int(prio) if prio.isdigit() else 15  # unparsable: as a user-space notice
        if value & 7 <= 4 or (value < 8 and triggers.match(raw) is not None):
            return True
        kind = prio + b";" + text[:40].translate(None, b"0123456789")
        seen = self.kinds.get(kind, 0)
        if seen < KEEP_PER_KIND and (seen or len(self.kinds) < MAX_KINDS):
            self.kinds[kind] = seen + 1
            return True
        self._count(raw, rest)
        return False

    def _count(self, raw: bytes, rest: bytes | None = None) -> None:
        if self.shed == 0:
            if rest is None:
                rest = raw.partition(b";")[0].partition(b",")[2]
            seq = rest.partition(b",")[0]
            self.shed_first = int(seq) if seq.isdigit() else -1
        self.shed += 1
