"""Incident mode: triggers, actions, bounds, the snapshots' readers, and the whole path through
the real daemon (a FIFO in the /dev/kmsg format, fake sysfs trees) to `kmsgd last-boot`.

Durations are shortened through the [incident] table; the production defaults are in
kmsgd/config.py (IncidentConfig) and docs/operator-guide.md.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import make_proc
from daemon import dump, kmsgd, start_on_box, stop, wait_for, wait_ready
from fakes import AMD_FDINFO_6_11, LLAMA_FDINFO, Proc, dual_amdgpu_box, link_state, proc_tree

from kmsgd.config import IncidentConfig
from kmsgd.judge.incidents import incidents
from kmsgd.record.incident_mode import IncidentMode
from kmsgd.report.render_json import incident_json
from kmsgd.ring import frame as fr
from kmsgd.ring.events import EventName, SensorEvent
from kmsgd.ring.records import Entry, Kind
from kmsgd.ring.samples import MemorySample
from kmsgd.sensors import gpu_snapshot, snapshot
from kmsgd.sensors.gpu_metrics import decode_gpu_metrics, encode_v1_3

HUNG = "INFO: task llama-server:4321 blocked for more than 120 seconds."
METRICS = encode_v1_3(
    temperature_edge_c=71,
    temperature_hotspot_c=104,
    socket_power_w=312,
    gfxclk_mhz=2400,
    pcie_link_width=16,
    pcie_link_speed_01gts=25,
    indep_throttle_status=(1 << 36) | (1 << 0),
)


# -- readers ----------------------------------------------------------------------------------


def test_gpu_metrics_v1_3_decoded_by_the_kernel_layout() -> None:
    # struct gpu_metrics_v1_3, drivers/gpu/drm/amd/include/kgd_pp_interface.h: 120 bytes,
    # unfilled fields 0xff (smu_cmn_init_soft_gpu_metrics)
    got = decode_gpu_metrics(METRICS)
    assert got["version"] == "1.3" and got["size"] == 120
    assert got["temperature_hotspot_c"] == 104 and got["socket_power_w"] == 312
    assert got["pcie_link_speed_gts"] == 2.5 and got["pcie_link_width"] == 16
    assert got["throttling"] == ["power", "temperature"]
    assert "temperature_vrmem_c" not in got  # 0xffff: not provided


def test_gpu_metrics_odd_inputs_never_raise() -> None:
    assert decode_gpu_metrics(b"\x01") == {"error": "short"}
    apu = decode_gpu_metrics(bytes([0x60, 0, 2, 1]) + b"\0" * 92)
    assert apu["decoded"] is False and apu["version"] == "2.1"
    assert decode_gpu_metrics(METRICS[:30])["temperature_edge_c"] == 71  # truncated read


def test_small_parsers() -> None:
    assert gpu_snapshot.parse_aer(b"RxErr 3\nBadTLP 0\nTOTAL_ERR_COR 3\n") == {
        "RxErr": 3,
        "BadTLP": 0,
        "TOTAL_ERR_COR": 3,
    }
    fences = gpu_snapshot.parse_fence_info(
        "--- ring 0 (gfx_0.0.0) ---\nLast signaled fence          0x00001234\n"
        "Last emitted                 0x00001236\nLast signaled trailing fence 0x0\n"
        "Last emitted                 0x0\n--- ring 9 (sdma0) ---\n"
        "Last signaled fence          0x00000010\nLast emitted                 0x00000010\n"
    )
    assert fences == [
        {"ring": "gfx_0.0.0", "signaled": 0x1234, "emitted": 0x1236},
        {"ring": "sdma0", "signaled": 0x10, "emitted": 0x10},
    ]
    frames = snapshot.parse_stack(
        b"[<0>] __schedule+0x2b/0x90\n[<0>] schedule+0x1e/0x60\n"
        b"[<0>] amdgpu_fence_wait_timeout+0x1a/0x40 [amdgpu]\n[<0>] do_syscall_64+0x5d/0x90\n"
    )
    assert snapshot.blocked_in("0", frames) == "amdgpu_fence_wait_timeout"
    assert snapshot.blocked_in("amdgpu_fence_wait_timeout", []) == "amdgpu_fence_wait_timeout"
    assert snapshot.parse_stat(b"4321 (llama (server)) D 1 2 3") == ("llama (server)", "D")


def test_gpu_snapshot_reads_the_link_chain_and_metrics(tmp_path: Path) -> None:
    sys_root, _proc = dual_amdgpu_box(tmp_path)
    dev = (sys_root / "class/drm/card0/device").resolve()
    link_state(dev, aer_cor=12, metrics=METRICS)
    fence = sys_root / "kernel/debug/dri/0/amdgpu_fence_info"
    fence.parent.mkdir(parents=True)
    fence.write_text("--- ring 9 (sdma0) ---\nLast signaled fence 0x10\nLast emitted 0x13\n")
    snap = gpu_snapshot.snapshot_gpus(sys_root, sys_root / "kernel/debug")
    card0 = snap["gpus"][0]
    assert [h["device"] for h in card0["link"]] == ["0000:03:00.0", "0000:00:01.1"]
    assert card0["link"][0]["aer_correctable"]["TOTAL_ERR_COR"] == 12
    assert card0["link"][0]["runtime_status"] == "active"
    assert card0["link"][1]["current_link_speed"] == "2.5 GT/s PCIe"
    assert card0["gpu_metrics"]["temperature_hotspot_c"] == 104
    assert card0["fences"] == [{"ring": "sdma0", "signaled": 0x10, "emitted": 0x13}]


def test_procs_snapshot_names_gpu_holders_old_and_new_fdinfo(tmp_path: Path) -> None:
    procs = [
        Proc(4242, "llama-server", 200_000, [(7, LLAMA_FDINFO), (8, LLAMA_FDINFO)]),
        Proc(777, "comfyui", 50_000, [(5, AMD_FDINFO_6_11)]),
        Proc(812, "python3", 900_000),
    ]
    root = proc_tree(tmp_path / "proc", procs)
    (root / "loadavg").write_text("12.50 8.00 4.00 3/900 4321\n")
    snap = snapshot.snapshot_procs(root, {812: 1 << 30})
    assert snap["load"] == [12.5, 8.0, 4.0]
    assert [g["comm"] for g in snap["top_gpu"]] == ["llama-server", "comfyui", "python3"]
    assert snap["top_ram"][0]["comm"] == "python3"


# -- the manager, on a fake clock --------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def _mode(
    tmp_path: Path, **cfg: Any
) -> tuple[IncidentMode, list[tuple[Kind, Any]], Clock, list[float]]:
    root = proc_tree(tmp_path / "proc", [Proc(1, "init", 100)])
    (root / "sysrq-trigger").write_text("")
    out: list[tuple[Kind, Any]] = []
    urgent: list[float] = []
    clock = Clock()
    base = {"procs_at_s": (0.0,), "gpus_at_s": (0.0,), "capture_timeout_s": 0.5}
    mode = IncidentMode(
        IncidentConfig(**{**base, **cfg}),
        lambda k, d, u: out.append((k, json.loads(fr.encode_payload(k, d)))),
        proc_root=root,
        sys_root=tmp_path / "sys",
        set_urgent_until=urgent.append,
        clock=clock,
    )
    return mode, out, clock, urgent


def _records(out: list[tuple[Kind, Any]], name: str) -> list[dict[str, Any]]:
    return [d for k, d in out if k is Kind.INCIDENT and d.get("record") == name]


def _settle(mode: IncidentMode) -> None:
    """Let the capture threads finish (they are real threads)."""
    for cap in list(mode._captures.values()):
        cap.thread.join(5)


def test_kernel_trigger_starts_one_incident_userspace_none(tmp_path: Path) -> None:
    mode, out, _clock, urgent = _mode(tmp_path)
    mode.see_kernel(f"12,1,2,-;{HUNG}\n".encode())  # LOG_USER: a userspace write
    mode.tick()
    assert out == []
    mode.see_kernel(f"3,2,3,-;{HUNG}\n".encode())
    mode.tick()
    _settle(mode)
    start_rec = _records(out, "start")
    assert len(start_rec) == 1 and start_rec[0]["trigger"] == "hung_task"
    assert start_rec[0]["class"] == "hung_task" and start_rec[0]["line"] == HUNG
    assert urgent == [1000.0 + 300.0]  # durable at once until the incident's end
    assert {d["record"] for _, d in out} >= {"start", "procs", "gpus", "sysrq"}
    assert (tmp_path / "proc/sysrq-trigger").read_text() == "w"


def test_more_triggers_extend_then_quiet_ends_and_the_class_is_rate_limited(
    tmp_path: Path,
) -> None:
    mode, out, clock, _ = _mode(tmp_path, sysrq_w=False, durable_s=10.0, rate_limit_s=600.0)
    mode.see_kernel(f"3,2,3,-;{HUNG}\n".encode())
    mode.tick()
    clock.t += 8
    mode.see_kernel(b"0,3,4,-;BUG: soft lockup - CPU#3 stuck for 22s! [llama-server:4321]\n")
    mode.tick()
    clock.t += 9  # 17 s after the start, 9 after the last trigger: still open
    mode.tick()
    assert not _records(out, "end")
    clock.t += 2
    mode.tick()
    _settle(mode)
    (end,) = _records(out, "end")
    assert end["reason"] == "quiet" and end["triggers"] == 2
    assert end["classes"] == ["cpu_lockup", "hung_task"]
    assert _records(out, "trigger")[0]["trigger"] == "soft_lockup"
    clock.t += 60  # same class within 10 min: nothing new
    mode.see_kernel(f"3,9,9,-;{HUNG}\n".encode())
    mode.tick()
    assert len(_records(out, "start")) == 1 and mode.suppressed == 1


def test_a_new_class_in_an_open_incident_is_snapshot_at_once(tmp_path: Path) -> None:
    """Seen in the crash lab (docs/crash-lab.md): a late heartbeat started the incident and
    the soft lockup that came 30 s later joined it; it must get snapshots of its own."""
    mode, out, clock, _ = _mode(tmp_path, sysrq_w=False, durable_s=300.0)
    mode.heartbeat_late(5.7)
    mode.tick()
    _settle(mode)
    assert len(_records(out, "procs")) == 1 and len(_records(out, "gpus")) == 1
    clock.t += 20
    mode.see_kernel(b"0,3,4,-;BUG: soft lockup - CPU#1 stuck for 13s! [insmod:379]\n")
    mode.tick()
    _settle(mode)
    assert [r["at_s"] for r in _records(out, "procs")] == [0.0, 20.0]
    assert len(_records(out, "gpus")) == 2
    clock.t += 5
    mode.see_kernel(b"0,3,5,-;BUG: soft lockup - CPU#1 stuck for 18s! [insmod:379]\n")
    mode.tick()
    _settle(mode)
    assert len(_records(out, "procs")) == 2  # the same class again: no new snapshot


def test_a_new_tag_is_recorded_past_the_trigger_cap(tmp_path: Path) -> None:
    """Sensor stalls under load filled the incident's trigger records before the hung task
    came (docs/crash-lab.md): a tag new to the incident is recorded past the cap."""
    mode, out, clock, _ = _mode(tmp_path, sysrq_w=False, procs_snapshot=False, gpu_snapshot=False)
    mode.heartbeat_late(5.7)
    mode.tick()
    for _ in range(40):
        clock.t += 1
        mode.symptom("sensor_stall", "sensor_stall", "sensor read blocked 2.1 s: /sys/x")
        mode.tick()
    clock.t += 1
    mode.see_kernel(f"3,2,3,-;{HUNG}\n".encode())
    mode.tick()
    tags = [r["trigger"] for r in _records(out, "trigger")]
    assert tags.count("sensor_stall") == 31 and tags[-1] == "hung_task"


def test_vm_faults_trigger_only_as_a_storm(tmp_path: Path) -> None:
    mode, out, clock, _ = _mode(tmp_path, sysrq_w=False)
    fault = b"3,1,1,-;amdgpu 0000:03:00.0: amdgpu: [gfxhub] page fault (src_id:0 ring:24)\n"
    for _ in range(9):
        mode.see_kernel(fault)
        clock.t += 0.1
    mode.tick()
    assert not _records(out, "start")
    mode.see_kernel(fault)
    mode.tick()
    assert _records(out, "start")[0]["trigger"] == "amdgpu_vm_fault"


def test_symptoms_start_incidents(tmp_path: Path) -> None:
    mode, out, _c, _ = _mode(tmp_path, sysrq_w=False, procs_snapshot=False, gpu_snapshot=False)
    total = 64 << 30
    mode.observe(Kind.SAMPLE, MemorySample(1, total, total // 100), 200)
    mode.tick()
    assert _records(out, "start")[0]["trigger"] == "mem_available_low"
    mode.observe(Kind.SAMPLE, MemorySample(2, psi={"memory.full_avg10_pct": 35.0}), 9)
    mode.heartbeat_late(2.5)
    stall = SensorEvent(EventName.SENSOR_STALL, "/sys/x", "", 3, duration_s=2.1)
    mode.observe(Kind.EVENT, stall, 9)
    mode.tick()
    assert {d["trigger"] for d in _records(out, "trigger")} == {
        "psi_memory_full",
        "heartbeat_late",
        "sensor_stall",
    }


def test_a_capture_that_blocks_is_evidence_and_blocks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    release = threading.Event()

    def stuck(proc_root: str, nv: Any, mark: Any) -> dict[str, Any]:
        mark(f"{proc_root}/4321/task/4321/stack")
        release.wait(10)
        return {"record": "procs", "blocked": []}

    monkeypatch.setattr(snapshot, "snapshot_procs", stuck)
    mode, out, clock, _ = _mode(tmp_path, sysrq_w=False, gpu_snapshot=False)
    t0 = time.monotonic()
    mode.see_kernel(f"3,2,3,-;{HUNG}\n".encode())
    mode.tick()
    assert time.monotonic() - t0 < 0.5  # the manager never waits on a capture
    clock.t += 1.0
    mode.tick()
    (blocked,) = _records(out, "capture_blocked")
    assert blocked["capture"] == "procs" and blocked["path"].endswith("/4321/task/4321/stack")
    release.set()
    _settle(mode)
    assert _records(out, "procs")[0]["late"] is True


def test_the_byte_budget_stops_the_boost(tmp_path: Path) -> None:
    mode, out, clock, _ = _mode(tmp_path, sysrq_w=False, max_bytes=10_000, durable_s=5.0)
    mode.see_kernel(f"3,2,3,-;{HUNG}\n".encode())
    mode.tick()
    for _ in range(40):
        mode.observe(Kind.SAMPLE, {"sample": "device"}, 400)
    mode.tick()
    clock.t += 6
    mode.tick()
    _settle(mode)
    (end,) = _records(out, "end")
    assert end["reason"] == "budget" and end["captured"]["budget_hit_at_s"] == 0.0


# -- a real D-state task -----------------------------------------------------------------------


@contextlib.contextmanager
def frozen_fs(tmp_path: Path) -> Iterator[Path]:
    """An ext4 image, loop-mounted and frozen (fsfreeze): a write to it blocks in D state."""
    if os.geteuid() != 0 or not shutil.which("fsfreeze") or not shutil.which("mkfs.ext4"):
        pytest.skip("needs root, fsfreeze and mkfs.ext4")
    image = tmp_path / "ext4.img"
    with open(image, "wb") as f:
        f.truncate(16 << 20)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(image)], check=True)
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    got = subprocess.run(["mount", "-o", "loop", str(image), str(mnt)], capture_output=True)
    if got.returncode != 0:
        pytest.skip(f"cannot mount: {got.stderr.decode().strip()}")
    try:
        subprocess.run(["fsfreeze", "-f", str(mnt)], check=True)
        try:
            yield mnt
        finally:  # the test may have thawed it already
            subprocess.run(["fsfreeze", "-u", str(mnt)], check=False, capture_output=True)
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_a_task_blocked_on_a_frozen_filesystem_is_captured_with_its_stack(
    tmp_path: Path,
) -> None:
    with frozen_fs(tmp_path) as mnt:
        writer = subprocess.Popen(
            [sys.executable, "-c", f"open({str(mnt / 'f')!r}, 'w').write('x')"]
        )
        try:

            def blocked() -> list[dict[str, Any]]:
                snap = snapshot.snapshot_procs(Path("/proc"))
                return [t for t in snap["blocked"] if t["pid"] == writer.pid]

            (task,) = wait_for(blocked, timeout=10)
        finally:
            subprocess.run(["fsfreeze", "-u", str(mnt)], check=False)
            writer.wait(10)
    print(f"\nincident: D-state writer in {task['in']!r}, stack {task['stack'][:6]}")
    assert task["stack"], "no /proc/PID/stack (needs root)"
    assert any("sb_start_write" in f or "percpu_rwsem" in f for f in task["stack"])
    assert task["in"] and task["in"] != "schedule"


# -- the real daemon, end to end ----------------------------------------------------------------

TABLES = """
[incident]
boost_s = 4.0
durable_s = 6.0
procs_at_s = [0.0, 3.0]
gpus_at_s = [0.0, 2.0]
capture_timeout_s = 2.0
"""
MEMCG = Path("/sys/fs/cgroup/memory")


def _write(fd: int, prio: int, seq: int, text: str) -> None:
    ts = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    os.write(fd, f"{prio},{seq},{ts},-;{text}\n".encode())


def _cgroup(pid: int) -> Path | None:
    """The daemon in a memory cgroup of its own (v1, as tests/record/test_faults.py), if we may."""
    if os.geteuid() != 0 or not (MEMCG / "cgroup.procs").exists():
        return None
    group = MEMCG / f"kmsgd-incident-{uuid.uuid4().hex[:8]}"
    try:
        group.mkdir()
        (group / "memory.limit_in_bytes").write_text(str(256 << 20))
        (group / "cgroup.procs").write_text(str(pid))
    except OSError:
        return None
    return group


@pytest.mark.slow
def test_trigger_line_to_last_boot(tmp_path: Path) -> None:
    sys_root, proc_root = dual_amdgpu_box(tmp_path / "box")
    make_proc(proc_root)
    proc_tree(proc_root, avail_kib=60_000_000)  # plenty: no memory symptom of its own
    (proc_root / "sysrq-trigger").write_text("")
    (proc_root / "loadavg").write_text("3.10 2.00 1.00 2/300 4321\n")
    for card in ("card0", "card1"):
        link_state((sys_root / "class/drm" / card / "device").resolve(), metrics=METRICS)
    aer = (sys_root / "class/drm/card0/device").resolve() / "aer_dev_correctable"
    daemon, ring, fd = start_on_box(tmp_path, sys_root, proc_root, tables=TABLES)
    group = None
    try:
        wait_ready(ring, daemon)
        group = _cgroup(daemon.pid)
        _write(fd, 12, 1, HUNG)  # the same words from userspace (LOG_USER)
        time.sleep(1.5)
        assert not [r for r in dump(ring) if r["kind"] == "incident"]
        written = time.time()
        _write(fd, 3, 2, HUNG)
        first = wait_for(lambda: [r for r in dump(ring) if r["kind"] == "incident"], timeout=5)[0]
        started_after = first["wall_us"] / 1e6 - written
        aer.write_text("RxErr 0\nBadTLP 1232\nTOTAL_ERR_COR 1232\n")  # a storm during it
        time.sleep(7)
        records = dump(ring)
        peak = int((group / "memory.max_usage_in_bytes").read_text()) if group else None
    finally:
        if group is not None:
            with contextlib.suppress(OSError):
                (MEMCG / "cgroup.procs").write_text(str(daemon.pid))
        assert stop(daemon) == 0
        os.close(fd)
        if group is not None:
            with contextlib.suppress(OSError):
                group.rmdir()
    inc = [r for r in records if r["kind"] == "incident"]
    start_rec = inc[0]["data"]
    assert start_rec["record"] == "start" and start_rec["trigger"] == "hung_task"
    t0 = inc[0]["wall_us"]
    gpu = [
        r["wall_us"]
        for r in records
        if r["kind"] == "sample"
        and r["data"].get("device") == "0000:03:00.0"
        and t0 + 1_000_000 <= r["wall_us"] < t0 + 3_000_000
    ]
    rate = len(gpu) / 2.0
    names = [r["data"]["record"] for r in inc]
    print(
        f"\nincident: started {started_after:.2f} s after the kernel line; card0 samples at "
        f"{rate:.1f}/s while boosted; records {names}; daemon memory peak "
        f"{peak / 2**20 if peak else 0:.1f} MiB charged after it joined a memory cgroup "
        f"(cgroup: {group is not None})"
    )
    assert started_after <= 1.0
    assert rate >= 5
    assert names.count("procs") == 2 and names.count("gpus") == 2 and "sysrq" in names
    assert (proc_root / "sysrq-trigger").read_text() == "w"
    with open(ring, "rb"):
        pass
    out = kmsgd("last-boot", "--ring", str(ring), "--format", "json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    (got,) = report["incidents"]
    assert got["trigger"] == "hung_task" and got["started"] and got["captured"]["procs"] == 2
    findings = " | ".join(got["findings"])
    assert "0000:00:01.1 link 2.5 GT/s x16, capable of 16 GT/s x16" in findings
    assert "0000:03:00.0 AER correctable +1,232" in findings
    assert "throttling: power, temperature (hotspot 104 °C, 312 W)" in findings
    text = kmsgd("last-boot", "--ring", str(ring), "--format", "text").stdout
    md = kmsgd("last-boot", "--ring", str(ring), "--format", "md").stdout
    assert "Incident:" in text and "hung_task at" in text and "AER correctable +1,232" in text
    assert "**Incident**" in md and "hung\\_task" in md


def test_judge_names_the_blocked_task_and_how_long(tmp_path: Path) -> None:
    def entry(serial: int, wall_s: float, data: dict[str, Any]) -> Entry:
        payload = {"record": "", "incident": 1, "mono_us": 0, **data}
        rec = fr.decode_payload(Kind.INCIDENT, fr.encode_payload(Kind.INCIDENT, payload))  # type: ignore[arg-type]
        return Entry(serial, "b" * 32, int(wall_s * 1e6), Kind.INCIDENT, rec)

    task = {"pid": 4321, "tid": 4321, "comm": "llama-server", "in": "amdgpu_fence_wait_timeout"}
    got = incidents(
        [
            entry(1, 100, {"record": "start", "trigger": "amdgpu_ring_timeout", "line": "ring"}),
            entry(2, 100, {"record": "procs", "blocked": [task], "top_gpu": []}),
            entry(3, 218, {"record": "procs", "blocked": [task], "top_gpu": []}),
        ],
        [],
    )
    (inc,) = [incident_json(i) for i in got]
    assert inc["ended"] is None and inc["end_reason"] == "boot ended during the incident"
    assert (
        inc["findings"][0] == "llama-server (4321) blocked in amdgpu_fence_wait_timeout for 118 s"
    )
