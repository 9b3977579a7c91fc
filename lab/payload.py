"""Per lab run: the payload disk (kmsgd from this checkout plus guest helpers) and the
"installed" overlay: base image + kmsgd installed and enabled, ended by a clean power-off.

Every scenario then boots its own qcow2 overlay on top of the installed one, so kmsgd starts at
boot from its enabled unit exactly as on an operator's machine, and the base stays pristine.
"""

from __future__ import annotations

import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from lab.image import GUEST_DIR, Image
from lab.util import LabError, log, run_cmd
from lab.vm import Vm

REPO = Path(__file__).resolve().parent.parent


@dataclass(frozen=True, slots=True)
class Installed:
    """The result of the install boot: the overlay to build on and what the guest can do."""

    disk: Path
    payload: Path
    how: str  # "deb", "copy+units", "copy+lab-unit"
    commands: frozenset[str]  # kmsgd subcommands the installed build offers
    seconds: float


def fresh_debs() -> list[Path]:
    """build/*.deb, unless one is older than a file it packages: then the checkout is
    installed instead (a stale .deb left by an earlier `make deb` would silently test old
    code, as it once did in the incident scenario)."""
    debs = sorted((REPO / "build").glob("*.deb"))
    sources = [
        p
        for d in ("kmsgd", "units", "sysctl.d")
        for p in (REPO / d).rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    ]
    newest = max((p.stat().st_mtime for p in sources), default=0.0)
    stale = [d.name for d in debs if d.stat().st_mtime < newest]
    if stale:
        log(f"{', '.join(stale)} older than the checkout: installing the checkout instead")
        return []
    return debs


def build_payload(workdir: Path) -> Path:
    """An ext4 image (no loop device: mkfs.ext4 -d) holding what the guest installs and runs."""
    tree = workdir / "payload"
    shutil.rmtree(tree, ignore_errors=True)
    tree.mkdir(parents=True)
    debs = fresh_debs()
    if debs:
        (tree / "debs").mkdir()
        for deb in debs:
            shutil.copy2(deb, tree / "debs" / deb.name)
    shutil.copytree(REPO / "kmsgd", tree / "kmsgd", ignore=shutil.ignore_patterns("__pycache__"))
    for sub in ("units", "sysctl.d"):
        if (REPO / sub).is_dir():
            shutil.copytree(REPO / sub, tree / sub)
    shutil.copytree(GUEST_DIR, tree / "lab", ignore=shutil.ignore_patterns("__pycache__"))
    image = workdir / "payload.img"
    image.unlink(missing_ok=True)
    run_cmd(
        ["mkfs.ext4", "-q", "-L", "kmsgd-payload", "-d", str(tree), str(image), "64M"], timeout=60
    )
    return image


def overlay(backing: Path, path: Path) -> Path:
    """A fresh qcow2 overlay on `backing` (raw or qcow2); writes land only in `path`."""
    path.unlink(missing_ok=True)
    fmt = "raw" if backing.suffix == ".img" else "qcow2"
    run_cmd(
        ["qemu-img", "create", "-q", "-f", "qcow2", "-F", fmt, "-b", str(backing), str(path)],
        timeout=60,
    )
    return path


MOUNT_PAYLOAD = (
    "mountpoint -q /mnt/payload || "
    "{ mkdir -p /mnt/payload && mount -o ro,noload /dev/vdb /mnt/payload; }"
)


def install(image: Image, workdir: Path) -> Installed:
    """Boot the base once, install kmsgd from the payload, enable its units, power off cleanly."""
    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    (workdir / "console.log").unlink(missing_ok=True)  # QEMU appends: start this run's log fresh
    payload = build_payload(workdir)
    disk = overlay(image.root, workdir / "installed.qcow2")
    with Vm(image, disk, workdir, payload=payload) as vm:
        vm.start()
        vm.wait_boot(timeout=240)
        vm.sh(MOUNT_PAYLOAD, timeout=30)
        reply = vm.sh("sh /mnt/payload/lab/install.sh", timeout=120)
        how = next(
            (
                ln.split("=", 1)[1]
                for ln in reply.out.splitlines()
                if ln.startswith("installed-via=")
            ),
            "unknown",
        )
        commands = set()
        for cmd in ("run", "boots", "dump", "last-boot", "analyze", "sysctl"):
            if vm.sh(f"kmsgd {cmd} --help", timeout=60, check=False).rc == 0:
                commands.add(cmd)
        active = vm.sh("systemctl is-active kmsgd.service", timeout=30, check=False).out.strip()
        log(f"kmsgd installed ({how}); service {active}; commands: {' '.join(sorted(commands))}")
        vm.spawn("systemctl poweroff")
        vm.wait_exit(timeout=120)
    if not subprocess.run(["qemu-img", "check", "-q", str(disk)], check=False).returncode == 0:
        raise LabError(f"{disk} is damaged after the install boot")
    return Installed(disk, payload, how, frozenset(commands), time.monotonic() - started)
