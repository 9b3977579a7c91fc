"""The fake sysfs trees that other tests build are found as real sysfs would be."""

from __future__ import annotations

from pathlib import Path

from fakes import dual_amdgpu_box, empty_box

from kmsgd.sensors.amdgpu import read_cards
from kmsgd.sensors.hwmon import read_chips


def test_dual_amdgpu_tree_is_found_as_real_sysfs_would_be(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    assert [c.name for c in read_chips(sys)] == ["coretemp", "nvme", "amdgpu", "amdgpu"]
    assert [(c.card, c.device) for c in read_cards(sys)] == [
        ("card0", "0000:03:00.0"),
        ("card1", "0000:43:00.0"),
    ]


def test_empty_box_has_no_devices(tmp_path: Path) -> None:
    sys, _ = empty_box(tmp_path)
    assert read_chips(sys) == []
    assert read_cards(sys) == []
