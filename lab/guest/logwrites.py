#!/usr/bin/python3
"""Block-level crash states of kmsgd's ring on a real ext4, with device-mapper log-writes.

Runs in the lab guest (Debian's python3, kmsgd installed); the host only starts it
(lab/blockcrash.py). Two steps, each printing one JSON object:

  record DIR  a 16 MiB ext4 on `log-writes` (data and log devices: loop files in DIR) holds
              the ring of a second `kmsgd run`; warning lines go to /dev/kmsg while the
              recorder's durable serial (its sd_notify STATUS) is marked in the log
  check DIR   replays the log onto a scratch image up to every flush/FUA entry, every mark,
              a point inside some flush epochs and a random subset of some epochs' writes;
              each state is mounted (ext4 journal recovery runs as after a crash) and its
              ring read with kmsgd's reader: readable, every acknowledged record there,
              nothing returned that the recorder never wrote

The log format is the kernel's (drivers/md/dm-log-writes.c, "The disk format for this is
braindead simple"; Documentation/admin-guide/device-mapper/log-writes.rst): a super block in
sector 0, then per entry one sector holding `struct log_write_entry` (and a mark's text),
followed by the written sectors (none for a flush, a mark or a discard). Entries are logged in
completion order, a write only once a flush covering it completed (or at once for FUA), so a
prefix ending at a flush or FUA entry is a state the disk could hold after a power cut, and
so is a prefix of flushed entries plus any subset of the next epoch's writes.
The parsing and planning here are pure (tests/e2e/test_logwrites.py).
"""

from __future__ import annotations

import ctypes
import itertools
import json
import mmap
import os
import random
import shutil
import struct
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

# drivers/md/dm-log-writes.c
LOG_FLUSH_FLAG = 1 << 0
LOG_FUA_FLAG = 1 << 1
LOG_DISCARD_FLAG = 1 << 2
LOG_MARK_FLAG = 1 << 3
WRITE_LOG_MAGIC = 0x6A736677736872
WRITE_LOG_VERSION = 1
SUPER = struct.Struct("<QQQI")  # struct log_write_super: magic, version, nr_entries, sectorsize
ENTRY = struct.Struct("<QQQQ")  # struct log_write_entry: sector, nr_sectors, flags, data_len

ACK = "ack:"  # mark text: "ack:<serial>", every frame up to <serial> was durable before it
READY, STOPPED = "ready", "stopped"
FS_BYTES = 16 << 20
LOG_BYTES = 256 << 20  # sparse: only what is logged takes memory in /dev/shm
RING_SIZE = "1M"
UNIT = "kmsgd-lw"


Buf = bytes | mmap.mmap


class LogError(Exception):
    """The log is not a dm-log-writes log, or is cut short."""


@dataclass(frozen=True, slots=True)
class Entry:
    """One log entry; `sector` and `nr_sectors` in units of the log's sector size."""

    index: int
    sector: int
    nr_sectors: int
    flags: int
    data_at: int  # byte offset of the written data in the log (0: none)
    mark: str = ""

    @property
    def boundary(self) -> bool:
        """A flush or FUA entry: what the log holds before it is on stable storage."""
        return bool(self.flags & (LOG_FLUSH_FLAG | LOG_FUA_FLAG))

    @property
    def writes(self) -> bool:
        """Changes the device: data or a discard."""
        return self.nr_sectors > 0 and not self.flags & LOG_MARK_FLAG


def parse(log: Buf) -> tuple[int, list[Entry]]:
    """The sector size and the entries of a log (as log_one_block/log_super write them)."""
    if len(log) < SUPER.size:
        raise LogError("log shorter than its super block")
    magic, version, count, ss = SUPER.unpack_from(log, 0)
    if magic != WRITE_LOG_MAGIC or version != WRITE_LOG_VERSION or ss < 512 or ss & (ss - 1):
        raise LogError(f"not a log-writes log (magic {magic:#x}, version {version}, ss {ss})")
    entries, pos = [], ss  # next_sector starts one sector past the super
    for i in range(count):
        if pos + ss > len(log):
            raise LogError(f"entry {i} of {count} lies past the end of the log")
        sector, nr, flags, data_len = ENTRY.unpack_from(log, pos)
        mark = ""
        if flags & LOG_MARK_FLAG:  # the mark's text shares the entry's sector
            mark = log[pos + ENTRY.size : pos + ENTRY.size + data_len].decode("ascii", "replace")
        pos += ss
        data_at = 0
        if nr and not flags & (LOG_DISCARD_FLAG | LOG_MARK_FLAG):
            data_at, pos = pos, pos + nr * ss
            if pos > len(log):
                raise LogError(f"entry {i}'s data lies past the end of the log")
        entries.append(Entry(i, sector, nr, flags, data_at, mark))
    return ss, entries


