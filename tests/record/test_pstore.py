"""pstore import on fake /sys and /var trees laid out as the kernel and systemd-pstore leave them."""

from __future__ import annotations

import json
import os
import pickle
import shutil
import tempfile
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kmsgd.errors import BadInput
from kmsgd.judge.pstore_owner import attribute, attribute_detail
from kmsgd.record.pstore_scan import PstoreScan, new_dumps, scan, scan_tree
from kmsgd.ring.frame import MAX_PAYLOAD, encode_payload
from kmsgd.ring.pstore import DumpReason, from_payload, parse_line, to_payload
from kmsgd.ring.records import KernelRecord, Kind
from kmsgd.types import Confidence

# The tail of a real sysrq panic as ramoops keeps it (Debian 6.1 guest, kernel.sysrq=1).
OLDER = """\
<6>[   41.873210] amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command
<4>[   41.873402] amdgpu 0000:03:00.0: amdgpu: Failed to disable gfxoff!
<6>[   42.101554] sysrq: Trigger a crash"""
NEWER = """\
<0>[   42.101601] Kernel panic - not syncing: sysrq triggered crash
<4>[   42.101640] CPU: 1 PID: 1420 Comm: bash Not tainted 6.1.0-21-amd64 #1  Debian 6.1.90-1
<4>[   42.101655] Call Trace:
<4>[   42.101660]  <TASK>
<4>[   42.101671]  dump_stack_lvl+0x44/0x5c
<4>[   42.101690]  panic+0x118/0x2f0
<0>[   42.101913] Kernel Offset: 0x2a000000 from 0xffffffff81000000"""
OOPS = """\
<1>[  812.550123] BUG: kernel NULL pointer dereference, address: 0000000000000008
<1>[  812.550140] #PF: supervisor read access in kernel mode
<4>[  812.550160] Oops: 0000 [#1] PREEMPT SMP NOPTI
<4>[  812.550201] RIP: 0010:amdgpu_vm_bo_update+0x3f/0x6a0 [amdgpu]"""
DAY_US = 86_400 * 1_000_000
T0 = 1_714_989_600  # 2024-05-06 10:00 UTC


def _put(path: Path, text: str | bytes, mtime: float = T0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, str):
        path.write_text(text)
    else:
        path.write_bytes(text)
    os.utime(path, (mtime, mtime))
    return path


@pytest.fixture
def roots(tmp_path: Path) -> tuple[Path, Path]:
    return tmp_path / "sys", tmp_path / "state"


def _scan(roots: tuple[Path, Path]) -> PstoreScan:
    return scan_tree(roots[0], roots[1])


def test_ramoops_panic_in_two_parts(roots: tuple[Path, Path]) -> None:
    sys, _ = roots
    # ramoops numbers its records in write order; Part1 (newest tail) went out first
    _put(sys / "fs/pstore/dmesg-ramoops-0", f"Panic#1 Part1\n{NEWER}\n\nECC: No errors detected\n")
    _put(sys / "fs/pstore/dmesg-ramoops-1", f"Panic#1 Part2\n{OLDER}\n")
    _put(sys / "fs/pstore/console-ramoops-0", "[    0.000000] Linux version 6.1.0\n")  # not a dump
    got = _scan(roots)
    assert got.skipped == ()
    (dump,) = got.dumps
    assert dump.reason is DumpReason.PANIC and dump.count == 1
    assert dump.backend == "ramoops"
    assert dump.parts == (2, 1) and dump.missing_parts == ()
    assert dump.text == f"{OLDER}\n{NEWER}"  # oldest first, headers and ECC notice gone
    assert dump.mtimes_us == (T0 * 1_000_000, T0 * 1_000_000)
    first, last = dump.records[0], dump.records[-1]
    assert first.ts_usec == 41_873_210 and first.level == 6
    assert last.message == "Kernel Offset: 0x2a000000 from 0xffffffff81000000"
    assert last.level == 0 and last.facility == 0
    panic = next(r for r in dump.records if r.message.startswith("Kernel panic"))
    assert panic.ts_usec == 42_101_601
    assert [r.message for r in dump.records].count(" <TASK>") == 1


