"""pwrite and fdatasync failures injected at every call the real Recorder and Committer make
(SQLite's crash VFS does the same): the daemon lives, every record reaches the ring once, in
order, once the disk recovers, and nothing acknowledged is missing from the disk a power cut
right after the acknowledgement would leave, even when the kernel dropped the dirty pages of a
failed fdatasync (Linux may mark them clean: "fsyncgate")."""

from __future__ import annotations

import errno
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from conftest import make_proc
from crash.disk import Ack, RecordingIO, Sync, Write, apply

from kmsgd.config import Config
from kmsgd.record import committer as committer_mod
from kmsgd.record import recorder as recorder_mod
from kmsgd.record.recorder import Clock, Recorder
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind, peek
from kmsgd.ring.writer import RingWriter

pytestmark = pytest.mark.slow

GROUPS, PER_GROUP = 6, 15


@dataclass(frozen=True, slots=True)
class Lose:
    """A failed fdatasync: the writes not yet synced may never reach the disk."""


class FaultIO(RecordingIO):
    """Fails calls [fail_at, fail_at + times) with EIO; a failing pwrite first lands half."""

    def __init__(self, fail_at: int, times: int) -> None:
        super().__init__()
        self.calls = 0
        self.failing = range(fail_at, fail_at + times)
        self.injected = 0

    def _fails(self) -> bool:
        n, self.calls = self.calls, self.calls + 1
        if n in self.failing:
            self.injected += 1
            return True
        return False

    def pwrite(self, fd: int, data: bytes | memoryview, offset: int, /) -> int:
        if self._fails():
            if len(data) > 1:
                super().pwrite(fd, bytes(data)[: len(data) // 2], offset)
            raise OSError(errno.EIO, "injected")
        return super().pwrite(fd, data, offset)

    def fdatasync(self, fd: int, /) -> None:
        if self._fails():
            self.ops.append(Lose())  # type: ignore[arg-type]
            raise OSError(errno.EIO, "injected")
        super().fdatasync(fd)


class _Log:
    def __init__(self) -> None:
        self.events: list[str] = []

    def __getattr__(self, _level: str) -> Any:
        return lambda event, **_: self.events.append(event)


class _Frozen(Clock):
    def wall_us(self) -> int:
        return 1_764_400_000_000_000

    def mono_us(self) -> int:
        return 1_000_000

    def boottime_us(self) -> int:
        return 1_000_000


def kline(seq: int) -> bytes:
    return b"%d,%d,%d,-;line %d\n" % (4 if seq % 7 == 0 else 6, seq, seq * 1000, seq)


def kernel_seqs(path: Path) -> list[int]:
    with RingReader(str(path)) as r:
        return [peek(f.payload)[0] for f in r.frames() if f.kind is Kind.KERNEL]


def play(tmp: Path, fail_at: int, times: int, monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """One recorder life with calls [fail_at, fail_at + times) failing; what it left."""
    tmp.mkdir()
    io = FaultIO(fail_at, times)
    monkeypatch.setattr(
        recorder_mod, "RingWriter", lambda path, **kw: RingWriter(path, io=io, **kw)
    )
    kmsg, ring = tmp / "kmsg", tmp / "ring"
    kmsg.write_bytes(b"")
    cfg = Config(
        ring=str(ring),
        ring_size=1 << 20,
        kmsg=str(kmsg),
        proc_root=make_proc(tmp / "proc", str(uuid.uuid4())),
        etc_root=tmp / "etc",
        lock_memory=False,
        apply_sysctl=False,
        sensors=False,
        textfile_dir="",
        header_every_s=0.0,  # a header write after every commit: more calls to fail
    )
    log = _Log()
    rec = Recorder(cfg, log, lambda _s: None, clock=_Frozen())
    initial = ring.read_bytes()
    rec.start()
    acked: list[tuple[int, int]] = []  # (ops index, kernel records acknowledged by then)
    for g in range(GROUPS):
        with open(kmsg, "ab") as f:
            f.write(b"".join(kline(s) for s in range(g * PER_GROUP, (g + 1) * PER_GROUP)))
        rec.step()
        rec.step()  # a file source hands out its last record once nothing new came
        if rec.sync():
            io.ops.append(Ack(0))
            acked.append((len(io.ops), (g + 1) * PER_GROUP))
    complete = rec.close()
    return {
        "io": io,
        "initial": initial,
        "acked": acked,
        "complete": complete,
        "ring": ring,
        "log": log.events,
    }


def cut_after(initial: bytes, ops: list[Any], upto: int) -> bytes:
    """The disk after a power cut at ops[upto]: synced writes only, minus lost writebacks."""
    image, pending = bytearray(initial), list[Write]()
    for op in ops[:upto]:
        if isinstance(op, Write):
            pending.append(op)
        elif isinstance(op, Sync):
            for w in pending:
                apply(image, w)
            pending.clear()
        elif isinstance(op, Lose):
            pending.clear()
    return bytes(image)


def test_a_failure_at_every_call_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(committer_mod, "RETRY_S", 0.002)
    total = GROUPS * PER_GROUP
    reference = play(tmp_path / "ref", 10**9, 0, monkeypatch)
    calls = reference["io"].calls
    assert kernel_seqs(reference["ring"]) == list(range(total))
    runs = injected = cuts = 0
    for times in (1, 3):
        for fail_at in range(calls + 2):
            got = play(tmp_path / f"f{times}-{fail_at}", fail_at, times, monkeypatch)
            runs += 1
            injected += got["io"].injected
            where = f"failing calls {fail_at}..{fail_at + times - 1} of {calls}"
            assert got["complete"], where  # the disk came back: everything got there
            assert kernel_seqs(got["ring"]) == list(range(total)), where  # once, in order
            if got["io"].injected:
                assert "ring_write_failed" in got["log"], where
            for upto, n in got["acked"]:
                cut = tmp_path / "cut"
                cut.write_bytes(cut_after(got["initial"], got["io"].ops, upto))
                cuts += 1
                seqs = kernel_seqs(cut)
                assert seqs[:n] == list(range(n)), f"{where}, cut after an ack of {n}"
    print(
        f"\ninjected failures: {runs} recorder lives, {injected} failed calls "
        f"({calls} calls each), {cuts} power cuts after acknowledgements"
    )
    assert injected >= calls
