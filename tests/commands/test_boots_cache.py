"""`kmsgd boots` keeps the verdicts of ended boots in the state directory
(kmsgd/report/bootcache.py): its output is the same with the cache as without it, also after
the ring changed under the cache (a new boot, a lap over the oldest)."""

from __future__ import annotations

import json
import stat
import uuid
from pathlib import Path

from click.testing import CliRunner
from conftest import make_proc

from kmsgd.cli import main
from kmsgd.report.bootcache import CACHE_NAME
from kmsgd.ring import frame as fr
from kmsgd.ring import layout
from kmsgd.ring.reader import BootSummary, RingReader
from kmsgd.ring.records import Boot, Heartbeat, Kind, Stop
from kmsgd.ring.writer import RingWriter

SIZE = layout.MIN_SIZE  # 72 KiB: a few boots lap it


def play(w: RingWriter, boot: uuid.UUID, wall: int, lines: list[str], *, stop: bool) -> None:
    """One boot as the recorder leaves it: `boot`, heartbeats, kernel lines, perhaps `stop`."""
    b = boot.bytes
    w.add(Kind.BOOT, b, wall, fr.encode_payload(Kind.BOOT, Boot(boot.hex, "6.8.0", "", wall, "0")))
    for t, line in enumerate(lines):
        now = wall + t * 1_000_000
        beat = Heartbeat(now, t * 10**6, t * 10**6, t)
        w.add(Kind.HEARTBEAT, b, now, fr.encode_payload(Kind.HEARTBEAT, beat))
        w.add(Kind.KERNEL, b, now, b"%d,%d,%d,-;%s\n" % (3, t, t * 10**6, line.encode()))
    if stop:
        end = Stop("SIGTERM", True, "stopping", "")
        w.add(Kind.STOP, b, wall + len(lines) * 10**6, fr.encode_payload(Kind.STOP, end))
    w.commit()


BOOTS = (
    (["EXT4-fs (sda1): mounted filesystem"] * 20, True),
    (["amdgpu 0000:03:00.0: amdgpu: SMU: No response msg_reg: 12"] * 20, False),
    (["usb 1-1: new high-speed USB device"] * 20, False),
    (["Kernel panic - not syncing: Fatal exception"], False),
)


def test_boots_is_the_same_with_its_cache_after_the_ring_changed(tmp_path: Path) -> None:
    ring, state = tmp_path / "ring", tmp_path / "state"
    state.mkdir(mode=0o750)
    (tmp_path / "kmsgd.toml").write_text(f'[kmsgd]\nstate_dir = "{state}"\n')
    ids = [uuid.uuid4() for _ in range(6)]
    w = RingWriter(str(ring), size=SIZE)
    for n, (lines, stopped) in enumerate(BOOTS[:3]):
        play(w, ids[n], 1_764_400_000_000_000 + n * 10**11, lines, stop=stopped)
    w.close()

    known: dict[str, list[BootSummary]] = {}

    def boots(current: uuid.UUID) -> list[dict[str, object]]:
        proc = make_proc(tmp_path / f"proc-{current.hex}", str(current))
        out = CliRunner().invoke(
            main,
            [
                "boots",
                "--ring",
                str(ring),
                "--format",
                "json",
                "--proc",
                str(proc),
                "--config",
                str(tmp_path / "kmsgd.toml"),
            ],
        )
        assert out.exit_code == 0, out.output
        # The listing in segments, from what earlier states of the ring left in `known`, is
        # the listing of one walk.
        with RingReader(str(ring)) as r:
            walked = r.boots()
            assert r.boots(known=known) == walked and r.boots(known=known) == walked
        return [json.loads(line) for line in out.output.splitlines()]

    first = boots(ids[2])  # judges all three, keeps the two ended ones, not the running one
    cache = state / CACHE_NAME
    assert stat.S_IMODE(cache.stat().st_mode) == 0o600
    saved = json.loads(cache.read_text())
    assert len(saved["verdicts"]) == 2 and len(saved["segments"]) == 1  # the middle boot
    elsewhere = uuid.uuid4()  # the ring read on another machine: the last boot has ended too
    before = boots(elsewhere)
    assert before[:2] == first[:2]
    assert len(json.loads(cache.read_text())["verdicts"]) == 3
    assert [r["outcome"] for r in first[:2]] == ["clean_shutdown", first[1]["outcome"]]

    # The ring changes under the cache: every key that changed misses, and the answer is what
    # a run without a cache gives (which fills the cache again). A new boot (the last one's
    # verdict now has a next boot), then one that runs until the ring laps over the oldest.
    def cached_and_fresh() -> list[dict[str, object]]:
        cached = boots(elsewhere)
        cache.unlink()
        fresh = boots(elsewhere)
        assert cached == fresh
        return fresh

    w = RingWriter(str(ring), size=SIZE)
    play(w, ids[3], 1_764_400_000_000_000 + 3 * 10**11, BOOTS[0][0], stop=True)
    w.close()
    grown = cached_and_fresh()
    w = RingWriter(str(ring), size=SIZE)
    wall = 1_764_400_000_000_000 + 4 * 10**11
    while oldest(ring) == ids[0].hex:
        play(w, ids[4], wall, BOOTS[1][0], stop=False)
    w.close()
    lapped = cached_and_fresh()
    print(f"\nboots: {[[r['outcome'] for r in rows] for rows in (first, before, grown, lapped)]}")
    assert before[2]["outcome"] != grown[2]["outcome"]  # the next boot changed the verdict
    assert [r["boot_id"] for r in lapped] == [i.hex for i in ids[1:5]]


def oldest(ring: Path) -> str:
    with RingReader(str(ring)) as r:
        return r.boots()[0].boot_id