def test_stale_part_of_an_older_dump_is_not_glued_on(roots: tuple[Path, Path]) -> None:
    """ramoops restarts its count each boot: yesterday's Part2 can sit beside today's Part1."""
    sys, _ = roots
    _put(sys / "fs/pstore/dmesg-ramoops-0", f"Panic#1 Part1\n{NEWER}\n")
    _put(sys / "fs/pstore/dmesg-ramoops-1", f"Panic#1 Part2\n{OLDER}\n", T0 - 86_400)
    old, new = _scan(roots).dumps
    assert (old.parts, old.missing_parts) == ((2,), (1,))
    assert new.parts == (1,) and new.text == NEWER


def _efi_id(ts: int, part: int, count: int) -> int:
    return (ts * 100 + part) * 1000 + count  # efi-pstore.c generic_id()


def test_efi_pstore_names_and_two_dumps(roots: tuple[Path, Path]) -> None:
    sys, _ = roots
    pstore = sys / "fs/pstore"
    _put(pstore / f"dmesg-efi_pstore-{_efi_id(T0, 1, 1)}", f"Panic#1 Part1\n{NEWER}\n")
    _put(pstore / f"dmesg-efi_pstore-{_efi_id(T0, 2, 1)}", f"Panic#1 Part2\n{OLDER}\n")
    # older kernels: "dmesg-efi-"; a different event (another timestamp) with the same header
    _put(pstore / f"dmesg-efi-{_efi_id(T0 - 7200, 1, 1)}", f"Oops#1 Part1\n{OOPS}\n", T0 - 7200)
    oops, panic = _scan(roots).dumps
    assert panic.backend == "efi_pstore" and panic.parts == (2, 1)
    assert panic.text == f"{OLDER}\n{NEWER}"
    assert oops.backend == "efi" and oops.reason is DumpReason.OOPS
    assert oops.records[0].message.startswith("BUG: kernel NULL pointer dereference")
    assert oops.records[0].level == 1


def test_systemd_pstore_archive(roots: tuple[Path, Path]) -> None:
    """Files moved by systemd-pstore, with its dmesg.txt beside them: each dump once."""
    _, state = roots
    archive = state / "var/lib/systemd/pstore"
    d = archive / str(T0 * 100) / "001"  # EFI: <timestamp>/<count>/
    p1 = _put(d / f"dmesg-efi-{_efi_id(T0, 1, 1)}", f"Panic#1 Part1\n{NEWER}\n")
    p2 = _put(d / f"dmesg-efi-{_efi_id(T0, 2, 1)}", f"Panic#1 Part2\n{OLDER}\n")
    _put(d / "dmesg.txt", f"Panic#1 Part2\n{OLDER}\nPanic#1 Part1\n{NEWER}\n")
    # the parts were deleted by an admin, only systemd-pstore's reassembly is left
    _put(archive / "6610001" / "dmesg.txt", f"Oops#1 Part1\n{OOPS}\n")
    # ramoops files are "unknown backend" to systemd-pstore: moved to the archive's top
    _put(archive / "dmesg-ramoops-0", f"Oops#2 Part1\n{OOPS}\n<4>[  812.6] more\n")
    dumps = _scan(roots).dumps
    assert len(dumps) == 3
    assert all(d.archived for d in dumps)
    efi = next(d for d in dumps if d.backend == "efi")
    assert efi.paths == (str(p2), str(p1)) and efi.text == f"{OLDER}\n{NEWER}"
    only_txt = next(d for d in dumps if d.paths[0].endswith("dmesg.txt"))
    assert only_txt.reason is DumpReason.OOPS and only_txt.text == OOPS
    ramoops = next(d for d in dumps if d.backend == "ramoops")
    assert ramoops.count == 2


