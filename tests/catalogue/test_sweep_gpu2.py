"""GPU wordings added from the drivers' source in the second GPU sweep: xe's page faults,
i915/xe's GuC firmware that could not be fetched, nvgpu's MMU fault reports (L4T r21-r36),
amdkfd's queue-manager failures, nouveau's 4.x wordings and its pre-4.3 nv_printk format,
and the Mali (panfrost, panthor) and V3D faults. Each wording as its format prints it behind
its printing macro's prefix, read through kmsgd's own reader; the routine lines beside it
that must not become culprits; and each family's place in the culprit order."""

from __future__ import annotations

import pytest

from kmsgd.logparse.origin import kernel_opening
from tests.catalogue.lines import check_wording, paste_primary, tags_of

XE = "xe 0000:03:00.0: [drm] GT0: "
I915 = "i915 0000:00:02.0: [drm] "
NVGPU = "nvgpu: 57000000.gpu gk20a_fifo_handle_mmu_fault_locked:1723 [ERR]  "

# tag → (lines that carry it, lines with the same words that must not)
SWEEP_GPU2_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "xe_gpu_pagefault": (
        [
            XE + "Fault response: Unsuccessful -ENOENT",
            "xe 0000:03:00.0: [drm] Tile0: GT0: Fault response: Unsuccessful -EINVAL",
            "xe 0000:03:00.0: [drm:pf_queue_work_func [xe]] Fault response: Unsuccessful -22",
            XE + "Engine memory CAT error [18]: class=bcs, logical_mask: 0x1, guc_id=6",
            XE + "Engine memory CAT error: class=vcs, logical_mask: 0x1, guc_id=3",
            "xe 0000:03:00.0: [drm] *ERROR* GT0: Memory CAT error reported by GuC!",
        ],
        [
            # the engine reset and the timed-out job after it are i915_gpu_hang's
            XE + "Engine reset: engine_class=ccs, logical_mask: 0x1, guc_id=2",
            "\tASID: 12",
            "pam_unix(sshd:auth): authentication failure; Fault response: none",
        ],
    ),
    "i915_init_failure": (
        [
            I915 + "*ERROR* GuC initialization failed -ENOENT",
        ],
        [
            # the GuC file that cannot be read is firmware_load_failure (gpu_wording26.py):
            # i915 runs on without the GuC where GuC submission is optional (Gen9-Gen11)
            I915 + "*ERROR* GT0: GuC firmware i915/mtl_guc_70.bin: fetch failed -ENOENT",
            # a missing HuC or GSC only disables media authentication: the GPU runs on
            I915 + "*ERROR* GT0: HuC firmware i915/tgl_huc.bin: fetch failed -ENOENT",
            XE + "GSC firmware xe/lnl_gsc_1.bin: fetch failed with error -ENOENT",
            I915 + "GT0: GuC firmware i915/tgl_guc_70.bin version 70.20.0",
        ],
    ),
    "amdgpu_init_failure": (
        [
            "[drm:amdgpu_device_resume [amdgpu]] *ERROR* amdgpu_device_ip_resume failed (-110).",
            "amdgpu 0000:03:00.0: amdgpu: amdgpu_device_ip_resume failed (-62).",
        ],
        ["amdgpu 0000:03:00.0: amdgpu: SMU is resumed successfully!"],
    ),
    "nvidia_init_failure": (
        ["NVRM: GPU 0000:01:00.0: GPU does not have the necessary power cables connected."],
        ["NVRM: GPU at PCI:0000:01:00: GPU-12345678-1234-1234-1234-123456789abc"],
    ),
    "nvgpu_error": (
        [
            NVGPU + " mmu fault on engine 0, engine subid 0 (gpc), client 4 (t1 1), addr "
            "0x7fadf9d000, type 3 (va limit viol), access_type 0x00000001,inst_ptr 0x7fe431000",
            "gk20a 57000000.gpu: gk20a_fifo_handle_mmu_fault: mmu fault on engine 0, engine "
            "subid 0 (gpc), client 7 (gpccs), addr 0x00000000:0x00001000, type 2 (pde), info "
            "0x00000000,inst_ptr 0x1234000",
            "nvgpu: 17000000.gpu    gk20a_fifo_mmu_fault_info_dump:214  [ERR]  MMU fault @ "
            "address: 0x7fadf9d000 ",
            "nvgpu: 57000000.gpu  gk20a_fifo_set_ctx_mmu_error_tsg:1543 [ERR]  TSG 4 generated "
            "a mmu fault",
            "nvgpu: 17000000.gpu gv11b_mm_mmu_fault_handle_buf_valid_entry:532  [ERR]  page "
            "fault error: err_type = 0x8, fault_status = 0x200",
            "nvgpu: 17000000.gpu      gv11b_fb_mmu_fault_info_dump:294  [ERR]  [MMU FAULT] mmu "
            "engine id:  18, ch id:  479, fault addr: 0x0, fault addr aperture: 0, fault type: "
            "invalid pde, access type: virt read, ",
            "nvgpu: 17000000.gpu       nvgpu_rc_mmu_fault_recovery:399  [ERR]  mmu fault id=8 "
            "id_type=1 act_eng_bitmask=00000020",
        ],
        [
            "nvgpu: 17000000.gpu          gv11b_mm_mmu_fault_info_buf_init:773 [INFO] mmu fault "
            "buffer ready",
            "arm-smmu 12000000.iommu: mmu fault on engine 0",
        ],
    ),
    "amdgpu_kfd_error": (
        [
            "amdgpu: Pasid 0x8001 DQM create queue type 0 failed. ret -62",
            "amdgpu: process pid 4123 DQM create queue type 0 failed. ret -5",
            "amdgpu: Pasid 32769 DQM create queue 0 failed. ret -62",
            "amdgpu: Pasid 0x8001 destroy queue 3 failed, ret -62",
            "amdgpu: Failed to restore queues",
            "amdgpu: Failed to restore queues of pasid 0x8001",
            "amdgpu: Failed to restore queues of process pid 4123",
        ],
        [
            # out of SDMA queue memory or queue slots: the application's limit (6.18 pr_warn)
            "amdgpu: process pid 4123 DQM create queue type 1 failed. ret -12",
            "amdgpu: Pasid 0x8001 DQM create queue type 0 failed. ret -28",
            "amdgpu: evict_process_queues_cpsch started",
            "systemd[1]: Failed to restore queues of user session",
        ],
    ),
    "nouveau_error": (
        [
            "nouveau 0000:01:00.0: gr: wait for idle timeout (en: 1, ctxsw: 0, busy: 1)",
            "nouveau 0000:01:00.0: msvld: unable to load firmware data",
            "nouveau 0000:01:00.0: msppp: unable to load firmware code",
            "nouveau E[   PFIFO][0000:01:00.0] SCHED_ERROR [ CTXSW_TIMEOUT ]",
            "nouveau E[  PGRAPH][0000:01:00.0][0x0000a097][ffff88021c31f000] TRAP ch 3 "
            "[0x007f6ac000 Xorg[1234]]",
            "nouveau E[    PBUS][0000:01:00.0] MMIO read of 0x00000000 FAULT at 0x022554",
            "nouveau E[     DRM] failed to idle channel 0xcccc0000 [DRM]",
        ],
        [
            "nouveau 0000:01:00.0: DRM: MM: using COPY for buffer copies",
            # nvkm_msec's dev_WARN message: the WARNING's line, kernel_warning's
            "nouveau 0000:01:00.0: timeout",
            "nouveau  [  DEVICE][0000:01:00.0] Chipset: GK106 (NVE6)",
            "nouveau W[   VBIOS][0000:01:00.0] failed to read from PCIROM",
        ],
    ),
    "soc_gpu_hang": (
        [
            "panfrost ff9a0000.gpu: Unhandled Page fault in AS1 at VA 0x000000007F3C0000",
            "panthor fb000000.gpu: [drm] *ERROR* Unhandled Page fault in AS0 at VA "
            "0x0000000000001000",
            "panfrost ff9a0000.gpu: GPU Fault 0x00000088 (UNKNOWN) at 0x0000000000000000",
            "panthor fb000000.gpu: [drm] *ERROR* FW ping timeout, scheduling a reset",
            "panthor fb000000.gpu: [drm] *ERROR* CSG 0 update request timedout",
            "panthor fb000000.gpu: [drm] job timeout: pid=1234, comm=glmark2, seqno=42",
            "[drm:v3d_reset [v3d]] *ERROR* Resetting GPU.",
        ],
        [
            # the group is rescheduled after a progress timeout; vc4's reset is DRM_INFO
            "panthor fb000000.gpu: [drm] CSG slot 0 progress timeout",
            "panfrost ff9a0000.gpu: mali-t860 id 0x860 major 0x2 minor 0x0 status 0x0",
            "[drm] Resetting GPU.",
            # V3D's MMU error only logs the violation: v3d_mmu_error, no hang
            "v3d fec00000.v3d: MMU error from client 5 at 0x00001000, pte invalid",
            "v3d fec00000.v3d: MMU error from client L2T (0x2) at 0x1000, pte invalid",
        ],
    ),
}


