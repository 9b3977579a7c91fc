"""The Debian source package in debian/: its files, and, in clean Debian 12 and 13 chroots, the
build with only the declared Build-Depends, lintian, install, upgrade, remove, purge, and the sos
plugin against Debian's own sos.

The chroot tests are slow: a session builds each suite once, both suites at the same time (with
the bases cached in ~/.cache/kmsgd-package, see debchroot.py), and every test of a suite shares
the result.
"""

from __future__ import annotations

import atexit
import dataclasses
import re
import shutil
import signal
import subprocess
import time
import tomllib
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import pytest
from debchroot import PATH, REPO, SOS, Chroot, Unavailable, base, build_depends

from kmsgd import config

SUITES = ("bookworm", "trixie")
DEBIAN_DEPS = ("python3-systemd", "python3-pyudev", "python3-structlog", "python3-click")
VERSION = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["version"]
NEXT = f"{VERSION}+test1"


# --- the conffile: every setting of kmsgd.config, commented, with its default --------------


def conffile_uncommented() -> dict[str, dict[str, object]]:
    """The conffile with every `# key = value` line uncommented, parsed as TOML."""
    lines = []
    for line in (REPO / "debian" / "kmsgd.toml").read_text().splitlines():
        m = re.match(r"^# ([a-z_]+ = .*)$", line)
        lines.append(m.group(1) if m else line)
    return tomllib.loads("\n".join(lines))


def test_conffile_lists_every_setting_commented() -> None:
    tables = conffile_uncommented()
    assert set(tables) == {"kmsgd", "incident", "ring"}
    names = {f.name for f in dataclasses.fields(config.Config)} - {"incident", "ring_layout"}
    assert set(tables["kmsgd"]) == names, "debian/kmsgd.toml and kmsgd/config.py disagree"
    incident = {f.name for f in dataclasses.fields(config.IncidentConfig)}
    assert set(tables["incident"]) == incident, "[incident] and config.IncidentConfig disagree"
    ring = {f.name for f in dataclasses.fields(config.RingConfig)}
    assert set(tables["ring"]) == ring, "[ring] and config.RingConfig disagree"
    # As shipped, every setting is commented out: the file changes nothing.
    shipped = tomllib.loads((REPO / "debian" / "kmsgd.toml").read_text())
    assert shipped == {"kmsgd": {}, "incident": {}, "ring": {}}
    assert config.load(str(REPO / "debian" / "kmsgd.toml"), {}) == config.Config()


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return repr(value)


def test_conffile_defaults_are_the_real_defaults(tmp_path: Path) -> None:
    uncommented = tmp_path / "kmsgd.toml"
    uncommented.write_text(
        "".join(
            f"[{name}]\n" + "".join(f"{k} = {toml_value(v)}\n" for k, v in table.items())
            for name, table in conffile_uncommented().items()
        )
    )
    assert config.load(str(uncommented), {}) == config.Config()


# --- the source package, as files ---------------------------------------------------------


def changelog_version() -> str:
    first = (REPO / "debian" / "changelog").read_text().splitlines()[0]
    m = re.match(r"^kmsgd \(([^)]+)\) ", first)
    assert m, first
    return m.group(1)


def test_source_package_is_debhelper_and_pybuild() -> None:
    rules = (REPO / "debian" / "rules").read_text()
    assert re.search(r"^\tdh \$@ --with python3 --buildsystem=pybuild$", rules, re.M)
    assert (REPO / "debian/source/format").read_text() == "3.0 (native)\n"
    assert changelog_version() == VERSION, "debian/changelog and pyproject.toml disagree"
    deps = build_depends()
    for need in ("debhelper-compat", "dh-python", "pybuild-plugin-pyproject", "python3-all"):
        assert need in deps
    control = (REPO / "debian" / "control").read_text()
    assert "debhelper-compat (= 13)" in control
    assert "${python3:Depends}" in control and "${misc:Depends}" in control


def test_setuptools_floor_is_what_debian_12_has() -> None:
    # pybuild builds with the archive's python3-setuptools; pyproject may not ask for more.
    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    floor = re.search(r"python3-setuptools \(>= ([\d.]+)\)", (REPO / "debian/control").read_text())
    assert floor and requires == [f"setuptools>={floor.group(1)}"]


def test_units_reach_dh_installsystemd_unchanged() -> None:
    for link, unit in (
        ("kmsgd.service", "kmsgd.service"),
        ("kmsgd.kmsgd-report.service", "kmsgd-report.service"),
    ):
        path = REPO / "debian" / link
        assert path.is_symlink() and path.resolve() == (REPO / "units" / unit).resolve()