def apply(image: bytearray, log: Buf, e: Entry, ss: int) -> None:
    """Replay one entry onto the image. A discard reads back as zeros (loop devices punch
    holes); mkfs runs with nodiscard, so none is expected."""
    if not e.writes:
        return
    start, n = e.sector * ss, e.nr_sectors * ss
    if start + n > len(image):
        raise LogError(f"entry {e.index} writes past the end of the device")
    image[start : start + n] = log_bytes(log, e, ss)


def replayed(
    log: Buf, entries: Sequence[Entry], upto: int, ss: int, size: int = FS_BYTES
) -> bytearray:
    """The device after entries 0..upto (a zeroed device before the log began: the
    target is created over fresh loop files, mkfs included in the log)."""
    image = bytearray(size)
    for e in entries[: upto + 1]:
        apply(image, log, e, ss)
    return image


@dataclass(frozen=True, slots=True)
class State:
    """A crash state: the log's entries up to `upto` (inclusive), then the writes `extra`."""

    upto: int
    kind: str  # "flush" (flush/FUA), "mark", "inside" (mid-epoch prefix), "subset"
    extra: tuple[int, ...] = ()
    acked_upto: int = -1  # marks up to this entry vouch for the acknowledged records


def plan(entries: Sequence[Entry], start: int, *, seed: int, every: int) -> list[State]:
    """The states to check from entry `start` on: every flush/FUA entry and every mark; and
    for every `every`-th epoch between two flush/FUA entries (from the one holding `start`)
    that holds two writes or more,
    one prefix ending inside it and one random subset of its writes on the prefix before it.

    Acknowledged records: an `ack:` mark is sent after kmsgd's fdatasync returned, so the
    flush entry that made those frames durable lies before the mark in the log. A subset
    state (a cut before the epoch's closing flush) may therefore require every ack marked
    before that closing entry: their flushes are at or before the epoch's start."""
    rng = random.Random(seed)
    bounds = [e.index for e in entries if e.boundary]
    # from the epoch that holds `start` (the ring was durable before the `ready` mark)
    bounds = bounds[max((n for n, i in enumerate(bounds) if i < start), default=0) :]
    states = [
        State(e.index, "flush" if e.boundary else "mark", acked_upto=e.index)
        for e in entries
        if e.index >= start and (e.boundary or e.mark)
    ]
    for n, (lo, hi) in enumerate(itertools.pairwise(bounds)):
        inside = [i for i in range(lo + 1, hi) if entries[i].writes]
        if len(inside) < 2 or n % every:
            continue
        cut = rng.randrange(len(inside) - 1)  # leaves at least the last write out
        states.append(State(inside[cut], "inside", acked_upto=inside[cut]))
        pick = tuple(i for i in inside if rng.random() < 0.5) or (inside[-1],)
        states.append(State(lo, "subset", pick, acked_upto=hi - 1))
    return sorted(states, key=lambda s: (s.upto, s.kind, s.extra))


def acks(entries: Sequence[Entry]) -> list[tuple[int, int]]:
    """(entry index, serial) of every `ack:` mark, in log order."""
    return [(e.index, int(e.mark[len(ACK) :])) for e in entries if e.mark.startswith(ACK)]


def acked_serial(marks: Sequence[tuple[int, int]], upto: int) -> int:
    """The highest serial acknowledged by a mark at or before entry `upto` (-1: none)."""
    return max((s for i, s in marks if i <= upto), default=-1)


Truth = dict[int, tuple[bytes, str, int, bytes]]  # serial -> boot id, kind, wall_us, payload


def read_truth(path: str) -> Truth:
    """Every frame of the ring the recorder left after a clean stop: what it wrote."""
    from kmsgd.ring.reader import RingReader

    with RingReader(path) as r:
        return {f.serial: (f.boot_id, f.kind.value, f.wall_us, f.payload) for f in r.frames()}


