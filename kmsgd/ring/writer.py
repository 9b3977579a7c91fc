"""Appending to the ring: placement, group commit, header hints, recovery on open.

Only one writer per ring (flock). `add` places a frame in memory; `commit` pwrites every
placed frame and fdatasyncs once (group commit). A commit that fails keeps its frames so
the next commit writes them again at the same place.
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import mmap
import os
import stat
import time
from dataclasses import dataclass, field
from typing import Protocol

from kmsgd.errors import RingBusy, RingCorrupt, SourceUnavailable
from kmsgd.ring import frame
from kmsgd.ring import layout as ring
from kmsgd.ring.records import Kind

# New serials after a reopen start this far above the last durable one, so frames that a
# crashed writer wrote but never synced (and that may survive out of order) can never be
# mistaken for successors of the frames written now.
SERIAL_JUMP = 1 << 24
# Commits start on this boundary (docs/ring-format.md, "Commits"): the writer never rewrites a
# sector that holds an acknowledged frame. A test may lower it to show what it prevents.
COMMIT_ALIGN = ring.SECTOR
FILE_MODE = 0o640
DIR_MODE = 0o750


class FileIO(Protocol):
    """The calls a writer makes after opening: `os` itself, or a test's recording layer."""

    def pwrite(self, fd: int, data: bytes | memoryview, offset: int, /) -> int: ...
    def fdatasync(self, fd: int, /) -> None: ...
    def pread(self, fd: int, length: int, offset: int, /) -> bytes: ...


@dataclass(frozen=True, slots=True)
class Replaced:
    """An unusable ring file moved aside at open: where it went, and what was wrong."""

    moved_to: str
    why: str


@dataclass
class _Run:
    """Frames placed contiguously from `offset`, not yet durable."""

    offset: int
    data: bytearray = field(default_factory=bytearray)


