"""The systemd units: what systemd itself says about them (verify, security) and what the
recorder relies on; and `install-units` for pip hosts."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from kmsgd.commands import install_units
from kmsgd.errors import KmsgdError
from kmsgd.record import sysctl_conf, sysctl_set

REPO = Path(__file__).resolve().parent.parent.parent
UNITS = REPO / "units"
HOST_UNITS = Path("/usr/lib/systemd/system")
ANALYZE = shutil.which("systemd-analyze")
needs_analyze = pytest.mark.skipif(ANALYZE is None, reason="systemd-analyze not installed")


def settings(text: str) -> dict[tuple[str, str], list[str]]:
    """(section, key) -> values in order; unlike configparser, repeated keys are kept."""
    out: dict[tuple[str, str], list[str]] = {}
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            section = line.strip("[]")
            continue
        key, _, value = line.partition("=")
        out.setdefault((section, key.strip()), []).append(value.strip())
    return out


def unit(name: str) -> dict[tuple[str, str], list[str]]:
    return settings((UNITS / name).read_text())


def one(s: dict[tuple[str, str], list[str]], section: str, key: str) -> str:
    values = s.get((section, key), [])
    assert values, f"[{section}] {key}= missing"
    return values[-1]


def words(s: dict[tuple[str, str], list[str]], section: str, key: str) -> set[str]:
    return {w for v in s.get((section, key), []) for w in v.split()}


def make_root(tmp_path: Path, exe: str = "/usr/bin/kmsgd") -> Path:
    """A root for `systemd-analyze verify --root`: the host's targets, a stub executable."""
    root = tmp_path / "root"
    (root / "usr/lib/systemd/system").mkdir(parents=True)
    for target in HOST_UNITS.glob("*.target"):
        if target.is_file():
            shutil.copy(target, root / "usr/lib/systemd/system" / target.name)
    stub = root / exe.lstrip("/")
    stub.parent.mkdir(parents=True, exist_ok=True)
    stub.write_text("#!/bin/sh\nexit 0\n")
    stub.chmod(0o755)
    return root


