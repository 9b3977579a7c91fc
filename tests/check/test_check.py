"""`kmsgd check` on fake machines: a healthy box passes, and each thing an operator gets wrong
is one WARN or FAIL line that names the fix."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
from pathlib import Path

import pytest
from daemon import kmsgd
from fakes import amd_card, link, put
from scenario import Machine

from kmsgd.check import host, service
from kmsgd.check.findings import Finding, Status, exit_status, render_text
from kmsgd.check.run import run_checks
from kmsgd.config import Settings, read
from kmsgd.record.sysctl_set import DESIRED

UNITS = Path(__file__).resolve().parents[2] / "units"


def locks_line(ring: Path, pid: int = 4242) -> str:
    st = os.stat(ring)
    dev = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}"
    return f"1: FLOCK  ADVISORY  WRITE {pid} {dev}:{st.st_ino} 0 EOF\n"


def healthy(tmp_path: Path) -> tuple[Machine, dict[str, str], int]:
    """A recording machine with everything in place; returns its settings and 'now'."""
    m = Machine(tmp_path)
    b = m.boot()
    b.run(5)
    proc = Path(m.boots[-1].rec.cfg.proc_root)
    (proc / "locks").write_text("2: POSIX  ADVISORY  WRITE 1 00:19:2 0 EOF\n" + locks_line(m.ring))
    for want in DESIRED:
        put(proc / "sys" / want.key.replace(".", "/"), want.value)
    root = tmp_path / "root"
    put(root / "etc/systemd/journald.conf", "[Journal]\nStorage=persistent")
    (root / "var/log/journal").mkdir(parents=True)
    put(root / "usr/lib/systemd/system/systemd-pstore.service", "[Unit]")
    link(
        root / "etc/systemd/system/sysinit.target.wants/systemd-pstore.service",
        root / "usr/lib/systemd/system/systemd-pstore.service",
    )
    put(root / "etc/default/prometheus-node-exporter", 'ARGS=""')
    (root / "var/lib/prometheus/node-exporter").mkdir(parents=True)
    put(m.sys / "module/pstore/parameters/backend", "erst")
    amd_card(m.sys, "card0", "0000:03:00.0", "hwmon3")
    values = {
        "ring": str(m.ring),
        "proc_root": proc,
        "sys_root": m.sys,
        "fs_root": root,
        "etc_root": m.etc,
    }
    return m, values, b.clock.wall_us() + 500_000


def check(values: dict[str, str], now_us: int, **kw: object) -> dict[str, Finding]:
    found = run_checks(read(None, dict(values)), now_us=now_us, **kw)  # type: ignore[arg-type]
    return {f.check: f for f in found}


def test_a_healthy_box_passes(tmp_path: Path) -> None:
    _, values, now = healthy(tmp_path)
    found = check(values, now)
    assert {k: f.status for k, f in found.items() if f.status is not Status.OK} == {}
    assert "pid 4242" in found["recorder"].summary
    assert "0.5 s ago" in found["ring"].summary
    assert "erst" in found["pstore"].summary and "power loss" in found["pstore"].summary
    assert "power" in found["sensors:card0"].summary
    assert exit_status(list(found.values())) == 0


def test_a_dead_recorder_and_a_stale_ring_fail(tmp_path: Path) -> None:
    _, values, now = healthy(tmp_path)
    (Path(values["proc_root"]) / "locks").write_text("")
    found = check(values, now + 120_000_000)
    assert found["recorder"].status is Status.FAIL and "systemctl" in found["recorder"].fix
    assert found["ring"].status is Status.FAIL and "120 s ago" in found["ring"].summary
    values["ring"] = str(tmp_path / "nowhere" / "ring")
    assert check(values, now)["recorder"].status is Status.FAIL


def test_a_typo_fails_the_config_check_with_the_closest_name(tmp_path: Path) -> None:
    _, values, now = healthy(tmp_path)
    cfg = tmp_path / "kmsgd.toml"
    cfg.write_text('ringsize = "1M"\n[kmsgd]\nheartbeat_sec = 2.0\n')
    found = run_checks(read(str(cfg), dict(values)), now_us=now)
    bad = [f for f in found if f.check == "config"]
    assert [f.status for f in bad] == [Status.FAIL, Status.FAIL]
    assert "ring_size" in bad[0].summary and "heartbeat_s" in bad[1].summary
    assert exit_status(found) == 1


def test_machine_warnings_name_their_fix(tmp_path: Path) -> None:
    m, values, now = healthy(tmp_path)
    root = Path(values["fs_root"])
    put(m.sys / "module/pstore/parameters/backend", "(null)")
    put(root / "etc/systemd/journald.conf.d/50-volatile.conf", "[Journal]\nStorage=volatile")
    (root / "etc/systemd/system/sysinit.target.wants/systemd-pstore.service").unlink()
    put(
        root / "etc/default/prometheus-node-exporter",
        'ARGS="--collector.textfile.directory=/srv/tf"',
    )
    proc = Path(values["proc_root"])
    put(proc / "sys/kernel/panic", "0")
    found = check(values, now)
    assert found["pstore"].status is Status.WARN and "ramoops.mem_address" in found["pstore"].fix
    assert found["journal"].status is Status.WARN and "volatile" in found["journal"].summary
    assert "systemctl enable systemd-pstore" in found["systemd-pstore"].fix
    assert found["textfile"].status is Status.WARN and '"/srv/tf"' in found["textfile"].fix
    assert found["sysctls"].status is Status.WARN and "kernel.panic=0" in found["sysctls"].summary
    assert exit_status(list(found.values())) == 0  # warnings only: the box still records
    put(m.sys / "firmware/efi/systab", "")
    assert "modprobe efi_pstore" in host.pstore_finding(read(None, dict(values)).config).fix


def test_a_missing_textfile_directory_is_said(tmp_path: Path) -> None:
    _, values, now = healthy(tmp_path)
    shutil.rmtree(Path(values["fs_root"]) / "var/lib/prometheus")
    f = check(values, now)["textfile"]
    assert f.status is Status.WARN and "does not exist" in f.summary
    assert "prometheus-node-exporter" in f.fix


def nvidia_gpu(sys: Path, pci: str = "0000:3d:00.0") -> None:
    dev = sys / "devices/pci0000:3a/0000:3a:00.0" / pci
    put(dev / "vendor", "0x10de")
    put(dev / "class", "0x030200")
    link(sys / "bus/pci/devices" / pci, dev)
    (sys / "bus/pci/drivers/nvidia").mkdir(parents=True)
    link(dev / "driver", sys / "bus/pci/drivers/nvidia")
    link(sys / "class/drm/card1/device", dev)


def test_an_nvidia_gpu_without_nvml_warns(tmp_path: Path) -> None:
    m, values, now = healthy(tmp_path)
    nvidia_gpu(m.sys)

    def no_library() -> None:
        raise OSError("NVML Shared Library Not Found")

    found = check(values, now, nvml_loader=no_library)
    assert found["nvml"].status is Status.WARN and "0000:3d:00.0" not in found["nvml"].fix
    assert "Library Not Found" in found["nvml"].summary and "kmsgd[nvidia]" in found["nvml"].fix
    assert found["sensors:card1"].status is Status.WARN
    found = check(values, now, nvml_loader=lambda: None)
    assert found["nvml"].status is Status.OK and found["sensors:card1"].status is Status.OK


def test_a_moved_ring_needs_a_drop_in_for_the_sandbox(tmp_path: Path) -> None:
    root = tmp_path / "root"
    for unit in ("kmsgd.service", "kmsgd-report.service"):
        put(root / "usr/lib/systemd/system" / unit, (UNITS / unit).read_text())
    base = read(None, {"fs_root": root}).config
    assert {f.status for f in service.sandbox_findings(base)} == {Status.OK}
    moved = dataclasses.replace(base, ring="/srv/kmsgd/ring", report_dir="/srv/kmsgd/reports")
    found = {f.check: f for f in service.sandbox_findings(moved)}
    rec = found["sandbox:kmsgd.service"]
    assert rec.status is Status.FAIL and "ReadWritePaths=/srv/kmsgd" in rec.fix
    assert "RequiresMountsFor=/srv/kmsgd" in rec.fix
    assert "ReadWritePaths=/srv/kmsgd/reports" in found["sandbox:kmsgd-report.service"].fix
    # The drop-in it asks for, once made, satisfies it.
    put(
        root / "etc/systemd/system/kmsgd.service.d/50-ring.conf",
        service.dropin(["/srv/kmsgd"]),
    )
    assert service.sandbox_findings(moved)[0].status is Status.OK


def test_a_check_that_raises_is_one_warning_not_a_crash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _, values, now = healthy(tmp_path)

    def broken(_cfg: object) -> Finding:
        raise RuntimeError("odd machine")

    monkeypatch.setattr(host, "journal_finding", broken)
    found = check(values, now)
    assert found["journal"].status is Status.WARN and "odd machine" in found["journal"].summary
    assert found["textfile"].status is Status.OK  # the others still ran


def test_the_command_text_json_and_exit_status(tmp_path: Path) -> None:
    _, values, _ = healthy(tmp_path)
    cfg = tmp_path / "kmsgd.toml"
    cfg.write_text("[kmsgd]\n" + "".join(f'{k} = "{v}"\n' for k, v in values.items()))
    out = kmsgd("check", "--config", str(cfg), "--format", "json")
    doc = json.loads(out.stdout)
    assert doc["schema"] == "kmsgd.check/1" and {c["check"] for c in doc["checks"]} >= {
        "config",
        "recorder",
        "ring",
        "sysctls",
        "pstore",
        "journal",
        "textfile",
        "nvml",
        "room",
    }
    # The fake clock's heartbeats lie in 2025: the ring looks stale today, so this fails.
    assert out.returncode == 1 and doc["status"] == "fail"
    text = kmsgd("check", "--config", str(cfg)).stdout
    assert text.splitlines()[0].startswith("OK   config")
    assert any(line.startswith("FAIL ring") and " -> " in line for line in text.splitlines())


def test_render_text_one_line_each() -> None:
    found = [
        Finding("a", Status.OK, "fine"),
        Finding("bb", Status.WARN, "meh", "do x"),
        Finding("c", Status.FAIL, "bad", "do y"),
    ]
    assert render_text(found).splitlines() == [
        "OK   a   fine",
        "WARN bb  meh -> do x",
        "FAIL c   bad -> do y",
        "1 failed, 1 warnings, 1 ok",
    ]


def test_settings_dataclass_is_what_run_checks_takes() -> None:
    assert isinstance(read(None, {}), Settings)