@pytest.mark.parametrize("tag", sorted(SWEEP_GPU2_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    check_wording(SWEEP_GPU2_EXAMPLES, tag, tags_of)


@pytest.mark.parametrize(
    "line",
    [
        "nouveau E[   PFIFO][0000:01:00.0] SCHED_ERROR [ CTXSW_TIMEOUT ]",
        "gk20a 57000000.gpu: gk20a_fifo_handle_mmu_fault: mmu fault on engine 0",
        "panthor fb000000.gpu: [drm] *ERROR* FW ping timeout, scheduling a reset",
    ],
)
def test_the_new_openings_read_a_bare_line_as_the_kernels(line: str) -> None:
    assert kernel_opening(line)


def test_an_xe_page_fault_leads_the_engine_reset_and_timed_out_job_after_it() -> None:
    text = (
        f"[ 4034.71] {XE}Fault response: Unsuccessful -ENOENT\n"
        f"[ 4034.71] {XE}Engine memory CAT error [18]: class=ccs, logical_mask: 0x1, guc_id=2\n"
        f"[ 4034.72] {XE}Engine reset: engine_class=ccs, logical_mask: 0x1, guc_id=2\n"
        f"[ 4034.72] {XE}Timedout job: seqno=4294967169, lrc_seqno=4294967169, guc_id=2, "
        "flags=0x0 in python [184372]\n"
        "[ 4034.73] xe 0000:03:00.0: [drm] Xe device coredump has been created\n"
    )
    assert paste_primary(text) == "xe_gpu_pagefault"


def test_a_missing_guc_firmware_leads_the_failed_guc_init_after_it() -> None:
    text = (
        f"[ 3.10] {I915}*ERROR* GT0: GuC firmware i915/mtl_guc_70.bin: fetch failed -ENOENT\n"
        f"[ 3.20] {I915}*ERROR* GT0: GuC initialization failed -ENOENT\n"
        f"[ 3.21] {I915}*ERROR* GT0: Enabling uc failed (-5)\n"
    )
    # the missing file is firmware_load_failure, the cause of the init failure after it
    # (kmsgd/judge/chains.py, corpus batch 26)
    assert paste_primary(text) == "firmware_load_failure"


def test_an_nvgpu_mmu_fault_leads_the_channel_errors_after_it() -> None:
    text = (
        f"[18364.51] {NVGPU} mmu fault on engine 0, engine subid 0 (gpc), client 1 (t1 0), "
        "addr 0x7f87cf3000, type 3 (va limit viol), access_type 0x00000001,inst_ptr 0x7feccf000\n"
        "[18364.53] nvgpu: 57000000.gpu  gk20a_fifo_set_ctx_mmu_error_tsg:1543 [ERR]  TSG 4 "
        "generated a mmu fault\n"
    )
    assert paste_primary(text) == "nvgpu_error"


def test_a_page_fault_leads_the_queue_failures_of_the_kfd_behind_it() -> None:
    amd = "amdgpu 0000:03:00.0: amdgpu: "
    text = (
        f"[ 428.52] {amd}[gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32771)\n"
        f"[ 437.53] {amd}Failed to evict process queues\n"
        "[ 437.54] amdgpu: Pasid 0x8003 destroy queue 1 failed, ret -62\n"
        "[ 440.10] amdgpu: Failed to restore queues of pasid 0x8003\n"
    )
    assert paste_primary(text) == "amdgpu_vm_fault"


def test_a_nouveau_engine_fault_on_a_3x_kernel_leads_the_channel_that_does_not_idle() -> None:
    text = (
        "[ 611.20] nouveau E[   PFIFO][0000:01:00.0] SCHED_ERROR [ CTXSW_TIMEOUT ]\n"
        "[ 626.21] nouveau E[     DRM] failed to idle channel 0xcccc0000 [DRM]\n"
        "[ 846.30] INFO: task Xorg:1234 blocked for more than 120 seconds.\n"
    )
    assert paste_primary(text) == "nouveau_error"


def test_a_mali_page_fault_leads_the_job_timeout_after_it() -> None:
    text = (
        "[ 52.10] panfrost ff9a0000.gpu: Unhandled Page fault in AS1 at VA 0x000000007F3C0000\n"
        "[ 52.60] panfrost ff9a0000.gpu: gpu sched timeout, js=1, config=0x7300, status=0x8, "
        "head=0x0, tail=0x0, sched_job=00000000deadbeef\n"
    )
    assert paste_primary(text) == "soc_gpu_hang"


def test_a_gpu_short_of_power_leads_the_failed_adapter_init_after_it() -> None:
    text = (
        "[ 5.10] NVRM: GPU 0000:01:00.0: GPU does not have the necessary power cables "
        "connected.\n"
        "[ 5.11] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x24:0x72:1568)\n"
        "[ 5.12] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n"
    )
    assert paste_primary(text) == "nvidia_init_failure"


def test_a_display_register_wait_timeout_is_no_evidence() -> None:
    # display/dc/dc_helper.c generic_reg_wait "REG_WAIT timeout %dus * %d tries - %s line:%d"
    # (DRM_ERROR 4.19, DRM_WARN 6.1, drm_warn 6.18): modesets print it at boot and on hotplug
    # on working boxes (batch 10's RX 9070 XT boot-warnings case labels it routine, no
    # culprit), so it stays untagged and leads nothing
    line = "amdgpu 0000:03:00.0: [drm] REG_WAIT timeout 1us * 100000 tries - optc1_wait_for_state"
    assert tags_of(line + " line:833") == set()