def test_license_file_matches_the_copyright_file() -> None:
    def words(text: str) -> list[str]:
        return re.findall(r"[a-z]+", text.lower())

    lic = (REPO / "LICENSE").read_text()
    copyright = (REPO / "debian" / "copyright").read_text()
    assert copyright.startswith("Format: https://www.debian.org/doc/packaging-manuals/copyright")
    body = copyright.split("License: MIT\n")[-1]
    assert words(body.replace("\n .\n", "\n")) == words(lic.split("\n\n", 2)[2])
    classifiers = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["classifiers"]
    assert "License :: OSI Approved :: MIT License" in classifiers


def test_lintian_overrides_are_justified() -> None:
    for path in (REPO / "debian").glob("*lintian-overrides"):
        previous = ""
        for line in path.read_text().splitlines():
            if line.strip() and not line.startswith("#"):
                assert previous.startswith("#"), f"{path.name}: no comment says why: {line}"
            previous = line


# --- built and installed in clean chroots -------------------------------------------------


@dataclass
class Built:
    suite: str
    debs: dict[str, Path]  # version -> .deb on this machine
    lintian: subprocess.CompletedProcess[str]
    target: Chroot  # a clean chroot to install into


def _build(chroot: Chroot, src: str, version: str) -> str:
    """dpkg-buildpackage in the chroot; returns the .deb's path in the chroot."""
    if version != VERSION:
        changelog = chroot.path(f"{src}/debian/changelog")
        entry = (
            f"kmsgd ({version}) unstable; urgency=medium\n\n  * Test upgrade.\n\n"
            " -- kmsgd developers <dev@kmsgd.invalid>  Mon, 30 Nov 2026 12:00:00 +0000\n\n"
        )
        changelog.write_text(entry + changelog.read_text())
    chroot.ok("sh", "-c", f"cd {src} && dpkg-buildpackage -us -uc -b", timeout=900)
    deb = f"{Path(src).parent}/kmsgd_{version}_all.deb"
    assert chroot.path(deb).is_file()
    return deb


def prepare(suite: str, work: Path) -> Built:
    """Build kmsgd twice (this version and NEXT) in a chroot with only the Build-Depends,
    lintian the first, and unpack a clean chroot to install into."""
    tree = base(suite)
    builder = Chroot.unpack(tree, work / "build", suite)
    try:
        for src in ("/build/kmsgd", "/build/next/kmsgd"):
            subprocess.run(
                [str(REPO / "tools/build-deb"), "--export", str(builder.path(src))],
                check=True,
                capture_output=True,
            )
        # Only what debian/control declares (and build-essential), from the cached archives.
        builder.ok("apt-get", "build-dep", "-y", "/build/kmsgd")
        debs = {
            VERSION: _build(builder, "/build/kmsgd", VERSION),
            NEXT: _build(builder, "/build/next/kmsgd", NEXT),
        }
        builder.ok("apt-get", "install", "-y", "lintian")
        lintian = builder.run(
            "lintian", "--fail-on", "error,warning", "--display-info", debs[VERSION], timeout=600
        )
        out = work / "debs"
        out.mkdir()
        for version, deb in debs.items():
            debs[version] = Path(shutil.copy2(builder.path(deb), out))
    finally:
        builder.remove()
    target = Chroot.unpack(tree, work / "target", suite)
    _targets.append(target)
    return Built(suite, debs, lintian, target)


# Every suite the session asked for is prepared at once, in threads: most of the time goes to
# apt, dpkg and the mirror, not to the CPU, so two suites take little longer than one.
_prepared: dict[str, Future[Built]] = {}
_targets: list[Chroot] = []


@atexit.register
def _remove_targets() -> None:
    for target in _targets:  # those a test session left (interrupted, or a suite unused)
        target.remove()


@pytest.fixture(scope="module", params=SUITES)
def built(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Built]:
    if not _prepared:
        wanted = {
            item.callspec.params["built"]
            for item in request.session.items
            if "built" in getattr(getattr(item, "callspec", None), "params", {})
        }
        pool = ThreadPoolExecutor(max_workers=max(1, len(wanted)))
        for suite in sorted(wanted):
            _prepared[suite] = pool.submit(prepare, suite, tmp_path_factory.mktemp(suite))
        pool.shutdown(wait=False)
    try:
        done = _prepared[request.param].result()
    except Unavailable as why:
        pytest.skip(f"Debian {request.param} chroot: {why}")
    try:
        yield done
    finally:
        done.target.remove()
        _targets.remove(done.target)


