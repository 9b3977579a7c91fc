"""Culprit order added for batch 27: a suspend that a driver refused (or a wake event aborted)
is undone at once (kernel/power/suspend.c suspend_devices_and_enter, dpm_resume_end), so an
amdgpu resume failure after it follows from it; the GPU's own suspend error before the PM
core's line is the refusal itself, and leads."""

from __future__ import annotations

from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord

XHCI = "xhci_hcd 0000:13:00.0: PM: failed to suspend async: error -16"
SOME = "PM: Some devices failed to suspend, or early wake event detected"
SMU_RESUME = "amdgpu 0000:03:00.0: amdgpu: resume of IP block <smu> failed -62"
SMU_SUSPEND = (
    "[drm:amdgpu_device_ip_suspend_phase2 [amdgpu]] *ERROR* suspend of IP block <smu> failed -62"
)


def _primary(*messages: str) -> str | None:
    recs = [KernelRecord(m, 3, 0, n, (100 + n) * 10**6, "-") for n, m in enumerate(messages)]
    p = classify(Timeline.from_records(recs)).primary
    return None if p is None else p.tag


def test_an_aborted_suspend_leads_the_gpu_resume_failure_after_it() -> None:
    assert _primary("PM: suspend entry (deep)", XHCI, SOME, SMU_RESUME) == "suspend_failure"


def test_the_gpu_s_own_suspend_error_before_the_pm_core_s_line_leads() -> None:
    gpu_pm = "amdgpu 0000:03:00.0: PM: failed to suspend async: error -62"
    assert _primary(SMU_SUSPEND, gpu_pm, SOME, SMU_RESUME) == "amdgpu_smu_timeout"


def test_a_gpu_resume_failure_without_a_failed_suspend_leads() -> None:
    assert _primary("PM: suspend entry (deep)", "PM: suspend exit", SMU_RESUME) == (
        "amdgpu_smu_timeout"
    )
