"""Reading /etc/adjtime where it really lives: pyfakefs gives each test its own /etc."""

from __future__ import annotations

from pathlib import Path

import pytest
from pyfakefs.fake_filesystem import FakeFilesystem

from kmsgd.commands.lastboot import rtc_local


@pytest.mark.parametrize(("third_line", "local"), [("LOCAL", True), ("UTC", False)])
def test_the_systems_own_adjtime(fs: FakeFilesystem, third_line: str, local: bool) -> None:
    fs.create_file(
        "/etc/adjtime", contents=f"0.000000 1764400000 0.000000\n1764400000\n{third_line}\n"
    )
    assert rtc_local(Path("/etc")) is local


def test_no_adjtime_means_utc(fs: FakeFilesystem) -> None:
    fs.create_dir("/etc")
    assert rtc_local(Path("/etc")) is False


def test_an_unreadable_adjtime_is_no_error(fs: FakeFilesystem) -> None:
    fs.create_dir("/etc/adjtime")  # a directory where the file should be
    assert rtc_local(Path("/etc")) is False
