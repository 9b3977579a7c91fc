"""The list of boots comes from the frames, not the header's hints: `boots`, `last-boot` and
`dump` agree whatever the hints say (a hint that never reached the disk, hints pushed out by
restarts, a boot whose start the ring lapped over)."""

from __future__ import annotations

import json
import os
import uuid
from pathlib import Path

import pytest
from daemon import kmsgd

from kmsgd.ring import frame as fr
from kmsgd.ring import layout as ring
from kmsgd.ring.reader import RingReader
from kmsgd.ring.records import Kind
from kmsgd.ring.writer import RingWriter

SIZE = 1 << 20


def kline(seq: int, text: str = "x" * 60) -> bytes:
    return b"6,%d,%d,-;%s\n" % (seq, seq * 1000, text.encode())


def run_boot(w: RingWriter, boot: bytes, lines: int, first_seq: int = 0) -> None:
    """One `kmsgd run` of a boot: its `boot` record, kernel lines, commits (with the header)."""
    w.add(Kind.BOOT, boot, 1, fr.encode_payload(Kind.BOOT, {"boot_id": boot.hex()}))
    for i in range(lines):
        w.add(Kind.KERNEL, boot, 2, kline(first_seq + i))
        if i % 100 == 99:
            w.commit()
    w.commit()


def forget_hints(path: Path, keep: int = 0) -> None:
    """Rewrite the newest header slot with only the first `keep` boot hints (a cut between the
    data sync and the header write, or hints pushed out of the list)."""
    with RingReader(str(path)) as r:
        h = r.header
    with open(path, "r+b") as f:
        _, slot = ring.read_header(str(path), f.read(ring.DATA_START) + bytes(SIZE), SIZE)
        smaller = ring.Header(
            h.generation, h.size, h.ring_id, h.head_offset, h.head_serial, h.boots[:keep]
        )
        f.seek(slot * ring.SLOT_SIZE)
        f.write(smaller.pack().ljust(ring.SLOT_SIZE, b"\0"))


def cli_views(path: Path, proc: Path) -> tuple[list[str], list[str], str]:
    """(boots, dump's boot of each index, last-boot's boot) as the CLI sees them."""
    out = kmsgd("boots", "--ring", str(path), "--format", "json", "--proc", str(proc))
    assert out.returncode == 0, out.stderr
    rows = [json.loads(line)["boot_id"] for line in out.stdout.splitlines()]
    dumped = []
    for i in range(len(rows)):
        d = kmsgd("dump", "--ring", str(path), "--boot", str(i - len(rows) + 1), "--format", "json")
        assert d.returncode == 0, d.stderr
        dumped.append(json.loads(d.stdout.splitlines()[0])["boot_id"])
    lb = kmsgd(
        "last-boot", "--ring", str(path), "--format", "json", "--no-journal", "--proc", str(proc)
    )
    assert lb.returncode == 0, lb.stderr
    return rows, dumped, json.loads(lb.stdout)["boot_id"]


def fake_proc(tmp_path: Path, boot: bytes) -> Path:
    from conftest import make_proc

    return make_proc(tmp_path / "proc", str(uuid.UUID(bytes=boot)))


def test_a_boot_whose_hint_never_reached_the_disk_is_listed(tmp_path: Path) -> None:
    path = tmp_path / "ring"
    boots = [uuid.uuid4().bytes for _ in range(4)]
    w = RingWriter(str(path), size=SIZE)
    for b in boots:
        run_boot(w, b, 300)
    w.close()
    forget_hints(path, keep=1)  # only the first boot's hint survived
    want = [b.hex() for b in boots]
    with RingReader(str(path)) as r:
        assert r.boot_ids() == want
        assert [row.boot_id for row in r.boots()] == want
        assert next(f.boot_id for f in r.frames_of(want[2])) == boots[2]
    rows, dumped, last = cli_views(path, fake_proc(tmp_path, boots[-1]))
    assert rows == dumped == want
    assert last == want[2]  # the boot before the running one, not an older one


