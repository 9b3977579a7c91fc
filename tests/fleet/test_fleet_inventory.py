"""What the inventory adds for the fleet: DMI, CPU model, RAM, amdgpu firmware, and PCI ids
for GPUs that only NVML names."""

from __future__ import annotations

from pathlib import Path

from fakes import amd_card, empty_box, put

from kmsgd.judge.changes import config_facts
from kmsgd.report import render_json
from kmsgd.ring.inventory import Inventory
from kmsgd.sensors.inventory_scan import read_inventory


def test_host_facts_and_firmware(tmp_path: Path) -> None:
    sys, proc = empty_box(tmp_path)
    dev = amd_card(sys, "card0", "0000:03:00.0", "hwmon3")
    put(dev / "fw_version" / "smc_fw_version", "0x00553700")
    put(dev / "fw_version" / "mec_fw_version", "0x000001f4")
    put(dev / "fw_version" / "README", "not a version")
    for name, value in (("bios_vendor", "AMI"), ("bios_version", "1.40"), ("board_name", "X")):
        put(sys / "class" / "dmi" / "id" / name, value)
    (proc / "cpuinfo").write_text(
        "processor\t: 0\nmodel name\t: AMD EPYC  9354\n\nprocessor\t: 1\n"
    )
    (proc / "meminfo").write_text("MemTotal:       263856092 kB\n")
    inv = read_inventory(sys, proc)
    assert inv.host == {
        "bios_vendor": "AMI",
        "bios_version": "1.40",
        "board_name": "X",
        "cpu_model": "AMD EPYC 9354",
        "mem_total_bytes": 263856092 * 1024,
    }
    assert inv.gpus[0]["firmware"] == {"smc": "0x00553700", "mec": "0x000001f4"}
    assert Inventory.from_payload(inv.to_payload()) == inv
    facts = config_facts(inv)
    assert facts.host["bios_version"] == "1.40"
    gpu = facts.gpus[0]
    assert (gpu.pci_id, gpu.subsystem_id, gpu.vbios) == (
        "1002:744c",
        "1da2:e471",
        "113-D70401XT-N11",
    )
    assert gpu.firmware == {"smc": "0x00553700", "mec": "0x000001f4"}
    assert render_json.config_json(facts)["gpus"][0]["firmware"] == {
        "smc": "0x00553700",
        "mec": "0x000001f4",
    }


def test_an_nvml_gpu_gets_its_pci_ids_from_sysfs(tmp_path: Path) -> None:
    sys, proc = empty_box(tmp_path)
    dev = sys / "bus" / "pci" / "devices" / "0000:3d:00.0"
    for name, value in (
        ("vendor", "0x10de"),
        ("device", "0x2330"),
        ("subsystem_vendor", "0x10de"),
        ("subsystem_device", "0x16c1"),
    ):
        put(dev / name, value)
    nvml = {"device": "0000:3d:00.0", "driver": "nvidia", "vbios": "96.00.74.00.01"}
    (gpu,) = read_inventory(sys, proc, [nvml]).gpus
    assert (gpu["vendor_id"], gpu["device_id"], gpu["subsystem_id"]) == (
        "10de",
        "2330",
        "10de:16c1",
    )
    assert gpu["vbios"] == "96.00.74.00.01"


def test_an_old_inventory_without_host_still_reads(tmp_path: Path) -> None:
    old = {"mono_us": 1, "kernel": "6.1", "cmdline": "quiet", "gpus": [{"device": "0000:03:00.0"}]}
    inv = Inventory.from_payload(old)
    assert inv.host == {}
    facts = config_facts(inv)
    assert facts.host == {} and facts.gpus[0].pci_id == ""
