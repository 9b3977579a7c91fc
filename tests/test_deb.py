"""The Debian package: what it contains, that lintian accepts it, and that it installs with
Debian's own dependencies into a clean bookworm chroot (the slow test, about 40 s)."""

from __future__ import annotations

import dataclasses
import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

from kmsgd import config

REPO = Path(__file__).resolve().parent.parent
BUILD_DEB = REPO / "tools" / "build-deb"
DEBIAN_DEPS = ("python3-systemd", "python3-pyudev", "python3-structlog", "python3-click")

needs_dpkg = pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb not installed")


@pytest.fixture(scope="module")
def deb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if shutil.which("dpkg-deb") is None:
        pytest.skip("dpkg-deb not installed")
    out = tmp_path_factory.mktemp("deb")
    done = subprocess.run(
        [str(BUILD_DEB), "--out", str(out)], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    path = Path(done.stdout.strip())
    assert path.is_file() and path.parent == out
    return path


def field(deb: Path, name: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "--field", str(deb), name], capture_output=True, text=True, check=True
    ).stdout.strip()


def contents(deb: Path) -> dict[str, str]:
    """path -> mode string, from `dpkg-deb --contents`."""
    out = subprocess.run(
        ["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    entries = {}
    for line in out.splitlines():
        parts = line.split()
        entries[parts[-1].removeprefix(".")] = parts[0]
    return entries


# --- the conffile: every setting of kmsgd.config, commented, with its default --------------


def conffile_uncommented() -> dict[str, object]:
    """The conffile with every `# key = value` line uncommented, parsed as TOML."""
    lines = []
    for line in (REPO / "debian" / "kmsgd.toml").read_text().splitlines():
        m = re.match(r"^# ([a-z_]+ = .*)$", line)
        lines.append(m.group(1) if m else line)
    table = tomllib.loads("\n".join(lines))["kmsgd"]
    assert isinstance(table, dict)
    return table


def test_conffile_lists_every_setting_commented() -> None:
    names = {f.name for f in dataclasses.fields(config.Config)}
    table = conffile_uncommented()
    assert set(table) == names, "debian/kmsgd.toml and kmsgd/config.py disagree"
    # As shipped, every setting is commented out: the file changes nothing.
    assert tomllib.loads((REPO / "debian" / "kmsgd.toml").read_text()) == {"kmsgd": {}}


def test_conffile_defaults_are_the_real_defaults(tmp_path: Path) -> None:
    uncommented = tmp_path / "kmsgd.toml"
    uncommented.write_text(
        "[kmsgd]\n"
        + "\n".join(
            f"{k} = {v!r}".replace("True", "true").replace("False", "false")
            if not isinstance(v, str)
            else f'{k} = "{v}"'
            for k, v in conffile_uncommented().items()
        )
    )
    assert config.load(str(uncommented), {}) == config.Config()


# --- the built package --------------------------------------------------------------------


@needs_dpkg
def test_control_fields(deb: Path) -> None:
    assert deb.name == f"kmsgd_{field(deb, 'Version')}_all.deb"
    assert field(deb, "Architecture") == "all"
    depends = [d.strip() for d in field(deb, "Depends").split(",")]
    assert "python3 (>= 3.11)" in depends
    for dep in DEBIAN_DEPS:
        assert dep in depends
    assert not any("pip" in d for d in depends)


@needs_dpkg
def test_contents(deb: Path) -> None:
    files = contents(deb)
    for path in (
        "/usr/bin/kmsgd",
        "/usr/lib/python3/dist-packages/kmsgd/__init__.py",
        "/usr/lib/python3/dist-packages/kmsgd/record/sysctl.py",
        "/usr/lib/systemd/system/kmsgd.service",
        "/usr/lib/systemd/system/kmsgd-report.service",
        "/usr/lib/sysctl.d/60-kmsgd.conf",
        "/etc/kmsgd/kmsgd.toml",
        "/usr/share/doc/kmsgd/copyright",
    ):
        assert path in files, path
    assert files["/usr/bin/kmsgd"] == "-rwxr-xr-x"
    assert not [p for p in files if "__pycache__" in p or p.endswith(".pyc")]


@needs_dpkg
def test_maintainer_scripts(deb: Path, tmp_path: Path) -> None:
    subprocess.run(["dpkg-deb", "--control", str(deb), str(tmp_path)], check=True)
    assert (tmp_path / "conffiles").read_text() == "/etc/kmsgd/kmsgd.toml\n"
    for script in ("postinst", "prerm", "postrm"):
        subprocess.run(["sh", "-n", str(tmp_path / script)], check=True)
    postinst = (tmp_path / "postinst").read_text()
    assert "deb-systemd-helper enable" in postinst
    assert "deb-systemd-invoke $_action kmsgd.service" in postinst
    assert 'KMSGD_PURGE_STATE:-}" = "yes"' in (tmp_path / "postrm").read_text()


@pytest.mark.slow
@needs_dpkg
def test_lintian_clean(deb: Path) -> None:
    if shutil.which("lintian") is None:
        pytest.skip("lintian not installed")
    done = subprocess.run(
        ["lintian", "--fail-on", "error,warning", str(deb)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    tags = [line for line in done.stdout.splitlines() if re.match(r"^[EW]: ", line)]
    assert done.returncode == 0 and not tags, done.stdout + done.stderr


# --- installed into a clean Debian chroot ---------------------------------------------------


def host_debian_sources() -> str:
    """The machine's own Debian apt sources (deb822), read now and never written to a file."""
    stanzas = []
    for path in sorted(Path("/etc/apt/sources.list.d").glob("*.sources")):
        for stanza in path.read_text().split("\n\n"):
            if re.search(r"^URIs:.*/debian", stanza, re.M) and "Types: deb" in stanza:
                stanzas.append(stanza.strip())
    return "\n\n".join(stanzas) + "\n"


def host_codename() -> str:
    text = Path("/etc/os-release").read_text()
    m = re.search(r"^VERSION_CODENAME=(\w+)", text, re.M)
    return m.group(1) if m else ""


@pytest.mark.slow
@needs_dpkg
def test_installs_in_a_clean_chroot(deb: Path, tmp_path: Path) -> None:
    if os.geteuid() != 0:
        pytest.skip("mmdebstrap --mode=root and chroot need root")
    if shutil.which("mmdebstrap") is None:
        pytest.skip("mmdebstrap not installed")
    sources = host_debian_sources() if Path("/etc/apt/sources.list.d").is_dir() else ""
    if "Suites:" not in sources or not host_codename():
        pytest.skip("no deb822 Debian apt sources on this machine to build a chroot from")
    target = tmp_path / "chroot"
    deps = " ".join(("python3", *DEBIAN_DEPS))
    # Dependencies from the archive by name, then the package itself with dpkg -i: dpkg
    # refuses it unless every Depends (with versions) is satisfied.
    done = subprocess.run(
        [
            "mmdebstrap",
            "--variant=minbase",
            "--mode=root",
            "--quiet",
            f'--customize-hook=chroot "$1" apt-get install -y --no-install-recommends {deps}',
            host_codename(),
            str(target),
            "-",
        ],
        input=sources,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    if done.returncode != 0 and re.search(
        r"Temporary failure resolving|Could not resolve|Failed to fetch", done.stderr
    ):
        pytest.skip(f"Debian mirror unreachable: {done.stderr.strip().splitlines()[-1]}")
    assert done.returncode == 0, done.stderr[-3000:]

    def chroot(*cmd: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            ["chroot", str(target), *cmd],
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
            env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", **(env or {})},
        )

    shutil.copy(deb, target / "root" / deb.name)
    installed = chroot("dpkg", "-i", f"/root/{deb.name}")
    assert installed.returncode == 0, installed.stdout + installed.stderr
    assert chroot("dpkg-query", "-W", "-f=${Status}", "kmsgd").stdout == "install ok installed"
    helped = chroot("kmsgd", "--help")
    assert helped.returncode == 0, helped.stderr
    # Enabled on install even without a running systemd (no systemd in the chroot).
    assert (target / "etc/systemd/system/sysinit.target.wants/kmsgd.service").is_symlink()
    assert (target / "etc/systemd/system/multi-user.target.wants/kmsgd-report.service").is_symlink()
    state = target / "var/lib/kmsgd"
    assert oct(state.stat().st_mode & 0o777) == "0o750"
    assert state.stat().st_gid == int(chroot("getent", "group", "adm").stdout.split(":")[2])

    # Purge keeps the evidence unless asked.
    (state / "ring").write_text("evidence")
    purged = chroot("dpkg", "--purge", "kmsgd")
    assert purged.returncode == 0, purged.stderr
    assert (state / "ring").is_file()
    assert not (target / "etc/kmsgd").exists()
    assert not (target / "etc/systemd/system/sysinit.target.wants/kmsgd.service").exists()
    assert chroot("dpkg", "-i", f"/root/{deb.name}").returncode == 0
    purged = chroot("dpkg", "--purge", "kmsgd", env={"KMSGD_PURGE_STATE": "yes"})
    assert purged.returncode == 0, purged.stderr
    assert not state.exists()
