"""Files kmsgd writes as root into directories others may share: never follow a planted link."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from kmsgd import outputs
from kmsgd.outputs import UnsafeDirectory, atomic_write


def test_writes_atomically_with_the_mode_asked(tmp_path: Path) -> None:
    target = tmp_path / "kmsgd.prom"
    atomic_write(target, "kmsgd_up 1\n", mode=0o640)
    atomic_write(target, "kmsgd_up 0\n", mode=0o640)
    assert target.read_text() == "kmsgd_up 0\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["kmsgd.prom"]  # no temporary left


def test_a_link_planted_at_the_temporary_name_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Whoever guesses the temporary name (here: we make it predictable) gains nothing: root
    must neither truncate nor chmod the link's target."""
    victim = tmp_path / "victim"
    victim.write_text("secret\n")
    victim.chmod(0o600)
    box = tmp_path / "box"
    box.mkdir()
    monkeypatch.setattr(outputs.secrets, "token_hex", lambda n: "guessed")
    (box / ".report.json.guessed.tmp").symlink_to(victim)
    with pytest.raises(FileExistsError):
        atomic_write(box / "report.json", "{}", mode=0o644)
    assert victim.read_text() == "secret\n"
    assert stat.S_IMODE(victim.stat().st_mode) == 0o600
    assert not (box / "report.json").exists()


def test_a_link_at_the_final_name_is_replaced_not_followed(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_text("secret\n")
    box = tmp_path / "box"
    box.mkdir()
    (box / "kmsgd.prom").symlink_to(victim)
    atomic_write(box / "kmsgd.prom", "kmsgd_up 1\n")
    assert victim.read_text() == "secret\n"
    assert not (box / "kmsgd.prom").is_symlink()
    assert (box / "kmsgd.prom").read_text() == "kmsgd_up 1\n"


@pytest.mark.parametrize("mode", [0o777, 0o1777])
def test_a_directory_every_user_may_write_is_refused(tmp_path: Path, mode: int) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, mode)
    with pytest.raises(UnsafeDirectory, match="writable by every user"):
        atomic_write(shared / "report.json", "{}")
    assert list(shared.iterdir()) == []
