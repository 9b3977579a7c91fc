"""Report model, JSON schema, renderers and fingerprints."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest
from reportschema import required_fields

from kmsgd.commands.analyze import analyze, analyze_report
from kmsgd.report.fingerprint import fingerprint, template
from kmsgd.report.render import render

DATA = Path(__file__).parents[1] / "data" / "logs"


def run(text: str, fmt: str = "json", **kw: object) -> str:
    return analyze(io.BytesIO(text.encode()), name="paste", fmt=fmt, **kw)  # type: ignore[arg-type]


def test_json_report_has_the_design_fields() -> None:
    doc = json.loads(analyze((DATA / "amdgpu_chain.journal").open("rb"), name="x", fmt="json"))
    assert doc["schema"] == "kmsgd.report/1"
    assert not set(required_fields()) - doc.keys()
    assert doc["outcome"] == "hard_freeze"
    p = doc["primary"]
    assert p["tag"] == "amdgpu_smu_timeout" and p["count"] == 2
    assert p["first"]["lineno"] == 7 and p["first"]["wall"] == "--11-14T14:01:12.410022"
    assert "SMU" in p["meaning"] and p["next_step"]
    assert doc["final_kernel"][-1]["text"].endswith("ggml_cuda_compute_forward: error in device")
    assert any(f["important"] and "amdgpu_gpu_reset" in f["tags"] for f in doc["final_kernel"])
    assert re.fullmatch(r"[0-9a-f]{16}", doc["fingerprint"])
    assert doc["time_of_death"]["silence_s"] == pytest.approx(198.705)


def test_text_puts_headline_then_culprit_then_final_lines() -> None:
    out = analyze((DATA / "amdgpu_chain.dmesg").open("rb"), name="x", fmt="text")
    first = out.splitlines()[0]
    assert first.startswith("The log ends without a shutdown or panic. Culprit: amdgpu_smu")
    culprit, final, sigs = (out.index(s) for s in ("Culprit:", "Final lines", "Signatures:"))
    assert culprit < final < sigs
    assert "Next step:" in out
    assert "  ▶ [ 1031.223011] amdgpu 0000:05:00.0: amdgpu: GPU reset begin!" in out
    assert "\x1b[" not in out


def test_colour_only_when_asked() -> None:
    out = analyze((DATA / "panic_soft_lockup.dmesg").open("rb"), name="x", color=True)
    assert "\x1b[1m" in out and "\x1b[31m" in out


def test_markdown_folds_raw_lines() -> None:
    out = analyze((DATA / "oom_hang.journal").open("rb"), name="x", fmt="md")
    assert out.startswith("### kmsgd: Memory-exhaustion hang")
    assert "| `hang_memory_exhaustion` |" in out
    assert "<details><summary>Final lines" in out and "```text" in out
    assert out.index("**Culprit: `oom_kill`**") < out.index("<details>")


def test_every_renderer_handles_a_minimal_report() -> None:
    r, _ = analyze_report(io.BytesIO(b"[    1.000000] hello\n"), name="x")
    for fmt in ("text", "md", "json"):
        assert render(r, fmt)
    with pytest.raises(ValueError, match="unknown format"):
        render(r, "xml")


CHAIN = """\
[ {t}.100000] amdgpu 0000:{bus}:00.0: amdgpu: SMU: No response msg_reg: {reg} resp_reg: 0
[ {t}.200000] amdgpu 0000:{bus}:00.0: amdgpu: MES failed to respond to msg=REMOVE_QUEUE
[ {t}.300000] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring sdma0 timeout, signaled seq={s}, emitted seq={s2}
[ {t}.400000] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process llama-server pid {pid} thread llama-server pid {pid}
[ {t}.500000] amdgpu 0000:{bus}:00.0: amdgpu: GPU reset begin!
"""
LOCKUP = """\
[ {t}.100000] watchdog: BUG: soft lockup - CPU#{cpu} stuck for 26s! [kworker/{cpu}:2:{pid}]
[ {t}.900000] Kernel panic - not syncing: softlockup: hung tasks
"""


def fp(text: str) -> str:
    return str(json.loads(run(text))["fingerprint"])


def test_fingerprint_stable_across_renumbered_pids_addresses_and_machines() -> None:
    a = fp(CHAIN.format(t=1021, bus="05", reg=12, s=18842, s2=18845, pid=4187))
    b = fp(CHAIN.format(t=98765, bus="0c", reg=12, s=3, s2=9, pid=77))
    assert a == b
    c = fp(LOCKUP.format(t=7211, cpu=12, pid=48211))
    d = fp(LOCKUP.format(t=33, cpu=3, pid=901))
    assert c == d


def test_fingerprint_differs_across_failures() -> None:
    chain = fp(CHAIN.format(t=1021, bus="05", reg=12, s=1, s2=2, pid=3))
    lockup = fp(LOCKUP.format(t=7211, cpu=12, pid=48211))
    panic_oops = fp(
        "[ 5.0] Oops: 0002 [#1] PREEMPT SMP NOPTI\n"
        "[ 5.1] Kernel panic - not syncing: Fatal exception\n"
    )
    assert len({chain, lockup, panic_oops}) == 3
    assert fingerprint("kernel_panic", "oops", "x", "amdgpu") != fingerprint(
        "kernel_panic", "oops", "x", "nvidia"
    )


def test_template_normalises_what_varies() -> None:
    assert template("INFO: task kworker/u64:2:1234 blocked for more than 122 seconds.") == (
        "INFO: task <comm> blocked for more than <n> seconds."
    )
    assert template("Out of memory: Killed process 2210 (llama-server) total-vm:12kB") == (
        "Out of memory: Killed process <pid> (<comm>) total-vm:<n>kB"
    )
    assert "<pci>" in template("nvidia 0000:3d:00.0: PCIe Bus Error")
