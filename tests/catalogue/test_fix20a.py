"""Display and Intel wordings corpus batch 20 (docs/accuracy.md) showed missing: each line as
its source's format string prints it (file named in the catalogue entry), the lines with the
same words that must not match, and what the judge makes of them."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from tests.catalogue.lines import check_wording

# tag → (positives, negatives)
FIX20A_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "i915_fifo_underrun": (
        [
            "[drm:intel_cpu_fifo_underrun_irq_handler [i915]] *ERROR* CPU pipe B FIFO underrun",
            "i915 0000:00:02.0: [drm] *ERROR* CPU pipe A FIFO underrun",
            "i915 0000:00:02.0: [drm] *ERROR* PCH transcoder B FIFO underrun",
            "i915 0000:00:02.0: [drm] *ERROR* uncleared pch fifo underrun on pch transcoder B",
            "[drm:intel_set_cpu_fifo_underrun_reporting [i915]] *ERROR* uncleared fifo "
            "underrun on pipe B",
            "xe 0000:00:02.0: [drm] *ERROR* CPU pipe A FIFO underrun",
            "[drm] *ERROR* pipe A underrun",  # g4x/vlv
        ],
        [
            "[drm:intel_set_cpu_fifo_underrun_reporting [i915]] underrun reporting disabled",
            "snd_hda_intel 0000:00:1f.3: azx_get_response timeout, FIFO underrun",
            "ALSA: pcm underrun occurred",
        ],
    ),
    "drm_dp_aux_timeout": (
        [
            "xe 0000:00:02.0: [drm] *ERROR* AUX USBC1/DDI TC1/PHY B: did not complete or "
            "timeout within 10ms (status 0xad40023f)",
            "i915 0000:00:02.0: [drm] *ERROR* AUX B/DDI B/PHY B: not done (status 0xad40023f)",
            "xe 0000:00:02.0: [drm] AUX USBC1/DDI TC1/PHY B: not started (status 0xad40023f)",
            "[drm:intel_dp_aux_wait_done [i915]] *ERROR* AUX B/port B did not complete or "
            "timeout within 10ms (status 0xad40023f)",
            "[drm:intel_dp_aux_xfer [i915]] *ERROR* dp_aux_ch not done status 0xad40023f",
        ],
        [
            "i915 0000:00:02.0: [drm] AUX B/DDI B/PHY B: Too many retries, giving up",
            "[drm:intel_dp_aux_xfer [i915]] dp_aux_ch timeout status 0x5145003f",  # no sink
            "mmc0: Timeout waiting for hardware interrupt; did not complete",
        ],
    ),
    "msm_dpu_error": (
        [
            "[drm:dpu_encoder_frame_done_timeout:2727] [dpu error]enc33 frame done timeout",
            "[dpu error]enc31 frame done timeout",
            "[drm:dpu_encoder_phys_vid_prepare_for_kickoff:569] [dpu error]enc33 intf1 ctl 2 "
            "reset failure: -22",
            "hw recovery is not complete for ctl:2",
        ],
        [
            "[drm] Initialized msm 1.12.0 for ae01000.display-controller on minor 0",
            "msm_dpu ae01000.display-controller: bound ae94000.dsi (ops dsi_ops [msm])",
        ],
    ),
    "radeon_dpm_error": (
        [
            "[drm:si_dpm_set_power_state [radeon]] *ERROR* si_set_sw_state failed",
            "[drm:si_dpm_set_power_state [radeon]] *ERROR* si_upload_sw_state failed",
            "[drm:si_dpm_set_power_state] *ERROR* si_resume_smc failed",  # 3.x, no module
            "[drm:radeon_pm_init_dpm [radeon]] *ERROR* radeon: dpm initialization failed",
        ],
        [
            # amdgpu's copy of si_dpm.c: the same words, another driver
            "[drm:si_dpm_set_power_state [amdgpu]] *ERROR* si_set_sw_state failed",
            "amdgpu 0000:01:00.0: [drm] *ERROR* si_set_sw_state failed",
            "[drm] ring test on 0 succeeded in 3 usecs",
            "psi_init failed",
        ],
    ),
    "iwlwifi_firmware_error": (
        [
            "iwlwifi 0000:04:00.0: Error sending STATISTICS_CMD: time out after 2000ms.",
            "iwlwifi 0000:00:14.3: Microcode SW error detected. Restarting 0x0.",
            "iwlwifi 0000:02:00.0: Microcode SW error detected.  Restarting 0x2000000.",
            "iwlwifi 0000:04:00.0: Start IWL Error Log Dump:",
        ],
        [
            "iwlwifi 0000:04:00.0: Loaded firmware version: 29.198743027.0 3168-29.ucode",
            "iwlwifi 0000:04:00.0: 0x00000084 | NMI_INTERRUPT_UNKNOWN",
            "iwlwifi 0000:00:14.3: Detected Intel(R) Wi-Fi 6 AX201 160MHz, REV=0x354",
            "ath10k_pci 0000:3a:00.0: Error sending WMI_CMD: time out after 2000ms.",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(FIX20A_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    check_wording(FIX20A_EXAMPLES, tag)


def _primary(text: str) -> str:
    report, _ = analyze_report(io.BytesIO(text.encode()), name="paste")
    return report.primary.tag if report.primary else ""


def test_an_underrun_alone_is_the_culprit() -> None:
    paste = (
        "[  367.612593] i915 0000:00:02.0: [drm] *ERROR* CPU pipe A FIFO underrun\n"
        "[  367.612600] i915 0000:00:02.0: [drm] *ERROR* PCH transcoder A FIFO underrun\n"
    )
    assert _primary(paste) == "i915_fifo_underrun"


def test_an_underrun_beside_a_gpu_hang_does_not_lead() -> None:
    # the display's underrun is a warning: a GPU hang in the same paste is the failure
    paste = (
        "[  100.000000] i915 0000:00:02.0: [drm] *ERROR* CPU pipe A FIFO underrun\n"
        "[  101.000000] i915 0000:00:02.0: [drm] GPU HANG: ecode 9:1:85dffffb, in "
        "Xorg [1234]\n"
        "[  101.000100] i915 0000:00:02.0: [drm] Resetting rcs0 for hang on rcs0\n"
    )
    assert _primary(paste) == "i915_gpu_hang"


def test_a_wifi_firmware_dump_alone_is_the_culprit() -> None:
    paste = (
        "[  327.385240] iwlwifi 0000:04:00.0: Error sending STATISTICS_CMD: time out after "
        "2000ms.\n"
        "[  327.387395] iwlwifi 0000:04:00.0: Start IWL Error Log Dump:\n"
        "[  327.387402] iwlwifi 0000:04:00.0: 0x00000084 | NMI_INTERRUPT_UNKNOWN\n"
    )
    assert _primary(paste) == "iwlwifi_firmware_error"
