"""Fuzzing the parsers: kmsg records, the kmsg stream splitter, the config file, `analyze`.

Nothing may escape but the documented clean error (BadInput); memory stays bounded."""

from __future__ import annotations

import contextlib
import io
import tracemalloc
from pathlib import Path

import pytest
from fuzz.budget import Tried, budget
from hypothesis import given
from hypothesis import strategies as st

from kmsgd import config
from kmsgd.commands.analyze import analyze
from kmsgd.errors import BadInput
from kmsgd.record import kmsg as record_kmsg
from kmsgd.ring import records as kmsg
from kmsgd.types import REPORT_FORMATS

tried = Tried()


# Records that look like the kernel's, with every field open to garbage.
kmsg_like = st.builds(
    lambda prio, seq, ts, flags, extra, text, conts: (
        b"%s,%s,%s,%s%s;%s\n%s"
        % (prio, seq, ts, flags, extra, text, b"".join(b" " + c + b"\n" for c in conts))
    ),
    st.sampled_from([b"6", b"3", b"-1", b"", b"99999999999999999999", b"x"]),
    st.sampled_from([b"0", b"17", b"", b"-5", b"1e9", b"\xff"]),
    st.sampled_from([b"0", b"123", b"", b"abc"]),
    st.sampled_from([b"-", b"c", b"", b"\x00"]),
    st.sampled_from([b"", b",caller=T12", b",x,y,z", b",caller="]),
    st.binary(max_size=200),
    st.lists(
        st.sampled_from([b"SUBSYSTEM=pci", b"DEVICE=+pci:0000:03:00.0", b"=", b"DEVICE"])
        | st.binary(max_size=30),
        max_size=4,
    ),
)


@pytest.mark.slow
@budget(1000)
@given(st.binary(max_size=400) | kmsg_like)
def test_kmsg_parse_record_and_peek_never_raise(raw: bytes) -> None:
    tried["kmsg record"] += 1
    rec = kmsg.parse_record(raw)
    _seq, level = kmsg.peek(raw)
    assert 0 <= level <= 7
    if rec is not None:
        assert rec.level is not None and 0 <= rec.level <= 7
        assert isinstance(rec.message, str)


@budget(500)
@given(st.binary(max_size=300))
def test_kmsg_unescape_never_raises(text: bytes) -> None:
    tried["kmsg unescape"] += 1
    assert isinstance(kmsg.unescape(text), str)


