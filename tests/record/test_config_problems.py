"""A typo never stops recording: the valid settings apply, each bad one keeps its default and
is named with the closest valid setting; an NVIDIA GPU without NVML is said at start."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fakes import link, put

from kmsgd import config
from kmsgd.record import hostenv
from kmsgd.sensors import nvml


def settings(tmp_path: Path, text: str) -> config.Settings:
    path = tmp_path / "kmsgd.toml"
    path.write_text(text)
    return config.read(str(path), {})


def test_a_typo_keeps_the_rest_and_names_the_closest_setting(tmp_path: Path) -> None:
    s = settings(tmp_path, '[kmsgd]\nring = "/srv/r"\nringsize = "128M"\nheartbeat_s = "x"\n')
    assert s.config.ring == "/srv/r" and s.config.heartbeat_s == config.Config().heartbeat_s
    assert [(p.key, p.suggestion) for p in s.problems] == [
        ("ringsize", "ring_size"),
        ("heartbeat_s", None),
    ]
    assert "did you mean ring_size?" in s.problems[0].message
    with pytest.raises(config.BadInput, match="ringsize"):
        config.load(str(tmp_path / "kmsgd.toml"), {})  # the strict form still refuses


def test_keys_outside_the_table_are_reported(tmp_path: Path) -> None:
    s = settings(tmp_path, 'ringsize = "1M"\n[kmsgd]\n[other]\na = 1\n[kmsgd.sub]\nb = 2\n')
    messages = [p.message for p in s.problems]
    assert any("above the [kmsgd] table" in m and "ring_size" in m for m in messages)
    assert any(m.startswith("[other]") for m in messages)
    assert any(m.startswith("[kmsgd.sub]") for m in messages)


def test_an_unreadable_file_means_defaults_and_one_problem(tmp_path: Path) -> None:
    s = settings(tmp_path, "[kmsgd\n")
    assert s.config == config.Config() and len(s.problems) == 1
    assert "unreadable" in s.problems[0].message


def test_values_out_of_range_keep_the_default(tmp_path: Path) -> None:
    s = settings(tmp_path, "[kmsgd]\nheartbeat_s = 0\nurgent_level = 9\nreports_keep = 10\n")
    assert s.config.heartbeat_s == 1.0 and s.config.urgent_level == 4
    assert s.config.reports_keep == 10 and len(s.problems) == 2


def test_the_ring_table_takes_512_or_4096(tmp_path: Path) -> None:
    s = settings(tmp_path, '[kmsgd]\nring = "/srv/r"\n[ring]\nalign = 4096\n')
    assert s.config.ring == "/srv/r" and s.config.ring_layout.align == 4096 and not s.problems
    s = settings(tmp_path, "[ring]\nalign = 1000\nsize = 1\n")
    assert s.config.ring_layout.align == 512
    assert [p.key for p in s.problems] == ["ring.align", "ring.size"]
    assert "512 or 4096" in s.problems[0].message


def test_paths_derive_from_textfile_dir() -> None:
    cfg = config.Config(textfile_dir="/x")
    assert (cfg.recorder_textfile, cfg.report_textfile) == (
        "/x/kmsgd.prom",
        "/x/kmsgd-last-boot.prom",
    )
    assert config.Config(textfile_dir="").recorder_textfile == ""
    assert config.Config().textfile_dir == "/var/lib/prometheus/node-exporter"


class Log:
    def __init__(self) -> None:
        self.events: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, level: str) -> Any:
        return lambda event, **kw: self.events.append((level, event, kw))


def test_an_nvidia_gpu_without_nvml_is_said_at_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    sys_root = tmp_path / "sys"
    dev = sys_root / "devices/pci0000:00/0000:3d:00.0"
    put(dev / "vendor", "0x10de")
    put(dev / "class", "0x030000")
    link(sys_root / "bus/pci/devices/0000:3d:00.0", dev)
    audio = sys_root / "devices/pci0000:00/0000:3d:00.1"  # the card's HDMI audio: not a GPU
    put(audio / "vendor", "0x10de")
    put(audio / "class", "0x040300")
    link(sys_root / "bus/pci/devices/0000:3d:00.1", audio)
    assert nvml.nvidia_gpus(str(sys_root)) == ["0000:3d:00.0"]
    monkeypatch.setattr(nvml, "nvml_problem", lambda loader=None: "nvidia-ml-py is not installed")
    log = Log()
    hostenv._say_nvidia(config.Config(sys_root=str(sys_root)), log)
    [(level, event, kw)] = log.events
    assert (level, event) == ("warning", "nvidia_without_nvml")
    assert "0000:3d:00.0" in kw["problem"] and "kmsgd[nvidia]" in kw["fix"]
    monkeypatch.setattr(nvml, "nvml_problem", lambda loader=None: None)
    hostenv._say_nvidia(config.Config(sys_root=str(sys_root)), log)
    assert len(log.events) == 1  # NVML works: nothing to say
