"""GPU wording and paste shapes that corpus batch 10 (docs/accuracy.md) showed missing: the
SMU's 5.10-5.14 timeout and the smu9/vega10 "Failed message" of powerplay, soc15's bare "GPU
reset" and the PSP that fails before a mode1 reset, the r515-r525 Xid 119 GSP timeout, the
r525 GSP-RM init-done assertion, i915's 4.x "gpu hanging too fast, banning!", and amdgpu's
ring timeout with its device prefix cut by the poster's filter. Each line is written as its
format string prints it (file named in the catalogue entry), beside lines of the same driver
or the same words from elsewhere that must not match."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from kmsgd.errors import BadInput
from kmsgd.record import triggers
from tests.catalogue.lines import check_wording, primary_of

# tag → (positives, negatives)
BATCH10_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "amdgpu_smu_timeout": (
        [
            "amdgpu 0000:0e:00.0: amdgpu: message: EnableAllSmuFeatures (6) \tparam: 0x00000000 "
            "is timeout (no response)",
            # a journal or mail client that turned the tab into spaces
            "amdgpu 0000:03:00.0: amdgpu: message:        RunDcBtc (54)       param: 0x00000000 "
            "is timeout (no response)",
            "amdgpu: [powerplay] Failed message: 0x5, input parameter: 0x2000, error code: "
            "0xffffffff",
        ],
        [
            "amdgpu 0000:0e:00.0: amdgpu: SMU driver if version not matched",
            "amdgpu 0000:0e:00.0: amdgpu: SMU is resuming...",
        ],
    ),
    "amdgpu_gpu_reset": (
        [
            "amdgpu 0005:03:00.0: GPU reset",
            "[drm] psp is not working correctly before mode1 reset!",
        ],
        [
            "amdgpu 0005:03:00.0: GPU reset is not supported",
            "[drm] PCIE GART of 512M enabled (table at 0x000000F400000000).",
        ],
    ),
    "nvidia_gsp_timeout": (
        [
            "NVRM: Xid (PCI:0000:61:00): 119, pid=977823, name=nvidia-smi, Timeout waiting for "
            "RPC from GSP! Expected function 76 (GSP_RM_CONTROL) (0x2080014b 0x5).",
            "NVRM: Xid (PCI:0000:00:06): 119, pid='<unknown>', name=<unknown>, Timeout waiting "
            "for RPC from GSP! Expected function FREE (0x0 0x0).",
        ],
        ["NVRM: Xid (PCI:0000:61:00): 13, Graphics Exception: ESR 0x5"],
    ),
    "nvidia_init_failure": (
        [
            "NVRM nvAssertOkFailedNoLog: Assertion failed: Generic operating system error "
            "[NV_ERR_OPERATING_SYSTEM] (0x00000059) returned from kgspWaitForRmInitDone(pGpu, "
            "pKernelGsp) @ kernel_gsp_ga102.c:237",
            "NVRM: GPU0 RmInitAdapter: Cannot initialize GSP firmware RM",
            "NVRM: GPU7 _kgspBootGspRm: unexpected WPR2 already up, cannot proceed with booting "
            "GSP",
            "NVRM: GPU0 nvCheckOkFailedNoLog: Call timed out [NV_ERR_TIMEOUT] (0x00000065) "
            "returned from kgspWaitForGfwBootOk_HAL(pGpu, pKernelGsp) @ kernel_gsp.c:4945",
        ],
        [
            # the RPC's own result: the assertion one frame down, not yet the init's
            "NVRM nvAssertOkFailedNoLog: Assertion failed: Generic operating system error "
            "[NV_ERR_OPERATING_SYSTEM] (0x00000059) returned from ((rpc_message_header_v *)"
            "pKernelGsp->pRpc->message_buffer)->rpc_result @ kernel_gsp.c:2934",
            "NVRM cpuidInfoAMD: Unrecognized AMD processor in cpuidInfoAMD",
        ],
    ),
    "i915_gpu_hang": (
        [
            "[drm:i915_set_reset_status [i915]] *ERROR* gpu hanging too fast, banning!",
            # FreeBSD's port: the function unresolved, "_ERROR_" for *ERROR*
            "[drm:0xffffffff82a2b4bds] _ERROR_ gpu hanging too fast, banning!",
        ],
        [
            # the per-context ban is DRM_DEBUG: the GPU itself is not banned
            "[drm:i915_set_reset_status [i915]] context hanging too fast, banning!",
            "[drm:i915_reset_and_wakeup] resetting chip",
        ],
    ),
    "amdgpu_ring_timeout": (
        ["ring gfx_0.0.0 timeout, signaled seq=9113028, emitted seq=9113031"],
        ["ring buffer timeout", "Process kwin_wayland pid 2384 thread kwin_wayla:cs0 pid 2437"],
    ),
}


@pytest.mark.parametrize("tag", sorted(BATCH10_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(BATCH10_EXAMPLES, tag)


@pytest.mark.parametrize("tag", ["amdgpu_smu_timeout", "amdgpu_gpu_reset"])
def test_the_recorder_starts_an_incident_on_the_same_lines(tag: str) -> None:
    # kmsgd/record/triggers.py carries its own copy of these entries' patterns
    positives, negatives = BATCH10_EXAMPLES[tag]
    for line in positives:
        hit = triggers.match(b"3,1,2,-;" + line.encode() + b"\n")
        assert hit is not None and hit.tag == tag, line
    for line in negatives:
        hit = triggers.match(b"3,1,2,-;" + line.encode() + b"\n")
        assert hit is None or hit.tag != tag, line


def test_the_smu_that_stops_answering_leads_the_ring_test_and_reset_after_it() -> None:
    assert (
        primary_of(
            "amdgpu: [powerplay] Failed message: 0x5, input parameter: 0x2000, error code: "
            "0xffffffff",
            "[drm:gfx_v9_0_ring_test_ring [amdgpu]] *ERROR* amdgpu: ring 9 test failed "
            "(scratch(0xC040)=0xFFFFFFFF)",
            "amdgpu 0005:03:00.0: GPU reset",
            "[drm] psp is not working correctly before mode1 reset!",
        )
        == "amdgpu_smu_timeout"
    )


def test_the_smu_timeout_on_resume_leads_the_resume_failure() -> None:
    assert (
        primary_of(
            "amdgpu 0000:0e:00.0: amdgpu: message: EnableAllSmuFeatures (6) \tparam: 0x00000000"
            " is timeout (no response)",
            "amdgpu 0000:0e:00.0: amdgpu: Failed to setup smc hw!",
            "[drm:amdgpu_device_ip_resume_phase2 [amdgpu]] *ERROR* resume of IP block <smu> "
            "failed -62",
        )
        == "amdgpu_smu_timeout"
    )


def test_xid_119_leads_the_gsp_timeout_it_reports() -> None:
    line = (
        "NVRM: Xid (PCI:0000:61:00): 119, pid=977823, name=nvidia-smi, Timeout waiting for RPC "
        "from GSP! Expected function 76 (GSP_RM_CONTROL) (0x2080014b 0x5)."
    )
    assert primary_of(line, line) == "nvidia_xid_119"


def _paste_tags(text: str) -> list[str]:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return [s.tag for s in report.signatures]


def test_a_journal_line_with_its_ident_and_device_prefix_cut_is_read_by_its_wording() -> None:
    # a filter that kept only the message after "kernel: amdgpu 0000:03:00.0: amdgpu: ", with
    # the host scrubbed and padded: the ring timeout's wording is amdgpu's alone
    paste = (
        "Sep 03 21:38:54 HOSTNAME  ring gfx_0.0.0 timeout, signaled seq=9113028, emitted "
        "seq=9113031\n"
        "Sep 03 21:38:54 HOSTNAME   Process kwin_wayland pid 2483 thread kwin_wayla:cs0 pid 2522\n"
    )
    assert _paste_tags(paste) == ["amdgpu_ring_timeout"]


def test_a_program_line_after_a_padded_host_stays_a_program() -> None:
    with pytest.raises(BadInput, match="no kernel log lines"):
        _paste_tags("Sep 03 21:38:54 HOSTNAME  ring the bell at noon\n")
