"""Clean Debian chroots for the package tests, from a cached base.

A base is `mmdebstrap --variant=buildd` of one suite from this machine's own Debian mirror, with
the apt lists kept and every package the tests install (the declared Build-Depends, lintian,
sos, kmsgd's Depends) downloaded but not installed. Each test session uses it twice: one
chroot builds the package with only the Build-Depends installed (`apt-get build-dep`), another
installs the result from nothing. The base is a directory in ~/.cache/kmsgd-package (override
with $KMSGD_PACKAGE_CACHE), and a chroot an overlay mount on it; it is rebuilt when
debian/control's build dependencies change or it is a week old, so that the archive's lists
never drift far from the mirror.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent.parent
CACHE = Path(os.environ.get("KMSGD_PACKAGE_CACHE") or Path.home() / ".cache" / "kmsgd-package")
MAX_AGE_S = 7 * 24 * 3600
PATH = "/usr/sbin:/usr/bin:/sbin:/bin"
# The sos package: Debian 12 calls it sosreport, Debian 13 sos.
SOS = {"bookworm": "sosreport", "trixie": "sos"}
RUNTIME = ("python3", "python3-click", "python3-pyudev", "python3-structlog", "python3-systemd")
# Bump when the base's recipe changes, so that old caches are not used.
RECIPE = "1"


class Unavailable(Exception):
    """The chroot cannot be made here (no mirror, no tool, no root): the test skips."""


def build_depends() -> list[str]:
    """Package names of debian/control's Build-Depends (versions and alternatives dropped)."""
    text = (REPO / "debian" / "control").read_text()
    text = re.sub(r"^#.*\n", "", text, flags=re.M)
    m = re.search(r"^Build-Depends:(.*?)(?=^\S)", text, re.M | re.S)
    assert m, "debian/control has no Build-Depends"
    names = []
    for item in m.group(1).split(","):
        first = item.split("|")[0].strip()
        if first:
            names.append(re.split(r"[\s(\[<]", first)[0])
    return names


def mirror_sources(suite: str) -> str:
    """One-line apt sources for suite, from the Debian mirrors this machine's apt uses."""
    uris: dict[str, str] = {}
    files = sorted(Path("/etc/apt/sources.list.d").glob("*.sources"))
    for path in files:
        for stanza in path.read_text().split("\n\n"):
            if "Types: deb" not in stanza or re.search(r"^Enabled:\s*no", stanza, re.M | re.I):
                continue
            m = re.search(r"^URIs:\s*(\S+)", stanza, re.M)
            if m and m.group(1).rstrip("/").endswith("/debian-security"):
                uris.setdefault("security", m.group(1))
            elif m and m.group(1).rstrip("/").endswith("/debian"):
                uris.setdefault("main", m.group(1))
    legacy = Path("/etc/apt/sources.list")
    if legacy.is_file():
        for line in legacy.read_text().splitlines():
            m = re.match(r"^deb\s+(?:\[[^]]*\]\s+)?(\S+)", line)
            if m and m.group(1).rstrip("/").endswith("/debian-security"):
                uris.setdefault("security", m.group(1))
            elif m and m.group(1).rstrip("/").endswith("/debian"):
                uris.setdefault("main", m.group(1))
    if "main" not in uris:
        raise Unavailable("this machine's apt has no Debian mirror to build a chroot from")
    lines = [
        f"deb {uris['main']} {suite} main",
        f"deb {uris['main']} {suite}-updates main",
    ]
    if "security" in uris:
        lines.append(f"deb {uris['security']} {suite}-security main")
    return "\n".join(lines) + "\n"


def _key(suite: str) -> str:
    wanted = sorted({*build_depends(), *RUNTIME, "lintian", SOS[suite]})
    digest = hashlib.sha256(f"{RECIPE} {suite} {' '.join(wanted)}".encode()).hexdigest()
    return digest[:12]


