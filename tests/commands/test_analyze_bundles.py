"""`kmsgd analyze` on what tickets carry: compressed files, sosreport tarballs, an
nvidia-bug-report.log, journal files, pstore and other directories, several files at once."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

from kmsgd.commands.analyze import analyze_inputs
from kmsgd.errors import BadInput

DMESG = (
    b"[  100.000000] amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0\n"
    b"[  101.000000] Kernel panic - not syncing: Fatal exception\n"
)
QUIET = b"[    1.000000] usb 1-1: new high-speed USB device number 2 using xhci_hcd\n"


def _judge(*paths: Path | str) -> tuple[str, str | None, tuple[str, ...], str]:
    report, _ = analyze_inputs([str(p) for p in paths])
    assert report.source is not None
    primary = report.primary.tag if report.primary else None
    return report.outcome.value, primary, report.source.notes, report.source.name


def _zstd(data: bytes) -> bytes:
    zstandard = pytest.importorskip("zstandard")
    return bytes(zstandard.ZstdCompressor().compress(data))


@pytest.mark.parametrize(
    ("suffix", "pack"),
    [(".gz", gzip.compress), (".xz", lzma.compress), (".bz2", bz2.compress), (".zst", _zstd)],
)
def test_compressed_files(tmp_path: Path, suffix: str, pack: object) -> None:
    path = tmp_path / f"dmesg{suffix}"
    path.write_bytes(pack(DMESG))  # type: ignore[operator]
    assert _judge(path)[:2] == ("kernel_panic", "amdgpu_smu_timeout")


def test_truncated_compressed_file_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "dmesg.gz"
    path.write_bytes(gzip.compress(DMESG * 1000)[:200])
    with pytest.raises(BadInput, match="compressed"):
        _judge(path)


def test_several_files_say_which_file_the_evidence_came_from(tmp_path: Path) -> None:
    (tmp_path / "a.log").write_bytes(QUIET)
    (tmp_path / "b.log").write_bytes(DMESG)
    outcome, primary, notes, name = _judge(tmp_path / "a.log", tmp_path / "b.log")
    assert (outcome, primary) == ("kernel_panic", "amdgpu_smu_timeout")
    assert name.endswith("b.log")
    assert any(n.startswith("also read") and "a.log" in n for n in notes)


def _tar_xz(path: Path, members: dict[str, bytes]) -> None:
    with tarfile.open(path, "w:xz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


def test_sosreport_tarball(tmp_path: Path) -> None:
    top = "sosreport-box-2026-01-01-abcdef"
    _tar_xz(
        tmp_path / f"{top}.tar.xz",
        {
            f"{top}/sos_commands/kernel/uname_-a": b"Linux box 6.1.0-18-amd64\n",
            f"{top}/sos_commands/kernel/dmesg": QUIET,
            f"{top}/var/log/kern.log": b"Jan  1 10:00:00 box kernel: [  100.000000] "
            b"NVRM: Xid (PCI:0000:3d:00): 79, pid=1892, name=python3, GPU has fallen off the bus.\n",
            f"{top}/etc/hostname": b"box\n",
        },
    )
    _, primary, notes, name = _judge(tmp_path / f"{top}.tar.xz")
    assert primary == "nvidia_xid_79"
    assert name.endswith("var/log/kern.log")
    assert any("sos_commands/kernel/dmesg" in n for n in notes)


# nvidia-bug-report.sh's layout: a prologue, then blocks after a line of 44 underscores;
# kernel lines in "Scanning kernel log files for NVIDIA kernel messages:" (per-boot
# "journalctl -b N:" parts) and "dmesg:" (the live dmesg)
SEP = "_" * 44
NV_REPORT = f"""{SEP}

Start of NVIDIA bug report log file.  Please include this file, along
with a detailed description of your problem, when reporting a graphics
driver bug via the NVIDIA Linux forum (see forums.developer.nvidia.com)
or by sending email to 'linux-bugs@nvidia.com'.

nvidia-bug-report.sh Version: 34165443

Date: Mon Jan  5 10:00:00 UTC 2026
uname: Linux box 6.8.0-49-generic #49-Ubuntu SMP x86_64 GNU/Linux
command line flags:

{SEP}

*** /etc/issue
*** ls: -rw-r--r-- 1 root root 26 2024-08-27 /etc/issue
Ubuntu 24.04.1 LTS \\n \\l

{SEP}

Scanning kernel log files for NVIDIA kernel messages:

  journalctl -b -1:
Jan 04 23:59:01 box kernel: NVRM: Xid (PCI:0000:01:00): 119, pid=2311, name=python3, \
Timeout after 6s of waiting for RPC response from GPU0 GSP! Expected function 76
Jan 04 23:59:02 box kernel: NVRM: GPU 0000:01:00.0: GPU has fallen off the bus.

  journalctl -b -0:
