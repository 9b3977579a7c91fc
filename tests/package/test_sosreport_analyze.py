"""`kmsgd analyze` on a real `sos report` tarball, made by Debian 12's own sos in a chroot.

The chroot is an overlay on debchroot.py's cached Debian 12 base (sos is downloaded in it,
installed here from the cache, offline). A kernel log with an amdgpu hang is planted as
/var/log/kern.log, where the `logs` plugin collects it; sos also runs the `kernel` plugin
(its dmesg is this machine's kernel buffer, seen from the chroot). The tarball is kept in
the cache beside the base and made again only when the base or this recipe changes, so the
test costs seconds after its first run.
"""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from debchroot import CACHE, SOS, Chroot, Unavailable, base

from kmsgd.commands.analyze import analyze_inputs

SUITE = "bookworm"
# rsyslog's RSYSLOG_TraditionalFileFormat, as Debian 12 writes /var/log/kern.log
KERN_LOG = """\
Nov 29 16:00:01 gpubox kernel: [    0.000000] Linux version 6.1.0-26-amd64 (debian-kernel@lists.debian.org)
Nov 29 16:00:05 gpubox kernel: [    4.120000] amdgpu 0000:05:00.0: amdgpu: SMU is initialized successfully!
Nov 29 18:12:40 gpubox kernel: [ 7959.301200] amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0
Nov 29 18:12:40 gpubox kernel: [ 7959.301260] amdgpu 0000:05:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE
Nov 29 18:12:50 gpubox kernel: [ 7969.551000] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq=1, emitted seq=3
Nov 29 18:12:50 gpubox kernel: [ 7969.551100] amdgpu 0000:05:00.0: amdgpu: GPU reset begin!
"""
RECIPE = "1"  # bump when the planted log or the sos command line changes


def _make(tarball: Path, tmp: Path) -> None:
    """Install sos in an overlay on the cached base, plant the log, run sos report."""
    try:
        tree = base(SUITE)
    except Unavailable as why:
        pytest.skip(f"Debian {SUITE} chroot: {why}")
    chroot = Chroot.unpack(tree, tmp / "root", SUITE)
    try:
        chroot.ok("apt-get", "install", "-y", "--no-download", SOS[SUITE], timeout=600)
        chroot.path("/var/log/kern.log").write_text(KERN_LOG)
        out = chroot.path("/tmp/sos")
        out.mkdir(parents=True)
        chroot.ok(
            "sos", "report", "--batch", "-o", "kernel,logs", "--tmp-dir", "/tmp/sos",
            "--name", "gpubox", timeout=600,
        )  # fmt: skip
        made = sorted(out.glob("sosreport-*.tar.xz"))
        assert made, sorted(p.name for p in out.iterdir())
        shutil.copyfile(made[0], tarball.with_suffix(".partial"))
        tarball.with_suffix(".partial").rename(tarball)
    finally:
        chroot.remove()


@pytest.fixture(scope="module")
def sosreport(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    try:
        tree = base(SUITE)
    except Unavailable as why:
        pytest.skip(f"Debian {SUITE} chroot: {why}")
    key = hashlib.sha256(f"{RECIPE} {tree.name} {KERN_LOG}".encode()).hexdigest()[:12]
    tarball = CACHE / f"sosreport-{SUITE}-{key}.tar.xz"
    if not tarball.is_file():
        for old in CACHE.glob(f"sosreport-{SUITE}-*"):
            old.unlink()
        _make(tarball, tmp_path_factory.mktemp("sos"))
    # the name kmsgd sees is what sos called it
    named = tmp_path_factory.mktemp("report") / "sosreport-gpubox-2026-11-29-abcdefg.tar.xz"
    shutil.copyfile(tarball, named)
    yield named


@pytest.mark.slow
def test_analyze_reads_a_real_sos_report(sosreport: Path) -> None:
    report, _ = analyze_inputs([str(sosreport)])
    assert report.primary is not None and report.primary.tag == "amdgpu_smu_timeout"
    assert report.source is not None
    assert report.source.name.endswith("var/log/kern.log"), report.source.name
    # the kernel plugin's dmesg was read too, and said so
    assert any("sos_commands/kernel/dmesg" in n for n in report.source.notes), report.source.notes