class RingWriter:
    def __init__(
        self,
        path: str,
        *,
        size: int,
        io: FileIO = os,
        replace_corrupt: bool = False,
        align: int | None = None,
    ) -> None:
        """Open (or create) the ring and recover its head. An unusable file raises RingCorrupt;
        with `replace_corrupt` (the daemon) it is moved aside for forensics instead and a new
        ring started, `replaced` saying where it went and why. Each commit starts on an
        `align` boundary (default COMMIT_ALIGN; 4096 covers a torn 4 KiB block), which the
        header records for readers."""
        self.path = path
        self.align = align or COMMIT_ALIGN
        if self.align not in ring.UNITS and self.align != COMMIT_ALIGN:
            raise ValueError(f"commit alignment {self.align}: one of {ring.UNITS}")
        self.io = io  # a seam for the power-cut tests (tests/crash), which record every call
        self.replaced: Replaced | None = None
        try:
            head, stale = self._open(size)
        except RingCorrupt as err:
            if not replace_corrupt or not err.replaceable:
                raise
            # refusing would make the service exit and restart every 3 s, recording nothing
            # (tests/record/test_corrupt_ring.py): keep the bytes aside and record anew
            self.replaced = Replaced(_move_aside(path), err.why)
            head, stale = self._open(size)
        if head is None:
            self.pos, self.serial = ring.DATA_START, 0
        else:
            # The head's unit may hold acknowledged frames: start at the next boundary, of the
            # unit it was written with when that one is larger.
            self.pos = self._aligned(head.offset + head.size, max(self.align, self.header.align))
            self.serial = head.serial + SERIAL_JUMP
        self._durable = (head.offset, head.serial) if head else (0, 0)
        if stale:
            for offset in stale:
                _pwrite_all(self.fd, bytes(len(frame.MAGIC)), offset, io)
            io.fdatasync(self.fd)
        self.stale_frames = len(stale)
        self._last = self._durable
        self._runs: list[_Run] = []
        self._new_boots: list[ring.BootHint] = []
        self.pending_bytes = 0
        if self.header.align != self._recorded_align:
            # Before the first commit: a reader must never take a head written at 4 KiB for
            # one written at 512 bytes (it would show a stale frame from the rest of its block).
            self.write_header()

    def _open(self, size: int) -> tuple[frame.RawFrame | None, list[int]]:
        """Open, lock and recover the file: its head and the stale frames above it.

        The path is taken only when it is absent (a new ring is made whole beside it, then
        linked into place), empty, or a ring: any other file, a run of zeros (a sparse file, an
        ISO image, whose first 8 KiB are zero) included, is no ring (RingCorrupt), so the daemon
        moves it aside instead of overwriting it."""
        path = self.path
        self.fd, self.created = _open_locked(path, size)
        st = os.fstat(self.fd)
        if st.st_size == 0:  # an empty file someone made for us (touch): ours to fill
            try:
                _create(self.fd, path, size)
            except OSError:
                os.ftruncate(self.fd, 0)  # give the space back; the next start tries again
                os.close(self.fd)
                raise
            self.created = True
            st = os.fstat(self.fd)
        self.size = st.st_size
        # A frame must fit the data area with room to spare, and a reader refuses a payload
        # over MAX_PAYLOAD: a larger record is cut (frame.cap_payload), never written whole
        # (a 2 MiB record on a 1 MiB ring grew the file and made it unreadable).
        self.data_bytes = self.size - ring.DATA_START
        self.max_payload = min(frame.MAX_PAYLOAD, self.data_bytes // 4 - frame.HEADER_SIZE)
        self.cut_records = 0
        # Mapped for recovery only: a mapping kept open would be locked by mlockall and
        # counted in our RSS, all 64 MiB of it.
        try:
            return self._recover()
        except BaseException:
            os.close(self.fd)  # not a ring: release the file and its lock
            raise

    def _recover(self) -> tuple[frame.RawFrame | None, list[int]]:
        path = self.path
        with mmap.mmap(self.fd, self.size, mmap.MAP_SHARED, mmap.PROT_READ) as view:
            self.header, self.slot = ring.read_header(path, view, self.size)
            head = ring.find_head(view, self.header, self.size)
            self.torn_bytes = ring.torn_tail_bytes(view, head, self.size)
            # Frames newer than the head were written by a writer that lost power before it
            # synced them, and some reached the disk out of order, past a hole. Left there, a
            # reader could take one for the oldest frame of the ring, or for a successor, and
            # walk past the real history (tests/ring/test_powercut.py found it). Unmake them.
            stale = ring.frames_above(view, head.serial, self.size) if head else []
        return head, stale

    def frame_size(self, payload_bytes: int) -> int:
        """The bytes `add` places for a payload of this size (cut to `max_payload`)."""
        return frame.padded(frame.HEADER_SIZE + min(payload_bytes, self.max_payload))

    def add(self, kind: Kind, boot_id: bytes, wall_us: int, payload: bytes) -> int:
        """Place one frame after the previous one; return its serial. Nothing is written yet."""
        if len(payload) > self.max_payload:
            payload = frame.cap_payload(kind, payload, self.max_payload)
            self.cut_records += 1
        self.serial += 1
        data = frame.encode(self.serial, boot_id, wall_us, kind, payload)
        if self.pos + len(data) + ring.TAIL_GUARD > self.size:
            self.pos = ring.DATA_START
        if not self._runs or self._runs[-1].offset + len(self._runs[-1].data) != self.pos:
            self._runs.append(_Run(self.pos))
        self._runs[-1].data += data
        if kind is Kind.BOOT:
            self._new_boots.append(ring.BootHint(boot_id, self.pos, self.serial))
        self._last = (self.pos, self.serial)
        self.pos += len(data)
        self.pending_bytes += len(data)
        return self.serial

    def commit(self) -> int:
        """Make every placed frame durable; return the highest durable serial. Raises OSError.

        The last run is padded with zeros to an `align` boundary, where the next commit
        starts: a commit torn by a power cut, even into garbage sectors, never touches a
        sector holding an acknowledged frame (tests/ring/test_powercut.py)."""
        if self._runs:
            for run in self._runs:
                # Zeros follow, past the tail guard (it marks a clean end, see
                # ring.torn_tail_bytes) up to a boundary: no sector is shared with the frames
                # beyond the write either.
                end = run.offset + len(run.data)
                stop = self._aligned(end + ring.TAIL_GUARD)
                _pwrite_all(self.fd, bytes(run.data) + bytes(stop - end), run.offset, self.io)
            self.io.fdatasync(self.fd)
            # Only now: a failed commit writes its frames again at the same place.
            self.pos = self._aligned(self.pos)
            self._runs.clear()
            self.pending_bytes = 0
            self._durable = self._last
        if self._new_boots:
            self.write_header()
        return self._durable[1]

    @property
    def _recorded_align(self) -> int:
        """The unit the header records: ours, or 512 for a unit below it (only a test's
        mutation lowers it: tests/ring/test_powercut.py)."""
        return self.align if self.align in ring.UNITS else ring.SECTOR

    def _aligned(self, offset: int, unit: int = 0) -> int:
        unit = unit or self.align
        return min(self.size, offset + (-offset % unit))

    @property
    def durable_serial(self) -> int:
        return self._durable[1]

    def write_header(self) -> None:
        """Persist the hints (head, boot starts) in the older slot. Raises OSError.

        The slot and generation change only once the write is durable: a retry after a
        failed (perhaps torn) write goes to the same slot, never over the last good one
        (tests/ring/test_ring.py)."""
        boots: dict[bytes, ring.BootHint] = {}
        for h in [*self.header.boots, *self._new_boots]:
            # A restart within a boot writes a `boot` frame too: keep the boot's first one, so
            # restarts do not push other boots out of the list.
            if h.boot_id not in boots and (h in self._new_boots or self._hint_holds(h)):
                boots[h.boot_id] = h
        header = ring.Header(
            self.header.generation + 1,
            self.size,
            self.header.ring_id,
            self._durable[0],
            self._durable[1],
            tuple(list(boots.values())[-ring.MAX_BOOT_HINTS :]),
            self._recorded_align,
        )
        slot = self.slot ^ 1
        _pwrite_all(self.fd, header.pack(), slot * ring.SLOT_SIZE, self.io)
        self.io.fdatasync(self.fd)
        self.header, self.slot = header, slot
        self._new_boots.clear()

    def _hint_holds(self, hint: ring.BootHint) -> bool:
        head = self.io.pread(self.fd, frame.HEADER_SIZE, hint.offset)
        if len(head) < frame.HEADER_SIZE or not head.startswith(frame.MAGIC):
            return False
        length = int.from_bytes(head[4:8], "little")
        buf = head + self.io.pread(
            self.fd, min(length, frame.MAX_PAYLOAD), hint.offset + frame.HEADER_SIZE
        )
        found = frame.decode_at(buf, 0, len(buf))
        return found is not None and found.serial == hint.serial

    def close(self) -> None:
        os.close(self.fd)


def _pwrite_all(fd: int, data: bytes, offset: int, io: FileIO = os) -> None:
    view = memoryview(data)
    while view:
        done = io.pwrite(fd, view, offset)
        view, offset = view[done:], offset + done


def _move_aside(path: str) -> str:
    """Rename an unusable ring to `<path>.corrupt-<UTC time>` beside it (never over another)."""
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    aside, n = f"{path}.corrupt-{stamp}", 0
    while os.path.lexists(aside):
        n += 1
        aside = f"{path}.corrupt-{stamp}.{n}"
    os.rename(path, aside)
    _sync_dir(path)
    return aside


def _sync_dir(path: str) -> None:
    dirfd = os.open(os.path.dirname(os.path.abspath(path)), os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(dirfd)
    finally:
        os.close(dirfd)


def _open_locked(path: str, size: int) -> tuple[int, bool]:
    """The ring's file descriptor, flocked, and whether this call created the file."""
    # O_NOFOLLOW: a ring path planted as a symlink by someone else is refused, not followed.
    # O_NONBLOCK: a FIFO at the path opens at once and is refused below (a no-op on files).
    flags = os.O_RDWR | os.O_CLOEXEC | os.O_NOFOLLOW | os.O_NONBLOCK
    fd = -1
    try:
        # Kernel logs can hold secrets: a directory we create is ours and adm's only.
        os.makedirs(os.path.dirname(os.path.abspath(path)), mode=DIR_MODE, exist_ok=True)
        fd = os.open(path, flags)
    except FileNotFoundError:
        pass  # created below; a full disk there is the caller's OSError, as any write's
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise RingCorrupt(path, 0, "path is a symbolic link", replaceable=False) from None
        raise SourceUnavailable(f"{path}: cannot open ring ({err.strerror})") from None
    created = fd < 0
    if created:
        fd = _create_new(path, size)
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise RingCorrupt(path, 0, "not a regular file", replaceable=False)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise RingBusy(
            f"{path}: another kmsgd run is recording into this ring",
            hint="stop it first (systemctl stop kmsgd) or pass another --ring",
        ) from None
    return fd, created


def _create_new(path: str, size: int) -> int:
    """Make a whole ring in an unnamed file of the ring's directory (O_TMPFILE) and link it at
    `path` only once it is complete, as systemd-coredump does: a power cut or a full disk
    during the zero fill leaves nothing at `path`, and linkat(2) never replaces an existing
    name, so a file or symlink planted there meanwhile is neither followed nor overwritten
    (EEXIST). Where the file system has no O_TMPFILE or there is no /proc, a randomly named
    O_EXCL|O_NOFOLLOW file beside it is linked the same way and unlinked."""
    directory = os.path.dirname(os.path.abspath(path))
    named = None
    fd = -1
    # The unnamed file is linked through /proc/self/fd: a chroot without /proc (a package
    # build, a rescue shell) takes the named file instead.
    if os.path.isdir("/proc/self/fd"):
        try:
            fd = os.open(directory, os.O_TMPFILE | os.O_RDWR | os.O_CLOEXEC, FILE_MODE)
        except OSError as err:
            if err.errno not in (errno.EOPNOTSUPP, errno.EISDIR, errno.EINVAL):
                raise
    if fd < 0:
        named = os.path.join(directory, f".{os.path.basename(path)}.{os.urandom(8).hex()}.new")
        flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(named, flags, FILE_MODE)
    try:
        os.fchmod(fd, FILE_MODE)
        _create(fd, path, size, sync_dir=False)
        # linkat(2) through a dir fd: os.link without one calls link(2), which never follows
        # /proc/self/fd's link (EXDEV); AT_SYMLINK_FOLLOW reaches the unnamed file itself.
        dirfd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        try:
            src = f"/proc/self/fd/{fd}" if named is None else named
            os.link(src, os.path.basename(path), dst_dir_fd=dirfd, follow_symlinks=named is None)
            os.fsync(dirfd)
        finally:
            os.close(dirfd)
    except BaseException:
        os.close(fd)
        raise
    finally:
        if named is not None:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(named)
    return fd


def _create(fd: int, path: str, size: int, *, sync_dir: bool = True) -> None:
    size = max(ring.MIN_SIZE, size - size % ring.SLOT_SIZE)
    ring.zero_fill(fd, size)
    header = ring.Header(1, size, ring.new_ring_id(), 0, 0, ())
    _pwrite_all(fd, header.pack(), 0)
    os.fsync(fd)
    if sync_dir:
        _sync_dir(path)