Jan 05 09:58:00 box kernel: NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05

{SEP}

dmesg:

[    0.000000] Linux version 6.8.0-49-generic (buildd@lcy02-amd64-103)
[    3.100000] NVRM: loading NVIDIA UNIX x86_64 Kernel Module  550.127.05

{SEP}

xset -q:

xset could not connect to an X server
"""


def test_nvidia_bug_report(tmp_path: Path) -> None:
    path = tmp_path / "nvidia-bug-report.log.gz"
    path.write_bytes(gzip.compress(NV_REPORT.encode()))
    _, primary, notes, name = _judge(path)
    # the GSP stops answering because the GPU is gone from the bus (kmsgd/catalogue/gpu.py
    # DEVICE_LOSS_TAGS): the loss leads though printed a second later
    assert primary == "gpu_fell_off_bus"
    assert name.endswith("journalctl -b -1")
    assert any(n.startswith("also read") and "dmesg" in n for n in notes)


def test_pstore_directory(tmp_path: Path) -> None:
    pstore = tmp_path / "pstore"
    pstore.mkdir()
    (pstore / "dmesg-efi-170000000001").write_bytes(
        b"Panic#1 Part1\n<0>[  200.000000] Kernel panic - not syncing: softlockup: hung tasks\n"
    )
    (pstore / "unrelated.bin").write_bytes(b"\x00\x01")
    assert _judge(pstore)[:2] == ("kernel_panic", "soft_lockup")


def test_directory_without_logs_is_bad_input(tmp_path: Path) -> None:
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8")
    with pytest.raises(BadInput, match="no kernel log files"):
        _judge(tmp_path)


JOURNAL_REMOTE = shutil.which("systemd-journal-remote") or "/lib/systemd/systemd-journal-remote"


@pytest.mark.skipif(not Path(JOURNAL_REMOTE).exists(), reason="systemd-journal-remote missing")
def test_journal_file(tmp_path: Path) -> None:
    export = b""
    for n, msg in enumerate(
        [
            b"amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0",
            b"Kernel panic - not syncing: Fatal exception",
        ],
        1,
    ):
        export += (
            b"__REALTIME_TIMESTAMP=17000000%02d000000\n__MONOTONIC_TIMESTAMP=%d000000\n"
            b"_BOOT_ID=0123456789abcdef0123456789abcdef\n_TRANSPORT=kernel\nPRIORITY=0\n"
            b"_SOURCE_MONOTONIC_TIMESTAMP=%d000000\nSYSLOG_IDENTIFIER=kernel\nMESSAGE=%s\n\n"
            % (n, 100 + n, 100 + n, msg)
        )
    out = tmp_path / "system.journal"
    subprocess.run(
        [JOURNAL_REMOTE, f"--output={out}", "-"], input=export, check=True, capture_output=True
    )
    assert _judge(out)[:2] == ("kernel_panic", "amdgpu_smu_timeout")


@pytest.mark.skipif(not Path(JOURNAL_REMOTE).exists(), reason="systemd-journal-remote missing")
def test_a_journal_entry_with_a_field_name_not_utf8_is_skipped(tmp_path: Path) -> None:
    """A damaged file whose data object names a field in bytes that are not UTF-8 (the fuzzer
    patched 8 bytes of 0xff into one): systemd-python's Reader raises UnicodeDecodeError for
    that entry. The entry is skipped; the entries around it are judged."""
    export = b""
    for n, (name, msg) in enumerate(
        [
            (b"SYSLOG_IDENTIFIER", b"amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12"),
            (b"KMSGDFUZZ", b"usb 1-1: new high-speed USB device number 2 using xhci_hcd"),
            (b"SYSLOG_IDENTIFIER", b"Kernel panic - not syncing: Fatal exception"),
        ],
        1,
    ):
        export += (
            b"__REALTIME_TIMESTAMP=17000000%02d000000\n__MONOTONIC_TIMESTAMP=%d000000\n"
            b"_BOOT_ID=0123456789abcdef0123456789abcdef\n_TRANSPORT=kernel\nPRIORITY=0\n"
            b"_SOURCE_MONOTONIC_TIMESTAMP=%d000000\n%s=kernel\nMESSAGE=%s\n\n"
            % (n, 100 + n, 100 + n, name, msg)
        )
    out = tmp_path / "system.journal"
    subprocess.run(
        [JOURNAL_REMOTE, f"--output={out}", "-"], input=export, check=True, capture_output=True
    )
    data = out.read_bytes()
    assert data.count(b"KMSGDFUZZ=kernel") == 1
    out.write_bytes(data.replace(b"KMSGDFUZZ=kernel", b"KMSGD\xff\xff\xff\xff=kernel"))
    assert _judge(out)[:2] == ("kernel_panic", "amdgpu_smu_timeout")