@dataclass
class Verdict:
    returned: int = 0
    problems: list[str] = field(default_factory=list)


def check_ring(path: str, truth: Truth, required: Iterable[int]) -> Verdict:
    """kmsgd's reader on a crash state's ring: it must open, list the boots and walk each
    one; every frame it returns must be one the recorder wrote, in order, and every
    `required` serial must be among them."""
    from kmsgd.errors import KmsgdError
    from kmsgd.ring import frame as fr
    from kmsgd.ring.reader import RingReader

    v = Verdict()
    got: set[int] = set()
    try:
        with RingReader(path) as r:
            r.boots()
            for boot in r.boot_ids():
                last = -1
                for f in r.frames_of(boot):
                    fr.to_entry(f)
                    if f.serial <= last:
                        v.problems.append(f"serial {f.serial} after {last}: out of order")
                    last = f.serial
                    if truth.get(f.serial) != (f.boot_id, f.kind.value, f.wall_us, f.payload):
                        v.problems.append(f"serial {f.serial} at {f.offset}: never written")
                    got.add(f.serial)
    except (KmsgdError, OSError) as err:
        v.problems.append(f"unreadable: {type(err).__name__}: {err}")
        return v
    v.returned = len(got)
    lost = sorted(set(required) - got)
    if lost:
        v.problems.append(f"{len(lost)} acknowledged frame(s) missing, first serial {lost[0]}")
    return v


# ---- the guest side: devices, the recorder, the workload ----------------------------------