def verify(root: Path, *names: str) -> subprocess.CompletedProcess[str]:
    assert ANALYZE is not None
    return subprocess.run(
        [ANALYZE, "verify", "--man=no", f"--root={root}", *names],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@needs_analyze
def test_units_verify_clean(tmp_path: Path) -> None:
    if not (HOST_UNITS / "sysinit.target").is_file():
        pytest.skip(f"no systemd target units in {HOST_UNITS} to verify against")
    root = make_root(tmp_path)
    for name in install_units.UNITS:
        shutil.copy(UNITS / name, root / "usr/lib/systemd/system" / name)
    done = verify(root, *install_units.UNITS)
    assert done.returncode == 0, done.stdout + done.stderr
    # Unknown or misspelt settings are only warnings to verify: they must not be there either.
    assert done.stdout + done.stderr == ""


@needs_analyze
def test_recorder_exposure_is_ok() -> None:
    assert ANALYZE is not None
    done = subprocess.run(
        [ANALYZE, "security", "--offline=true", "--no-pager", str(UNITS / "kmsgd.service")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    if "--offline" in done.stderr:
        pytest.skip("systemd-analyze too old for --offline (needs 250)")
    m = re.search(r"Overall exposure level for kmsgd\.service: (\d+\.\d+)", done.stdout)
    assert m, done.stdout + done.stderr
    assert float(m.group(1)) <= 1.5, done.stdout  # docs/security.md records the measured 1.4


def test_recorder_unit_settings() -> None:
    s = unit("kmsgd.service")
    assert one(s, "Service", "Type") == "notify"
    assert one(s, "Service", "WatchdogSec")
    assert one(s, "Service", "Restart") == "always"
    assert one(s, "Service", "OOMScoreAdjust") == "-1000"
    assert one(s, "Service", "MemoryMin") and one(s, "Service", "MemoryLow")
    assert one(s, "Service", "PrivateNetwork") == "yes"
    assert one(s, "Service", "NoNewPrivileges") == "yes"
    assert one(s, "Service", "ProtectSystem") == "strict"
    assert words(s, "Service", "CapabilityBoundingSet") == {"CAP_SYSLOG"}
    assert one(s, "Service", "SystemCallFilter")
    # The state holds kernel logs: group adm, nothing for others.
    assert one(s, "Service", "Group") == "adm"
    assert one(s, "Service", "UMask") == "0027"
    assert one(s, "Service", "StateDirectoryMode") == "0750"
    # /dev/kmsg is the point of the service.
    assert one(s, "Service", "ProtectKernelLogs") == "no"
    assert "/dev/kmsg" in " ".join(s[("Service", "DeviceAllow")])
    # The sysctls are written by a privileged ExecStartPre= step; the recorder itself must not
    # be able to rewrite kernel.core_pattern or kernel.modprobe (root code outside the sandbox).
    assert not any("/proc/sys/" in w for w in words(s, "Service", "ReadWritePaths"))
    # SysRq w (blocked tasks' stacks into the log) is the only write into /proc.
    assert not any("/proc" in w for w in words(s, "Service", "ReadWritePaths"))
    assert words(s, "Service", "BindPaths") == {"-/proc/sysrq-trigger:/run/kmsgd/sysrq-trigger"}
    assert one(s, "Service", "RuntimeDirectory") == "kmsgd"
    assert one(s, "Service", "ProtectKernelTunables") == "yes"
    pre = one(s, "Service", "ExecStartPre")
    assert pre.startswith(("-+", "+-")) and pre.split()[1:] == ["sysctl", "apply"]
    assert "--no-sysctl" in one(s, "Service", "ExecStart").split()


def test_recorder_starts_early_and_stops_late() -> None:
    s = unit("kmsgd.service")
    assert one(s, "Unit", "DefaultDependencies") == "no"
    assert "/var/lib/kmsgd" in words(s, "Unit", "RequiresMountsFor")
    assert "sysinit.target" in words(s, "Unit", "Before")  # before every ordinary service
    assert "shutdown.target" in words(s, "Unit", "Conflicts")
    assert "local-fs.target" in words(s, "Unit", "After")  # stopped before filesystems go
    assert one(s, "Install", "WantedBy") == "sysinit.target"


@pytest.mark.parametrize("name", install_units.UNITS)
def test_no_shell_syntax_in_exec(name: str) -> None:
    # systemd runs ExecStart= without a shell and expands $ and %: redirection would be passed
    # to kmsgd as arguments, and a stray $ or % silently substituted.
    for key, values in unit(name).items():
        if key[1].startswith("Exec"):
            for v in values:
                assert not re.search(r"[<>|;&$%`]", v), f"{key[1]}={v}"


def test_report_unit_never_delays_boot() -> None:
    s = unit("kmsgd-report.service")
    assert one(s, "Service", "Type") == "oneshot"
    # With default dependencies multi-user.target would be ordered after this oneshot.
    assert one(s, "Unit", "DefaultDependencies") == "no"
    assert "kmsgd.service" in words(s, "Unit", "After")
    assert not words(s, "Unit", "Before") - {"shutdown.target"}
    assert one(s, "Service", "IOSchedulingClass") == "idle"
    exec_start = one(s, "Service", "ExecStart")
    # Every path from /etc/kmsgd/kmsgd.toml (report_dir, textfile_dir), none on the command line.
    assert "last-boot" in exec_start and {"--save", "--textfile"} <= set(exec_start.split())
    assert "/var" not in exec_start


# --- install-units ----------------------------------------------------------------------------


def test_rewrite_exec_points_at_this_installation() -> None:
    text = (UNITS / "kmsgd.service").read_text()
    out = install_units.rewrite_exec(text, "/opt/kmsgd/bin/kmsgd")
    assert "ExecStart=/opt/kmsgd/bin/kmsgd run" in out
    assert "/usr/bin/kmsgd" not in out
    for bad in ("relative/kmsgd", "/opt/my venv/kmsgd", "/opt/$x/kmsgd", "/opt/100%/kmsgd"):
        with pytest.raises(KmsgdError):
            install_units.rewrite_exec(text, bad)


def test_install_into_a_root(tmp_path: Path) -> None:
    exe = "/opt/kmsgd/bin/kmsgd"
    files = install_units.plan(exe, install_units.find_units_dir())
    written = install_units.install(tmp_path, files)
    assert sorted(str(p.relative_to(tmp_path)) for p in written) == [
        "etc/sysctl.d/60-kmsgd.conf",
        "etc/systemd/system/kmsgd-report.service",
        "etc/systemd/system/kmsgd.service",
    ]
    assert (
        tmp_path / "etc/sysctl.d" / sysctl_set.CONF_NAME
    ).read_text() == sysctl_conf.render_conf()
    assert f"ExecStart={exe} run" in (tmp_path / "etc/systemd/system/kmsgd.service").read_text()
    assert all(p.stat().st_mode & 0o777 == 0o644 for p in written)
    assert not list(tmp_path.rglob(".*kmsgd-tmp"))
    lines = install_units.activate(tmp_path, enable=True)
    assert lines and "not running" in lines[0]


@needs_analyze
def test_installed_units_verify(tmp_path: Path) -> None:
    if not (HOST_UNITS / "sysinit.target").is_file():
        pytest.skip(f"no systemd target units in {HOST_UNITS} to verify against")
    exe = "/opt/kmsgd/bin/kmsgd"
    root = make_root(tmp_path, exe)
    install_units.install(root, install_units.plan(exe, install_units.find_units_dir()))
    done = verify(root, *install_units.UNITS)
    assert done.returncode == 0, done.stdout + done.stderr


def test_exe_under_home_is_warned() -> None:
    assert install_units.warnings_for("/root/venv/bin/kmsgd")
    assert not install_units.warnings_for("/usr/local/bin/kmsgd")


def test_activation_reloads_and_applies_the_sysctl_file() -> None:
    cmds = install_units.activation_commands(enable=False)
    assert ["systemctl", "daemon-reload"] in cmds
    assert any(c[-1].endswith(sysctl_set.CONF_NAME) for c in cmds)
    assert not any("enable" in c for c in cmds)


# --- what the recorder may read and execute ---------------------------------------------------


def test_recorder_cannot_read_password_hashes_or_ssh_keys() -> None:
    """uid 0 with CAP_SYSLOG could read /etc/shadow and the SSH host keys (ProtectHome= hides
    only /home): a compromised recorder must not."""
    s = unit("kmsgd.service")
    hidden = {p.lstrip("-") for p in words(s, "Service", "InaccessiblePaths")}
    assert {"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-", "/etc/ssh"} <= hidden


def test_recorder_may_execute_only_what_it_runs() -> None:
    """NoExecPaths=/ with ExecPaths= for itself, its interpreter, the libraries it maps and the
    one program it runs (systemctl, at stop: kmsgd/record/hostenv.py)."""
    s = unit("kmsgd.service")
    assert words(s, "Service", "NoExecPaths") == {"/"}
    allowed = {p.lstrip("-") for p in words(s, "Service", "ExecPaths")}
    assert {"/usr/bin/kmsgd", "/usr/bin/python3", "/usr/lib", "/usr/bin/systemctl"} <= allowed
    assert not allowed & {"/", "/usr", "/usr/bin", "/bin", "/sbin", "/usr/sbin", "/tmp", "/var"}
    assert one(s, "Service", "ExecStart").split()[0] in allowed


def test_every_program_the_recorder_side_runs_is_executable_there() -> None:
    """Each `subprocess` call of the daemon's packages names a program ExecPaths= allows."""
    import ast

    s = unit("kmsgd.service")
    allowed = {Path(p.lstrip("-")).name for p in words(s, "Service", "ExecPaths")}
    programs = set()
    for package in ("record", "sensors", "ring"):
        for path in (REPO / "kmsgd" / package).glob("*.py"):
            for node in ast.walk(ast.parse(path.read_text())):
                if (
                    isinstance(node, ast.Call)
                    and isinstance(node.func, ast.Attribute)
                    and node.func.attr in ("run", "Popen", "check_output", "call")
                    and node.args
                    and isinstance(node.args[0], ast.List)
                    and node.args[0].elts
                    and isinstance(node.args[0].elts[0], ast.Constant)
                ):
                    programs.add(str(node.args[0].elts[0].value))
    assert programs == {"systemctl"}  # a new one must be added to ExecPaths= and here
    assert programs <= allowed


def test_install_units_allows_the_installation_to_execute() -> None:
    """A pip or venv install runs from its own prefix: ExecPaths= must follow it."""
    text = (UNITS / "kmsgd.service").read_text()
    out = install_units.rewrite_exec(text, "/opt/kmsgd/bin/kmsgd")
    allowed = {p.lstrip("-") for p in words(settings(out), "Service", "ExecPaths")}
    assert {"/opt/kmsgd/bin/kmsgd", "/opt/kmsgd"} <= allowed
    assert "/usr/bin/kmsgd" not in allowed
