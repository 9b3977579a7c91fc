"""meminfo, PSI and the memory-holder scan, GPU memory from DRM fdinfo and NVML included."""

from __future__ import annotations

import shutil
from pathlib import Path

from fakes import Proc, llama_procs, proc_tree

from kmsgd.ring.samples import MemorySample, ProcsSample
from kmsgd.sensors.memory import (
    MemoryReader,
    memory_sample,
    parse_meminfo,
    parse_psi,
    read_kept,
    scan_holders,
)


def test_meminfo_in_bytes_and_garbage_lines_skipped() -> None:
    raw = b"MemTotal: 16 kB\nMemAvailable: oops kB\nSwapFree:\nSwapTotal: 4 kB\n\0\0"
    assert parse_meminfo(raw) == {"mem_total_bytes": 16384, "swap_total_bytes": 4096}


def test_psi_lines() -> None:
    raw = b"some avg10=12.50 avg60=3.00 avg300=1.00 total=123456\nfull avg10=x total=9\n"
    assert parse_psi("memory", raw) == {
        "memory.some_avg10_pct": 12.5,
        "memory.some_total_us": 123456,
        "memory.full_total_us": 9,
    }
    assert parse_psi("io", b"") == {}


def test_memory_sample_from_kept_files(tmp_path: Path) -> None:
    proc = proc_tree(tmp_path / "proc", avail_kib=300_000)
    reader = MemoryReader(proc)
    sample = memory_sample(
        5, read_kept(reader.meminfo), {r: d for r, f in reader.psi if (d := read_kept(f))}
    )
    assert sample.mem_available_bytes == 300_000 * 1024
    assert sample.mem_total_bytes == 131072000 * 1024
    assert sample.psi["memory.full_avg10_pct"] == 4.25
    assert MemorySample.from_payload(sample.to_payload()) == sample
    reader.close()


def test_memory_sample_without_psi(tmp_path: Path) -> None:
    proc = proc_tree(tmp_path / "proc", psi=False)
    reader = MemoryReader(proc)
    psi = {r: d for r, f in reader.psi if (d := read_kept(f))}
    sample = memory_sample(1, read_kept(reader.meminfo), psi)
    assert psi == {} and sample.psi == {} and sample.swap_free_bytes == 8_000_000 * 1024


def test_top_holders_count_gpu_memory_that_rss_does_not_show(tmp_path: Path) -> None:
    proc = proc_tree(tmp_path / "proc", llama_procs())
    sample, drm = scan_holders(proc, 3, {})
    names = [h.comm for h in sample.top]
    # llama-server's RSS is small, but its 24 GiB of VRAM (one client on two fds) ranks it first
    assert names == ["llama-server", "python3", "systemd"]
    llama = sample.top[0]
    assert llama.gpu_vram_bytes == 24 << 30 and llama.gpu_gtt_bytes == 2 << 20
    assert drm == {"4242"} and sample.scanned == 4
    assert ProcsSample.from_payload(sample.to_payload()) == sample


def test_nvml_memory_is_added_and_known_drm_pids_limit_the_fd_walk(tmp_path: Path) -> None:
    proc = proc_tree(tmp_path / "proc", [Proc(777, "vllm", 10), *llama_procs()])
    sample, _ = scan_holders(proc, 2, {777: 70 << 30}, drm_pids=set())
    assert [(h.comm, h.gpu_vram_bytes) for h in sample.top] == [("vllm", 70 << 30), ("python3", 0)]


def test_vanished_and_garbage_processes_are_skipped(tmp_path: Path) -> None:
    proc = proc_tree(tmp_path / "proc", llama_procs())
    shutil.rmtree(proc / "812" / "fd")  # exiting: fd dir gone, statm still there
    (proc / "99" / "statm").write_bytes(b"")  # kernel threads give empty statm
    (proc / "1" / "statm").write_bytes(b"garbage\n")
    (proc / "555").mkdir()  # listed, then gone before we read it
    sample, _ = scan_holders(proc, 5, {})
    assert sorted(h.pid for h in sample.top) == [812, 4242]
