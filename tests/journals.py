"""Real journal files for tests, made by systemd-journal-remote from the export texts in data/."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

DATA = Path(__file__).parent / "data" / "journal"
POWEROFF, REBOOT, CUT, TYPED = ("1" * 32, "2" * 32, "3" * 32, "4" * 32)
REMOTE = ("/lib/systemd/systemd-journal-remote", "/usr/lib/systemd/systemd-journal-remote")


def _journal_remote() -> str | None:
    found = shutil.which("systemd-journal-remote")
    return found or next((p for p in REMOTE if os.access(p, os.X_OK)), None)


@pytest.fixture(scope="module")
def journal_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One directory holding a real journal file per export input (several boots)."""
    exe = _journal_remote()
    if exe is None:
        pytest.skip(
            "systemd-journal-remote is not installed (apt-get install systemd-journal-remote)"
        )
    out = tmp_path_factory.mktemp("journal")
    for src in sorted(DATA.glob("*.export")):
        with src.open("rb") as f:
            subprocess.run(
                [exe, "-o", str(out / f"{src.stem}.journal"), "-"],
                stdin=f,
                check=True,
                capture_output=True,
            )
    return out