@pytest.mark.slow
def test_restarts_do_not_push_boots_out_of_the_list(tmp_path: Path) -> None:
    # Every restart writes a `boot` record and a hint; 100 restarts of one boot pushed the
    # boot before it out of the 96 hints, and `last-boot` judged the wrong boot.
    path = tmp_path / "ring"
    a, b, c, d = (uuid.uuid4().bytes for _ in range(4))
    w = RingWriter(str(path), size=SIZE)
    run_boot(w, a, 200)
    run_boot(w, b, 200)
    for n in range(100):
        run_boot(w, c, 5, first_seq=5 * n)
        w.close()
        w = RingWriter(str(path), size=SIZE)
    run_boot(w, d, 10)
    w.close()
    want = [x.hex() for x in (a, b, c, d)]
    with RingReader(str(path)) as r:
        assert r.boot_ids() == want
        assert [row.boot_id for row in r.boots()] == want
        assert len({h.boot_id for h in r.header.boots}) == len(r.header.boots)
    rows, dumped, last = cli_views(path, fake_proc(tmp_path, d))
    assert rows == dumped == want and last == c.hex()


def test_a_boot_lapped_within_itself_keeps_every_restart(tmp_path: Path) -> None:
    # One boot laps the ring many times, with restarts in between: its start is gone, its
    # restarts' `boot` frames are inside it; it is one boot, and all of it is dumped.
    path = tmp_path / "ring"
    old, boot, nxt = (uuid.uuid4().bytes for _ in range(3))
    w = RingWriter(str(path), size=SIZE)
    run_boot(w, old, 100)
    seq = 0
    for _ in range(4):
        run_boot(w, boot, 9000, first_seq=seq)  # ~1 MiB: a lap each
        seq += 9000
        w.close()
        w = RingWriter(str(path), size=SIZE)
    run_boot(w, boot, 10, first_seq=seq)
    seq += 10
    w.close()
    with RingReader(str(path)) as r:
        assert r.boot_ids() == [boot.hex()]
        seqs = [
            int(f.payload.split(b",")[1]) for f in r.frames_of(boot.hex()) if f.kind is Kind.KERNEL
        ]
        assert seqs == list(range(seq - len(seqs), seq)) and len(seqs) > 5000
        last = r.last_frame_of(boot.hex(), Kind.KERNEL)
        assert last is not None and last.payload == kline(seq - 1)
    w = RingWriter(str(path), size=SIZE)
    run_boot(w, nxt, 10)
    w.close()
    with RingReader(str(path)) as r:
        assert r.boot_ids() == [boot.hex(), nxt.hex()]
        assert r.last_frame_of(boot.hex(), Kind.KERNEL) is None  # not the head's boot
    assert os.path.getsize(path) == SIZE


@pytest.mark.slow
def test_long_uptime_ten_laps_three_restarts_then_a_reboot(tmp_path: Path) -> None:
    # Weeks of uptime in small: one boot laps a 256 KiB ring ten times, the recorder restarts
    # three times in between, then the machine reboots. boots, dump and last-boot agree.
    path, size = tmp_path / "ring", 256 * 1024
    earlier, boot, nxt = (uuid.uuid4().bytes for _ in range(3))
    w = RingWriter(str(path), size=size)
    run_boot(w, earlier, 50)
    per_lap = size // (fr.HEADER_SIZE + len(kline(0)) + 8)
    seq = 0
    for part in range(4):  # the first run and three restarts
        run_boot(w, boot, per_lap * 10 // 4, first_seq=seq)
        seq += per_lap * 10 // 4
        if part < 3:
            w.close()
            w = RingWriter(str(path), size=size)
    w.close()
    w = RingWriter(str(path), size=size)
    run_boot(w, nxt, 20)
    w.close()
    rows, dumped, last = cli_views(path, fake_proc(tmp_path, nxt))
    assert rows == dumped == [boot.hex(), nxt.hex()] and last == boot.hex()
    d = kmsgd("dump", "--ring", str(path), "--boot", "-1", "--format", "json")
    seqs = [json.loads(line)["data"]["seq"] for line in d.stdout.splitlines() if '"kernel"' in line]
    assert seqs == list(range(seq - len(seqs), seq)) and len(seqs) > per_lap // 2
    assert os.path.getsize(path) == size
