"""The GPU failure families added from the drivers' source (NVIDIA's open-gpu-kernel-modules,
drivers/gpu/drm/amd): each wording as its format string prints it behind its printing
macro's prefix, read through kmsgd's own reader, the routine lines beside it that must not
become culprits, and each family's place in the culprit order."""

from __future__ import annotations

import pytest

from tests.catalogue.lines import check_wording, paste_primary, tags_of

# tag → (lines that carry it, lines with the same words that must not)
SWEEP_GPU_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "nvidia_gsp_rpc_failure": (
        [
            "NVRM: GspMsgQueueSendCommand: Encryption failed with status = 0x1f.",
            "NVRM: _kgspRpcSendMessage: GspMsgQueueSendCommand failed on GPU0: 0x1f",
            "NVRM: GPU1 _kgspRpcSendMessage: GspMsgQueueSendCommand failed: 0x65",
            "NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000001f for fn 10!",
            "NVRM: GPU3 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for fn 78 "
            "sequence 1091!",
            "NVRM: GPU0 _issueRpcAndWaitLarge: rpcRecvPoll failed with status 0x00000062 for "
            "fn 76!",
            "NVRM: GPU0 GspMsgQueueReceiveStatus: Fatal error detected in RPC decrypt: 0x1f!",
        ],
        [
            # the receive side's recovered retry, and a userspace tool's own words
            "NVRM: GPU0 GspMsgQueueReceiveStatus: Read succeeded with 2 retries.",
            "AES encryption failed with status = 0x1f.",
        ],
    ),
    "nvidia_gsp_timeout": (
        [
            "NVRM: GPU0 _issueRpcAndWait: rpcRecvPoll timedout for fn 76!",
            "NVRM: _issueRpcAndWait: rpcRecvPoll timedout for fn 10 sequence 2201!",
        ],
        ["NVRM: GPU0 _issueRpcAndWait: rpcRecvPoll failed with status 0x00000062 for fn 76!"],
    ),
    "nvidia_unsupported_gpu": (
        [
            "NVRM: installed in this system is not supported by the",
            "NVRM: installed in this system is not supported by open",
            "NVRM: installed in this vGPU host system is not supported by",
        ],
        [
            # the first line of the same message, shared with the fallen-off-the-bus report
            "NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1c82)",
            "NVRM: NVIDIA 595.45.04 driver release.",
        ],
    ),
    "nvidia_init_failure": (
        [
            "NVRM: No NVIDIA devices probed.",
            "NVRM: GPU0 kfspSendBootCommands_GH100: FSP boot cmds failed. RM cannot boot.",
            "NVRM: GPU0 kfspSendBootCommands_GH100: Preparing FSP boot cmds failed. RM cannot "
            "boot.",
            "NVRM: GPU0 kfspWaitForSecureBoot_GH100: Timout while polling for FSP boot complete "
            "I2CS_SCRATCH : 0",
            "NVRM: Xid (PCI:0000:41:00): 143, Error status 0x65 while polling for FSP boot "
            "complete, 0x0, 0x0, 0xbadf4100, 0x0, 0x0",
        ],
        ["NVRM: loading NVIDIA UNIX Open Kernel Module for x86_64  595.45.04"],
    ),
    "nvidia_uvm_fatal_error": (
        [
            "NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, requiring "
            "os reboot to recover.",
            "nvidia-uvm: uvm_global.c:425 uvm_global_set_fatal_error_impl[pid:4123] Encountered "
            "a global fatal error: Timeout",
        ],
        ["nvidia-uvm: Loaded the UVM driver, major device number 508."],
    ),
    "nvidia_peermem_error": (
        [
            "nvidia-peermem nv_mem_get_pages:471 error -22 while calling nvidia_p2p_get_pages()",
            "nvidia-peermem nv_mem_get_pages_nc:527 ERROR error -22 while calling "
            "nvidia_p2p_get_pages() with NULL callback",
            "nvidia-peermem nv_dma_map:325 ERROR nv_dma_map -- error -12 while calling "
            "nvidia_p2p_dma_map_pages()",
        ],
        ["nvidia-peermem nv_mem_client_init:680 TRACE registering peer memory client"],
    ),
    "i915_gpu_hang": (
        [
            "i915 0000:00:02.0: [drm] *ERROR* GuC engine reset request failed on 0:0 (rcs0) "
            "because 0x00000000",
            "i915 0000:00:02.0: [drm] *ERROR* GT0: GuC engine reset request failed on 0:0 (rcs0) "
            "because 0x00000000",
            "xe 0000:03:00.0: [drm] *ERROR* GuC engine reset request failed on 0:0 because "
            "0x00000000",
        ],
        ["i915 0000:00:02.0: [drm] GT0: GuC firmware i915/tgl_guc_70.bin version 70.20.0"],
    ),
    "soc_gpu_hang": (
        [
            "msm_dpu ae01000.display-controller: [drm:recover_worker [msm]] *ERROR* 7.3.0.1: "
            "hangcheck recover!",
            "msm 900000.mdss: A530: hangcheck recover!",
            "[drm:lima_sched_timedout_job [lima]] *ERROR* lima job timeout",
        ],
        ["[drm] lima gp spurious timeout"],
    ),
    "gpu_fell_off_bus": (
        [
            "NVRM: GPU0 _intrServiceStallCommonCheckBegin: Failed GPU reg read : 0xffffffff. "
            "Check whether GPU is present on the bus",
        ],
        ["NVRM: GPU0 _threadNodeCheckTimeout: API_GPU_ATTACHED_SANITY_CHECK failed!"],
    ),
    "amdgpu_kfd_error": (
        [
            "amdgpu: qcm fence wait loop timeout expired",
            "amdgpu 0000:01:00.0: qcm fence wait loop timeout expired",
            "kfd: qcm fence wait loop timeout expired",
            "amdgpu: The cp might be in an unrecoverable state due to an unsuccessful queues "
            "preemption",
            "amdgpu: HIQ MQD's queue_doorbell_id0 is not 0, Queue preemption time out",
            "amdgpu 0000:03:00.0: amdgpu: Queue preemption failed for queue with doorbell_id: "
            "80004008",
            "amdgpu 0000:0f:00.0: amdgpu: XCC 2: Queue preemption failed for queue with "
            "doorbell_id: 80030008",
            "amdgpu: cp queue preemption time out.",
        ],
        ["amdgpu: evict_process_queues_cpsch started", "amdgpu: Evicting PASID 0x8001 queues"],
    ),
    "amdgpu_ring_timeout": (
        [
            "amdgpu: failed to write reg 28b4 wait reg 28c6",
            "amdgpu 0000:03:00.0: amdgpu: failed to write reg 28b4 wait reg 28c6",
            "amdgpu 0000:03:00.0: amdgpu: failed to read reg:1a6",
            "amdgpu 0000:03:00.0: amdgpu: failed to write reg:1a6",
        ],
        ["i2c i2c-3: failed to write reg 0x10"],
    ),
    "amdgpu_ras_correctable": (
        [
            "amdgpu 0000:03:00.0: amdgpu: 4 correctable hardware errors detected in umc block",
            "amdgpu 0000:03:00.0: {1}socket: 0, die: 1, 2 new correctable hardware errors "
            "detected in gfx block",
            "amdgpu 0000:c1:00.0: amdgpu: socket: 4, die: 0 1 correctable hardware errors "
            "detected in total in gfx block, no user action is needed.",
        ],
        ["amdgpu 0000:03:00.0: amdgpu: 1 uncorrectable hardware errors detected in umc block"],
    ),
    "amdgpu_fence_fallback": (
        ["[drm:amdgpu_fence_fallback [amdgpu]] *ERROR* Fence fallback timer expired on ring sdma0"],
        ["[drm] Fence fallback timer expired"],
    ),
}


