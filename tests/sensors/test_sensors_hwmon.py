"""hwmon and amdgpu readers on fake trees and on the real amdgpu snapshots."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

import pytest
from fakes import dual_amdgpu_box, hwmon_chip, put

from kmsgd.sensors import discover
from kmsgd.sensors.amdgpu import read_card_info, read_cards
from kmsgd.sensors.attrfiles import KeptFile, ReadFailed, parse_int
from kmsgd.sensors.hwmon import normalise_label, read_chips

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "sysfs" / "amdgpu"


@pytest.mark.parametrize(
    ("raw", "value"),
    [
        (b"36000000\n", 36000000),
        (b"56000\n" + b"\0" * 80, 56000),  # RX 6900 XT padding
        (b"  -273150 \n", -273150),
        (b"0x1002\n", 0x1002),
        (b"", None),
        (b"\0\0\0", None),
        (b"N/A\n", None),
        (b"12.5\n", None),
    ],
)
def test_parse_int_tolerates_real_padding_and_rejects_garbage(
    raw: bytes, value: int | None
) -> None:
    assert parse_int(raw) == value


def test_kept_file_rereads_and_reopens_after_the_file_is_replaced(tmp_path: Path) -> None:
    path = tmp_path / "power1_input"
    path.write_bytes(b"12000000\n")
    f = KeptFile(str(path))
    assert f.read_int() == 12_000_000
    path.write_bytes(b"300000000\n")  # same inode: pread at 0 sees the new value
    assert f.read_int() == 300_000_000
    path.unlink()
    assert f.read_int() == 300_000_000  # an unlinked but open file still reads
    f.close()
    with pytest.raises(ReadFailed) as err:
        f.read_int()
    assert err.value.reason == "ENOENT"
    path.write_bytes(b"5\n")
    assert f.read_int() == 5


@pytest.mark.parametrize(
    ("content", "reason"),
    [(b"", "empty"), (b"\0\0\n", "empty"), (b"garbage\n", "garbage"), (b"1e6\n", "garbage")],
)
def test_kept_file_classifies_bad_contents(tmp_path: Path, content: bytes, reason: str) -> None:
    path = tmp_path / "temp1_input"
    path.write_bytes(content)
    with pytest.raises(ReadFailed) as err:
        KeptFile(str(path)).read_int()
    assert err.value.reason == reason


def test_kept_file_reports_permission_errors(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # root ignores file modes, so EACCES is injected at the os boundary for this one path
    path = tmp_path / "power1_cap"
    path.write_bytes(b"1\n")
    real_open = os.open

    def deny(p: str, flags: int, *args: int) -> int:
        if p == str(path):
            raise PermissionError(errno.EACCES, "Permission denied", p)
        return real_open(p, flags, *args)

    monkeypatch.setattr(os, "open", deny)
    with pytest.raises(ReadFailed) as err:
        KeptFile(str(path)).read()
    assert err.value.reason == "EACCES"


def test_label_normalisation() -> None:
    assert normalise_label("Package id 0") == "package_id_0"
    assert normalise_label("PPT") == "ppt"
    assert normalise_label("  ") == ""


def test_amdgpu_chip_channels_use_labels_units_and_prefer_power_input(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    chips = {c.device: c for c in read_chips(sys)}
    card0 = chips["0000:03:00.0"]
    assert card0.name == "amdgpu" and card0.driver == "amdgpu"
    keys = {ch.key: (ch.attr, ch.scale) for ch in card0.channels}
    assert keys["edge.temp_c"] == ("temp1_input", 1e-3)
    assert keys["junction.temp_c"][0] == "temp2_input"
    assert keys["ppt.power_w"] == ("power1_average", 1e-6)  # this card has only the average
    assert keys["vddgfx.volt_v"] == ("in0_input", 1e-3)
    assert "fan1.fan_rpm" in keys and "sclk.freq_mhz" in keys
    assert not any(k.startswith("pwm") for k in keys)
    padded = {c.key: c for c in chips["0000:43:00.0"].channels}  # NUL-padded like the 6900 XT
    assert padded["junction.temp_c"].label == "junction"
    assert padded["ppt.power_w"].attr == "power1_input"
    assert dict(card0.cap_paths).keys() == {
        "power1.cap_w",
        "power1.cap_default_w",
        "power1.cap_min_w",
        "power1.cap_max_w",
    }


def test_both_power_files_present_uses_input(tmp_path: Path) -> None:
    sys = tmp_path / "sys"
    dev = sys / "devices" / "platform" / "x"
    hwmon_chip(sys, dev, "hwmon0", {"name": "amdgpu", "power1_average": 1, "power1_input": 2})
    (chip,) = read_chips(sys)
    assert [ch.attr for ch in chip.channels] == ["power1_input"]


def test_duplicate_labels_are_kept_apart(tmp_path: Path) -> None:
    sys = tmp_path / "sys"
    dev = sys / "devices" / "platform" / "it87.2608"
    hwmon_chip(
        sys,
        dev,
        "hwmon0",
        {
            "name": "it8792",
            "temp1_input": 1,
            "temp1_label": "CPU",
            "temp2_input": 2,
            "temp2_label": "CPU",
        },
    )
    (chip,) = read_chips(sys)
    assert [ch.key for ch in chip.channels] == ["cpu.temp_c", "cpu_temp2.temp_c"]


def test_chip_without_name_or_vanished_is_skipped(tmp_path: Path) -> None:
    sys = tmp_path / "sys"
    dev = sys / "devices" / "platform" / "x"
    hwmon_chip(sys, dev, "hwmon0", {"temp1_input": 1})  # no `name`: not a valid chip
    os.symlink("/nonexistent/hwmon9", sys / "class" / "hwmon" / "hwmon9")  # dangling
    assert read_chips(sys) == []


def test_cards_skip_connectors_and_merge_with_their_hwmon(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    cards = read_cards(sys)
    assert [c.card for c in cards] == ["card0", "card1"]
    assert dict(cards[0].extras).keys() == {
        "busy_pct",
        "mem_busy_pct",
        "vram_used_bytes",
        "gtt_used_bytes",
    }
    specs = {s.device: s for s in discover.discover(sys)}
    amd = specs["0000:03:00.0"]
    assert amd.source == "amdgpu" and amd.is_gpu
    assert [f.key for f in amd.power] == ["ppt.power_w"]
    assert {f.key for f in amd.slow} >= {"edge.temp_c", "busy_pct", "vram_used_bytes"}
    assert specs["coretemp.0"].source == "hwmon" and not specs["coretemp.0"].is_gpu
    assert [f.key for f in specs["nvme0"].slow] == ["composite.temp_c"]


def test_card_info_reads_ids_firmware_and_link(tmp_path: Path) -> None:
    sys, _ = dual_amdgpu_box(tmp_path)
    info = read_card_info(read_cards(sys)[1])  # the NUL-padded one
    assert (info.vendor_id, info.device_id, info.subsystem_id) == ("1002", "744c", "1da2:e471")
    assert info.vbios == "113-D70401XT-N11"
    assert (info.link_speed, info.link_width) == ("16.0 GT/s PCIe", 16)
    assert info.vram_total_bytes == 25753026560
    assert info.driver == "amdgpu"


def _install_fixture(sys: Path, name: str, pci: str, card: str) -> None:
    dev = sys / "devices" / "pci0000:00" / pci
    shutil.copytree(FIXTURES / name, dev, symlinks=True)
    for j, old in enumerate(sorted((dev / "hwmon").iterdir())):
        hw = old.with_name(f"hwmon{10 * int(card[4:]) + 10 + j}")  # snapshot numbers collide
        old.rename(hw)
        if not (hw / "device").exists():
            os.symlink("../..", hw / "device")
        if not (hw / "name").exists():  # some snapshots lack `name`; amdgpu always has it
            put(hw / "name", "amdgpu")
        (sys / "class" / "hwmon").mkdir(parents=True, exist_ok=True)
        os.symlink(hw, sys / "class" / "hwmon" / hw.name)
    (sys / "class" / "drm" / card).mkdir(parents=True)
    os.symlink(dev, sys / "class" / "drm" / card / "device")


def test_real_amdgpu_snapshots_give_sane_values(tmp_path: Path) -> None:
    sys = tmp_path / "sys"
    names = sorted(p.name for p in FIXTURES.iterdir() if p.is_dir())
    for i, name in enumerate(names):
        _install_fixture(sys, name, f"0000:{i + 3:02x}:00.0", f"card{i}")
    specs = {s.device: s for s in discover.discover(sys)}
    assert len(specs) == len(names)
    for spec in specs.values():
        device = discover.build(spec, 16)
        from kmsgd.sensors.device import ReadContext

        events: list[object] = []
        ctx = ReadContext(events.append)
        device.sample_power(ctx)
        sample = device.sample(ctx)
        assert sample is not None, spec.device
        assert events == [], events
        temps = [v for k, v in sample.values.items() if k.endswith(".temp_c")]
        assert temps and all(0 < t < 120 for t in temps), sample.values
        power = [v for k, v in sample.values.items() if k.endswith(".power_w")]
        assert power and all(0 < p < 600 for p in power), sample.values
