"""amdgpu and radeon wordings of hangs and resets from the AMD source sweep
(drivers/gpu/drm/amd/, drivers/gpu/drm/radeon/, 4.4-6.18) that the other GPU modules did not
catalogue: the MES of 6.14+ that names its pipe, the per-ring reset of 6.10+ that failed, the
mode-1 reset that failed, the device DRM declares wedged, the TLB flush the memory hub never
acknowledged, the KIQ's queue map that failed, RAS poison consumed by a shader, the SDMA
engine's illegal instruction, and radeon's reset that failed. amdgpu_dm's "Waiting for fences
timed out!" stays untagged (tests/catalogue/test_batch9_gpu.py): the ring timeout names the
hang the display commit waited on.

Each entry adds wording to another module's tag and keeps that tag's meaning (its first
entry's): the next step says "See <tag>".
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, MatchInput, Severity, Signature, sig

_PCI = DeviceKind.PCI
AMDGPU = "gpu.amdgpu"
_AMD = "drivers/gpu/drm/amd/amdgpu/"
_DEV = "amdgpu 0000:03:00.0: amdgpu: "  # dev_printk with amdgpu's dev_fmt "amdgpu: " (5.x+)


def _drm(func: str, module: str = "amdgpu") -> str:
    """DRM_ERROR's prefix: "[drm:<function> [<module>]] *ERROR* "."""
    return f"[drm:{func} [{module}]] *ERROR* "


def _amdgpu_line(m: object, i: MatchInput) -> bool:
    # the driver names itself (dev_printk's "amdgpu 0000:…:", DRM_ERROR's "[drm:… [amdgpu]]",
    # pr_fmt's "amdgpu: "): radeon prints some of the same words
    return "amdgpu" in i.text