def field(deb: Path, name: str) -> str:
    return subprocess.run(
        ["dpkg-deb", "--field", str(deb), name], capture_output=True, text=True, check=True
    ).stdout.strip()


def contents(deb: Path) -> dict[str, str]:
    """path -> mode string, from `dpkg-deb --contents`."""
    out = subprocess.run(
        ["dpkg-deb", "--contents", str(deb)], capture_output=True, text=True, check=True
    ).stdout
    return {line.split()[-1].removeprefix("."): line.split()[0] for line in out.splitlines()}


@pytest.mark.slow
def test_control_fields(built: Built) -> None:
    deb = built.debs[VERSION]
    assert deb.name == f"kmsgd_{VERSION}_all.deb"
    assert field(deb, "Architecture") == "all"
    depends = [d.strip() for d in field(deb, "Depends").split(",")]
    for dep in DEBIAN_DEPS:
        assert dep in depends
    assert any(d.split()[0] in ("python3", "python3:any") for d in depends)
    assert not any("pip" in d for d in depends)


@pytest.mark.slow
def test_contents(built: Built) -> None:
    files = contents(built.debs[VERSION])
    units = [p for p in files if p.endswith("/systemd/system/kmsgd.service")]
    assert len(units) == 1 and units[0] in {
        "/lib/systemd/system/kmsgd.service",
        "/usr/lib/systemd/system/kmsgd.service",
    }
    assert units[0].replace("kmsgd.service", "kmsgd-report.service") in files
    for path in (
        "/usr/bin/kmsgd",
        "/usr/lib/python3/dist-packages/kmsgd/__init__.py",
        "/usr/lib/python3/dist-packages/kmsgd/cli.py",
        "/usr/lib/python3/dist-packages/sos/report/plugins/kmsgd.py",
        "/usr/lib/sysctl.d/60-kmsgd.conf",
        "/etc/kmsgd/kmsgd.toml",
        "/usr/share/doc/kmsgd/copyright",
        "/usr/share/man/man8/kmsgd.8.gz",
        "/usr/share/man/man8/kmsgd-run.8.gz",
        "/usr/share/man/man1/kmsgd-last-boot.1.gz",
        "/usr/share/bash-completion/completions/kmsgd",
        "/usr/share/zsh/vendor-completions/_kmsgd",
        "/usr/share/fish/vendor_completions.d/kmsgd.fish",
    ):
        assert path in files, path
    assert files["/usr/bin/kmsgd"] == "-rwxr-xr-x"
    assert not [p for p in files if "__pycache__" in p or p.endswith(".pyc")]
    assert not [p for p in files if p.startswith("/usr/share/kmsgd/")], "units twice"


@pytest.mark.slow
def test_lintian_clean(built: Built) -> None:
    done = built.lintian
    tags = [line for line in done.stdout.splitlines() if re.match(r"^[EW]: ", line)]
    assert done.returncode == 0 and not tags, done.stdout + done.stderr


# Paths a package's life leaves behind by design: apt's and dpkg's own records, logs, caches;
# and /etc/hosts, which netbase's postinst writes (Debian 13's python3 pulls it) and its purge
# leaves.
BOOKKEEPING = re.compile(
    r"^/(var/lib/(dpkg|apt|systemd/deb-systemd-helper-masked)|var/log|var/cache|tmp|root"
    r"|run|etc/ld\.so\.cache|etc/hosts|usr/lib/python3/dist-packages/__pycache__)(/|$)"
)


def snapshot(chroot: Chroot) -> set[str]:
    out = chroot.ok("find", "/", "-xdev", "-not", "-path", "/proc/*", "-not", "-path", "/dev/*")
    return {p for p in out.splitlines() if not BOOKKEEPING.match(p)}


def installed(chroot: Chroot) -> set[str]:
    out = chroot.ok("dpkg-query", "-W", "-f=${db:Status-Abbrev} ${Package}\\n")
    return {line.split()[-1] for line in out.splitlines() if line.startswith("ii")}


