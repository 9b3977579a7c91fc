"""`kmsgd last-boot` and `kmsgd boots` through the command line, as operators and the unit run them."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

from conftest import make_proc
from daemon import kmsgd
from reportschema import required_fields, validate_textfile
from scenario import Machine


def played(tmp_path: Path) -> tuple[Machine, Path]:
    m = Machine(tmp_path)
    b = m.boot()
    b.log("amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command", 3)
    b.run(20)
    b.die()
    m.boot(after_s=30).run(2)
    proc = make_proc(tmp_path / "live-proc", m.boots[-1].boot_id)
    return m, proc


def last_boot(m: Machine, proc: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """`kmsgd last-boot` of the played ring on its live /proc, without the journal, and ARGS."""
    return kmsgd("last-boot", "--ring", str(m.ring), "--proc", str(proc), "--no-journal", *args)


def test_json_report_of_the_previous_boot(tmp_path: Path) -> None:
    m, proc = played(tmp_path)
    out = last_boot(m, proc, "--format", "json")
    assert out.returncode == 0, out.stderr
    doc = json.loads(out.stdout)
    assert doc["schema"] == "kmsgd.report/1" and doc["boot_id"] == m.boots[0].boot_id
    assert not set(required_fields()) - doc.keys()
    assert doc["outcome"] == "abrupt_reset_or_power_loss"
    assert doc["primary"]["tag"] == "amdgpu_smu_timeout"


def test_redacted_markdown_hides_the_hostname(tmp_path: Path) -> None:
    m, proc = played(tmp_path)
    out = last_boot(m, proc, "--format", "md", "--redact")
    assert out.returncode == 0, out.stderr
    assert "gpu-box-7" not in out.stdout and out.stdout.startswith("### kmsgd:")
    assert m.boots[0].boot_id in out.stdout  # boot ids are kept: tickets need them


def test_save_dir_as_the_boot_service_runs_it(tmp_path: Path) -> None:
    m, proc = played(tmp_path)
    reports = tmp_path / "reports"
    prom = tmp_path / "kmsgd.prom"
    out = last_boot(m, proc, "--save-dir", str(reports), "--keep", "5", "--textfile", str(prom))
    assert out.returncode == 0, out.stderr
    assert len(out.stdout.strip().splitlines()) == 1 and "abrupt_reset_or_power_loss" in out.stdout
    saved = reports / f"{m.boots[0].boot_id}.json"
    assert json.loads(saved.read_text())["outcome"] == "abrupt_reset_or_power_loss"
    assert (reports / f"{m.boots[0].boot_id}.md").exists()
    assert oct(os.stat(saved).st_mode & 0o777) == "0o640"
    text = prom.read_text()
    assert 'kmsgd_last_boot_outcome{outcome="abrupt_reset_or_power_loss"} 1' in text
    assert 'primary="amdgpu_smu_timeout"' in text and "kmsgd_up" not in text
    validate_textfile(text)


def test_the_boot_service_takes_every_path_from_the_config_file(tmp_path: Path) -> None:
    """As units/kmsgd-report.service runs it: `--save --textfile`, no path on the command line."""
    m, proc = played(tmp_path)
    moved = tmp_path / "srv"
    moved.mkdir()
    ring = moved / "ring"
    m.ring.rename(ring)
    (moved / "node-exporter").mkdir()
    cfg = tmp_path / "kmsgd.toml"
    cfg.write_text(
        f'[kmsgd]\nring = "{ring}"\nproc_root = "{proc}"\nreport_dir = "{moved}/reports"\n'
        f'textfile_dir = "{moved}/node-exporter"\nreports_keep = 3\n'
    )
    out = kmsgd("last-boot", "--config", str(cfg), "--no-journal", "--save", "--textfile")
    assert out.returncode == 0, out.stderr
    assert (moved / "reports" / f"{m.boots[0].boot_id}.json").exists()
    assert "kmsgd_last_boot_info{" in (moved / "node-exporter" / "kmsgd-last-boot.prom").read_text()
    for argv in (("boots",), ("dump", "--boot", "0"), ("last-boot", "--no-journal")):
        out = kmsgd(*argv, "--config", str(cfg))
        assert out.returncode == 0 and out.stdout and not out.stderr, (argv, out.stderr)


def test_a_missing_textfile_directory_is_said(tmp_path: Path) -> None:
    m, proc = played(tmp_path)
    absent = tmp_path / "absent" / "kmsgd-last-boot.prom"
    out = last_boot(m, proc, "--save-dir", str(tmp_path / "r"), "--textfile", str(absent))
    assert out.returncode == 0 and f"{absent.parent} does not exist" in out.stderr


def test_a_typo_in_the_config_file_is_a_warning_not_a_refusal(tmp_path: Path) -> None:
    m, proc = played(tmp_path)
    cfg = tmp_path / "kmsgd.toml"
    cfg.write_text(f'[kmsgd]\nring = "{m.ring}"\nringsize = "128M"\n')
    out = kmsgd("boots", "--config", str(cfg), "--proc", str(proc))
    assert out.returncode == 0 and "ringsize" in out.stderr and "ring_size" in out.stderr


def test_only_the_running_boot(tmp_path: Path) -> None:
    m = Machine(tmp_path)
    m.boot().run(3)
    proc = make_proc(tmp_path / "live-proc", m.boots[-1].boot_id)
    out = last_boot(m, proc)
    assert out.returncode == 3 and "only the running boot" in out.stderr  # nothing to judge
    assert len(out.stderr.strip().splitlines()) == 1
    out = last_boot(m, proc, "--save-dir", str(tmp_path / "reports"))
    assert out.returncode == 0  # the boot service has nothing to do: not a failure
    out = last_boot(m, proc, "--boot", "0", "--format", "json")
    assert out.returncode == 0 and json.loads(out.stdout)["outcome"] == "still_running"


def test_boots_lists_outcomes(tmp_path: Path) -> None:
    m, proc = played(tmp_path)
    out = kmsgd("boots", "--ring", str(m.ring), "--proc", str(proc), "--format", "json")
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["outcome"] for r in rows] == ["abrupt_reset_or_power_loss", "still_running"]
    text = kmsgd("boots", "--ring", str(m.ring), "--proc", str(proc)).stdout
    assert "OUTCOME" in text and "still_running (high)" in text


def test_keep_zero_or_negative_is_refused_in_one_line(tmp_path: Path) -> None:
    m, proc = played(tmp_path)
    reports = tmp_path / "reports"
    reports.mkdir()
    (reports / "notes.md").write_text("mine")
    for keep in ("0", "-3"):
        out = last_boot(m, proc, "--save-dir", str(reports), "--keep", keep)
        assert out.returncode == 2, out.stderr
        assert len(out.stderr.strip().splitlines()) == 1 and "--keep" in out.stderr
        assert "Traceback" not in out.stderr
    assert [p.name for p in reports.iterdir()] == ["notes.md"]


def test_redact_with_save_is_refused_not_ignored(tmp_path: Path) -> None:
    # a saved report is never redacted: taking --redact silently would leave an operator
    # believing the file in the report directory is safe to attach
    m, proc = played(tmp_path)
    reports = tmp_path / "reports"
    out = last_boot(m, proc, "--redact", "--save-dir", str(reports))
    assert out.returncode == 2 and out.stdout == ""
    assert len(out.stderr.strip().splitlines()) == 1 and "--redact" in out.stderr
    assert not reports.exists()