AMD_RESET_SIGNATURES: tuple[Signature, ...] = (
    # mes_v11_0.c / mes_v12_0.c mes_vN_submit_pkt_and_poll_completion, 6.14+ with the MES pipe
    # (6.12-6.13's "MES failed to respond to msg=%s" is gpu.py's): dev_err "MES(%d) failed to
    # respond to msg=%s (%s)", "MES(%d) failed to respond to msg=%s", "MES(%d) failed to
    # respond to msg=%d"; mes_v12_1.c "MES(%d, %d) failed to respond to msg=%s" (XCC, pipe)
    sig(
        "amdgpu_mes_timeout",
        r"\bMES\(\d+(?:, \d+)?\) failed to respond to msg=",
        ("MES",),
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's micro-engine scheduler (MES) firmware stopped answering queue requests.",
        "See amdgpu_mes_timeout in gpu.py.",
        32,
        device_kind=_PCI,
        formats=(
            Format(
                "MES(%d) failed to respond to msg=%s (%s)",
                _AMD + "mes_v12_0.c",
                "6.14-6.18",
                _DEV,
                args=(0, "MISC", "WRITE_REG"),
            ),
            Format(
                "MES(%d) failed to respond to msg=%s",
                _AMD + "mes_v11_0.c",
                "6.14-6.18",
                _DEV,
                args=(0, "REMOVE_QUEUE"),
            ),
            Format(
                "MES(%d, %d) failed to respond to msg=%s",
                _AMD + "mes_v12_1.c",
                "6.18+",
                _DEV,
                args=(0, 1, "SET_HW_RSRC"),
            ),
        ),
    ),
    # amdgpu_job.c amdgpu_job_timedout (6.10-6.18): on a ring timeout it first tries a reset of
    # that ring alone (dev_err "Starting %s ring reset", routine); "Ring %s reset failure"
    # (6.10-6.15), "Ring %s reset failed" (6.16+) says it did not work and the full GPU reset
    # follows. "Ring %s reset succeeded" (6.14+) tags nothing and closes no chain: a fault
    # after it is the torn-down queue's consequence (tests/judge/test_sweep_amd_order.py).
    sig(
        "amdgpu_gpu_reset",
        r"\bRing \S+ reset fail(?:ure|ed)$",
        ("reset",),
        Severity.CRITICAL,
        AMDGPU,
        "The driver's reset of one hung GPU ring failed: it resets the whole GPU next.",
        "See amdgpu_gpu_reset in gpu.py.",
        40,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "Ring %s reset failure",
                _AMD + "amdgpu_job.c",
                "6.10-6.15",
                _DEV,
                args=("gfx_0.0.0",),
            ),
            Format(
                "Ring %s reset failed",
                _AMD + "amdgpu_job.c",
                "6.16-6.18",
                _DEV,
                args=("comp_1.3.0",),
            ),
        ),
    ),
    # gmc_v9_0.c gmc_v9_0_flush_gpu_tlb (4.15-6.18), gmc_v10_0.c gmc_v10_0_flush_vm_hub
    # ("... VM flush ACK!" 5.4-5.5, "... VM flush hub: %d!" 5.6-6.18), gmc_v11_0.c,
    # gmc_v12_0.c: DRM_ERROR/dev_err "Timeout waiting for VM flush ACK!", "Timeout waiting
    # for VM flush hub: %d!", "Timeout waiting for sem acquire in VM flush!": the memory hub
    # never acknowledged a TLB invalidation: the GPU (or its KIQ, under SR-IOV) stopped
    # answering, typically on a resume or a reset that did not bring it back
    sig(
        "amdgpu_ring_timeout",
        r"\bTimeout waiting for (?:VM flush (?:ACK|hub: \d+)!|sem acquire in VM flush!)",
        ("flush",),
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's memory hub never acknowledged a TLB flush: the GPU stopped answering.",
        "See amdgpu_ring_timeout in gpu.py.",
        38,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "Timeout waiting for VM flush ACK!",
                _AMD + "gmc_v9_0.c",
                "4.15-6.18",
                _drm("gmc_v9_0_flush_gpu_tlb"),
            ),
            Format(
                "Timeout waiting for VM flush hub: %d!",
                _AMD + "gmc_v10_0.c",
                "5.6-6.18",
                _drm("gmc_v10_0_flush_gpu_tlb"),
                args=(0,),
            ),
            Format(
                "Timeout waiting for sem acquire in VM flush!",
                _AMD + "gmc_v11_0.c",
                "6.0-6.18",
                _drm("gmc_v11_0_flush_gpu_tlb"),
            ),
        ),
    ),
    # amdgpu_gfx.c amdgpu_gfx_enable_kcq / amdgpu_gfx_enable_kgq (5.10-6.18): DRM_ERROR/dev_err
    # "KCQ enable failed", "KGQ enable failed": the KIQ ring that maps the compute (graphics)
    # queues failed its test after the map packets; gfx_v9_0.c gfx_v9_0_kiq_kcq_enable
    # (4.15-5.4) "KCQ enable failed (scratch(0x%04X)=0x%08X)". hw_init or resume of gfx fails.
    sig(
        "amdgpu_ring_test_failure",
        r"\bK[CG]Q enable failed\b",
        ("KCQ", "KGQ"),
        Severity.ERROR,
        AMDGPU,
        "The GPU's KIQ ring did not execute the packets that map the compute or graphics "
        "queues: those engines are not running.",
        "See amdgpu_ring_test_failure in gpu_more.py.",
        37,
        device_kind=_PCI,
        formats=(
            Format(
                "KCQ enable failed",
                _AMD + "amdgpu_gfx.c",
                "5.10-6.18",
                _drm("amdgpu_gfx_enable_kcq"),
            ),
            Format("KGQ enable failed", _AMD + "amdgpu_gfx.c", "6.5-6.18", _DEV),
            Format(
                "KCQ enable failed (scratch(0x%04X)=0x%08X)",
                _AMD + "gfx_v9_0.c",
                "4.15-5.4",
                _drm("gfx_v9_0_kiq_kcq_enable"),
                args=(0xC040, 0xCAFEDEAD),
            ),
        ),
    ),
    # amdkfd/kfd_int_process_v9.c event_interrupt_poison_consumption_v9 (5.19-6.18):
    # dev_warn, RAS_EVENT_LOG from 6.10, "poison is consumed by client %d, kick off gpu reset
    # flow" (kfd_int_process_v12_1.c: "by source %d"); 5.16-5.18 "RAS poison consumption, fall
    # back to gpu reset flow: client id %d": a shader read memory that an uncorrectable ECC
    # error poisoned, and the GPU is reset
    sig(
        "amdgpu_ras_uncorrectable",
        r"\bpoison is consumed by (?:client|source) \d+, kick off gpu reset flow"
        r"|\bRAS poison consumption, fall back to gpu reset flow\b",
        ("poison",),
        Severity.CRITICAL,
        AMDGPU,
        "A GPU engine consumed data poisoned by an uncorrectable memory error: the GPU is reset.",
        "See amdgpu_ras_uncorrectable in gpu.py.",
        29,
        device_kind=_PCI,
        formats=(
            Format(
                "poison is consumed by client %d, kick off gpu reset flow",
                "drivers/gpu/drm/amd/amdkfd/kfd_int_process_v9.c",
                "5.19-6.18",
                _DEV,
                args=(1,),
            ),
            Format(
                "RAS poison consumption, fall back to gpu reset flow: client id %d",
                "drivers/gpu/drm/amd/amdkfd/kfd_int_process_v9.c",
                "5.16-5.18",
                _DEV,
                args=(1,),
            ),
        ),
    ),
    # the mode-1 (whole-ASIC) reset's own failure: amdgpu_device.c amdgpu_device_mode1_reset
    # (5.14-6.18; nv.c/soc15.c *_asic_mode1_reset before) dev_err "GPU mode1 reset failed",
    # nv.c 5.10-5.13 "GPU psp mode1 reset failed" and "GPU smu mode1 reset failed" (the reset
    # through PSP or SMU firmware, whichever the ASIC uses): the GPU did not come back
    sig(
        "amdgpu_gpu_reset",
        r"\bGPU (?:psp |smu )?mode1 reset failed\b",
        ("mode1",),
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's whole-chip (mode 1) reset failed: the GPU did not come back.",
        "See amdgpu_gpu_reset in gpu.py.",
        40,
        device_kind=_PCI,
        formats=(
            Format("GPU mode1 reset failed", _AMD + "amdgpu_device.c", "5.14-6.18", _DEV),
            Format("GPU psp mode1 reset failed", _AMD + "nv.c", "5.10-5.13", _DEV),
            Format("GPU smu mode1 reset failed", _AMD + "amdgpu_device.c", "5.14-6.18", _DEV),
        ),
    ),
    # drivers/gpu/drm/drm_drv.c drm_dev_wedged_event (6.14-6.18): drm_info "device wedged,
    # %s" with "needs recovery" when the driver gave up on the device (amdgpu_device.c
    # amdgpu_device_gpu_recover after a failed reset: rebind or bus reset needed) and "but
    # recovered through reset" after a per-ring reset that worked (routine, tags nothing).
    # xe and i915 call it too: the line must be amdgpu's.
    sig(
        "amdgpu_gpu_reset",
        r"\bdevice wedged, needs recovery$",
        ("wedged",),
        Severity.CRITICAL,
        AMDGPU,
        "amdgpu gave up on the GPU after its reset failed: it needs a driver rebind or a bus "
        "reset (or a reboot).",
        "See amdgpu_gpu_reset in gpu.py.",
        40,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "device wedged, %s",
                "drivers/gpu/drm/drm_drv.c",
                "6.14-6.18",
                "amdgpu 0000:03:00.0: [drm] ",
                args=("needs recovery",),
            ),
        ),
    ),
    # sdma_v2_4.c, sdma_v3_0.c, sdma_v4_0.c, sdma_v4_4_2.c, sdma_v5_0.c, sdma_v5_2.c,
    # sdma_v6_0.c, cik_sdma.c, si_dma.c *_process_illegal_inst_irq (4.4-6.18): DRM_ERROR
    # "Illegal instruction in SDMA command stream": the copy engine refused a packet of a
    # submitted buffer; the job is killed (drm_sched_fault, or the reset work in 4.x-5.x).
    # radeon's cik.c prints the same words: the line must be amdgpu's
    sig(
        "amdgpu_sdma_illegal_command",
        r"\bIllegal instruction in SDMA command stream\b",
        ("SDMA",),
        Severity.ERROR,
        AMDGPU,
        "An SDMA (copy engine) queue got an instruction it refused: the job is killed and "
        "its ring times out or resets.",
        "See amdgpu_sdma_illegal_command in gpu_more.py.",
        33,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "Illegal instruction in SDMA command stream",
                _AMD + "sdma_v4_0.c",
                "4.14-6.18",
                _drm("sdma_v4_0_process_illegal_inst_irq"),
            ),
            Format(
                "Illegal instruction in SDMA command stream",
                _AMD + "sdma_v5_2.c",
                "5.9-6.18",
                _drm("sdma_v5_2_process_illegal_inst_irq"),
            ),
        ),
    ),
    # drivers/gpu/drm/radeon/radeon_device.c radeon_gpu_reset (4.4-6.18): dev_info "GPU reset
    # failed" after the ASIC reset or the resume behind it failed (the lockup lines before it)
    sig(
        "radeon_gpu_lockup",
        r"^radeon \S+: GPU reset failed$",
        ("failed",),
        Severity.CRITICAL,
        "gpu.radeon",
        "radeon's reset of a locked-up GPU failed: the GPU stays hung.",
        "See radeon_gpu_lockup.",
        35,
        device_kind=_PCI,
        formats=(
            Format(
                "GPU reset failed",
                "drivers/gpu/drm/radeon/radeon_device.c",
                "4.4-6.18",
                "radeon 0000:01:00.0: ",
            ),
        ),
    ),
)
