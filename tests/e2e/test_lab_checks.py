"""The crash lab's own logic, without a VM: reading kmsgd's JSON, apt sources, the fake GPU tree."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from lab import checks  # noqa: E402
from lab.image import parse_apt_sources  # noqa: E402
from lab.runner import table  # noqa: E402

sys.path.insert(0, str(REPO / "lab" / "guest"))
import fakegpu  # noqa: E402


def test_apt_sources_deb822_and_one_line_give_the_bookworm_entries_only() -> None:
    deb822 = (
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\n"
        "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
        "Types: deb-src\nURIs: http://mirror.example/debian\nSuites: bookworm\nComponents: main\n\n"
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: trixie\nComponents: main\n"
    )
    one_line = (
        "# comment\ndeb [arch=amd64] http://sec.example/debian-security bookworm-security main\n"
    )
    got = parse_apt_sources([("debian.sources", deb822), ("sources.list", one_line)])
    assert got == [
        "deb http://mirror.example/debian bookworm main",
        "deb http://mirror.example/debian bookworm-updates main",
        "deb http://sec.example/debian-security bookworm-security main",
    ]


def test_json_lines_reads_kmsgd_output_and_skips_a_stray_line() -> None:
    text = '{"kind": "boot"}\nnote: torn tail\n{"kind": "heartbeat", "data": {"wall_us": 5}}\n'
    assert [e["kind"] for e in checks.json_lines(text)] == ["boot", "heartbeat"]
    assert checks.heartbeats_us(checks.json_lines(text)) == [5]


def test_heartbeat_interval_is_the_median_gap() -> None:
    beats = [0, 1_000_000, 2_000_000, 3_000_000, 9_000_000]
    assert checks.heartbeat_interval_s(beats) == 1.0
    assert checks.heartbeat_interval_s([7]) is None


def test_time_of_death_found_whatever_the_key_layout() -> None:
    report = {
        "time_of_death": {
            "last_sign_of_life_wall_us": 1_700_000_000_500_000,
            "next_boot_wall_us": 1_700_000_100_000_000,
        }
    }
    assert checks.time_of_death_s(report) == pytest.approx(1_700_000_000.5)
    assert checks.time_of_death_s({"time_of_death": None}) is None
    kmsgd_layout = {
        "time_of_death": {
            "last_line": {"wall_us": 1},
            "downtime_s": 180.0,
            "last_sign_of_life_wall_us": 2_000_000,
        }
    }
    assert checks.time_of_death_s(kmsgd_layout) == 2.0
    assert checks.downtime_s(kmsgd_layout) == 180.0


def test_power_step_found_in_min_max_telemetry_of_two_cards() -> None:
    report = {
        "telemetry": {
            "devices": [
                {
                    "device": "0000:03:00.0",
                    "ppt.power_w": {"min": 12.0, "max": 300.0, "last": 300.0},
                },
                {"device": "0000:04:00.0", "ppt.power_w": {"min": 12.0, "max": 14.0, "last": 13.0}},
            ]
        }
    }
    assert checks.power_step_in(report, low_w=20, high_w=250) == [
        "telemetry.devices[0].ppt.power_w"
    ]
    # kmsgd's layout (kmsgd/telemetry_view.py find_steps): a list of steps with from_w/to_w
    steps = {"telemetry": {"steps": [{"key": "ppt.power_w", "from_w": 12.0, "to_w": 300.0}]}}
    assert checks.power_step_in(steps, low_w=20, high_w=250) == ["telemetry.steps[0]"]


def test_power_readings_group_sample_records_by_device() -> None:
    entries = [
        {"kind": "sample", "wall_us": 1, "data": {"device": "a", "ppt.power_w": 12.0}},
        {"kind": "sample", "wall_us": 2, "data": {"devices": [{"device": "b", "power_w": 300}]}},
        {"kind": "kernel", "wall_us": 3, "data": {"message": "power_w 999"}},
    ]
    assert checks.power_readings(entries) == {
        "a:ppt.power_w": [(1, 12.0)],
        "b:power_w": [(2, 300.0)],
    }


def test_scenario_table_covers_the_issue_with_unique_names() -> None:
    names = [sc.name for sc in table(180)]
    assert len(names) == len(set(names))
    for want in ("probe", "clean", "panic", "reset", "freeze", "oom", "psu"):
        assert want in names


def test_lab_run_lists_scenarios_without_root_or_qemu() -> None:
    done = subprocess.run(
        [sys.executable, str(REPO / "lab" / "run"), "--list"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert done.stdout.split()[0] == "probe"


def test_fake_gpu_tree_is_two_amdgpu_cards_to_kmsgd(tmp_path: Path) -> None:
    discover = pytest.importorskip("kmsgd.sensors.discover", reason="kmsgd sensors not present")
    root = tmp_path / "sys"
    fakegpu.make(str(root))
    specs = [s for s in discover.discover(root) if s.driver == "amdgpu"]
    assert sorted(s.device for s in specs) == ["0000:03:00.0", "0000:04:00.0"]
    assert all(s.power for s in specs)
    fakegpu.set_power(str(root), 300)
    path = specs[0].power[0].path
    assert int(Path(path).read_text()) == 300_000_000


def _results(dump: list[dict[str, object]], report: dict[str, object]) -> object:
    from lab.model import Results

    boots = [{"boot_id": "b1", "stopped": False}]
    facts = {"boot1": "b1", "incident_wait": {"records": ["procs", "start", "sysrq"]}}
    return Results(facts, boots, dump, [], report, {"pstore": ""}, {})


def test_incident_expectations_want_the_writer_named_with_its_function() -> None:
    from lab.checks import Status
    from lab.expect import expect_incident

    # as the shipped unit records it: no stack or wchan of its own (docs/security.md)
    task = {"comm": "lab-writer", "pid": 812, "in": "", "stack": []}
    sysrq = {"record": "sysrq", "keys": "w", "w": "ok"}
    dump = [
        {"kind": "incident", "data": {"record": "procs", "blocked": [task]}},
        {"kind": "incident", "data": sysrq},
    ]
    stack = ["__schedule+0x34d/0xa00", "percpu_rwsem_wait+0x116/0x140", "mnt_want_write+0x8b/0xc0"]
    blocked = {"comm": "lab-writer", "function": "mnt_want_write", "stack": stack}
    good = {
        "outcome": "hard_freeze",
        "primary": {"tag": "hung_task"},
        "incidents": [
            {
                "trigger": "hung_task",
                "findings": ["lab-writer (812) blocked in mnt_want_write for 10 s"],
                "blocked": [{**blocked, "stack_from": "hung_task"}],
            }
        ],
    }
    checks = expect_incident(_results(dump, good))  # type: ignore[arg-type]
    assert all(c.status is Status.PASS for c in checks), checks

    def failed(dump: list[dict[str, object]], report: dict[str, object]) -> set[str]:
        checks = expect_incident(_results(dump, report))  # type: ignore[arg-type]
        return {c.name for c in checks if c.status is Status.FAIL}

    (incident,) = good["incidents"]
    unnamed = {**incident, "findings": ["something else"]}
    assert failed(dump, {**good, "incidents": [unnamed]}) == {"finding names the writer"}
    no_stack = {**incident, "blocked": [{**blocked, "stack": [], "stack_from": ""}]}
    assert failed(dump, {**good, "incidents": [no_stack]}) == {"writer's stack from the kernel log"}
    refused = [dump[0], {"kind": "incident", "data": {**sysrq, "w": "Read-only file system"}}]
    assert failed(refused, good) == {"SysRq w ran"}
