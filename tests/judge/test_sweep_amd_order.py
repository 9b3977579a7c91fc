"""The culprit order of the AMD source sweep's families (kmsgd/catalogue/gpu_amd.py): each
names the cause where the driver logs its consequences after it (the init, ring-test and
reset failures that follow), by the GPU stage's one relation (kmsgd/judge/chains.py: a GPU
driver logs its failure step by step) or by rank (a thermal shutdown before the GPU)."""

from __future__ import annotations

from tests.catalogue.lines import primary_of

AMD = "amdgpu 0000:03:00.0: amdgpu: "


def test_the_bad_page_threshold_leads_the_init_failure_it_causes() -> None:
    assert (
        primary_of(
            AMD + "RAS records:312 exceed threshold:256, GPU will not be initialized. Replace "
            "this GPU or increase the threshold",
            AMD + "amdgpu_device_ip_init failed",
            "amdgpu 0000:03:00.0: Fatal error during GPU init",
        )
        == "amdgpu_ras_bad_page_threshold"
    )


def test_a_video_engine_that_gives_up_leads_the_hw_init_failure() -> None:
    assert (
        primary_of(
            "[drm:uvd_v6_0_start [amdgpu]] *ERROR* UVD not responding, trying to reset the VCPU!!!",
            "[drm:uvd_v6_0_start [amdgpu]] *ERROR* UVD not responding, giving up!!!",
            "[drm:amdgpu_device_init [amdgpu]] *ERROR* hw_init of IP block <uvd_v6_0> failed -1",
            AMD + "amdgpu_device_ip_init failed",
        )
        == "amdgpu_video_engine_failure"
    )


def test_the_host_that_does_not_answer_leads_the_vf_init_failure() -> None:
    assert (
        primary_of(
            "amdgpu: Doesn't get msg:5 from pf, error=-62",
            AMD + "amdgpu_device_ip_init failed",
            "amdgpu 0000:03:00.0: Fatal error during GPU init",
        )
        == "amdgpu_vf_mailbox_error"
    )


def test_the_hw_ctf_shutdown_is_thermal() -> None:
    assert (
        primary_of(
            AMD + "ERROR: GPU HW Critical Temperature Fault(aka CTF) detected!",
            AMD + "ERROR: System is going to shutdown due to GPU HW CTF!",
        )
        == "thermal_critical"
    )


def test_the_ring_timeout_leads_the_ring_and_mode1_resets_that_failed() -> None:
    assert (
        primary_of(
            "amdgpu 0000:03:00.0: [drm] *ERROR* ring gfx_0.0.0 timeout, signaled seq=10, "
            "emitted seq=12",
            AMD + "Starting gfx_0.0.0 ring reset",
            AMD + "Ring gfx_0.0.0 reset failed",
            AMD + "GPU reset begin!",
            AMD + "GPU mode1 reset failed",
        )
        == "amdgpu_ring_timeout"
    )


def test_a_ring_reset_that_worked_is_not_blamed() -> None:
    # the per-ring reset's own lines tag nothing: the ring timeout is the event
    assert (
        primary_of(
            "amdgpu 0000:03:00.0: [drm] *ERROR* ring comp_1.1.0 timeout, signaled seq=3, "
            "emitted seq=5",
            AMD + "Starting comp_1.1.0 ring reset",
            AMD + "Ring comp_1.1.0 reset succeeded",
        )
        == "amdgpu_ring_timeout"
    )