@pytest.mark.slow
def test_install_upgrade_remove_purge(built: Built) -> None:
    c = built.target
    old, new = (f"/root/{built.debs[v].name}" for v in (VERSION, NEXT))
    for version in (VERSION, NEXT):
        shutil.copy2(built.debs[version], c.path("/root"))
    # Maintainer scripts act on services only where systemd runs; say it does, and let the
    # logging policy-rc.d refuse (and record) every start, restart and stop.
    c.path("/run/systemd/system").mkdir(parents=True, exist_ok=True)
    policy_log = c.path("/var/log/policy-rc.d.log")
    # No systemd here: a stand-in systemd-sysctl records what the postinst asks it to apply.
    sysctl = c.path("/usr/lib/systemd/systemd-sysctl")
    sysctl.parent.mkdir(parents=True, exist_ok=True)
    sysctl.write_text('#!/bin/sh\necho "$*" >> /var/log/systemd-sysctl.log\n')
    sysctl.chmod(0o755)
    before = snapshot(c)
    packages_before = installed(c)

    # Install into a clean system: apt brings the Depends, nothing else is there.
    c.ok("apt-get", "install", "-y", old)
    assert c.ok("dpkg-query", "-W", "-f=${Status} ${Version}", "kmsgd") == (
        f"install ok installed {VERSION}"
    )
    assert "Usage: kmsgd" in c.ok("kmsgd", "--help")
    assert "usage: kmsgd run" in c.ok("kmsgd", "run", "--help")
    wants = {
        "kmsgd.service": c.path("/etc/systemd/system/sysinit.target.wants/kmsgd.service"),
        "kmsgd-report.service": c.path(
            "/etc/systemd/system/multi-user.target.wants/kmsgd-report.service"
        ),
    }
    assert all(link.is_symlink() for link in wants.values()), "enabled on install"
    state = c.path("/var/lib/kmsgd")
    assert oct(state.stat().st_mode & 0o777) == "0o750"
    assert state.stat().st_gid == int(c.ok("getent", "group", "adm").split(":")[2])
    assert "kmsgd.service start" in policy_log.read_text(), "the recorder is started"
    assert "kmsgd-report.service start" not in policy_log.read_text()
    applied = c.path("/var/log/systemd-sysctl.log").read_text().split()
    assert applied == ["60-kmsgd.conf"], "the forensic sysctls applied by name at install"
    assert c.path("/usr/lib/python3/dist-packages/kmsgd/__pycache__").is_dir(), "py3compile"

    # Upgrade: the recorder is restarted (not stopped first), the ring is kept.
    (state / "ring").write_bytes(b"evidence" * 1000)
    (state / "reports" / "b00t.md").write_text("a saved post-mortem\n")
    conf = c.path("/etc/kmsgd/kmsgd.toml")
    conf.write_text(conf.read_text() + '\n# ring_size = "128M"  (an operator edit)\n')
    policy_log.write_text("")
    upgraded = c.run("apt-get", "install", "-y", "-o", "Dpkg::Options::=--force-confold", new)
    assert upgraded.returncode == 0, upgraded.stdout + upgraded.stderr
    assert c.ok("dpkg-query", "-W", "-f=${Version}", "kmsgd") == NEXT
    assert (state / "ring").read_bytes() == b"evidence" * 1000
    assert (state / "reports" / "b00t.md").is_file()
    assert "(an operator edit)" in conf.read_text(), "the conffile edit survives"
    asked = policy_log.read_text()
    assert "kmsgd.service restart" in asked and "kmsgd.service stop" not in asked

    # Remove: stopped, unit links gone with the units, configuration and state kept.
    policy_log.write_text("")
    c.ok("apt-get", "remove", "-y", "kmsgd")
    assert "kmsgd.service stop" in policy_log.read_text()
    assert (state / "ring").is_file() and conf.is_file()
    assert not c.path("/usr/bin/kmsgd").exists()

    # Purge: the configuration and the state go; nothing of kmsgd is left.
    c.ok("apt-get", "purge", "-y", "kmsgd")
    assert not state.exists() and not conf.parent.exists()
    assert not any(link.is_symlink() for link in wants.values())
    c.ok("apt-get", "autoremove", "--purge", "-y")
    # What apt brought for kmsgd and autoremove keeps by policy (Priority: important, such as
    # Debian 13's netbase) goes too, so that what remains is what kmsgd itself left.
    extra = installed(c) - packages_before
    if extra:
        c.ok("apt-get", "purge", "-y", "--allow-remove-essential", *sorted(extra))
    left = sorted(snapshot(c) - before)
    assert not left, f"left after purge and autoremove: {left[:40]}"
    # From here on no maintainer script may think systemd runs here.
    shutil.rmtree(c.path("/run/systemd"))
    sysctl.unlink()


