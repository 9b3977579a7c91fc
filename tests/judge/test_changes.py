"""What changed against the previous boot, on inventories read by the real inventory reader
from fake sysfs trees, and the sysctl records written by the real `sysctl_set.apply`."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from fakes import dual_amdgpu_box

from kmsgd.judge.changes import (
    changes_within,
    config_facts,
    diff_inventory,
    effective_sysctls,
    iommu_mode,
    sysctl_changes,
)
from kmsgd.record import sysctl_set
from kmsgd.ring import frame as fr
from kmsgd.ring.inventory import Inventory
from kmsgd.ring.records import Entry, Kind
from kmsgd.sensors.inventory_scan import read_inventory

BOOT = "0123456789abcdef0123456789abcdef"
WHEN = "after the reboot"


def inventory(sys: Path, proc: Path) -> Inventory:
    return read_inventory(sys, proc)


def texts(changes: list[dict[str, Any]]) -> list[str]:
    return [c.text for c in changes]


def test_same_box_twice_is_no_change(tmp_path: Path) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    before = inventory(sys, proc)
    (next(sys.rglob("0000:03:00.0")) / "current_link_speed").write_text("2.5 GT/s PCIe\n")
    assert diff_inventory(before, inventory(sys, proc), when=WHEN) == []
    assert diff_inventory(None, before, when=WHEN) == diff_inventory(before, None, when=WHEN) == []


def test_seed_004_card_missing_after_the_reboot_is_major(tmp_path: Path) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    before = inventory(sys, proc)
    shutil.rmtree(sys / "class" / "drm" / "card1")
    (sys / "class" / "hwmon" / "hwmon4").unlink()
    (change,) = diff_inventory(before, inventory(sys, proc), when=WHEN)
    assert change.text == "card 0000:43:00.0 (amdgpu) missing after the reboot"
    assert (change.what, change.severity, change.device) == (
        "gpu_missing",
        "major",
        "0000:43:00.0",
    )
    assert (change.before, change.after, change.when) == ("0000:43:00.0", None, WHEN)
    back = diff_inventory(inventory(sys, proc), before, when=WHEN)
    assert texts(back) == ["card 0000:43:00.0 (amdgpu) new after the reboot"]
    assert back[0].severity == "minor"


def test_power_cap_change(tmp_path: Path) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    before = inventory(sys, proc)
    (next(sys.rglob("0000:43:00.0")) / "hwmon" / "hwmon4" / "power1_cap").write_text("250000000\n")
    (change,) = diff_inventory(before, inventory(sys, proc), when=WHEN)
    assert change.text == "card 0000:43:00.0 power cap 289 W → 250 W after the reboot"
    assert (change.key, change.before, change.after) == ("power1.cap_w", 289.0, 250.0)


def test_iommu_pt_added_and_domain_type_changed(tmp_path: Path) -> None:
    """Seed 000's fix: `iommu=pt pcie_aspm=off` moves the GPUs from DMA-FQ to identity."""
    sys, proc = dual_amdgpu_box(tmp_path)
    cmdline = proc / "cmdline"
    cmdline.write_text("BOOT_IMAGE=/vmlinuz-6.8.0-49-generic root=/dev/sda1 quiet\n")
    for group in (sys / "kernel" / "iommu_groups").iterdir():
        (group / "type").write_text("DMA-FQ\n")
    for t in sys.rglob("iommu_group/type"):
        t.write_text("DMA-FQ\n")
    before = inventory(sys, proc)
    assert config_facts(before).iommu_mode == "translated"
    cmdline.write_text(
        "BOOT_IMAGE=/vmlinuz-6.8.0-50-generic root=/dev/sda1 quiet iommu=pt pcie_aspm=off\n"
    )
    for group in (sys / "kernel" / "iommu_groups").iterdir():
        (group / "type").write_text("identity\n")
    for t in sys.rglob("iommu_group/type"):
        t.write_text("identity\n")
    changes = diff_inventory(before, inventory(sys, proc), when=WHEN)
    assert texts(changes) == [
        "card 0000:03:00.0 IOMMU domain DMA-FQ → identity after the reboot",
        "card 0000:43:00.0 IOMMU domain DMA-FQ → identity after the reboot",
        "IOMMU mode translated → passthrough after the reboot",
        "kernel command line: iommu=pt added after the reboot",  # BOOT_IMAGE is not a change
        "kernel command line: pcie_aspm=off added after the reboot",
    ]
    assert {c.what for c in changes} == {"gpu", "iommu_mode", "cmdline"}
    assert all(c.severity == "minor" for c in changes)