def base(suite: str) -> Path:
    """The cached base of suite, a directory, made when missing or stale (a minute, once)."""
    if os.geteuid() != 0:
        raise Unavailable("mmdebstrap --mode=root and chroot need root")
    if shutil.which("mmdebstrap") is None:
        raise Unavailable("mmdebstrap is not installed (apt-get install mmdebstrap)")
    CACHE.mkdir(parents=True, exist_ok=True)
    tree = CACHE / f"{suite}-{_key(suite)}"
    stamp = tree / ".complete"
    if stamp.is_file() and time.time() - stamp.stat().st_mtime < MAX_AGE_S:
        return tree
    for old in CACHE.glob(f"{suite}-*"):
        if old.is_dir():
            shutil.rmtree(old, ignore_errors=True)
        else:
            old.unlink()
    wanted = sorted({*build_depends(), *RUNTIME, "lintian", SOS[suite]})
    partial = tree.with_name(tree.name + ".partial")
    done = subprocess.run(
        [
            "mmdebstrap",
            "--variant=buildd",
            "--mode=root",
            "--format=directory",
            "--quiet",
            # Keep the lists and the downloaded packages: the tests install from them.
            "--skip=cleanup/apt/lists",
            "--skip=cleanup/apt/cache",
            '--aptopt=APT::Install-Recommends "false"',
            '--customize-hook=chroot "$1" apt-get install --download-only -y ' + " ".join(wanted),
            suite,
            str(partial),
            "-",
        ],
        input=mirror_sources(suite),
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
    )
    if done.returncode != 0:
        shutil.rmtree(partial, ignore_errors=True)
        tail = done.stderr.strip().splitlines()[-5:]
        if re.search(
            r"Temporary failure resolving|Could not resolve|Failed to fetch|no such "
            r"suite|Release file|does not have a Release",
            done.stderr,
            re.I,
        ):
            raise Unavailable(f"debootstrap of {suite} from this mirror failed: {tail[-1:]}")
        raise AssertionError(f"mmdebstrap {suite} failed:\n" + "\n".join(tail))
    (partial / ".complete").touch()
    partial.rename(tree)
    return tree


@dataclass
class Chroot:
    """An unpacked base: run commands in it, and remove it when done."""

    root: Path
    suite: str

    @classmethod
    def unpack(cls, base: Path, root: Path, suite: str) -> Chroot:
        """A fresh chroot at root: an overlay on the cached base (instant), or, where overlayfs
        cannot be mounted, a copy of it (seconds)."""
        root.mkdir(parents=True)
        upper, work = root.with_name(root.name + ".upper"), root.with_name(root.name + ".work")
        upper.mkdir()
        work.mkdir()
        mounted = subprocess.run(
            ["mount", "-t", "overlay", "overlay", "-o",
             f"lowerdir={base},upperdir={upper},workdir={work}", str(root)],
            capture_output=True, check=False,
        )  # fmt: skip
        if mounted.returncode != 0:
            subprocess.run(["cp", "-a", f"{base}/.", str(root)], check=True)
        # Maintainer scripts ask policy-rc.d before they start or stop anything: log the
        # request and refuse it (101), so no service runs here and the test sees what was asked.
        policy = root / "usr/sbin/policy-rc.d"
        policy.write_text('#!/bin/sh\necho "$*" >> /var/log/policy-rc.d.log\nexit 101\n')
        policy.chmod(0o755)
        return cls(root, suite)

    def run(
        self, *cmd: str, env: dict[str, str] | None = None, timeout: float = 600
    ) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["chroot", str(self.root), *cmd],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            env={
                "PATH": PATH,
                "LC_ALL": "C.UTF-8",
                "DEBIAN_FRONTEND": "noninteractive",
                "HOME": "/root",
                **(env or {}),
            },
        )

    def ok(self, *cmd: str, env: dict[str, str] | None = None, timeout: float = 600) -> str:
        done = self.run(*cmd, env=env, timeout=timeout)
        assert done.returncode == 0, f"{' '.join(cmd)} in {self.suite}: rc {done.returncode}\n" + (
            done.stdout[-4000:] + done.stderr[-4000:]
        )
        return done.stdout

    def path(self, inside: str) -> Path:
        return self.root / inside.lstrip("/")

    def remove(self) -> None:
        for mount in reversed(_mounts_under(self.root)):
            subprocess.run(["umount", "-l", mount], check=False)
        if os.path.ismount(self.root):
            subprocess.run(["umount", "-l", str(self.root)], check=False)
        for path in (
            self.root,
            *(self.root.with_name(self.root.name + s) for s in (".upper", ".work")),
        ):
            shutil.rmtree(path, ignore_errors=True)


def _mounts_under(root: Path) -> list[str]:
    prefix = str(root.resolve()) + "/"
    with open("/proc/self/mounts") as f:
        return [line.split()[1] for line in f if line.split()[1].startswith(prefix)]
