"""The inventory record: what the post-mortem diffs against the previous boot."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from fakes import FakeNvml, dual_amdgpu_box, empty_box, nvidia_box

from kmsgd.ring.inventory import Inventory
from kmsgd.sensors import nvml
from kmsgd.sensors.inventory_scan import parse_bracketed, read_inventory


def test_dual_amdgpu_inventory(tmp_path: Path) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    inv = read_inventory(sys, proc)
    assert inv.kernel == "6.8.0-49-generic"
    assert "iommu=pt" in inv.cmdline and "pcie_aspm=off" in inv.cmdline
    assert [g["device"] for g in inv.gpus] == ["0000:03:00.0", "0000:43:00.0"]
    card1 = inv.gpus[1]
    assert (card1["card"], card1["driver"], card1["vendor_id"], card1["device_id"]) == (
        "card1",
        "amdgpu",
        "1002",
        "744c",
    )
    assert card1["vbios"] == "113-D70401XT-N11" and card1["link_width"] == 16
    assert card1["power1.cap_w"] == 289.0 and card1["power1.cap_max_w"] == 332.0
    assert card1["iommu_group_type"] == "identity"
    assert inv.iommu_group_types == {"identity": 2, "DMA-FQ": 1}
    assert inv.aspm_policy == "performance"
    assert inv.sysctls["kernel.panic"] == "10" and inv.sysctls["kernel.printk"] == "4 4 1 7"
    assert "kernel.hardlockup_panic" not in inv.sysctls  # not present: absent, not guessed
    assert {h["name"] for h in inv.hwmon} == {"amdgpu", "coretemp", "nvme"}
    payload = json.loads(json.dumps(inv.to_payload()))
    assert Inventory.from_payload(payload) == inv


def test_a_missing_card_or_changed_cap_is_a_change(tmp_path: Path) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    before = read_inventory(sys, proc)
    assert read_inventory(sys, proc).same_as(before)
    (next(sys.rglob("0000:43:00.0")) / "hwmon" / "hwmon4" / "power1_cap").write_text("250000000\n")
    capped = read_inventory(sys, proc)
    assert not capped.same_as(before)
    assert capped.gpus[1]["power1.cap_w"] == 250.0
    shutil.rmtree(sys / "class" / "drm" / "card1")
    (sys / "class" / "hwmon" / "hwmon4").unlink()
    after = read_inventory(sys, proc)
    assert [g["device"] for g in after.gpus] == ["0000:03:00.0"]


def test_nvidia_box_lists_the_card_and_nvml_facts(tmp_path: Path) -> None:
    sys, proc = nvidia_box(tmp_path)
    fake = FakeNvml()
    gpus = nvml.open_gpus(fake, nvml.GpuProcesses(), 16)
    inv = read_inventory(sys, proc, [nvml.gpu_entry(fake, g) for g in gpus])
    (gpu,) = inv.gpus  # the DRM card and the NVML GPU are one device
    assert gpu["device"] == "0000:3d:00.0" and gpu["driver"] == "nvidia"
    assert gpu["driver_version"] == "550.127.05" and gpu["vendor_id"] == "10de"
    nvml_only = read_inventory(tmp_path / "nosys", proc, [nvml.gpu_entry(fake, gpus[0])])
    assert nvml_only.gpus[0]["power_limit_w"] == 700.0
    assert nvml_only.gpus[0]["product"] == "NVIDIA H100 80GB HBM3"


def test_box_with_nothing_gives_an_empty_but_valid_inventory(tmp_path: Path) -> None:
    sys, proc = empty_box(tmp_path)
    inv = read_inventory(sys, proc)
    assert inv.gpus == () and inv.hwmon == () and inv.iommu_group_types == {}
    assert inv.aspm_policy == "" and inv.kernel
    assert read_inventory(tmp_path / "x", tmp_path / "y").kernel == ""


def test_bracketed_choice() -> None:
    assert parse_bracketed("default [performance] powersave") == "performance"
    assert parse_bracketed("[default] performance\n") == "default"
    assert parse_bracketed("weird") == "weird"


def test_current_link_speed_moving_with_load_is_not_a_change(tmp_path: Path) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    before = read_inventory(sys, proc)
    (next(sys.rglob("0000:03:00.0")) / "current_link_speed").write_text("2.5 GT/s PCIe\n")
    assert read_inventory(sys, proc).same_as(before)
    (next(sys.rglob("0000:03:00.0")) / "max_link_width").write_text("8\n")
    assert not read_inventory(sys, proc).same_as(before)
