"""Numbers in a box's entry or on the command line that no clock or count can hold: the entry
is kept without them, an option is refused in one line (exit 2), never a traceback."""

from __future__ import annotations

import json

import pytest
from fleethosts import journal_remote, store
from test_fleet_input import HOUR_US, NOW_US, fleet

from kmsgd.errors import BadInput
from kmsgd.fleet import entry_format as f
from kmsgd.fleet.window import parse_time, window

HUGE = "9" * 400


@pytest.mark.parametrize(
    "spec",
    [f"@{HUGE}", "@99999999999999999", "-99999999999999d", f"{HUGE}h ago", "0001-01-01"],
)
def test_since_far_out_of_range_is_bad_input(spec: str) -> None:
    with pytest.raises(BadInput, match="out of range"):
        window(spec, None, now_s=1.7e9)
    assert parse_time("-1w", 1.7e9) == int((1.7e9 - 7 * 86400) * 1e6)  # in range: a time


@pytest.mark.slow
def test_an_entry_with_400_digit_numbers_is_read(tmp_path: pytest.TempPathFactory) -> None:
    exe = journal_remote()
    fields = [
        ("__REALTIME_TIMESTAMP", str(NOW_US - HOUR_US)),
        ("_HOSTNAME", "gpu-1"),
        ("MESSAGE", "kmsgd: boot 00000001 ended: hard_freeze (high)"),
        ("MESSAGE_ID", f.MESSAGE_ID),
        (f.BOOT_ID, "1" * 32),
        (f.OUTCOME, "hard_freeze"),
        (f.CONFIDENCE, "high"),
        (f.PRIMARY, "amdgpu_smu_timeout"),
        (f.FINGERPRINT, "5e1f0c2a9b7d4e31"),
        (f.VERSION, "0.1.0"),
        (f.END_USEC, HUGE),
        (f.GPU_COUNT, HUGE),
        (f.RAM_BYTES, HUGE),
        (f.KERNEL, "6.8.0"),
    ]
    out = tmp_path / "remote"  # type: ignore[operator]
    store(exe, out, "gpu-1", f.encode_entry(fields))
    for fmt in ("text", "md", "json"):
        run = fleet("--journal-dir", str(out), "--format", fmt)
        assert run.returncode == 0, run.stderr
    doc = json.loads(fleet("--journal-dir", str(out), "--format", "json").stdout)
    assert [b["host"] for b in doc["boxes"]] == ["gpu-1"]
