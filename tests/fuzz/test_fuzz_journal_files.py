"""Fuzzing journal files (`*.journal`) as `kmsgd analyze` reads them: a real file written by
systemd-journal-remote, with bytes patched anywhere (header, hash tables, entries, data
objects). libsystemd parses the file; kmsgd must answer or refuse in one line (BadInput),
never raise anything else, whatever it is handed back."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from fuzz.budget import Tried, budget
from fuzz.mutate import overwritten
from hypothesis import given
from hypothesis import strategies as st

from kmsgd.commands.analyze import analyze_inputs
from kmsgd.errors import BadInput

pytest.importorskip("systemd.journal", reason="systemd-python is not installed")
tried = Tried()
REMOTE = ("/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote")


def export_entry(i: int, message: str, t_us: int) -> bytes:
    fields = {
        "__REALTIME_TIMESTAMP": str(t_us),
        "__MONOTONIC_TIMESTAMP": str(i * 1_000_000),
        "_BOOT_ID": "0123456789abcdef0123456789abcdef",
        "_TRANSPORT": "kernel",
        "PRIORITY": "3",
        "_SOURCE_MONOTONIC_TIMESTAMP": str(i * 1_000_000),
        "MESSAGE": message,
    }
    return "".join(f"{k}={v}\n" for k, v in fields.items()).encode() + b"\n"


@pytest.fixture(scope="module")
def base_journal(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    exe = shutil.which("systemd-journal-remote") or next(
        (p for p in REMOTE if os.access(p, os.X_OK)), None
    )
    if exe is None:
        pytest.skip(
            "systemd-journal-remote is not installed (apt-get install systemd-journal-remote)"
        )
    lines = ["Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP"]
    lines += [f"amdgpu 0000:03:00.0: amdgpu: ring gfx timeout {n}" for n in range(30)]
    lines += ["Kernel panic - not syncing: Fatal exception"]
    data = b"".join(export_entry(i, m, 1_764_400_000_000_000 + i) for i, m in enumerate(lines))
    path = tmp_path_factory.mktemp("journal") / "box.journal"
    subprocess.run([exe, f"--output={path}", "-"], input=data, check=True, capture_output=True)
    return path.read_bytes()


patches = st.lists(
    st.tuples(
        st.floats(0, 1, exclude_max=True),
        st.sampled_from([b"\xff" * 8, b"\x00" * 8, b"\x7f\xff\xff\xff\xff\xff\xff\xff", b"\x01"])
        | st.binary(min_size=1, max_size=16),
    ),
    min_size=1,
    max_size=6,
)


@pytest.mark.slow  # libsystemd opens a file per example
@budget(40)
@given(patches)
def test_journal_files_raise_only_bad_input(
    tmp_path: Path, base_journal: bytes, edits: list[tuple[float, bytes]]
) -> None:
    tried["journal file"] += 1
    path = tmp_path / "box.journal"
    path.write_bytes(overwritten(base_journal, edits))
    with contextlib.suppress(BadInput):
        analyze_inputs([str(path)])