@pytest.mark.parametrize("tag", sorted(SWEEP_GPU_EXAMPLES))
def test_the_source_wording_matches_and_the_lines_beside_it_do_not(tag: str) -> None:
    check_wording(SWEEP_GPU_EXAMPLES, tag, tags_of)


def test_a_userspace_line_with_the_rpc_words_is_not_the_drivers() -> None:
    line = "NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000001f for fn 10!"
    assert "nvidia_gsp_rpc_failure" not in tags_of("logger[7]: " + line, facility=1)


def test_an_rpc_failure_leads_the_init_failure_and_oops_after_it() -> None:
    # message_queue_cpu.c fails to encrypt the queue element, every RPC after fails, and the
    # adapter's re-init fails in turn: the failing RPC path is the earliest link
    text = (
        "[38679.045446] NVRM: GspMsgQueueSendCommand: Encryption failed with status = 0x1f.\n"
        "[38679.047129] NVRM: _kgspRpcSendMessage: GspMsgQueueSendCommand failed on GPU0: 0x1f\n"
        "[38679.048864] NVRM: _issueRpcAndWait: rpcSendMessage failed with status 0x0000001f "
        "for fn 10!\n"
        "[38679.711611] NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x1f:1436)\n"
        "[38679.717571] NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor number 0\n"
        "[38679.942747] BUG: unable to handle page fault for address: 00000000000152ba\n"
    )
    assert paste_primary(text) == "nvidia_gsp_rpc_failure"


def test_a_gpu_lost_from_the_bus_leads_the_rpc_failures_it_causes() -> None:
    text = (
        "[ 812.100001] NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status "
        "0x0000000f for fn 10!\n"
        "[ 812.100002] NVRM: GPU 0000:41:00.0: GPU has fallen off the bus.\n"
        "[ 812.100003] NVRM: Xid (PCI:0000:41:00): 79, pid=1, name=python3, GPU has fallen "
        "off the bus.\n"
    )
    assert paste_primary(text) in {"gpu_fell_off_bus", "nvidia_xid_79"}


