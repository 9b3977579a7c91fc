"""`analyze()` end to end: every format through the whole pipeline, bad input, streaming."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path
from typing import BinaryIO

import pytest

from kmsgd.commands.analyze import analyze, analyze_report
from kmsgd.errors import BadInput
from kmsgd.logparse import decode

DATA = Path(__file__).parents[1] / "data" / "logs"
SMU = "amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0"
PANIC = "Kernel panic - not syncing: Fatal exception"


def verdict(text: str | bytes) -> dict[str, object]:
    data = text.encode() if isinstance(text, str) else text
    return dict(json.loads(analyze(io.BytesIO(data), name="paste", fmt="json")))


@pytest.mark.parametrize(
    "text",
    [
        f"[  100.000000] {SMU}\n[  101.000000] {PANIC}\n",
        f"<3>[  100.000000] {SMU}\n<0>[  101.000000] {PANIC}\n",
        f"3,10,100000000,-;{SMU}\n0,11,101000000,-;{PANIC}\n",
        f"[Thu Nov 14 14:01:12 2024] {SMU}\n[Thu Nov 14 14:01:13 2024] {PANIC}\n",
        f"2024-11-14T14:01:12,410022+01:00 {SMU}\n2024-11-14T14:01:13,000000+01:00 {PANIC}\n",
        f"[Nov14 14:01] {SMU}\n[  +1.000000] {PANIC}\n",
        f"kern  :err   : [  100.000000] {SMU}\nkern  :emerg : [  101.000000] {PANIC}\n",
        f"Nov 14 14:01:12 h kernel: {SMU}\nNov 14 14:01:13 h kernel: {PANIC}\n",
        f"Nov 14 14:01:12.410022 h kernel: {SMU}\nNov 14 14:01:13.000001 h kernel: {PANIC}\n",
        f"2024-11-14T14:01:12+0100 h kernel: {SMU}\n2024-11-14T14:01:13+0100 h kernel: {PANIC}\n",
        f"[  100.000000] h kernel: {SMU}\n[  101.000000] h kernel: {PANIC}\n",
        f"Nov 14 14:01:12 h kernel: [  100.000000] {SMU}\n"
        f"Nov 14 14:01:13 h kernel: [  101.000000] {PANIC}\n",
        "\n".join(
            json.dumps({"MESSAGE": m, "_TRANSPORT": "kernel", "PRIORITY": "0"})
            for m in (SMU, PANIC)
        )
        + "\n",
        f"Panic#1 Part1\n<3>[  100.000000] {SMU}\n<0>[  101.000000] {PANIC}\n",
        f"   > 1: [  100.000000] {SMU}\n   > 2: [  101.000000] {PANIC}\n",
    ],
    ids=[
        "dmesg",
        "dmesg-r",
        "kmsg",
        "dmesg-T",
        "dmesg-iso",
        "dmesg-H",
        "dmesg-x",
        "journal",
        "journal-precise",
        "journal-iso",
        "journal-mono",
        "syslog",
        "json",
        "pstore",
        "quoted",
    ],
)
def test_every_format_reaches_the_same_verdict(text: str) -> None:
    doc = verdict(text)
    assert doc["outcome"] == "kernel_panic"
    assert doc["primary"]["tag"] == "amdgpu_smu_timeout"  # type: ignore[index]


def test_journal_export_format() -> None:
    block = "__CURSOR=s=1\n__REALTIME_TIMESTAMP=1731589272410022\n_TRANSPORT=kernel\nMESSAGE={}\n"
    doc = verdict(block.format(SMU) + "\n" + block.format(PANIC) + "\n")
    assert doc["outcome"] == "kernel_panic"


def test_reversed_journal_from_a_pipe() -> None:
    class Pipe(io.RawIOBase):  # stdin: not seekable
        def __init__(self, data: bytes) -> None:
            self._buf = io.BytesIO(data)

        def readable(self) -> bool:
            return True

        def readinto(self, b: bytearray) -> int:  # type: ignore[override]
            chunk = self._buf.read(len(b))
            b[: len(chunk)] = chunk
            return len(chunk)

    lines = (DATA / "panic_soft_lockup.dmesg").read_text().splitlines()
    data = ("\n".join(reversed(lines)) + "\n").encode()
    src: BinaryIO = io.BufferedReader(Pipe(data))
    report, _ = analyze_report(src, name="-")
    assert report.outcome == "kernel_panic" and report.reason == "soft_lockup"
    assert report.source is not None and report.source.reversed


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"", "empty input"),
        (b"\n\n   \n", "empty input"),
        (bytes(range(256)) * 100, "binary data"),
        (b"\x1f\x8b\x08\x00\x00\x00\x00\x00", "compressed"),
        (b"just a sentence\nand another one\n", "no kernel log lines"),
    ],
)
def test_unusable_input_raises_bad_input(data: bytes, message: str) -> None:
    with pytest.raises(BadInput, match=message) as err:
        analyze(io.BytesIO(data), name="paste")
    assert "\n" not in str(err.value)  # one line for the CLI to print


def test_unknown_format_is_bad_input() -> None:
    with pytest.raises(BadInput, match="unknown format"):
        analyze(io.BytesIO(b"[ 1.0] x\n"), name="x", fmt="yaml")


def test_invalid_utf8_and_a_5mb_line_still_give_a_report() -> None:
    data = (
        b"[    1.000000] caf\xe9 \xff\xfe garbage\n"
        + b"[    2.000000] "
        + b"A" * (5 << 20)
        + f"\n[    3.000000] {PANIC}\n".encode()
    )
    doc = verdict(data)
    assert doc["outcome"] == "kernel_panic"
    assert "1 overlong lines cut to 64 KiB" in doc["source"]["notes"]  # type: ignore[index]


def _peak(lines: int, path: Path) -> int:
    with path.open("w") as f:
        for i in range(lines):
            f.write(f"[{i // 100:6d}.{i % 100:06d}] usb 1-{i % 9}: new device number {i}\n")
            if i % 997 == 0:
                f.write(f"[{i // 100:6d}.{i % 100:06d}] nvme nvme0: I/O {i} QID 7 timeout\n")
    tracemalloc.start()
    try:
        with path.open("rb") as f:
            analyze_report(f, name="big")
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_the_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # memory is bounded by the read block (1 MiB); a smaller one lets small inputs show it
    monkeypatch.setattr(decode, "BLOCK_READ", 64 * 1024)
    small = _peak(4_000, tmp_path / "small.txt")
    large = _peak(24_000, tmp_path / "large.txt")  # 6× the lines
    assert large < small * 1.5 + (1 << 20), (small, large)


def test_reversed_journal_keeps_boot_ids_on_the_right_boots() -> None:
    lines = (DATA / "amdgpu_chain.journal").read_text().splitlines()
    # journalctl -r prints the separator naming the *older* boot after the newer boot's lines
    old, new = lines[1:15], lines[16:]
    sep = "-- Boot 0123456789abcdef0123456789abcdef --"
    reversed_paste = "\n".join([*reversed(new), sep, *reversed(old)]) + "\n"
    report, _ = analyze_report(io.BytesIO(reversed_paste.encode()), name="r")
    assert report.source is not None and report.source.reversed
    ids = [b.boot_id for b in report.boots]
    assert ids == ["0123456789abcdef0123456789abcdef", ""]
    assert report.outcome == "hard_freeze"


def test_a_parser_that_raises_is_reported_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    from kmsgd.logparse import stream

    real = stream.LogStream._line

    def flaky(self: stream.LogStream, lineno: int, text: str, out: list[object]) -> None:
        if "BOOM" in text:
            raise ValueError("parser bug")
        real(self, lineno, text, out)  # type: ignore[arg-type]

    monkeypatch.setattr(stream.LogStream, "_line", flaky)
    doc = verdict(f"Nov 14 14:01:12 h kernel: BOOM\nNov 14 14:01:13 h kernel: {PANIC}\n")
    assert doc["outcome"] == "kernel_panic"
    assert doc["errors"] == [{"where": "parsing line 1", "error": "ValueError: parser bug"}]
