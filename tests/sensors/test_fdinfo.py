"""One parser of DRM fdinfo (kmsgd/sensors/fdinfo.py) for the 1 Hz holder sample and the
incident snapshot, on the formats the drivers print."""

from __future__ import annotations

from pathlib import Path

from fakes import AMD_FDINFO_6_11, LLAMA_FDINFO, Proc, proc_tree

from kmsgd.sensors import snapshot
from kmsgd.sensors.fdinfo import parse_fdinfo
from kmsgd.sensors.memory import scan_holders

# drivers/gpu/drm/amd/amdgpu/amdgpu_fdinfo.c, 5.19-6.10: legacy keys only (note the space
# before the tab after drm-memory-gtt and drm-memory-cpu, as the driver prints them).
AMD_6_2 = (
    "pasid:\t32770\ndrm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t42\n"
    "drm-memory-vram:\t25165824 KiB\ndrm-memory-gtt: \t2048 KiB\ndrm-memory-cpu: \t0 KiB\n"
    "amd-memory-visible-vram:\t262144 KiB\namd-evicted-vram:\t0 KiB\n"
    "amd-evicted-visible-vram:\t0 KiB\namd-requested-vram:\t25165824 KiB\n"
    "amd-requested-visible-vram:\t0 KiB\namd-requested-gtt:\t2048 KiB\n"
    "drm-engine-gfx:\t98765432 ns\n"
)
# i915 (drivers/gpu/drm/i915/i915_drm_client.c) on a discrete card: drm_print_memory_stats
# per memory region, local0 on the card, system0 in RAM, the stolen regions empty.
I915_DG2 = (
    "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1042\ndrm-driver:\ti915\n"
    "drm-client-id:\t18\ndrm-pdev:\t0000:03:00.0\n"
    "drm-total-system0:\t4 MiB\ndrm-shared-system0:\t0\ndrm-active-system0:\t0\n"
    "drm-resident-system0:\t4 MiB\ndrm-purgeable-system0:\t0\n"
    "drm-total-stolen-system0:\t0\ndrm-total-local0:\t512 MiB\ndrm-shared-local0:\t0\n"
    "drm-active-local0:\t0\ndrm-resident-local0:\t512 MiB\ndrm-purgeable-local0:\t0\n"
    "drm-engine-render:\t56789 ns\ndrm-engine-capacity-render:\t1\n"
)
# xe (drivers/gpu/drm/xe/xe_drm_client.c): one region per TTM placement.
XE = (
    "drm-driver:\txe\ndrm-client-id:\t5\ndrm-pdev:\t0000:03:00.0\n"
    "drm-total-system:\t16 KiB\ndrm-shared-system:\t0\ndrm-resident-system:\t16 KiB\n"
    "drm-total-gtt:\t8 MiB\ndrm-shared-gtt:\t0\ndrm-resident-gtt:\t8 MiB\n"
    "drm-total-vram0:\t1024 MiB\ndrm-shared-vram0:\t0\ndrm-resident-vram0:\t1024 MiB\n"
    "drm-total-stolen:\t0\n"
)
# nvidia-drm publishes the client and driver only: NVIDIA memory per process comes from NVML.
NVIDIA_DRM = "pos:\t0\nflags:\t02100002\nmnt_id:\t24\ndrm-driver:\tnvidia-drm\ndrm-client-id:\t3\n"


def test_amdgpu_before_and_after_drm_print_memory_stats() -> None:
    old = parse_fdinfo(AMD_6_2.encode())
    new = parse_fdinfo(AMD_FDINFO_6_11.encode())
    assert old is not None and (old.client_id, old.driver) == ("42", "amdgpu")
    assert (old.vram, old.gtt) == (24 << 30, 2 << 20)
    # The same VRAM printed three ways (total, resident, legacy alias) counts once; the
    # visible-vram subset and the requested placement are not added to it.
    assert new is not None and (new.vram, new.gtt) == (8 << 30, 1 << 20)
    assert new.memory["amd-requested-vram"] == 8 << 30


def test_intel_regions_on_the_card_and_in_ram() -> None:
    i915 = parse_fdinfo(I915_DG2.encode())
    xe = parse_fdinfo(XE.encode())
    assert i915 is not None and (i915.vram, i915.gtt) == (512 << 20, 4 << 20)
    assert xe is not None and (xe.vram, xe.gtt) == (1 << 30, (8 << 20) + (16 << 10))


def test_nvidia_drm_and_other_fds() -> None:
    nv = parse_fdinfo(NVIDIA_DRM.encode())
    assert nv is not None and (nv.driver, nv.vram, nv.gtt) == ("nvidia-drm", 0, 0)
    assert parse_fdinfo(b"pos:\t0\nflags:\t02\n") is None  # not a DRM client
    junk = parse_fdinfo(b"drm-client-id:\t1\ndrm-memory-vram:\tlots KiB\ndrm-total-gtt:\t3 PiB\n")
    assert junk is not None and (junk.vram, junk.gtt) == (0, 0)


def test_the_holder_sample_and_the_incident_snapshot_agree(tmp_path: Path) -> None:
    # Two fds of one client count once; each driver's format gives the same bytes to both.
    formats = (LLAMA_FDINFO, AMD_6_2, AMD_FDINFO_6_11, I915_DG2, XE)
    procs = [Proc(100 + i, f"p{i}", 1000, [(7, text), (8, text)]) for i, text in enumerate(formats)]
    root = proc_tree(tmp_path / "proc", procs)
    (root / "loadavg").write_text("1.00 1.00 1.00 1/100 200\n")
    sample, _ = scan_holders(root, top=10, nvml_by_pid={})
    sampled = {h.pid: h.gpu_vram_bytes + h.gpu_gtt_bytes for h in sample.top}
    snap = snapshot.snapshot_procs(root, {})
    snapped = {g["pid"]: g["gpu_bytes"] for g in snap["top_gpu"]}
    assert snapped == {pid: b for pid, b in sampled.items() if b}
    assert snapped[101] == (24 << 30) + (2 << 20)
