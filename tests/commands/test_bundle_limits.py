"""Archives and compressed input are bounded in members, nesting and expanded bytes (the
config's `archive_max_members`, `archive_max_depth`, `input_max_bytes`): past a bound the
input is refused in one line (exit 2), read as a stream, never spooled whole to $TMPDIR."""

from __future__ import annotations

import gzip
import io
import os
import subprocess
import sys
import tarfile
from pathlib import Path

import pytest

from kmsgd.commands.analyze import analyze_inputs
from kmsgd.errors import BadInput
from kmsgd.logparse.bundle import LimitExceeded, Limits

DMESG = b"[  101.000000] Kernel panic - not syncing: Fatal exception\n"


def tar_of(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def nested_tar(depth: int) -> bytes:
    data = tar_of({"var/log/kern.log": DMESG})
    for n in range(depth):
        data = tar_of({f"layer{n}.log": data})
    return data


def test_many_members_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "many.tar"
    path.write_bytes(tar_of({f"junk/{n}": b"" for n in range(60)} | {"kern.log": DMESG}))
    with pytest.raises(LimitExceeded, match="more than 50 members"):
        analyze_inputs([str(path)], limits=Limits(max_members=50))
    report, _ = analyze_inputs([str(path)], limits=Limits(max_members=100))
    assert report.outcome.value == "kernel_panic"


@pytest.mark.slow
def test_a_deep_tar_in_tar_is_refused_not_a_recursion_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.tar"
    path.write_bytes(nested_tar(600))  # unbounded, a RecursionError after 500 MB of RSS
    with pytest.raises(LimitExceeded, match="nested deeper than"):
        analyze_inputs([str(path)])
    shallow = tmp_path / "shallow.tar"
    shallow.write_bytes(nested_tar(1))
    report, _ = analyze_inputs([str(shallow)])
    assert report.outcome.value == "kernel_panic"


@pytest.mark.slow
def test_expanded_bytes_are_bounded_and_nothing_is_spooled(tmp_path: Path) -> None:
    """A small .gz of a journal file expanding far past the bound: refused when the bound is
    reached, and $TMPDIR holds nothing of it meanwhile or after."""
    bomb = tmp_path / "bomb.gz"
    with gzip.open(bomb, "wb", compresslevel=1) as f:
        f.write(b"LPKSHHRH" + bytes(8 << 20))  # a journal file's signature, then zeros
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = os.environ | {"TMPDIR": str(tmp)}
    out = subprocess.run(
        [sys.executable, "-c", _BOUNDED_RUN, str(bomb)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )
    assert out.returncode == 2, out.stderr
    assert "expands past 1 MiB" in out.stderr and len(out.stderr.strip().splitlines()) == 1
    assert list(tmp.iterdir()) == []


_BOUNDED_RUN = """
import sys
from kmsgd.commands.analyze import analyze_inputs
from kmsgd.logparse.bundle import Limits
from kmsgd.errors import BadInput
try:
    analyze_inputs([sys.argv[1]], limits=Limits(max_bytes=1 << 20))
except BadInput as err:
    print(err, file=sys.stderr)
    sys.exit(2)
"""


def test_lines_expanding_past_the_bound_are_refused(tmp_path: Path) -> None:
    path = tmp_path / "lines.gz"
    with gzip.open(path, "wb") as f:
        for _ in range(2000):
            f.write(b"[    1.000000] usb 1-1: new high-speed USB device number 2\n" * 100)
    with pytest.raises(BadInput, match="expands past"):
        analyze_inputs([str(path)], limits=Limits(max_bytes=4 << 20))


@pytest.mark.slow
def test_the_cli_takes_the_bounds_from_the_config(tmp_path: Path) -> None:
    path = tmp_path / "many.tar"
    path.write_bytes(tar_of({f"junk/{n}": b"" for n in range(30)} | {"kern.log": DMESG}))
    cfg = tmp_path / "kmsgd.toml"
    cfg.write_text("[kmsgd]\narchive_max_members = 10\n")
    out = subprocess.run(
        [sys.executable, "-m", "kmsgd.cli", "analyze", str(path), "--config", str(cfg)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert out.returncode == 2 and "more than 10 members" in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