def test_same_dump_in_pstore_and_archive_counts_once(roots: tuple[Path, Path]) -> None:
    """systemd-pstore with Unlink=no copies without removing."""
    sys, state = roots
    name = f"dmesg-efi-{_efi_id(T0, 1, 3)}"
    _put(sys / "fs/pstore" / name, f"Panic#1 Part1\n{NEWER}\n")
    _put(
        state / "var/lib/systemd/pstore" / str(T0 * 100) / "003" / name, f"Panic#1 Part1\n{NEWER}\n"
    )
    (dump,) = _scan(roots).dumps
    assert not dump.archived  # the live copy is reported


def test_garbage_binary_empty_and_headerless(roots: tuple[Path, Path]) -> None:
    sys, _ = roots
    pstore = sys / "fs/pstore"
    _put(pstore / "dmesg-ramoops-0", f"Panic#1 Part1\n{NEWER}\n")
    _put(pstore / "dmesg-ramoops-1", bytes(range(256)) * 8)
    _put(pstore / "dmesg-ramoops-2", b"")
    _put(pstore / "dmesg-ramoops-3", b"\x00" * 4096)  # zeroed persistent RAM
    _put(pstore / "dmesg-ramoops-4", "<6>[    3.100000] no header, still a kernel log\n")
    _put(pstore / "mce-erst-1", "not a dmesg dump")
    got = _scan(roots)
    assert {(os.path.basename(s.path), s.why) for s in got.skipped} == {
        ("dmesg-ramoops-1", "binary data, not a kernel log"),
        ("dmesg-ramoops-2", "empty"),
        ("dmesg-ramoops-3", "empty"),
    }
    reasons = sorted(d.reason for d in got.dumps)
    assert reasons == [DumpReason.PANIC, DumpReason.UNKNOWN]
    headerless = next(d for d in got.dumps if d.reason is DumpReason.UNKNOWN)
    assert headerless.records[0].ts_usec == 3_100_000


def test_enc_z(roots: tuple[Path, Path]) -> None:
    """`.enc.z`: the kernel could not decompress it. Raw deflate we can; junk we note."""
    sys, _ = roots
    pstore = sys / "fs/pstore"
    raw = zlib.compressobj(wbits=-15)
    body = raw.compress(f"Panic#1 Part1\n{NEWER}\n".encode()) + raw.flush()
    _put(pstore / "dmesg-ramoops-0.enc.z", body)
    _put(pstore / "dmesg-ramoops-1.enc.z", b"\x28\xb5\x2f\xfd" + b"zstd frame?" * 9)
    dumps = _scan(roots).dumps
    decoded = next(d for d in dumps if not d.undecodable)
    assert decoded.reason is DumpReason.PANIC and decoded.text == NEWER
    blob = next(d for d in dumps if d.undecodable)
    assert blob.reason is DumpReason.UNKNOWN and blob.text == "" and blob.records == ()
    assert blob.paths[0].endswith("dmesg-ramoops-1.enc.z")


@pytest.fixture
def shared_tree() -> Iterator[Path]:
    """A tree outside root's private tmp, so an unprivileged child can walk it."""
    top = Path(tempfile.mkdtemp(prefix="kmsgd-pstore-"))
    top.chmod(0o755)
    yield top
    for p in top.rglob("*"):
        p.chmod(0o700)  # a test may have locked itself out
    shutil.rmtree(top)


def _scan_as_nobody(sys_root: Path, state_root: Path) -> PstoreScan:
    """Root reads anything, so drop to `nobody` in a child, as a non-root recorder would be."""
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:  # child: no pytest machinery, just the scan
        try:
            os.close(r)
            os.setgid(65534)
            os.setuid(65534)
            os.write(w, pickle.dumps(scan_tree(sys_root, state_root)))
        finally:
            os._exit(0)
    os.close(w)
    with os.fdopen(r, "rb") as f:
        data = f.read()
    os.waitpid(pid, 0)
    result: PstoreScan = pickle.loads(data)
    return result


