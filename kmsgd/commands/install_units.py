"""`kmsgd install-units`: the Debian package's system files, for hosts that installed with pip.

Copies the two units to /etc/systemd/system (with ExecStart pointing at this installation's
`kmsgd`), writes the forensic sysctl file to /etc/sysctl.d, then asks a running systemd to reload
and applies the sysctls. Everything is relative to a root so a test, an image build or a chroot
can install into a directory.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from kmsgd.commands.said import Said
from kmsgd.errors import KmsgdError
from kmsgd.outputs import atomic_write
from kmsgd.record import sysctl_conf, sysctl_set

UNITS = ("kmsgd.service", "kmsgd-report.service")
UNIT_DIR = "etc/systemd/system"
SYSCTL_DIR = "etc/sysctl.d"
PACKAGED_EXE = "/usr/bin/kmsgd"
# ProtectHome=yes in the units: an executable under these is invisible to the service.
_HIDDEN_BY_PROTECT_HOME = ("/home/", "/root/", "/run/user/")


@dataclass(frozen=True, slots=True)
class InstallFile:
    """One file to write: where (relative to the root), what, and its mode."""

    dest: str
    text: str
    mode: int = 0o644


def find_units_dir() -> Path:
    """Where this installation's unit files are: a source checkout's units/, or the data files
    a wheel installs under `<prefix>/share/kmsgd/units`."""
    package = Path(__file__).resolve().parents[1]  # kmsgd/
    candidates = [
        package.parent / "units",
        Path(sys.prefix) / "share" / "kmsgd" / "units",
        Path("/usr/local/share/kmsgd/units"),
        Path("/usr/share/kmsgd/units"),
    ]
    for c in candidates:
        if all((c / name).is_file() for name in UNITS):
            return c
    raise KmsgdError(
        "cannot find kmsgd's unit files",
        hint="looked in " + ", ".join(map(str, candidates)) + "; install from a source checkout",
    )


def default_exe() -> str:
    """The `kmsgd` script of the running installation (the venv's bin, or the one on PATH)."""
    beside = Path(sys.executable).parent / "kmsgd"
    if beside.is_file() and os.access(beside, os.X_OK):
        return str(beside.absolute())
    found = shutil.which("kmsgd")
    if found is None:
        raise KmsgdError("cannot find the kmsgd executable", hint="pass its absolute path")
    return str(Path(found).absolute())


def rewrite_exec(unit_text: str, exe: str) -> str:
    """Point every Exec*= line's `/usr/bin/kmsgd` at `exe` (systemd needs an absolute path)."""
    if not os.path.isabs(exe) or any(c.isspace() or c in "$%\"'\\" for c in exe):
        raise KmsgdError(
            f"{exe!r} cannot be used in ExecStart=",
            hint="use an absolute path without spaces, quotes, '$' or '%' (systemd expands them)",
        )
    text = re.sub(
        r"^(Exec\w*=[-+!@:]*)" + re.escape(PACKAGED_EXE) + r"(?=\s|$)",
        lambda m: m.group(1) + exe,
        unit_text,
        flags=re.MULTILINE,
    )
    if exe == PACKAGED_EXE:
        return text
    # NoExecPaths=/ lets only ExecPaths= run: add the installation's prefix (its scripts and
    # the extension modules in its site-packages) and the real interpreter its scripts name.
    prefix = os.path.dirname(os.path.dirname(exe))
    python = os.path.realpath(sys.executable)
    more = " ".join(
        f"-{p}"
        for p in (prefix, python)
        if p != "/" and os.path.isabs(p) and not any(c.isspace() or c in "$%\"'\\" for c in p)
    )
    return re.sub(
        r"^(ExecPaths=.*" + re.escape(exe) + r"(?:\s.*)?)$",
        lambda m: f"{m.group(1)} {more}",
        text,
        flags=re.MULTILINE,
    )


def plan(exe: str, units_dir: Path) -> list[InstallFile]:
    """What install-units writes; pure apart from reading the shipped units."""
    files = [
        InstallFile(f"{UNIT_DIR}/{name}", rewrite_exec((units_dir / name).read_text(), exe))
        for name in UNITS
    ]
    files.append(InstallFile(f"{SYSCTL_DIR}/{sysctl_set.CONF_NAME}", sysctl_conf.render_conf()))
    return files


def warnings_for(exe: str) -> list[str]:
    """Things that would make the installed service fail to start, said before it does."""
    out = []
    if exe.startswith(_HIDDEN_BY_PROTECT_HOME):
        out.append(
            f"{exe} is under a home directory, which the units hide (ProtectHome=yes): "
            "install kmsgd into /opt or /usr/local instead"
        )
    return out


def install(root: Path, files: Sequence[InstallFile]) -> list[Path]:
    """Write each file under `root` (atomically: temp + rename); returns the paths written."""
    written = []
    for f in files:
        dest = root / f.dest
        dest.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(dest, f.text, mode=f.mode)
        written.append(dest)
    return written


def systemd_running(root: Path) -> bool:
    """True when `root` is the live system and systemd is PID 1 (sd_booted(3))."""
    return root.resolve() == Path("/") and Path("/run/systemd/system").is_dir()


def activation_commands(*, enable: bool) -> list[list[str]]:
    """What to run on a live systemd host after the files are in place."""
    cmds = [
        ["systemctl", "daemon-reload"],
        ["/usr/lib/systemd/systemd-sysctl", f"/{SYSCTL_DIR}/{sysctl_set.CONF_NAME}"],
    ]
    if enable:
        cmds += [
            ["systemctl", "enable", "kmsgd-report.service"],
            ["systemctl", "enable", "--now", "kmsgd.service"],
        ]
    return cmds


def activate(root: Path, *, enable: bool) -> list[str]:
    """Run `activation_commands` when systemd runs `root`; returns one line per command.

    Not running them (a chroot, a container without systemd) is reported, not an error.
    """
    if not systemd_running(root):
        return ["systemd is not running here: nothing reloaded (run `systemctl daemon-reload`)"]
    lines = []
    for cmd in activation_commands(enable=enable):
        done = subprocess.run(cmd, capture_output=True, text=True, check=False)
        status = "ok" if done.returncode == 0 else f"failed ({done.stderr.strip()})"
        lines.append(f"{' '.join(cmd)}: {status}")
    return lines


def install_units(*, root: Path, exe: str | None = None, enable: bool = False) -> Iterator[Said]:
    """`kmsgd install-units`: the units (ExecStart= `exe`, default this installation's kmsgd)
    and the sysctl file under `root`, then systemd reloaded (and the units enabled and started
    with `enable`); what to print, step by step, as each is done."""
    exe = exe or default_exe()
    yield Said(err=tuple(f"warning: {warning}" for warning in warnings_for(exe)))
    installed = install(root, plan(exe, find_units_dir()))
    yield Said("".join(f"installed {path}\n" for path in installed))
    yield Said("".join(f"{line}\n" for line in activate(root, enable=enable)))
