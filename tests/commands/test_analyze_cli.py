"""`kmsgd analyze` through the command line: exit statuses and one-line errors.

Skips until cli.py wires the command (the lead owns cli.py; see kmsgd.commands.analyze.analyze)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kmsgd.cli import main

DATA = Path(__file__).parents[1] / "data" / "logs"
pytestmark = pytest.mark.skipif(
    "analyze" not in getattr(main, "commands", {}),
    reason="kmsgd.cli has no `analyze` command yet (the lead wires kmsgd.commands.analyze.analyze)",
)


def invoke(*args: str, stdin: bytes | None = None) -> tuple[int, str, str]:
    try:  # click 8.1 (Debian bookworm) mixes stderr into stdout unless told not to
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:  # click ≥ 8.2 always keeps them apart
        runner = CliRunner()
    result = runner.invoke(main, ["analyze", *args], input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_report_on_a_file_exits_0() -> None:
    code, out, err = invoke(str(DATA / "panic_soft_lockup.dmesg"), "--format", "json")
    assert code == 0, err
    assert json.loads(out)["outcome"] == "kernel_panic"


def test_stdin_and_markdown() -> None:
    data = (DATA / "oom_hang.journal").read_bytes()
    code, out, _ = invoke("-", "--format", "md", stdin=data)
    assert code == 0 and out.startswith("### kmsgd:")


def test_redact_flag() -> None:
    code, out, _ = invoke(str(DATA / "amdgpu_chain.journal"), "--redact")
    assert code == 0 and "strata" not in out and "<host-1>" in out


@pytest.mark.parametrize(
    ("data", "words"),
    [
        (b"", "empty"),
        (bytes(range(256)) * 64, "binary"),
        (b"hello\nworld\n", "no kernel log"),
        # numbered prose shares a header's shape, but nothing after it reads as a log line
        (b"Step 1: I rebooted it.\nStep 2: it hung again.\n", "no kernel log"),
    ],
)
def test_unusable_input_exits_2_with_one_line(tmp_path: Path, data: bytes, words: str) -> None:
    path = tmp_path / "in.log"
    path.write_bytes(data)
    code, out, err = invoke(str(path))
    assert code == 2
    assert words in err and err.count("\n") == 1 and "Traceback" not in err
    assert out == ""


def test_missing_file_and_bad_format_exit_2(tmp_path: Path) -> None:
    assert invoke(str(tmp_path / "nope.log"))[0] == 2
    assert invoke(str(DATA / "thermal.dmesg"), "--format", "xml")[0] == 2


def test_a_console_of_systemd_status_lines_is_judged_not_refused(tmp_path: Path) -> None:
    # systemd src/core/show-status.c: "[  OK  ] " or nine blanks before each status message
    path = tmp_path / "console.log"
    path.write_text(
        "[  OK  ] Stopped target Multi-User System.\n"
        "         Unmounting /home...\n"
        "[  OK  ] Unmounted /home.\n"
        "[  OK  ] Reached target Reboot.\n"
    )
    code, out, err = invoke(str(path), "--format", "json")
    assert code == 0, err
    report = json.loads(out)
    assert report["primary"] is None and report["outcome"] == "clean_reboot"