def sh(*argv: str, timeout: float = 60) -> str:
    done = subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)
    if done.returncode:
        raise RuntimeError(f"{' '.join(argv)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout.strip()


def mark(text: str) -> None:
    sh("dmsetup", "message", "lw", "0", "mark", text)


def durable_serial() -> int | None:
    """The recorder's durable serial from its sd_notify STATUS ("boot X, serial N"), set by
    the committer only after fdatasync returned (kmsgd/record/recorder.py `_heartbeat`)."""
    text = sh("systemctl", "show", "-P", "StatusText", f"{UNIT}.service")
    word = text.split("serial ", 1)[1].split(",", 1)[0] if "serial " in text else ""
    return int(word) if word.isdigit() else None


def kmsg(line: str) -> None:
    # A fresh open per line: /dev/kmsg ratelimits writes per open file (printk_devkmsg).
    with open("/dev/kmsg", "w") as f:
        f.write(line + "\n")


def record(d: str, *, lines: int, seed: int) -> dict[str, Any]:
    started = time.monotonic()
    rng = random.Random(seed)
    os.makedirs(d, exist_ok=True)
    data, log = f"{d}/data.img", f"{d}/log.img"
    for path, size in ((data, FS_BYTES), (log, LOG_BYTES)):
        with open(path, "wb") as f:
            f.truncate(size)
    sh("modprobe", "dm-log-writes")
    dloop = sh("losetup", "-f", "--show", data)
    lloop = sh("losetup", "-f", "--show", log)
    sectors = sh("blockdev", "--getsz", dloop)
    sh("dmsetup", "create", "lw", "--table", f"0 {sectors} log-writes {dloop} {lloop}")
    dm = os.path.realpath("/dev/mapper/lw")
    with open(f"/sys/block/{os.path.basename(dm)}/queue/write_cache") as f:
        cache = f.read().strip()  # "write through" would strip every flush from the log
    # 4 KiB blocks as on a real disk; every block written by mkfs itself, none lazily later
    sh("mkfs.ext4", "-q", "-F", "-b", "4096", "-E", "nodiscard,lazy_itable_init=0,"
       "lazy_journal_init=0", "/dev/mapper/lw", timeout=120)  # fmt: skip
    mark("mkfs")
    mnt = f"{d}/mnt"
    os.makedirs(mnt, exist_ok=True)
    sh("mount", "/dev/mapper/lw", mnt)
    cfg = f"{d}/kmsgd.toml"
    state = f"{d}/state"
    os.makedirs(f"{state}/root", exist_ok=True)
    # Shares only /dev/kmsg with the installed service: its own ring, state, no textfile,
    # an empty fs_root (no pstore import), no sensors, no incidents (no sysrq, no snapshots).
    with open(cfg, "w") as f:
        f.write(
            f'[kmsgd]\nstate_dir = "{state}"\nreport_dir = "{state}/reports"\n'
            f'fs_root = "{state}/root"\ntextfile_dir = ""\nsensors = false\n'
            "[incident]\nenabled = false\n"
        )
    kmsgd = shutil.which("kmsgd") or "/usr/bin/kmsgd"
    sh("systemd-run", f"--unit={UNIT}", "-p", "Type=notify", "-p", "NotifyAccess=all",
       "-p", "TimeoutStartSec=120", kmsgd, "run", "--ring", f"{mnt}/ring", "--ring-size",
       RING_SIZE, "--config", cfg, "--no-sysctl", "--no-mlock", "--heartbeat", "0.5",
       timeout=150)  # fmt: skip
    mark(READY)
    ready_s = time.monotonic() - started
    tag = f"lab-blk {seed:x}"
    written: list[str] = []
    acked: list[int] = []
    last_poll = 0.0
    i = 0
    while i < lines:
        for _ in range(rng.choice((1, 1, 1, 2, 5))):  # mostly single lines, some bursts
            if i < lines:
                line = f"{tag} {i} " + "x" * rng.choice((0, 40, 300, 700))
                kmsg("<4>" + line)
                written.append(line)
                i += 1
        time.sleep(rng.uniform(0.0, 0.25))
        if time.monotonic() - last_poll > 0.3:
            last_poll = time.monotonic()
            serial = durable_serial()
            if serial is not None and (not acked or serial > acked[-1]):
                mark(f"{ACK}{serial}")
                acked.append(serial)
    time.sleep(1.5)  # the last lines' commit, then one more STATUS
    serial = durable_serial()
    if serial is not None and (not acked or serial > acked[-1]):
        mark(f"{ACK}{serial}")
        acked.append(serial)
    sh("systemctl", "stop", f"{UNIT}.service", timeout=60)
    mark(STOPPED)
    shutil.copyfile(f"{mnt}/ring", f"{d}/final-ring")
    sh("umount", mnt)
    status = sh("dmsetup", "status", "lw")
    sh("dmsetup", "remove", "lw")  # logs what was never flushed, then "dm-log-writes-end"
    sh("losetup", "-d", dloop)
    sh("losetup", "-d", lloop)
    with open(f"{d}/written.json", "w") as f:
        json.dump(written, f)
    return {
        "lines": len(written),
        "acks": len(acked),
        "last_ack": acked[-1] if acked else None,
        "write_cache": cache,
        "dm_status": status,
        "ready_s": round(ready_s, 1),
        "seconds": round(time.monotonic() - started, 1),
    }


class Scratch:
    """The device a state is mounted from: a loop device over a file in /dev/shm. A state is
    copied into the file through a mapping (loop reads the file's page cache, and the block
    device's own cache is dropped at the last close, after each umount), so ext4's journal
    recovery writes into this copy and never into the replay."""

    def __init__(self, d: str) -> None:
        self.img, self.mnt = f"{d}/state.img", f"{d}/state-mnt"
        os.makedirs(self.mnt, exist_ok=True)
        with open(self.img, "w+b") as f:
            f.truncate(FS_BYTES)
            self.map = mmap.mmap(f.fileno(), FS_BYTES)
        self.dev = sh("losetup", "-f", "--show", self.img)
        self.libc = ctypes.CDLL(None, use_errno=True)

    def load(self, image: bytearray, extra: Iterable[tuple[int, bytes]]) -> None:
        self.map[:] = image
        for at, data in extra:
            self.map[at : at + len(data)] = data

    def mount(self) -> str:
        """'' or why the kernel refused (ext4 recovery runs here, as after a crash)."""
        if self.libc.mount(self.dev.encode(), self.mnt.encode(), b"ext4", 0, None) != 0:
            return os.strerror(ctypes.get_errno())
        return ""

    def umount(self) -> None:
        if self.libc.umount2(self.mnt.encode(), 0) != 0:
            raise OSError(ctypes.get_errno(), f"umount {self.mnt}")

    def close(self) -> None:
        self.map.close()
        sh("losetup", "-d", self.dev)


def check(d: str, *, seed: int, every: int) -> dict[str, Any]:
    started = time.monotonic()
    with open(f"{d}/log.img", "rb") as f:
        # mapped, not read: the log file is mostly a sparse tail
        log = mmap.mmap(f.fileno(), 0, prot=mmap.PROT_READ)
    ss, entries = parse(log)
    marks = {e.mark: e.index for e in entries if e.mark}
    if READY not in marks or STOPPED not in marks:
        raise LogError(f"marks {READY!r}/{STOPPED!r} missing: {sorted(marks)[:8]}")
    truth = read_truth(f"{d}/final-ring")
    with open(f"{d}/written.json") as f:
        written = json.load(f)
    kernel = [p for _, k, _, p in truth.values() if k == "kernel"]
    recorded = sum(any(b";" + w.encode() + b"\n" in p for p in kernel) for w in written)
    ack_marks = acks(entries)
    states = plan(entries, marks[READY], seed=seed, every=every)
    image = bytearray(FS_BYTES)
    prepared = time.monotonic() - started
    m = Scratch(d)
    done = -1
    kinds: dict[str, int] = {}
    bad: list[dict[str, Any]] = []
    required_max = 0
    returned: set[int] = set()
    spent = dict.fromkeys(("load", "mount", "read", "umount"), 0.0)
    try:
        for st in states:
            t = time.monotonic()
            while done < st.upto:
                done += 1
                apply(image, log, entries[done], ss)
            extra = [(entries[i].sector * ss, log_bytes(log, entries[i], ss)) for i in st.extra]
            m.load(image, extra)
            spent["load"] += time.monotonic() - t
            t = time.monotonic()
            acked = acked_serial(ack_marks, st.acked_upto)
            required = [s for s in truth if s <= acked]
            required_max = max(required_max, len(required))
            why = m.mount()
            spent["mount"] += time.monotonic() - t
            t = time.monotonic()
            if why:
                v = Verdict(problems=[f"mount refused: {why}"])
            else:
                try:
                    v = check_ring(f"{m.mnt}/ring", truth, required)
                    spent["read"] += time.monotonic() - t
                    t = time.monotonic()
                finally:
                    m.umount()
                    spent["umount"] += time.monotonic() - t
            kinds[st.kind] = kinds.get(st.kind, 0) + 1
            returned.add(v.returned)
            if v.problems:
                bad.append({"upto": st.upto, "kind": st.kind, "extra": len(st.extra),
                            "required": len(required), "returned": v.returned,
                            "problems": v.problems[:5]})  # fmt: skip
        # The harness must be able to fail: the state at the `ready` mark, required to hold
        # everything acknowledged by the end, must be reported short.
        control = Verdict()
        m.load(replayed(log, entries, marks[READY], ss), ())
        if not m.mount():
            try:
                control = check_ring(f"{m.mnt}/ring", truth, truth)
            finally:
                m.umount()
    finally:
        m.close()
    full = check_ring(f"{d}/final-ring", truth, truth)
    return {
        "states": len(states),
        "kinds": kinds,
        "violations": len(bad),
        "first_violations": bad[:5],
        "entries": len(entries),
        "flushes": sum(bool(e.flags & LOG_FLUSH_FLAG) for e in entries),
        "fua": sum(bool(e.flags & LOG_FUA_FLAG) for e in entries),
        "acks": len(ack_marks),
        "frames": len(truth),
        "most_required": required_max,
        "lines_written": len(written),
        "lines_in_ring": recorded,
        "final_ring_ok": not full.problems,
        "frames_returned": [min(returned, default=0), max(returned, default=0)],
        "control": {"returned": control.returned, "problems": control.problems[:2]},
        "prepare_s": round(prepared, 1),
        "spent_s": {k: round(v, 1) for k, v in spent.items()},
        "seconds": round(time.monotonic() - started, 1),
    }


def log_bytes(log: Buf, e: Entry, ss: int) -> bytes:
    """What an entry leaves on the device (zeros for a discard)."""
    n = e.nr_sectors * ss
    return bytes(n) if e.flags & LOG_DISCARD_FLAG else log[e.data_at : e.data_at + n]


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("record", "check"):
        sys.stderr.write("usage: logwrites.py record|check DIR [seed] [lines|every]\n")
        return 2
    d = argv[1]
    seed = int(argv[2]) if len(argv) > 2 else 1
    if argv[0] == "record":
        out = record(d, lines=int(argv[3]) if len(argv) > 3 else 120, seed=seed)
    else:
        out = check(d, seed=seed, every=int(argv[3]) if len(argv) > 3 else 3)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
