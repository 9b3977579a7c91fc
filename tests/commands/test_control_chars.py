"""Terminal control sequences from a kernel line, through every command that prints one:
`analyze`, `dump` and `last-boot`, in text and Markdown (with and without --redact) shown
escaped as util-linux `dmesg` shows them; in JSON kept exact."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import make_proc
from scenario import Machine

from kmsgd.cli import main
from kmsgd.commands.analyze import analyze

# OSC 52 (clipboard), OSC 0 (title), DCS, CSI, BEL, BS, an 8-bit CSI, DEL and a CR, in the
# form the kernel writes them to /dev/kmsg (printk escapes every byte < 0x20 and >= 0x7f)
KMSG = (
    r"evil[1]: \x1b]52;c;ZWNobyBwd25lZA==\x07 \x1b]0;pwned\x07 \x1bP1$r0m\x1b\x5c "
    r"\x1b[2J\x1b[H \x07 a\x08b \xc2\x9b31m \x7f \x0dforged"
)
RAW = re.sub(r"\\x([0-9a-f]{2})", lambda m: chr(int(m.group(1), 16)), KMSG)
RAW = RAW.encode("latin-1").decode("utf-8")
# what the output shows: the kernel's own escapes, but for the backslash the kernel escaped
SHOWN = KMSG.replace(r"\x5c", "\\")
CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
CULPRIT = "amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command"


def _clean(out: str) -> None:
    assert not CONTROL.search(out), repr(CONTROL.search(out))
    assert "\nforged" not in out


@pytest.mark.parametrize("redact", [False, True])
@pytest.mark.parametrize("fmt", ["text", "md"])
def test_analyze_shows_controls_escaped(fmt: str, redact: bool) -> None:
    log = (
        f"Nov 14 13:44:01 gpu-box-07 kernel: Linux version 6.8.0-49-generic #49\n"
        f"Nov 14 13:45:01 gpu-box-07 kernel: {RAW}\n"
        f"Nov 14 14:01:12 gpu-box-07 kernel: {CULPRIT}\n"
    )
    out = analyze(io.BytesIO(log.encode()), name="t", fmt=fmt, redact=redact)
    _clean(out)
    assert SHOWN in out if fmt == "text" else SHOWN.replace("`", "'") in out


def test_analyze_json_holds_the_line_exactly() -> None:
    log = (
        f"Nov 14 13:45:01 gpu-box-07 kernel: {RAW}\nNov 14 14:01:12 gpu-box-07 kernel: {CULPRIT}\n"
    )
    out = analyze(io.BytesIO(log.encode()), name="t", fmt="json")
    assert not CONTROL.search(out)
    texts = [f["text"] for f in json.loads(out)["final_kernel"]]
    assert any(RAW in t for t in texts)


@pytest.fixture(scope="module")
def ring(tmp_path_factory: pytest.TempPathFactory) -> tuple[Machine, Path]:
    tmp = tmp_path_factory.mktemp("controls")
    m = Machine(tmp)
    b = m.boot()
    b.log(KMSG, 4)
    b.log(CULPRIT, 3)
    b.run(5)
    b.die()
    m.boot(after_s=30).run(2)
    return m, make_proc(tmp / "live-proc", m.boots[-1].boot_id)


def _run(*args: str) -> str:
    res = CliRunner().invoke(main, list(args))
    assert res.exit_code == 0, res.output
    return res.stdout


def test_dump_text_shows_the_kernel_s_escapes(ring: tuple[Machine, Path]) -> None:
    m, _ = ring
    out = _run("dump", "--ring", str(m.ring), "--boot", "-1")
    _clean(out)
    assert SHOWN in out


def test_dump_json_holds_the_message_exactly(ring: tuple[Machine, Path]) -> None:
    m, _ = ring
    out = _run("dump", "--ring", str(m.ring), "--boot", "-1", "--format", "json")
    assert not CONTROL.search(out)
    messages = [json.loads(line)["data"].get("message") for line in out.splitlines()]
    assert RAW in messages


@pytest.mark.parametrize("redact", [False, True])
@pytest.mark.parametrize("fmt", ["text", "md", "json"])
def test_last_boot_shows_controls_escaped(
    ring: tuple[Machine, Path], fmt: str, redact: bool
) -> None:
    m, proc = ring
    args = ["last-boot", "--ring", str(m.ring), "--proc", str(proc), "--no-journal"]
    out = _run(*args, "--format", fmt, *(["--redact"] if redact else []))
    _clean(out)
    if fmt == "json":
        assert any(RAW in f["text"] for f in json.loads(out)["final_kernel"])
    else:
        assert SHOWN in out if fmt == "text" else SHOWN.replace("`", "'") in out


def test_an_error_naming_a_hostile_file_is_one_escaped_line(tmp_path: Path) -> None:
    path = tmp_path / "log\n\x1b]0;pwned\x07.txt"
    path.write_bytes(b"hello\nworld\n")  # no kernel log: refused, naming the file
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:  # click >= 8.2 keeps stderr apart always
        runner = CliRunner()
    res = runner.invoke(main, ["analyze", str(path)])
    assert res.exit_code == 2
    assert res.stderr.count("\n") == 1 and not CONTROL.search(res.stderr)
    assert "log\\x0a\\x1b]0;pwned\\x07.txt" in res.stderr