@budget(200)
@given(st.lists(kmsg_like | st.binary(max_size=80), max_size=20), st.integers(1, 5))
def test_kmsg_stream_splitter_keeps_every_line(
    tmp_path: Path, records: list[bytes], n: int
) -> None:
    # A file as /dev/kmsg: arbitrary bytes, read in `n` appends. Every non-empty line comes
    # out exactly once, in order, inside a record that ends with a newline.
    tried["kmsg stream"] += 1
    data = b"".join(records)
    if not data.endswith(b"\n"):
        data += b"\n"
    path = tmp_path / "kmsg"
    path.write_bytes(b"")
    reader = record_kmsg.KmsgReader(str(path))
    out: list[bytes] = []
    try:
        step = max(1, len(data) // n)
        for start in range(0, len(data), step):
            with open(path, "ab") as f:
                f.write(data[start : start + step])
            out.extend(r for r in reader.read_available() if isinstance(r, bytes))
        out.extend(r for r in reader.read_available() if isinstance(r, bytes))
    finally:
        reader.close()
    assert all(r.endswith(b"\n") for r in out)
    lines = [line for line in data.split(b"\n") if line]
    assert b"".join(out) == b"".join(line + b"\n" for line in lines)


toml_values = st.one_of(
    st.integers(-(2**63), 2**63 - 1).map(str),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.sampled_from(["true", "false", '"64M"', '"x"', "[1, 2]", "{a = 1}", '"1 GiB"', '"99999G"']),
    # what stopped or starved recording: nan, inf, absurd magnitudes, deep nesting
    st.sampled_from(["nan", "inf", "-inf", "1e300", "1e-300", "-0.0", "9" * 30, "[nan, 1e300]"]),
    st.integers(1, 6000).map(lambda d: "[" * d + "]" * d),
    st.text(max_size=10).map(lambda t: '"' + t.replace("\\", "").replace('"', "") + '"'),
)
keys = st.sampled_from([f.name for f in config.Config.__dataclass_fields__.values()]) | st.text(
    "abcdefghijklmnopqrstuvwxyz_", min_size=1, max_size=12
)
incident_keys = st.sampled_from(
    [f.name for f in config.IncidentConfig.__dataclass_fields__.values()]
)
toml_docs = st.one_of(
    st.text(max_size=300),
    st.lists(st.tuples(keys, toml_values), max_size=6).map(
        lambda kv: "[kmsgd]\n" + "".join(f"{k} = {v}\n" for k, v in kv)
    ),
    st.lists(st.tuples(incident_keys, toml_values), max_size=6).map(
        lambda kv: "[incident]\n" + "".join(f"{k} = {v}\n" for k, v in kv)
    ),
    st.sampled_from(["kmsgd = 1\n", "[kmsgd.x]\n", "[[kmsgd]]\n", ""]),
)


@pytest.mark.slow
@budget(400)
@given(toml_docs)
def test_config_loader_raises_only_bad_input(tmp_path: Path, doc: str) -> None:
    tried["config file"] += 1
    path = tmp_path / "kmsgd.toml"
    path.write_text(doc)
    settings = config.read(str(path), {})  # the recorder's form never refuses a file
    for key, (low, high) in config.RANGES.items():
        value = getattr(settings.config, key)
        assert low <= value <= high, (key, value)
    for key, (low, high) in config.INCIDENT_RANGES.items():
        value = getattr(settings.config.incident, key)
        assert all(low <= v <= high for v in (value if isinstance(value, tuple) else (value,)))
    try:
        cfg = config.load(str(path), {})
    except BadInput:
        return
    assert isinstance(cfg, config.Config)


def test_a_config_file_that_is_not_utf8_is_bad_input(tmp_path: Path) -> None:
    # Found by the fuzzing: one 0x80 byte gave a traceback instead of one line and exit 2.
    path = tmp_path / "kmsgd.toml"
    path.write_bytes(b"[kmsgd]\nring = '\x80'\n")
    with pytest.raises(BadInput):
        config.load(str(path), {})


@budget(200)
@given(st.text(max_size=20))
def test_parse_size_raises_only_bad_input(text: str) -> None:
    tried["config size"] += 1
    with contextlib.suppress(BadInput):
        assert config.parse_size(text) >= 0


LOG_LINES = [
    b"[    0.000000] Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP\n",
    b"[  123.456789] amdgpu 0000:03:00.0: amdgpu: SMU: I'm not done with your previous command\n",
    b"Nov 29 10:00:01 gpu-box kernel: NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.\n",
    b"2026-11-29T10:00:01.123456+00:00 gpu-box kernel: watchdog: BUG: soft lockup - CPU#3 stuck\n",
    b"-- Boot 0123456789abcdef0123456789abcdef --\n",
    b'{"__REALTIME_TIMESTAMP":"1","MESSAGE":"Out of memory: Killed process 1234","_TRANSPORT":"kernel"}\n',
    b"6,1234,5678901,-;Kernel panic - not syncing: Fatal exception\n",
    b"<4>[ 5.5] x86/amd: Previous system reset reason [0x08000800]: bits\n",
]
logs = st.one_of(
    st.binary(max_size=600),
    st.lists(
        st.sampled_from(LOG_LINES)
        | st.binary(max_size=120)
        | st.sampled_from(LOG_LINES).flatmap(
            lambda line: st.integers(0, len(line)).map(lambda cut: line[:cut])
        ),
        max_size=25,
    ).map(b"".join),
)


@pytest.mark.slow
@budget(600)
@given(logs, st.sampled_from(sorted(REPORT_FORMATS)), st.booleans())
def test_analyze_raises_only_bad_input(data: bytes, fmt: str, redact: bool) -> None:
    tried["analyze"] += 1
    try:
        out = analyze(io.BytesIO(data), name="fuzz", fmt=fmt, redact=redact)
    except BadInput:
        return
    assert isinstance(out, str)


def test_analyze_on_a_hostile_line_length_is_bounded() -> None:
    # One 32 MiB line with no newline: memory must stay a small multiple of the input.
    data = b"[ 1.0] " + b"A" * (32 << 20)
    tracemalloc.start()
    try:
        with contextlib.suppress(BadInput):
            analyze(io.BytesIO(data), name="long", fmt="json")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    tried["analyze long line"] += 1
    assert peak < 4 * len(data), peak
