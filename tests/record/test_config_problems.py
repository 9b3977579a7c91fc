"""A typo never stops recording: the valid settings apply, each bad one keeps its default and
is named with the closest valid setting; an NVIDIA GPU without NVML is said at start."""

from __future__ import annotations

import dataclasses
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
    assert nvml.nvidia_gpus(sys_root) == ["0000:3d:00.0"]
    monkeypatch.setattr(nvml, "nvml_problem", lambda loader=None: "nvidia-ml-py is not installed")
    log = Log()
    hostenv._say_nvidia(config.Config(sys_root=sys_root), log)
    [(level, event, kw)] = log.events
    assert (level, event) == ("warning", "nvidia_without_nvml")
    assert "0000:3d:00.0" in kw["problem"] and "kmsgd[nvidia]" in kw["fix"]
    monkeypatch.setattr(nvml, "nvml_problem", lambda loader=None: None)
    hostenv._say_nvidia(config.Config(sys_root=sys_root), log)
    assert len(log.events) == 1  # NVML works: nothing to say


@pytest.mark.parametrize(
    "line",
    [
        "heartbeat_s = nan",
        "heartbeat_s = inf",
        "heartbeat_s = -inf",
        "heartbeat_s = 1e-300",
        "flush_s = nan",
        "flush_s = 1e9",
        "power_hz = 1e300",
        "sample_hz = nan",
        "header_every_s = inf",
        "top_processes_s = 1e-9",
        "ring_size = 123456789012345678901234567890",
        "max_pending_bytes = 9223372036854775807",
        "kmsg_buffer_bytes = 12",
        "reports_keep = 10000000000",
    ],
)
def test_a_number_outside_its_range_keeps_the_default(tmp_path: Path, line: str) -> None:
    """nan, inf and absurd magnitudes stopped or starved recording (`heartbeat_s = nan` made
    `run` fail, `flush_s = nan` spun a core, `power_hz = 1e300` flooded the ring)."""
    s = settings(tmp_path, f"[kmsgd]\n{line}\n")
    key = line.split()[0]
    assert getattr(s.config, key) == getattr(config.Config(), key)
    (problem,) = s.problems
    assert problem.key == key and "between" in problem.message and "default" in problem.message


@pytest.mark.parametrize(
    "line",
    [
        "gpu_hz = inf",
        "memory_hz = 1e300",
        "max_s = nan",
        "rate_limit_s = inf",
        "capture_timeout_s = 1e-300",
        "psi_full_pct = 1000.0",
        "max_bytes = 123456789012345678901234567890",
        "procs_at_s = [0.0, nan]",
        "gpus_at_s = [1e300]",
    ],
)
def test_an_incident_number_outside_its_range_keeps_the_default(tmp_path: Path, line: str) -> None:
    s = settings(tmp_path, f"[incident]\n{line}\n")
    key = line.split()[0]
    assert getattr(s.config.incident, key) == getattr(config.IncidentConfig(), key)
    (problem,) = s.problems
    assert problem.key == f"incident.{key}" and "default" in problem.message


def test_the_ranges_cover_every_number_and_hold_the_defaults() -> None:
    for cls, ranges in (
        (config.Config, config.RANGES),
        (config.IncidentConfig, config.INCIDENT_RANGES),
    ):
        default = cls()
        for field in dataclasses.fields(cls):
            value = getattr(default, field.name)
            values = value if isinstance(value, tuple) else (value,)
            if isinstance(value, bool) or not all(isinstance(v, int | float) for v in values):
                continue
            low, high = ranges[field.name]
            assert all(low <= v <= high for v in values), field.name


def test_kmsgd_check_fails_on_a_number_outside_its_range(tmp_path: Path) -> None:
    from kmsgd.check.service import config_findings

    s = settings(tmp_path, "[kmsgd]\nheartbeat_s = nan\n")
    (finding,) = config_findings(s)
    assert finding.status.name == "FAIL" and "heartbeat_s" in finding.summary


@pytest.mark.slow
def test_a_command_line_heartbeat_outside_its_range_is_refused(tmp_path: Path) -> None:
    import subprocess
    import sys

    base = [sys.executable, "-m", "kmsgd", "run", "--ring", str(tmp_path / "ring")]
    for value in ("nan", "inf", "1e-300"):
        out = subprocess.run(
            [*base, "--config", "/dev/null", "--heartbeat", value, "--no-sysctl", "--no-mlock"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert out.returncode == 2 and "heartbeat" in out.stderr, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "Traceback" not in out.stderr
    assert not (tmp_path / "ring").exists()


def test_the_operator_guide_lists_every_range() -> None:
    guide = (Path(__file__).parents[2] / "docs" / "operator-guide.md").read_text()
    for key in (*config.RANGES, *config.INCIDENT_RANGES):
        assert f"`{key}`" in guide, key


def test_a_deeply_nested_value_is_an_unreadable_file_not_a_traceback(tmp_path: Path) -> None:
    s = settings(tmp_path, "[kmsgd]\nring_size = " + "[" * 5000 + "]" * 5000 + "\n")
    assert s.config == config.Config() and len(s.problems) == 1
    assert "unreadable" in s.problems[0].message and "deep" in s.problems[0].message
