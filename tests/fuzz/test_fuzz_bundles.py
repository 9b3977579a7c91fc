"""Fuzzing bundles: tarballs (sosreport-like member names), compressed layers nested in any
order and depth, nvidia-bug-report logs, with bytes patched after packing. Only BadInput (one
line, exit 2; LimitExceeded past a bound) may escape `kmsgd analyze`; memory stays bounded."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import lzma
import tarfile
from collections.abc import Callable
from pathlib import Path

import pytest
from fuzz.budget import Tried, budget
from fuzz.mutate import overwritten
from hypothesis import given
from hypothesis import strategies as st

from kmsgd.commands.analyze import analyze_inputs
from kmsgd.errors import BadInput
from kmsgd.logparse.bundle import Limits

tried = Tried()
LIMITS = Limits(max_members=200, max_depth=4, max_bytes=4 << 20)


LOG = (
    b"[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP\n"
    b"[  100.000000] amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0\n"
    b"[  101.000000] Kernel panic - not syncing: Fatal exception\n"
)
NVIDIA = (
    b"Start of NVIDIA bug report log file\n____________________________________________\n\n"
    b"dmesg:\n" + LOG + b"____________________________________________\n"
)
NAMES = st.sampled_from(
    [
        "sosreport-box/sos_commands/kernel/dmesg",
        "sosreport-box/var/log/kern.log",
        "sosreport-box/var/log/messages-20251101",
        "x/nvidia-bug-report.log.gz",
        "x/console-ramoops-0",
        "x/box.journal",
        "x/notes.txt",
        "x/other",
        "../../etc/passwd",
        "/abs/kern.log",
    ]
)
PACKERS: list[Callable[[bytes], bytes]] = [gzip.compress, bz2.compress, lzma.compress]
leaves = st.sampled_from([LOG, NVIDIA, b"", b"\x00" * 600, b"LPKSHHRH" + bytes(300)]) | st.binary(
    max_size=300
)


def tar_of(members: list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


bundles = st.recursive(
    leaves,
    lambda inner: st.one_of(
        st.tuples(st.sampled_from(PACKERS), inner).map(lambda pair: pair[0](pair[1])),
        st.lists(st.tuples(NAMES, inner), min_size=1, max_size=4).map(tar_of),
    ),
    max_leaves=6,
)
patches = st.lists(
    st.tuples(st.floats(0, 1, exclude_max=True), st.binary(min_size=1, max_size=8)), max_size=3
)


@pytest.mark.slow  # a few seconds at the suite's count
@budget(60)
@given(bundles, patches)
def test_bundles_raise_only_bad_input(
    tmp_path: Path, bundle: bytes, edits: list[tuple[float, bytes]]
) -> None:
    tried["bundle"] += 1
    path = tmp_path / "bundle"
    path.write_bytes(overwritten(bundle, edits))
    with contextlib.suppress(BadInput):
        analyze_inputs([str(path)], limits=LIMITS)