def test_an_unsupported_gpu_leads_the_empty_probe_it_causes() -> None:
    text = (
        "[    4.101] NVRM: The NVIDIA GPU 0000:01:00.0 (PCI ID: 10de:1b80)\n"
        "[    4.101] NVRM: installed in this system is not supported by open\n"
        "[    4.101] NVRM: nvidia.ko because it does not include the required GPU\n"
        "[    4.101] NVRM: System Processor (GSP).\n"
        "[    4.102] NVRM: The NVIDIA probe routine failed for 1 device(s).\n"
        "[    4.102] NVRM: None of the NVIDIA devices were initialized.\n"
        "[    4.103] NVRM: No NVIDIA devices probed.\n"
    )
    assert paste_primary(text) == "nvidia_unsupported_gpu"


def test_the_uvm_fatal_error_follows_the_xid_that_caused_it() -> None:
    # nv_gpu_ops.c nvGpuOpsReportFatalError is UVM's reaction to an error RM reported first
    text = (
        "[ 900.1] NVRM: Xid (PCI:0000:41:00): 48, pid=1, name=python3, An uncorrectable double "
        "bit error (DBE) has been detected on GPU in the framebuffer at partition 1, subpartition "
        "0.\n"
        "[ 900.2] NVRM: nvGpuOpsReportFatalError: uvm encountered global fatal error 0x60, "
        "requiring os reboot to recover.\n"
    )
    assert paste_primary(text) == "nvidia_xid_48"


AMD = "amdgpu 0000:03:00.0: amdgpu: "


def test_a_failed_preemption_follows_the_page_fault_that_hung_the_queue() -> None:
    text = (
        f"[ 428.52] {AMD}[gfxhub] page fault (src_id:0 ring:153 vmid:8 pasid:32771)\n"
        "[ 437.53] amdgpu: qcm fence wait loop timeout expired\n"
        "[ 437.53] amdgpu: The cp might be in an unrecoverable state due to an unsuccessful "
        "queues preemption\n"
        f"[ 437.54] {AMD}GPU reset begin!\n"
    )
    assert paste_primary(text) == "amdgpu_vm_fault"


def test_a_preemption_failure_alone_leads_the_reset_it_brings() -> None:
    text = (
        f"[ 1062.51] {AMD}Queue preemption failed for queue with doorbell_id: 80004008\n"
        f"[ 1062.51] {AMD}Failed to evict process queues\n"
        "[ 1062.51] amdgpu: Failed to quiesce KFD\n"
        f"[ 1062.52] {AMD}GPU reset begin!\n"
    )
    assert paste_primary(text) == "amdgpu_kfd_error"


def test_corrected_errors_and_fence_fallbacks_never_lead_a_failure() -> None:
    text = (
        f"[ 10.1] {AMD}4 correctable hardware errors detected in umc block\n"
        "[ 11.1] [drm:amdgpu_fence_fallback [amdgpu]] *ERROR* Fence fallback timer expired on "
        "ring sdma0\n"
        f"[ 12.1] {AMD}ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3\n"
    )
    assert paste_primary(text) == "amdgpu_ring_timeout"


def test_refused_submissions_after_a_recovered_reset_tag_nothing() -> None:
    # amdgpu_cs.c: a context a reset made guilty or whose VRAM it lost is refused with
    # -ECANCELED; that is the reset's consequence, and the reset is already named
    for code in (-125, -22):
        line = f"[drm:amdgpu_cs_ioctl [amdgpu]] *ERROR* Failed to initialize parser {code}!"
        assert tags_of(line) == set(), line
    text = (
        "[ 16.1] [drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled "
        "seq=5, emitted seq=7\n"
        f"[ 16.2] {AMD}GPU reset begin!\n"
        f"[ 19.1] {AMD}GPU reset(2) succeeded!\n"
        "[ 19.2] [drm:amdgpu_cs_ioctl [amdgpu]] *ERROR* Failed to initialize parser -125!\n"
    )
    assert paste_primary(text) == "amdgpu_ring_timeout"


def test_an_unreadable_gpu_leads_the_rpc_failures_printed_before_it() -> None:
    # a GPU gone from the bus fails every call, whichever line the driver prints first
    text = (
        "[ 90.1] NVRM: GPU0 _issueRpcAndWait: rpcSendMessage failed with status 0x0000000f for "
        "fn 10!\n"
        "[ 90.2] NVRM: GPU0 _intrServiceStallCommonCheckBegin: Failed GPU reg read : 0xffffffff. "
        "Check whether GPU is present on the bus\n"
    )
    assert paste_primary(text) == "gpu_fell_off_bus"