@pytest.mark.slow
def test_purge_can_keep_the_evidence(built: Built) -> None:
    c = built.target
    deb = f"/root/{built.debs[VERSION].name}"
    shutil.copy2(built.debs[VERSION], c.path("/root"))
    c.ok("apt-get", "install", "-y", deb)
    c.path("/var/lib/kmsgd/ring").write_bytes(b"evidence")
    done = c.run("apt-get", "purge", "-y", "kmsgd", env={"KMSGD_KEEP_STATE": "yes"})
    assert done.returncode == 0, done.stdout + done.stderr
    assert c.path("/var/lib/kmsgd/ring").read_bytes() == b"evidence"
    assert "kept /var/lib/kmsgd" in done.stderr
    shutil.rmtree(c.path("/var/lib/kmsgd"))


# --- the sos plugin against Debian's own sos ----------------------------------------------


def record_ring(c: Chroot) -> None:
    """Two short boots recorded into /var/lib/kmsgd/ring by the installed `kmsgd run`, from a
    kernel log file and a fake /proc (a chroot has no /dev/kmsg of its own)."""
    from conftest import make_proc

    fake = c.path("/tmp/fake")
    (fake / "sys").mkdir(parents=True, exist_ok=True)
    for boot_id in ("1b3f3c1d-2b4a-49e8-a7c6-d5e4f3a2b1c0", "2c4f3c1d-2b4a-49e8-a7c6-d5e4f3a2b1c0"):
        make_proc(fake / "proc", boot_id)
        (fake / "kmsg").write_text(
            "6,0,1000,-;Linux version 6.8.0-test\n"
            "3,1,2000,-;amdgpu 0000:03:00.0: amdgpu: GPU reset begin!\n"
        )
        run = subprocess.Popen(
            ["chroot", str(c.root), "kmsgd", "run", "--ring", "/var/lib/kmsgd/ring",
             "--ring-size", "4M", "--kmsg", "/tmp/fake/kmsg", "--proc", "/tmp/fake/proc",
             "--sys", "/tmp/fake/sys", "--config", "/dev/null", "--no-sysctl", "--no-mlock"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env={"PATH": PATH},
        )  # fmt: skip
        time.sleep(2.5)
        run.send_signal(signal.SIGTERM)
        out, _ = run.communicate(timeout=30)
        assert run.returncode == 0, out


@pytest.mark.slow
def test_sos_report_collects_kmsgd(built: Built) -> None:
    c = built.target
    deb = f"/root/{built.debs[VERSION].name}"
    shutil.copy2(built.debs[VERSION], c.path("/root"))
    c.ok("apt-get", "install", "-y", deb, SOS[built.suite])
    record_ring(c)
    # A saved post-mortem, as kmsgd-report.service writes it after a boot.
    c.ok("kmsgd", "last-boot", "--no-journal", "--save-dir", "/var/lib/kmsgd/reports")
    saved = sorted(p.name for p in c.path("/var/lib/kmsgd/reports").iterdir())
    assert any(n.endswith(".md") for n in saved), saved

    def report(*extra: str) -> set[str]:
        out = c.path("/tmp/sos")
        shutil.rmtree(out, ignore_errors=True)
        out.mkdir()
        done = c.run(
            "sos", "report", "--batch", "--only-plugins", "kmsgd", "--tmp-dir", "/tmp/sos",
            "--build", *extra, timeout=600,
        )  # fmt: skip
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        trees = [p for p in out.iterdir() if p.is_dir()]
        assert len(trees) == 1, list(out.iterdir())
        return {str(p.relative_to(trees[0])) for p in trees[0].rglob("*") if p.is_file()}

    files = report()
    cmds = "sos_commands/kmsgd/"
    for name in ("last-boot.md", "last-boot.json", "boots", "check", "sysctl-check", "version"):
        assert cmds + name in files, sorted(files)
    assert "etc/kmsgd/kmsgd.toml" in files
    for name in saved:
        assert f"var/lib/kmsgd/reports/{name}" in files
    assert "var/lib/kmsgd/ring" not in files, "the ring only when asked"
    tree = next(p for p in c.path("/tmp/sos").iterdir() if p.is_dir())
    boots = (tree / cmds / "boots").read_text()
    assert "OUTCOME" in boots, boots
    assert "outcome" in (tree / cmds / "last-boot.md").read_text().lower()

    with_ring = report("-k", "kmsgd.ring=on")
    assert "var/lib/kmsgd/ring" in with_ring
    tree = next(p for p in c.path("/tmp/sos").iterdir() if p.is_dir())
    assert (tree / "var/lib/kmsgd/ring").read_bytes() == c.path("/var/lib/kmsgd/ring").read_bytes()
    c.ok("apt-get", "purge", "-y", "kmsgd")
