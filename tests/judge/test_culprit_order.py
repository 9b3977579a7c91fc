"""Cause before consequence: within one GPU driver the first signature leads; across
subsystems the catalogue rank does."""

from __future__ import annotations

from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord

DEV = "amdgpu 0000:c5:00.0: amdgpu: "


def _primary(*messages: str) -> str | None:
    recs = [KernelRecord(m, 3, 0, n, n * 1_000_000, "-") for n, m in enumerate(messages, 1)]
    verdict = classify(Timeline.from_records(recs))
    return verdict.primary.tag if verdict.primary else None


def test_mes_failing_during_the_reset_is_a_consequence_of_the_ring_timeout() -> None:
    assert (
        _primary(
            DEV + "ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
            DEV + "GPU reset begin!",
            DEV + "MES failed to respond to msg=REMOVE_QUEUE",
        )
        == "amdgpu_ring_timeout"
    )


def test_smu_timeout_before_the_ring_timeout_still_leads() -> None:
    assert (
        _primary(
            DEV + "SMU: No response msg_reg: 12 resp_reg: 0",
            DEV + "ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
        )
        == "amdgpu_smu_timeout"
    )


def test_a_job_timeout_seen_only_in_its_process_line() -> None:
    assert (
        _primary(
            "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* Process information: process chrome",
            DEV + "GPU reset begin!",
            DEV + "SMU: I'm not done with your previous command!",
        )
        == "amdgpu_ring_timeout"
    )


def test_a_machine_check_outranks_a_later_gpu_hang() -> None:
    assert (
        _primary(
            DEV + "ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3",
            "mce: [Hardware Error]: CPU 3: Machine Check Exception: 5 Bank 4: b200000000070f0f",
        )
        == "mce"
    )