def test_a_changed_parameter_is_one_change_and_aspm_kernel_sysctls_are_told() -> None:
    before = Inventory.from_payload(
        {
            "kernel": "6.8.0-49-generic",
            "cmdline": 'root=/dev/sda1 iommu=soft console=tty0 console=ttyS0 foo="a b"',
            "aspm_policy": "default",
            "sysctls": {"kernel.panic": "0", "kernel.printk": "4\t4\t1\t7", "vm.panic_on_oom": "0"},
        }
    )
    after = Inventory.from_payload(
        {
            "kernel": "6.8.0-50-generic",
            "cmdline": "root=/dev/sda1 iommu=pt console=tty0",
            "aspm_policy": "performance",
            "sysctls": {"kernel.panic": "30", "kernel.printk": "4 4 1 7", "kernel.sysrq": "1"},
        }
    )
    assert texts(diff_inventory(before, after, when="since the previous boot")) == [
        "ASPM policy default → performance since the previous boot",
        "kernel 6.8.0-49-generic → 6.8.0-50-generic since the previous boot",
        "kernel command line: iommu=soft → iommu=pt since the previous boot",
        "kernel command line: console=ttyS0 removed since the previous boot",
        "kernel command line: foo=a b removed since the previous boot",
        "sysctl kernel.panic 0 → 30 since the previous boot",
        "sysctl kernel.sysrq (none) → 1 since the previous boot",
        "sysctl vm.panic_on_oom 0 → (none) since the previous boot",
    ]


def test_garbage_inventories_give_no_exception() -> None:
    junk = Inventory.from_payload(
        {"gpus": "x", "iommu_group_types": [1], "sysctls": None, "cmdline": '"'}
    )
    good = Inventory.from_payload(
        {"gpus": [{"device": "0000:03:00.0", "driver": "amdgpu"}, 7, {"no": "device"}]}
    )
    assert texts(diff_inventory(junk, good, when=WHEN)) == [
        "card 0000:03:00.0 (amdgpu) new after the reboot",
        'kernel command line: " removed after the reboot',
    ]
    assert config_facts(junk).gpus == ()


def test_iommu_mode_names() -> None:
    assert iommu_mode({"identity": 12}) == "passthrough"
    assert iommu_mode({"DMA-FQ": 3, "unmanaged": 1}) == "translated"
    assert iommu_mode({"DMA": 2, "identity": 1}) == "mixed"
    assert iommu_mode({}) == "none" and iommu_mode({"identity": 0}) == "none"


def entry(serial: int, kind: Kind, payload: object) -> Entry:
    """An entry as the ring hands it back: the payload through the ring's codec."""
    data = fr.decode_payload(kind, fr.encode_payload(kind, payload))  # type: ignore[arg-type]
    return Entry(serial, BOOT, 1_700_000_000_000_000 + serial * 1_000_000, kind, data)


def test_sysctl_records_from_a_real_apply(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    for key, value in (
        ("kernel/panic", "0"),
        ("kernel/panic_on_oops", "1"),
        ("kernel/sysrq", "0"),
    ):
        (proc / "sys" / key).parent.mkdir(parents=True, exist_ok=True)
        (proc / "sys" / key).write_text(value + "\n")
    applied = sysctl_set.apply(proc)  # hardlockup_panic and friends are missing on this "kernel"
    inv = {"sysctls": {"kernel.panic": "0", "kernel.panic_on_oops": "1", "kernel.sysrq": "0"}}
    entries = [
        entry(1, Kind.INVENTORY, inv),
        entry(2, Kind.SYSCTL, sysctl_set.to_record(applied)),
        entry(3, Kind.SYSCTL, sysctl_set.to_record(sysctl_set.apply(proc))),  # a restart
    ]
    found = texts(sysctl_changes(entries))
    assert found[0] == "kernel.panic 0 → 30 (set by kmsgd)"  # in the order kmsgd applies
    assert "kernel.sysrq 0 → 1 (set by kmsgd)" in found
    assert not any(t.startswith("kernel.panic_on_oops") for t in found)  # already as wanted
    assert "kernel.hardlockup_panic could not be set (missing)" in found
    assert "kernel.softlockup_panic could not be set (missing)" in found
    assert len(found) == len(set(found))  # the restart's identical failures are not repeated
    first = sysctl_changes(entries)[0]
    assert (first.key, first.before, first.after, first.when) == (
        "kernel.panic",
        "0",
        "30",
        "during the boot",
    )
    values = effective_sysctls(entries)
    assert values["kernel.panic"] == "30" and values["kernel.panic_on_oops"] == "1"
    assert "kernel.hardlockup_panic" not in values
    later = [*entries, entry(4, Kind.INVENTORY, {"sysctls": {"kernel.panic": "10"}})]
    assert effective_sysctls(later)["kernel.panic"] == "10"  # an admin changed it afterwards
    junk = [entry(5, Kind.SYSCTL, {"changes": [None, {"key": 3}, "x"]}), entry(6, Kind.SYSCTL, {})]
    assert sysctl_changes(junk) == [] and effective_sysctls(junk) == {}


def test_a_gpu_falling_off_the_bus_within_the_boot(tmp_path: Path) -> None:
    sys, proc = dual_amdgpu_box(tmp_path)
    first = inventory(sys, proc)
    shutil.rmtree(sys / "class" / "drm" / "card1")
    entries = [entry(1, Kind.INVENTORY, first), entry(9, Kind.INVENTORY, inventory(sys, proc))]
    (change,) = changes_within(entries)
    assert change.text == "card 0000:43:00.0 (amdgpu) missing during the boot"
    assert change.wall_us == entries[1].wall_us