def test_permission_errors_skip_that_file_only(shared_tree: Path) -> None:
    sys, state = shared_tree / "sys", shared_tree / "state"
    ok = _put(sys / "fs/pstore/dmesg-ramoops-0", f"Panic#1 Part1\n{NEWER}\n")
    secret = _put(sys / "fs/pstore/dmesg-ramoops-1", f"Oops#1 Part1\n{OOPS}\n")
    locked = state / "var/lib/systemd/pstore/1234"
    _put(locked / "dmesg-erst-1234", f"Oops#1 Part1\n{OOPS}\n")
    for p in shared_tree.rglob("*"):
        p.chmod(0o755 if p.is_dir() else 0o644)
    root = os.geteuid() == 0
    secret.chmod(0o600 if root else 0)  # systemd-pstore writes its copies 0600, owned by root
    locked.chmod(0o700 if root else 0)
    got = _scan_as_nobody(sys, state) if root else _scan((sys, state))
    assert [d.paths for d in got.dumps] == [(str(ok),)]
    assert {(s.path, s.why) for s in got.skipped} == {
        (str(secret), "Permission denied"),
        (str(locked), "Permission denied"),
    }


def test_missing_roots_are_no_error(roots: tuple[Path, Path]) -> None:
    assert scan(roots[0], roots[1]) == []


def test_parse_line_variants() -> None:
    assert parse_line("<14>[   12.5] user wrote this") == KernelRecord(
        "user wrote this", level=6, facility=1, ts_usec=12_500_000
    )
    caller = parse_line("<4>[   42.101640][ T1420] CPU: 1 PID: 1420 Comm: bash")
    assert (caller.caller, caller.ts_usec, caller.message) == (
        "T1420",
        42_101_640,
        "CPU: 1 PID: 1420 Comm: bash",
    )
    bare = parse_line("just text")
    assert (bare.level, bare.ts_usec, bare.message) == (None, None, "just text")


def test_payload_round_trip_and_bound(roots: tuple[Path, Path]) -> None:
    sys, _ = roots
    # ~1 MiB of non-ASCII text (JSON escapes it 6-fold) must still fit one ring record
    filler = "\n".join(f"<6>[ {i:5}.000000] ünïcödé ✓ line {i}" for i in range(25_000))
    _put(sys / "fs/pstore/dmesg-ramoops-0", f"Panic#1 Part1\n{filler}\n{NEWER}\n")
    (dump,) = scan(sys, Path("/nonexistent"))
    payload = to_payload(dump)
    encoded = encode_payload(Kind.PSTORE, payload)
    assert len(encoded) <= MAX_PAYLOAD
    back = from_payload(json.loads(encoded))
    assert back.digest == dump.digest  # identity of the whole dump, not of the kept tail
    assert back.reason is DumpReason.PANIC and back.parts == (1,)
    assert back.truncated_bytes > 0
    assert back.records[-1] == dump.records[-1]  # the end, where the panic is, is kept
    assert back.records[0].message.startswith("ünïcödé")  # cut at a whole line
    assert len(back.text.encode()) <= 64 * 1024


def test_payload_refuses_garbage() -> None:
    with pytest.raises(BadInput):
        from_payload({"v": 1, "text": "x"})
    with pytest.raises(BadInput):
        from_payload({"v": 99})


def test_new_dumps_imports_each_dump_once(roots: tuple[Path, Path]) -> None:
    sys, _ = roots
    path = _put(sys / "fs/pstore/dmesg-ramoops-0", f"Panic#1 Part1\n{NEWER}\n")
    first = scan(sys, Path("/nonexistent"))
    assert new_dumps(first, set()) == first
    seen = {d.digest for d in first}
    # next boot: the file is still there (no systemd-pstore), its mtime touched
    os.utime(path, (T0 + 999, T0 + 999))
    again = scan(sys, Path("/nonexistent"))
    assert new_dumps(again, seen) == []
    assert len(new_dumps(first + again, set())) == 1


