"""/dev/kmsg: the record format and a reader that keeps its ABI promises.

Record format (Documentation/ABI/testing/dev-kmsg):
    "<prio>,<seq>,<ts_usec>,<flag>[,more...];<text>\\n" followed by " KEY=value\\n" lines.
One read() returns exactly one record; a buffer smaller than the record loses it (EINVAL
after the kernel already advanced), so we always read with CONSOLE_EXT_LOG_MAX + 1 bytes.
"""

from __future__ import annotations

import errno
import os
import select
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from kmsgd.errors import SourceUnavailable

READ_SIZE = 8192 + 1  # CONSOLE_EXT_LOG_MAX, plus one so a maximal record never gives EINVAL


@dataclass(frozen=True, slots=True)
class Overrun:
    """The kernel overwrote records before we read them (read() gave EPIPE)."""


class KmsgReader:
    """Follows /dev/kmsg (or a FIFO or plain file with the same format, for tests).

    Opened once and kept open: if printk_devkmsg is later set to `off`, a reopen would
    fail with EPERM while an open fd keeps reading.
    """

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            st = os.stat(path)
            self.is_device = stat.S_ISCHR(st.st_mode)
            self.is_regular = stat.S_ISREG(st.st_mode)
            # O_RDWR on a FIFO: we count as a writer too, so we never see EOF when tests close it.
            mode = os.O_RDWR if stat.S_ISFIFO(st.st_mode) else os.O_RDONLY
            self.fd = os.open(path, mode | os.O_NONBLOCK | os.O_CLOEXEC)
        except FileNotFoundError:
            raise SourceUnavailable(f"{path}: no such file", hint="is this a Linux host?") from None
        except PermissionError:
            raise SourceUnavailable(
                f"{path}: permission denied",
                hint="run as root or with CAP_SYSLOG; check kernel.dmesg_restrict",
            ) from None
        except OSError as err:
            raise SourceUnavailable(f"{path}: {err.strerror}") from None
        self._pending = b""  # stream mode: bytes not yet split into records
        self._caught_up = False
        self._poll = select.poll()
        self._poll.register(self.fd, select.POLLIN | select.POLLPRI)

    def close(self) -> None:
        os.close(self.fd)

    def stop(self) -> None:
        """Nothing to stop: this reader is the daemon's own (KmsgPump has a process)."""

    def arm(self) -> bool:
        """Always safe to sleep: poll() on the fd itself wakes us (KmsgPump needs this)."""
        return True

    def caught_up(self) -> bool:
        """True once a read found nothing new: the kernel's backlog at start is behind us."""
        return self._caught_up

    def wait(self, timeout_s: float) -> None:
        """Block until a record may be ready, or the timeout passes."""
        if self.is_regular:
            # A regular file always polls readable; sleep so EOF is not a busy loop.
            select.select([], [], [], timeout_s)
        else:
            self._poll.poll(int(timeout_s * 1000))

    def read_available(self) -> Iterator[bytes | Overrun]:
        """Yield every complete record available now (raw bytes), and Overrun markers."""
        got = False
        for item in self._read_device() if self.is_device else self._read_stream():
            got = got or isinstance(item, bytes)
            yield item
        self._caught_up = self._caught_up or not got

    def _read_device(self) -> Iterator[bytes | Overrun]:
        while True:
            try:
                raw = os.read(self.fd, READ_SIZE)
            except BlockingIOError:
                return
            except BrokenPipeError:
                yield Overrun()
                continue
            except OSError as err:
                if err.errno == errno.EINTR:
                    continue
                raise
            if not raw:
                return
            yield raw

    def _read_stream(self) -> Iterator[bytes | Overrun]:
        # A file or FIFO has no record boundaries: a record is a header line plus the
        # continuation lines (starting with a space) after it, so the newest record is held
        # back until the next header arrives or the writer goes quiet.
        got = b""
        while chunk := self._read_chunk():
            got += chunk
        if not got:
            if self._pending.endswith(b"\n"):
                raw, self._pending = self._pending, b""
                yield raw
            return
        *lines, tail = (self._pending + got).split(b"\n")
        current: list[bytes] = []
        for line in lines:
            if line.startswith(b" ") and current:
                current.append(line)
                continue
            if current:
                yield b"\n".join(current) + b"\n"
            current = [line] if line else []
        self._pending = (b"\n".join(current) + b"\n" if current else b"") + tail

    def _read_chunk(self) -> bytes:
        try:
            return os.read(self.fd, 65536)
        except BlockingIOError:
            return b""
