"""Bad input gets one line on stderr and exit status 2, never a traceback."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest
from daemon import kmsgd

from kmsgd.ring import frame as fr
from kmsgd.ring.records import Kind
from kmsgd.ring.writer import RingWriter


def one_line_error(out: object) -> str:
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)  # type: ignore[attr-defined]
    err: str = out.stderr  # type: ignore[attr-defined]
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    return err


# ids named: pytest 9 spells a bytes parameter out in the test id, which it also puts in
# PYTEST_CURRENT_TEST, and 128 KiB of it escaped is past the kernel's limit on one environment
# string (MAX_ARG_STRLEN): every command the test starts would fail with E2BIG
@pytest.mark.parametrize(
    "content",
    [b"", b"just some text\n" * 10, os.urandom(1 << 17)],
    ids=["empty", "text", "random-128KiB"],
)
def test_foreign_ring_files(tmp_path: Path, content: bytes) -> None:
    ring = tmp_path / "ring"
    ring.write_bytes(content)
    for cmd in (["boots"], ["dump"]):
        err = one_line_error(kmsgd(*cmd, "--ring", str(ring)))
        assert "not a usable kmsgd ring" in err


def test_missing_ring_and_bad_boot_selectors(tmp_path: Path) -> None:
    assert "no such ring" in one_line_error(kmsgd("boots", "--ring", str(tmp_path / "nope")))
    ring = tmp_path / "ring"
    w = RingWriter(str(ring), size=1 << 20)
    assert "holds no records" in one_line_error(kmsgd("dump", "--ring", str(ring)))
    boot = uuid.uuid4().bytes
    w.add(Kind.BOOT, boot, 1, fr.encode_payload(Kind.BOOT, {"boot_id": boot.hex()}))
    w.commit()
    w.close()
    assert "0 to 0" in one_line_error(kmsgd("dump", "--ring", str(ring), "--boot", "-3"))
    assert "no boot matches" in one_line_error(kmsgd("dump", "--ring", str(ring), "--boot", "abc"))
    assert kmsgd("dump", "--ring", str(ring), "--boot", boot.hex()[:6]).returncode == 0


def test_run_with_missing_kmsg_or_proc(tmp_path: Path) -> None:
    cfg = tmp_path / "c.toml"
    cfg.touch()
    base = ["run", "--ring", str(tmp_path / "ring"), "--config", str(cfg), "--no-sysctl"]
    err = one_line_error(kmsgd(*base, "--kmsg", str(tmp_path / "none")))
    assert "no such file" in err
    err = one_line_error(kmsgd(*base, "--kmsg", "/dev/null", "--proc", str(tmp_path)))
    assert "boot_id" in err


def test_bad_config_file(tmp_path: Path) -> None:
    """A bad setting never refuses a command (`kmsgd run` records anyway, logging it at error
    priority: tests/record/test_log.py); `kmsgd check` fails on it."""
    cfg = tmp_path / "c.toml"
    cfg.write_text("[kmsgd]\nheartbeat_s = 'often'\n")
    out = kmsgd("check", "--config", str(cfg))
    assert out.returncode == 1
    assert any(
        line.startswith("FAIL config") and "heartbeat_s" in line for line in out.stdout.splitlines()
    )
    cfg.write_text("[kmsgd\n")
    out = kmsgd("boots", "--config", str(cfg), "--ring", str(tmp_path / "nope"))
    assert "unreadable" in out.stderr and "no such ring" in out.stderr
    assert one_line_error(kmsgd("boots", "--config", str(tmp_path / "absent.toml")))


def test_a_boot_id_prefix_of_decimal_digits_is_an_id_not_an_offset() -> None:
    from kmsgd.ring.reader import pick_boot

    ids = ["0674540a" + "0" * 24, "ab" + "0" * 30]
    assert pick_boot(ids, "067454", None) == 0  # was "0 to -1" when read as an offset
    assert pick_boot(ids, "0", None) == 1 and pick_boot(ids, "-1", None) == 0