def _ring(lines: str) -> list[KernelRecord]:
    return [parse_line(line) for line in lines.splitlines()]


def test_attribute_by_tail_lines(roots: tuple[Path, Path]) -> None:
    sys, _ = roots
    _put(sys / "fs/pstore/dmesg-ramoops-0", f"Panic#1 Part1\n{OLDER}\n{NEWER}\n")
    (dump,) = scan(sys, Path("/nonexistent"))
    other = _ring("<6>[   41.873210] usb 1-1: new high-speed USB device\n<6>[    0.000000] Linux")
    # the ring has the boot's lines up to the crash trigger, not the panic itself
    crashed = _ring(OLDER)
    boots = {"a" * 32: other, "b" * 32: crashed, "c" * 32: other}
    got = attribute_detail(dump, boots, importing_boot="c" * 32)
    assert (got.boot_id, got.method) == ("b" * 32, "tail_match")
    assert got.confidence is Confidence.HIGH and got.matched == 3
    assert attribute(dump, boots) == "b" * 32


def test_attribute_multi_line_kmsg_record() -> None:
    """A ring record "a\\nb" is two lines with one stamp in the dump."""
    dump_text = "<4>[    9.000001] first half\n<4>[    9.000001] second half\n"
    dump = from_payload(
        {"v": 1, "digest": "x", "backend": "ramoops", "reason": "oops", "count": 1,
         "parts": [1], "paths": [], "mtimes_us": [], "undecodable": False, "text": dump_text}
    )  # fmt: skip
    boots = {"a" * 32: [KernelRecord("first half\nsecond half", ts_usec=9_000_001)]}
    assert attribute_detail(dump, boots).matched == 2


def test_attribute_falls_back_to_the_boot_before_the_importer(roots: tuple[Path, Path]) -> None:
    sys, _ = roots
    _put(sys / "fs/pstore/dmesg-ramoops-0", f"Panic#1 Part1\n{NEWER}\n")
    (dump,) = scan(sys, Path("/nonexistent"))
    unrelated = _ring("<6>[    5.000000] nothing alike")
    boots = {"a" * 32: unrelated, "b" * 32: unrelated, "c" * 32: unrelated}
    got = attribute_detail(dump, boots, importing_boot="c" * 32)
    assert (got.boot_id, got.method, got.confidence) == (
        "b" * 32,
        "fallback_previous",
        Confidence.LOW,
    )
    assert "assumed" in got.detail
    # no importer given: the boots passed are those before it, the last one is the guess
    assert attribute(dump, boots) == "c" * 32
    assert attribute(dump, {}) is None
    assert attribute(dump, {"a" * 32: unrelated}, importing_boot="a" * 32) is None


def test_attribute_tie_is_not_a_match(roots: tuple[Path, Path]) -> None:
    sys, _ = roots
    _put(sys / "fs/pstore/dmesg-ramoops-0", f"Panic#1 Part1\n{OLDER}\n")
    (dump,) = scan(sys, Path("/nonexistent"))
    same = _ring(OLDER)
    got = attribute_detail(dump, {"a" * 32: same, "b" * 32: same}, importing_boot="z" * 32)
    assert got.method == "fallback_previous" and got.confidence is Confidence.LOW


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.binary(max_size=2048),
    st.sampled_from(["dmesg-ramoops-0", "dmesg-efi-1", "dmesg.txt", "dmesg-erst-7.enc.z"]),
)
def test_any_file_content_never_breaks_the_scan(tmp_path: Path, data: bytes, name: str) -> None:
    top = Path(tempfile.mkdtemp(dir=tmp_path))
    _put(top / "sys/fs/pstore" / name, data)
    _put(top / "state/var/lib/systemd/pstore/1/dmesg.txt", data)
    got = scan_tree(top / "sys", top / "state")
    for d in got.dumps:
        assert len(encode_payload(Kind.PSTORE, to_payload(d))) <= MAX_PAYLOAD
