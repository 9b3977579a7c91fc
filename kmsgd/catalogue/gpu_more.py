"""GPU failures beside the chains of gpu.py: refusals, display hangs, firmware and RAS reports.

NVIDIA: the kernel module's refusal of a client of another version (a half-done driver
update), nvidia-modeset's and nvidia-drm's display-engine timeouts, the resource manager's
allocation failures (on unified-memory GB10/Grace boxes the GPU allocates from system RAM),
and the Tegra nvgpu driver of Jetson/Orin boards (NVIDIA's L4T kernel, not NVRM). amdgpu: RAS
reports of uncorrectable hardware errors, SDMA's refusal of a privileged command from a user
queue, and the ring and IB tests the driver runs at init, resume and after a reset.

Two entries here carry a tag of another module: `amdgpu_smu_timeout` (gpu.py) gains the
SMC-start wording of the resume path, and `iommu_fault` (hardware.py) the AMD IOMMU's
INVALID_DEVICE_REQUEST event, routine here because the root complex logs it at every GPU
reset. The first entry of a tag (gpu.py, hardware.py) gives its meaning, next step and
incident trigger; table.py registers this module last so that it stays so.
"""

from __future__ import annotations

from kmsgd.catalogue.base import (
    DeviceKind,
    Format,
    MatchInput,
    Severity,
    Signature,
    Trigger,
    nvrm_line,
    sig,
)

_PCI = DeviceKind.PCI
AMDGPU = "gpu.amdgpu"
NVIDIA = "gpu.nvidia"
NVGPU = "gpu.nvgpu"

# the prefixes the printing macros add (representative device and function): dev_printk with
# amdgpu's dev_fmt "amdgpu: " (5.x+), DRM_ERROR's "[drm:<function> [<module>]] *ERROR* ",
# NV_PRINTF's "NVRM: <function>: ", nvgpu's LOG_FMT columns
_DEV = "amdgpu 0000:03:00.0: amdgpu: "
_DEV_NOFMT = "amdgpu 0000:03:00.0: "  # DRM_DEV_ERROR and dev_printk, which skip dev_fmt
_RAS_EVENT = _DEV_NOFMT + "{1}"  # amdgpu_ras.c RAS_EVENT_LOG: dev_printk "{%llu}%pV" (6.12+)


def _drm(func: str, module: str = "amdgpu") -> str:
    return f"[drm:{func} [{module}]] *ERROR* "


def _nvgpu(func: str, line: int) -> str:
    return f"nvgpu: 17000000.gpu {func:>33}:{line:<4d} [ERR]  "


_OSAPI = "nvidia:src/nvidia/arch/nvalloc/unix/src/osapi.c"
_NVASSERT = "nvidia:src/nvidia/src/libraries/utils/nvassert.c"
_NVRM = "nvidia:src/nvidia/"
_NVK = "nvidia:kernel-open/nvidia/"


def _nv(func: str) -> str:
    """NV_PRINTF's prefix when the message has a GPU: "NVRM: GPU<n> <function>: "."""
    return f"NVRM: GPU0 {func}: "


_NVGPU_SRC = "nvgpu:drivers/gpu/nvgpu/"  # NVIDIA's L4T nvgpu (linux-nvgpu, L4T r36 tree)
_AMD = "drivers/gpu/drm/amd/amdgpu/"


def _amdgpu_line(m: object, i: MatchInput) -> bool:
    # the driver names itself: dev_printk's "amdgpu 0000:03:00.0:", DRM_ERROR's
    # "[drm:… [amdgpu]]", or pr_fmt's "amdgpu: " inside the message (4.x DRM_ERROR texts)
    return "amdgpu" in i.text or "drmn" in i.text


MORE_GPU_SIGNATURES: tuple[Signature, ...] = (
    # src/nvidia/arch/nvalloc/unix/src/osapi.c RmPerformVersionCheck, nv_printf with embedded
    # newlines (one record; rsyslog shows them as #012, dmesg as indented lines):
    # r515-r570 "NVRM: API mismatch: the client has the version %s, but\nNVRM: this kernel
    # module has the version %s.  Please\n…"; r575+ "NVRM: API mismatch: the client '%s'
    # (pid %u)\nNVRM: has the version %s, but this kernel module has\nNVRM: the version %s.
    # …". kernel-open/nvidia-modeset/nvidia-modeset-linux.c nvkms_alloc_rm:
    # "nvidia-modeset: Version mismatch: nvidia.ko(%s) nvidia-modeset.ko(%s)"
    sig(
        "nvidia_api_mismatch",
        r"NVRM: API mismatch: the client (?:has the version|'[^']*' \(pid \d+\))"
        r"|nvidia-modeset: Version mismatch: nvidia\.ko\(",
        ("mismatch",),
        Severity.ERROR,
        NVIDIA,
        "The NVIDIA kernel module refused a user-space driver component of another version "
        "(an API mismatch): the GPU is unusable to that program until the versions agree.",
        "A driver update is half done: reboot so the new kernel module loads, or reinstall one "
        "driver version for all parts (kernel module, DKMS build, user-space libraries, "
        "initramfs); an init failure after it is its consequence.",
        30,
        device_kind=_PCI,
        formats=(
            Format(
                "NVRM: API mismatch: the client has the version %s, but\nNVRM: this kernel module "
                "has the version %s.  Please\nNVRM: make sure that this kernel module and all "
                "NVIDIA driver\nNVRM: components have the same version.",
                _OSAPI,
                "r515-r570",
                args=("535.54.03", "530.30.02"),
            ),
            Format(
                "NVRM: API mismatch: the client '%s' (pid %u)\nNVRM: has the version %s, but "
                "this kernel module has\nNVRM: the version %s.  Please make sure that this\n"
                "NVRM: kernel module and all NVIDIA driver components\nNVRM: have the same "
                "version.",
                _OSAPI,
                "r575-r595",
                args=("kwin_wayland", 1005, "580.82.07", "575.64.05"),
            ),
            Format(
                "Version mismatch: nvidia.ko(%s) nvidia-modeset.ko(%s)",
                "nvidia:kernel-open/nvidia-modeset/nvidia-modeset-linux.c",
                "r515-r595",
                "nvidia-modeset: ",
                args=("570.153.02", "575.64.05"),
            ),
        ),
    ),
    # src/nvidia-modeset/src/nvkms-rm.c SyncOneEvoChannel (r515-r595): nvEvoLogDev(…,
    # EVO_LOG_ERROR, "Idling display engine timed out: 0x%08x:%d:%d:%d"), printed as
    # "nvidia-modeset: ERROR: GPU:%d: …"
    sig(
        "nvidia_display_engine_timeout",
        r"Idling display engine timed out: 0x[0-9a-fA-F]+",
        ("Idling",),
        Severity.ERROR,
        NVIDIA,
        "NVIDIA's display engine did not go idle when the driver asked it to (the screen "
        "freezes or goes black while the rest of the box runs).",
        "A display-side hang: note the modes and monitors in use (high refresh, 8K, MST, "
        "VRR), update the driver, and try another cable or port; repeated lines before a freeze "
        "name it as the cause.",
        32,
        device_kind=_PCI,
        formats=(
            Format(
                "Idling display engine timed out: 0x%08x:%d:%d:%d",
                "nvidia:src/nvidia-modeset/src/nvkms-rm.c",
                "r515-r595",
                "nvidia-modeset: ERROR: GPU:0: ",
                args=(0xC67E, 0, 0, 1128),
            ),
        ),
    ),
    # kernel-open/nvidia-drm/nvidia-drm-modeset.c nv_drm_atomic_commit (r515-r595):
    # NV_DRM_DEV_LOG_ERR(nv_dev, "Flip event timeout on head %u"), i.e. DRM_ERROR("[nvidia-drm]
    # [GPU ID 0x%08x] Flip event timeout on head %u"); a pager may cut the line inside
    # "timeout", so the pattern ends on the words the format fixes before it; a retyped
    # paste may put a colon after the GPU ID's bracket
    sig(
        "nvidia_flip_timeout",
        r"\[nvidia-drm\] (?:\[GPU ID 0x[0-9a-fA-F]+\]:? )?Flip event timeo",
        ("Flip",),
        Severity.ERROR,
        NVIDIA,
        "A page flip on an NVIDIA display did not complete within 3 seconds: the display "
        "engine stopped presenting frames (a frozen or black screen).",
        "A display-side hang: note the compositor and monitors, update the driver; if the box "
        "still answers over the network, the GPU's compute side may be fine.",
        33,
        device_kind=_PCI,
        formats=(
            Format(
                "[nvidia-drm] [GPU ID 0x%08x] Flip event timeout on head %u",
                "nvidia:kernel-open/nvidia-drm/nvidia-drm-modeset.c",
                "r515-r595",
                _drm("nv_drm_atomic_commit", "nvidia_drm"),
                args=(0x100, 0),
            ),
        ),
    ),
    # src/nvidia/src/libraries/utils/nvassert.c nvCheckOkFailedNoLog / nvAssertOkFailedNoLog:
    # "Check failed: %s (0x%08X) returned from %s @ %s:%d" and "Assertion failed: …", the %s
    # being nvstatusToString's "<text> [<name>]" (nvstatus.c: string " [" #name "]"), here
    # NV_ERR_NO_MEMORY (nvstatuscodes.h: 0x00000051, "Out of memory"); any NV_PRINTF of a
    # status name carries the same "[NV_ERR_NO_MEMORY]"
    sig(
        "nvidia_no_memory",
        r"\[NV_ERR_NO_MEMORY\]",
        ("NV_ERR_NO_MEMORY",),
        Severity.ERROR,
        NVIDIA,
        "NVIDIA's resource manager could not allocate memory for a GPU object "
        "(NV_ERR_NO_MEMORY); on unified-memory machines (GB10, Grace) the GPU allocates "
        "from system RAM, so the whole box runs out.",
        "Find what holds the memory (the GPU workload's size, other processes, page cache); "
        "on unified-memory boxes leave system RAM for the driver or lower the model size.",
        34,
        device_kind=_PCI,
        check=nvrm_line,
        # NV_ASSERT_FAILED_PRINTF_FMT is "%s @ %s:%d"
        formats=(
            Format(
                "Check failed: %s (0x%08X) returned from %s @ %s:%d",
                _NVASSERT,
                "r515-r595",
                "NVRM: nvCheckOkFailedNoLog: ",
                args=(
                    "Out of memory [NV_ERR_NO_MEMORY]",
                    0x51,
                    "_memdescAllocInternal(pMemDesc)",
                    "mem_desc.c",
                    1359,
                ),
            ),
            Format(
                "Assertion failed: %s (0x%08X) returned from %s @ %s:%d",
                _NVASSERT,
                "r515-r595",
                "NVRM: nvAssertOkFailedNoLog: ",
                args=("Out of memory [NV_ERR_NO_MEMORY]", 0x51, "status", "kernel_gsp.c", 4615),
            ),
        ),
    ),
    # NVIDIA's L4T nvgpu (drivers/gpu/nvgpu/os/linux/log.c LOG_FMT "nvgpu: %s %33s:%-4d [%s]
    # %s", [ERR] from nvgpu_err): the failures of the GPU's firmware processors, which leave
    # the integrated GPU unusable: common/pmu/lsfm/lsfm.c "LSF Load failed",
    # common/gr/gr_falcon.c "Unable to recover GR falcon", common/engine_queues/
    # engine_fb_queue.c "falcon id-%d, queue id-%d, failed", common/acr "ACR bootstrap
    # failed", common/pmu "PMU queue init failed", "failed to load fecs ucode!!"; and the GPU
    # MMU fault that kills a channel: hal/fifo/mmu_fault_gk20a.c gk20a_fifo_mmu_fault_info_dump
    # "MMU fault @ address: 0x%llx %s", Volta and later's replayable-fault buffer
    # (hal/mm/mmu_fault/mmu_fault_gv11b_fusa.c gv11b_mm_mmu_fault_handle_buf_valid_entry "page
    # fault error: err_type = 0x%x, fault_status = 0x%x", hal/fb/fb_mmu_fault_gv11b_fusa.c
    # gv11b_fb_mmu_fault_info_dump "[MMU FAULT] mmu engine id:  %d, ch id:  %d, fault addr:
    # 0x%llx, …"), the recovery (common/rc/rc.c nvgpu_rc_mmu_fault_recovery "mmu fault id=%u
    # id_type=%u act_eng_bitmask=%08x") and common/fifo/tsg.c "TSG %d generated a mmu fault"
    # (L4T r36), and the one-line report of the older trees, which print it without
    # nvgpu's log format too: gk20a/fifo_gk20a.c gk20a_fifo_handle_mmu_fault nvgpu_err "%s
    # mmu fault on engine %d, engine subid %d (%s), client %d (%s), addr 0x%llx, type %d
    # (%s), access_type 0x%08x,inst_ptr 0x%llx" (L4T r32, TX1/TX2/Nano) and gk20a_err (dev_err
    # "<function>: ") "… addr 0x%08x:0x%08x, type %d (%s), info 0x%08x,inst_ptr 0x%llx"
    # (L4T r21-r24, TK1/TX1), nvhost_err "mmu fault on engine %d, engine_subid %d, client %d,
    # addr 0x%08x:0x%08x, type %d, info 0x%08x" (L4T r16-r19)
    sig(
        "nvgpu_error",
        r"nvgpu: \S+ +\S+:\d+ +\[ERR\] +(?:LSF Load failed|Unable to recover GR falcon"
        r"|falcon id-\d+, queue id-\d+, failed|ACR bootstrap failed|ACR GR LSF bootstrap failed"
        r"|falcon bootstrap failed|falcon reset failed|PMU queue init failed"
        r"|failed to load fecs ucode|FECS context switch init error|failed to init gr falcon"
        r"|MMU fault @ address: 0x|(?:TSG|channel) \d+ generated a mmu fault"
        r"|\[MMU FAULT\] mmu engine id: |page fault error: err_type = 0x"
        r"|mmu fault id=\d+ id_type=\d+)"
        r"|\b(?:fake )?mmu fault on engine \d+, engine[ _]subid \d+",
        ("ERR", "mmu"),
        Severity.ERROR,
        NVGPU,
        "The Tegra GPU driver (nvgpu, Jetson/Orin) could not load or start one of the GPU's "
        "firmware processors (falcon: PMU, FECS, GR, ACR): the integrated GPU is unusable.",
        "Check that the L4T release, its device tree (the board's memory size) and the "
        "firmware in /lib/firmware match; a missing or too small CMA pool fails the same way.",
        36,
        formats=(
            Format(
                "MMU fault @ address: 0x%llx %s",
                _NVGPU_SRC + "hal/fifo/mmu_fault_gk20a.c",
                "L4T r36",
                _nvgpu("gk20a_fifo_mmu_fault_info_dump", 214),
                args=(0x7FADF9D000, ""),
            ),
            Format(
                "page fault error: err_type = 0x%x, fault_status = 0x%x",
                _NVGPU_SRC + "hal/mm/mmu_fault/mmu_fault_gv11b_fusa.c",
                "L4T r36",
                _nvgpu("gv11b_mm_mmu_fault_handle_buf_valid_entry", 532),
                args=(0x8, 0x200),
            ),
            Format(
                "[MMU FAULT] mmu engine id:  %d, ch id:  %d, fault addr: 0x%llx, fault addr "
                "aperture: %d, fault type: %s, access type: %s, ",
                _NVGPU_SRC + "hal/fb/fb_mmu_fault_gv11b_fusa.c",
                "L4T r36",
                _nvgpu("gv11b_fb_mmu_fault_info_dump", 294),
                args=(18, 479, 0, 0, "invalid pde", "virt read"),
            ),
            Format(
                "mmu fault id=%u id_type=%u act_eng_bitmask=%08x",
                _NVGPU_SRC + "common/rc/rc.c",
                "L4T r36",
                _nvgpu("nvgpu_rc_mmu_fault_recovery", 399),
                args=(8, 1, 0x20),
            ),
            Format(
                "TSG %d generated a mmu fault",
                _NVGPU_SRC + "common/fifo/tsg.c",
                "L4T r36",
                _nvgpu("nvgpu_tsg_set_ctx_mmu_error", 1069),
                args=(4,),
            ),
            Format(
                "%s mmu fault on engine %d, engine subid %d (%s), client %d (%s), addr 0x%llx, "
                "type %d (%s), access_type 0x%08x,inst_ptr 0x%llx",
                "nvgpu:drivers/gpu/nvgpu/gk20a/fifo_gk20a.c",
                "L4T r32",
                _nvgpu("gk20a_fifo_handle_mmu_fault_locked", 1723),
                args=("", 0, 0, "gpc", 4, "t1 1", 0x7FADF9D000, 3, "va limit viol", 1, 0x7FE431000),
            ),
            Format(
                "%s mmu fault on engine %d, engine subid %d (%s), client %d (%s), addr "
                "0x%08x:0x%08x, type %d (%s), info 0x%08x,inst_ptr 0x%llx",
                "nvgpu:drivers/gpu/nvgpu/gk20a/fifo_gk20a.c",
                "L4T r21-r24",
                "gk20a 57000000.gpu: gk20a_fifo_handle_mmu_fault: ",
                args=("", 0, 0, "gpc", 7, "gpccs", 0, 0x1000, 2, "pde", 0, 0x1234000),
            ),
            Format(
                "LSF Load failed",
                _NVGPU_SRC + "common/pmu/lsfm/lsfm.c",
                "L4T r36",
                _nvgpu("nvgpu_pmu_lsfm_bootstrap_ls_falcon", 128),
            ),
            Format(
                "Unable to recover GR falcon",
                _NVGPU_SRC + "common/gr/gr_falcon.c",
                "L4T r36",
                _nvgpu("nvgpu_gr_falcon_load_secure_ctxsw_ucode", 718),
            ),
            Format(
                "falcon id-%d, queue id-%d, failed",
                _NVGPU_SRC + "common/engine_queues/engine_fb_queue.c",
                "L4T r36",
                _nvgpu("nvgpu_engine_fb_queue_push", 401),
                args=(0, 1),
            ),
            Format(
                "ACR bootstrap failed",
                _NVGPU_SRC + "common/acr/acr.c",
                "L4T r36",
                _nvgpu("nvgpu_acr_bootstrap_hs_acr", 201),
            ),
        ),
    ),
    # amdgpu_ras.c amdgpu_ras_global_ras_isr: DRM_WARN "RAS event of type
    # ERREVENT_ATHUB_INTERRUPT detected!" (5.3-5.5), dev_info "uncorrectable hardware
    # error(ERREVENT_ATHUB_INTERRUPT) detected!" (5.6+; RAS_EVENT_LOG prefixes "{%llu}" from
    # 6.10; 6.18 also dev_err "uncorrectable hardware error (ERREVENT_ATHUB_INTERRUPT)
    # detected!" for an event already marked), the RAS manager's
    # amdgpu_ras_sys_detect_fatal_event "{%llu} Uncorrectable hardware
    # error(ERREVENT_ATHUB_INTERRUPT) detected!"; the error counts: "%ld
    # uncorrectable hardware errors detected in %s block" (amdgpu_ras.c, amdgpu_umc.c "… in
    # UMC block"), "socket: %d, die: %d, %lld new uncorrectable hardware errors detected in
    # %s block" (6.8+), "… detected in total in %s block"; printed only for a count above
    # zero, the all-clear reads "no uncorrectable"; "Poison is created, no user action is
    # needed." is a deferred error the driver handles, not one of these
    sig(
        "amdgpu_ras_uncorrectable",
        r"[Uu]ncorrectable hardware error ?\(ERREVENT_ATHUB_INTERRUPT\) detected"
        r"|RAS event of type ERREVENT_ATHUB_INTERRUPT detected"
        r"|(?<![\w.])[1-9]\d* (?:new )?uncorrectable hardware errors detected in (?:total in )?"
        r"\w+ block",
        ("ERREVENT_ATHUB_INTERRUPT", "uncorrectable", "Uncorrectable"),
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's RAS logic reported an uncorrectable hardware error (HBM/VRAM ECC, a "
        "poisoned access, or a fatal ATHUB interrupt); the driver resets the GPU next.",
        "A hardware fault, not a software hang: read the block named (umc is the memory), "
        "check the RAS bad-page table (amdgpu_ras_eeprom), and have the card replaced if it "
        "repeats; the reset and failures after it are consequences.",
        29,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
                _AMD + "amdgpu_ras.c",
                "5.15-6.8",
                _DEV,
            ),
            Format(
                "uncorrectable hardware error(ERREVENT_ATHUB_INTERRUPT) detected!",
                _AMD + "amdgpu_ras.c",
                "6.12-6.18",
                _RAS_EVENT,
            ),
            Format(
                "uncorrectable hardware error (ERREVENT_ATHUB_INTERRUPT) detected!",
                _AMD + "amdgpu_ras.c",
                "6.18",
                _DEV,
            ),
            *(
                Format(
                    "%ld uncorrectable hardware errors detected in %s block",
                    _AMD + "amdgpu_ras.c",
                    versions,
                    prefix,
                    args=(2, "umc"),
                )
                for versions, prefix in (("5.15-6.8", _DEV), ("6.12-6.18", _RAS_EVENT))
            ),
            *(
                Format(
                    "socket: %d, die: %d %ld uncorrectable hardware errors detected in %s block",
                    _AMD + "amdgpu_ras.c",
                    versions,
                    prefix,
                    args=(0, 1, 4, "umc"),
                )
                for versions, prefix in (("5.15-6.8", _DEV), ("6.12-6.18", _RAS_EVENT))
            ),
            Format(
                "socket: %d, die: %d, %lld new uncorrectable hardware errors detected in %s block",
                _AMD + "amdgpu_ras.c",
                "6.8-6.18",
                _DEV,
                args=(0, 1, 4, "umc"),
            ),
            Format(
                "socket: %d, die: %d, %lld uncorrectable hardware errors detected in total in %s "
                "block",
                _AMD + "amdgpu_ras.c",
                "6.8-6.18",
                _DEV,
                args=(0, 1, 8, "umc"),
            ),
        ),
    ),
    # sdma_v4_0.c sdma_v4_0_process_srbm_write_irq (5.11+): dev_err "SDMA gets an Register
    # Write SRBM_WRITE command in non-privilege command buffer" (ratelimited, then dev_dbg
    # from 6.x)
    sig(
        "amdgpu_sdma_illegal_command",
        r"SDMA gets an Register Write SRBM_WRITE command in non-privilege command buffer",
        ("SRBM_WRITE",),
        Severity.ERROR,
        AMDGPU,
        "An SDMA (copy engine) queue of a user program sent a privileged register write the "
        "engine refused; the engine's work, often a peer-to-peer copy, goes wrong after it.",
        "Note the process in the lines after it; with peer-to-peer copies between GPUs, check "
        "that the platform supports P2P (PCIe switch, IOMMU, ACS) or disable it for ROCm.",
        33,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "SDMA gets an Register Write SRBM_WRITE command in non-privilege command buffer",
                _AMD + "sdma_v4_0.c",
                "5.15-6.18",
                _DEV,
            ),
        ),
    ),
    # the ring and IB tests (a command the engine must execute): 4.x gfx_v6/v7/v8/v9
    # *_ring_test_ring DRM_ERROR "amdgpu: ring %d test failed (scratch(0x%04X)=0x%08X)",
    # *_ring_test_ib "amdgpu: ib test failed (scratch(0x%04X)=0x%08X)", amdgpu_ib.c
    # amdgpu_ib_ring_tests "amdgpu: failed testing IB on GFX ring (%d)." / "… on ring %d (%d)."
    # (4.x); 5.x+ amdgpu_ring.c amdgpu_ring_test_helper DRM_DEV_ERROR "ring %s test failed
    # (%d)" and amdgpu_ib.c "IB test failed on %s (%d)."
    sig(
        "amdgpu_ring_test_failure",
        r"amdgpu: (?:ring \d+|ib) test failed \(scratch\(0x[0-9a-fA-F]+\)=0x"
        r"|amdgpu: failed testing IB on (?:GFX ring|ring \d+) \(-?\d+\)"
        r"|\bring \S+ test failed \(-?\d+\)|\bIB test failed on \S+ \(-?\d+\)",
        ("failed",),
        Severity.ERROR,
        AMDGPU,
        "A GPU command ring failed the driver's self-test (a test command was not executed), "
        "at init, resume or after a reset: that engine is not running.",
        "At init or resume: check firmware (linux-firmware) against the kernel, PCIe power and "
        "ASPM; after a reset: the reset did not bring the engine back, read the lines before.",
        37,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "amdgpu: ring %d test failed (scratch(0x%04X)=0x%08X)",
                _AMD + "gfx_v8_0.c",
                "4.4-4.19",
                _drm("gfx_v8_0_ring_test_ring"),
                args=(2, 0xC040, 0xCAFEDEAD),
            ),
            Format(
                "amdgpu: ib test failed (scratch(0x%04X)=0x%08X)",
                _AMD + "gfx_v7_0.c",
                "4.4-4.19",
                _drm("gfx_v7_0_ring_test_ib"),
                args=(0xC040, 0xCAFEDEAD),
            ),
            Format(
                "amdgpu: failed testing IB on GFX ring (%d).",
                _AMD + "amdgpu_ib.c",
                "4.4-4.19",
                _drm("amdgpu_ib_ring_tests"),
                args=(-110,),
            ),
            Format(
                "amdgpu: failed testing IB on ring %d (%d).",
                _AMD + "amdgpu_ib.c",
                "4.4-4.19",
                _drm("amdgpu_ib_ring_tests"),
                args=(9, -110),
            ),
            Format(
                "ring %s test failed (%d)",
                _AMD + "amdgpu_ring.c",
                "5.4-6.18",
                _DEV_NOFMT + _drm("amdgpu_ring_test_helper"),
                args=("kiq_2.1.0", -110),
            ),
            Format(
                "IB test failed on %s (%d).",
                _AMD + "amdgpu_ib.c",
                "5.4-6.18",
                _DEV_NOFMT + _drm("amdgpu_ib_ring_tests"),
                args=("gfx_0.0.0", -110),
            ),
        ),
    ),
    # pm/swsmu/amdgpu_smu.c smu_hw_init / smu_resume: dev_err "SMC engine is not correctly
    # up!" ("SMU is not ready yet!" in earlier 5.x), after smu_start_smc_engine's firmware
    # status check failed with dev_err "SMC is not ready";
    # amdgpu_device.c amdgpu_device_ip_resume_phase2: "resume of IP block <%s> failed %d" for
    # the <smu> block (the suspend side is gpu.py's)
    sig(
        "amdgpu_smu_timeout",
        r"SMC engine is not correctly up|\bSMC is not ready\b|SMU is not ready yet!"
        r"|resume of IP block <smu> failed",
        ("SMC", "smu", "yet"),  # not "SMU": routine lines ("SMU is resumed") carry it
        Severity.CRITICAL,
        AMDGPU,
        "The GPU's power-management firmware (SMU) did not start or answer on resume.",
        "See amdgpu_smu_timeout in gpu.py.",
        30,
        device_kind=_PCI,
        check=_amdgpu_line,
        trigger=Trigger("gpu_hang"),  # kmsgd/record/triggers.py carries this wording too
        formats=(
            Format(
                "SMC is not ready", "drivers/gpu/drm/amd/pm/swsmu/amdgpu_smu.c", "5.15-6.18", _DEV
            ),
            Format(
                "SMC engine is not correctly up!",
                "drivers/gpu/drm/amd/pm/swsmu/amdgpu_smu.c",
                "5.15-6.18",
                _DEV,
            ),
            Format(
                "resume of IP block <%s> failed %d",
                _AMD + "amdgpu_device.c",
                "4.19-6.18",
                _drm("amdgpu_device_ip_resume_phase2"),
                args=("smu", -5),
            ),
        ),
    ),
    # drivers/iommu/amd/iommu.c iommu_print_event (amd_iommu.c before 5.8), EVENT_TYPE_INV_DEV_REQ:
    # printk "INVALID_DEVICE_REQUEST device=%02x:%02x.%x …" (4.4), dev_err
    # "INVALID_DEVICE_REQUEST device=%02x:%02x.%x pasid=0x%05x address=0x%016llx
    # flags=0x%04x]" (4.19), "Event logged [INVALID_DEVICE_REQUEST device=%02x:%02x.%x
    # pasid=0x%05x address=0x%llx flags=0x%04x]" (5.4-5.15; "%04x:%02x:%02x.%x" with the
    # PCI segment 6.1-6.18), printed as "iommu ivhd0: AMD-Vi: Event logged […]" (dev_fmt
    # "AMD-Vi: "); the root complex (00:00.0)
    # logs it with flags=0x0a00 at the interrupt range on a GPU reset, so it is reported,
    # never blamed first
    sig(
        "iommu_fault",
        r"\bINVALID_DEVICE_REQUEST device=",
        ("INVALID_DEVICE_REQUEST",),
        Severity.WARNING,
        "iommu",
        "The AMD IOMMU rejected a request a device was not allowed to make.",
        "See iommu_fault in hardware.py; from 00:00.0 with flags=0x0a00 it is routine.",
        22,
        device_kind=_PCI,
        routine=True,
        formats=(
            Format(
                "Event logged [INVALID_DEVICE_REQUEST device=%04x:%02x:%02x.%x pasid=0x%05x "
                "address=0x%llx flags=0x%04x]",
                "drivers/iommu/amd/iommu.c",
                "6.1-6.18",
                "iommu ivhd1: AMD-Vi: ",
                args=(0, 0, 0, 0, 0, 0xFFFFFFFDF8000000, 0x0A00),
            ),
            Format(
                "Event logged [INVALID_DEVICE_REQUEST device=%02x:%02x.%x pasid=0x%05x "
                "address=0x%llx flags=0x%04x]",
                "drivers/iommu/amd/iommu.c",
                "5.4-5.15",
                "iommu ivhd0: AMD-Vi: ",
                args=(0x30, 0, 6, 0, 0xFFFFFFFDF8000000, 0x0A00),
            ),
        ),
    ),
    # nvassert.c nvAssertFailed / nvAssertFailedNoLog: NV_ASSERT_PRINTF "Assertion failed: "
    # NV_ASSERT_FAILED_PRINTF_FMT ("%s @ %s:%d": the expression, file and line), after
    # NV_PRINTF's "NVRM: " and the function (the open modules add "GPU%d " when the assert
    # has a GPU); the plain assert names no NV_ERR status (nvAssertOkFailed's "... returned
    # from" does, and its status tags say what failed): an RM invariant broken, which the
    # driver logs and goes on past
    sig(
        "nvidia_rm_assertion",
        r"NVRM:? (?:GPU\d+ )?nvAssertFailed(?:NoLog)?: Assertion failed: .+ @ \S+:\d+",
        ("nvAssertFailedNoLog", "nvAssertFailed"),
        Severity.ERROR,
        NVIDIA,
        "An internal consistency check of NVIDIA's resource manager failed (an RM assertion): "
        "the driver met a state its code rules out and went on, often with the GPU or display "
        "left unusable.",
        "Note the expression, file and line and the driver and kernel versions; search the "
        "driver's issue tracker for them, and try another driver branch or kernel.",
        34,
        device_kind=_PCI,
        check=nvrm_line,
        formats=(
            Format(
                "Assertion failed: %s @ %s:%d",
                _NVASSERT,
                "r535-r595",
                "NVRM: GPU0 nvAssertFailedNoLog: ",
                args=("GPPut < WATCHDOG_GPFIFO_ENTRIES", "kernel_rc_watchdog.c", 1549),
            ),
            Format(
                "Assertion failed: %s @ %s:%d",
                _NVASSERT,
                "r535-r595",
                "NVRM: nvAssertFailedNoLog: ",
                args=("pRpc != NULL", "objvgpu.c", 150),
            ),
        ),
    ),
    # NVIDIA's open modules, the RPC path from the CPU's resource manager to GSP-RM:
    # vgpu rpc.c _issueRpcAndWait "rpcSendMessage failed with status 0x%08x for fn %d!"
    # (r515-r595; r590+ add " sequence %d" on the first of its three call sites) and
    # _issueRpcAndWaitLarge's / rpcRecvPoll's "rpcRecvPoll failed with status 0x%08x for fn
    # %d!" (a failure other than NV_ERR_TIMEOUT, which prints "rpcRecvPoll timedout": the
    # nvidia_gsp_timeout below); kernel_gsp.c _kgspRpcSendMessage "GspMsgQueueSendCommand
    # failed: 0x%x" (r515-r525), "... failed on GPU%d: 0x%x" (r530-r595); message_queue_cpu.c
    # GspMsgQueueSendCommand's encryption of the queue element under confidential computing
    # "Encryption failed with status = 0x%x." (r535.86-r595) and its IV exhaustion, and the
    # receive side's "Fatal error detected in RPC decrypt: 0x%x!" (r550-r595): the driver can
    # no longer talk to the GPU's firmware, so every later call (GspRmFree/GspRmAlloc failed,
    # an RmInitAdapter that re-initialises the GPU, Xid follow-ups) fails after it. A status
    # of 0x0000000f is NV_ERR_GPU_IS_LOST (nvstatuscodes.h): a GPU gone from the bus, whose
    # own line (gpu_fell_off_bus, Xid 79) leads when the paste has it (judge/chains.py).
    # rpc.c rpcRmApiAlloc_GSP / rpcRmApiFree_GSP print "GspRmAlloc failed: hClient=0x%08x;
    # hParent=0x%08x; hObject=0x%08x; hClass=0x%08x; paramsSize=0x%08x; paramsStatus=0x%08x;
    # status=0x%08x" and "GspRmFree failed: hClient=0x%08x; hObject=0x%08x;
    # paramsStatus=0x%08x; status=0x%08x" (r535-r595) at LEVEL_ERROR unless the caller asked
    # for quiet prints: an allocation or free sent to GSP-RM that failed there or on the way
    sig(
        "nvidia_gsp_rpc_failure",
        r"rpcSendMessage failed with status 0x[0-9a-fA-F]+ for fn \d+"
        r"|rpcRecvPoll failed with status 0x[0-9a-fA-F]+ for fn \d+"
        r"|GspMsgQueueSendCommand failed(?: on GPU\d+)?: 0x[0-9a-fA-F]+"
        r"|Encryption failed with status = 0x[0-9a-fA-F]+\."
        r"|Fatal error detected in RPC (?:encrypt: IV overflow|decrypt: 0x)"
        r"|GspRm(?:Alloc|Free) failed: hClient=0x[0-9a-fA-F]+;",
        (
            "rpcSendMessage",
            "rpcRecvPoll",
            "GspMsgQueueSendCommand",
            "Encryption",
            "RPC",
            "GspRmAlloc",
            "GspRmFree",
        ),
        Severity.CRITICAL,
        NVIDIA,
        "The NVIDIA driver could not send a request to the GPU's System Processor (GSP "
        "firmware) or read its answer: the GPU no longer takes commands (status 0x0000000f: "
        "the GPU is lost from the bus).",
        "Look for the GPU falling off the bus or a GSP timeout before it; otherwise check PCIe "
        "and power, update the driver, and under confidential computing (TDX, SEV-SNP) the "
        "guest's CC setup and the driver's CC support for this GPU.",
        31,
        device_kind=_PCI,
        check=nvrm_line,
        formats=(
            Format(
                "rpcSendMessage failed with status 0x%08x for fn %d!",
                _NVRM + "kernel/vgpu/nv/rpc.c",
                "r515-r555",
                _nv("_issueRpcAndWait"),
                args=(0x1F, 10),
            ),
            Format(
                "rpcSendMessage failed with status 0x%08x for fn %d!",
                _NVRM + "src/kernel/vgpu/rpc.c",
                "r560-r595",
                "NVRM: _issueRpcAndWait: ",
                args=(0xF, 76),
            ),
            Format(
                "rpcSendMessage failed with status 0x%08x for fn %d sequence %d!",
                _NVRM + "src/kernel/vgpu/rpc.c",
                "r590-r595",
                _nv("_issueRpcAndWait"),
                args=(0xF, 78, 1091),
            ),
            Format(
                "rpcRecvPoll failed with status 0x%08x for fn %d!",
                _NVRM + "src/kernel/vgpu/rpc.c",
                "r560-r580",
                _nv("_issueRpcAndWaitLarge"),
                args=(0x1F, 10),
            ),
            Format(
                "GspMsgQueueSendCommand failed: 0x%x",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r515-r525",
                _nv("_kgspRpcSendMessage"),
                args=(0x65,),
            ),
            Format(
                "GspMsgQueueSendCommand failed on GPU%d: 0x%x",
                _NVRM + "src/kernel/gpu/gsp/kernel_gsp.c",
                "r530-r595",
                "NVRM: _kgspRpcSendMessage: ",
                args=(0, 0x1F),
            ),
            Format(
                "Encryption failed with status = 0x%x.",
                _NVRM + "src/kernel/gpu/gsp/message_queue_cpu.c",
                "r535.86.05-r595",
                "NVRM: GspMsgQueueSendCommand: ",
                args=(0x1F,),
            ),
            Format(
                "GspRmAlloc failed: hClient=0x%08x; hParent=0x%08x; hObject=0x%08x; "
                "hClass=0x%08x; paramsSize=0x%08x; paramsStatus=0x%08x; status=0x%08x",
                _NVRM + "src/kernel/vgpu/rpc.c",
                "r535-r595",
                "NVRM: rpcRmApiAlloc_GSP: ",
                args=(0xC1D1A616, 0x5C000054, 0x5C00005B, 0xC86F, 0x170, 0x62, 0x62),
            ),
            Format(
                "GspRmFree failed: hClient=0x%08x; hObject=0x%08x; paramsStatus=0x%08x; "
                "status=0x%08x",
                _NVRM + "src/kernel/vgpu/rpc.c",
                "r535-r595",
                _nv("rpcRmApiFree_GSP"),
                args=(0xC1D00029, 0xBEEF0100, 0, 0xF),
            ),
            Format(
                "Fatal error detected in RPC encrypt: IV overflow!",
                _NVRM + "src/kernel/gpu/gsp/message_queue_cpu.c",
                "r550-r595",
                _nv("GspMsgQueueSendCommand"),
            ),
            Format(
                "Fatal error detected in RPC decrypt: 0x%x!",
                _NVRM + "src/kernel/gpu/gsp/message_queue_cpu.c",
                "r550-r595",
                _nv("GspMsgQueueReceiveStatus"),
                args=(0x1F,),
            ),
        ),
    ),
    # vgpu rpc.c: the wait for GSP-RM's answer running out (status NV_ERR_TIMEOUT), printed
    # by _issueRpcAndWait / rpcRecvPoll as "rpcRecvPoll timedout for fn %d!" (r515-r580, in
    # kernel/vgpu/nv/rpc.c until r555;
    # r590+ add " sequence %u"): the same stop as kernel_gsp.c's "Timeout waiting for RPC"
    sig(
        "nvidia_gsp_timeout",
        r"rpcRecvPoll timedout for fn \d+",
        ("rpcRecvPoll",),
        Severity.CRITICAL,
        NVIDIA,
        "The GPU's System Processor (GSP firmware) stopped answering the driver (Xid 119/120).",
        "See nvidia_gsp_timeout.",
        30,
        device_kind=_PCI,
        check=nvrm_line,
        formats=(
            Format(
                "rpcRecvPoll timedout for fn %d!",
                _NVRM + "kernel/vgpu/nv/rpc.c",
                "r515-r555",
                _nv("_issueRpcAndWait"),
                args=(76,),
            ),
            Format(
                "rpcRecvPoll timedout for fn %d sequence %u!",
                _NVRM + "src/kernel/vgpu/rpc.c",
                "r590-r595",
                "NVRM: _issueRpcAndWait: ",
                args=(76, 2201),
            ),
        ),
    ),
    # osapi.c RmIsDeviceSupported/rm_is_supported_device (one nv_printf of several lines, the
    # second saying what refused it): "NVRM: installed in this system is not supported by the\n
    # NVRM: NVIDIA %s driver release." (a GPU this branch does not support, r515-r595), "...
    # not supported by open\nNVRM: nvidia.ko because it does not include the required GPU\n
    # NVRM: System Processor (GSP)." (a pre-Turing GPU under the open modules, r530-r595;
    # r515-r525 "...not supported by open\nNVRM: nvidia.ko."), and the vGPU host's "NVRM:
    # installed in this vGPU host system is not supported by" (r550-r595): the driver leaves
    # the GPU alone, so "No NVIDIA devices probed" and the probe failure follow
    sig(
        "nvidia_unsupported_gpu",
        r"NVRM: installed in this (?:vGPU host )?system is not supported by\b",
        ("installed",),
        Severity.ERROR,
        NVIDIA,
        "The NVIDIA driver refused a GPU it does not support (too old or too new for this "
        "driver branch, or a GPU without GSP under the open kernel modules).",
        "Install a driver branch that supports this GPU (NVIDIA's README, Appendix A), or the "
        "proprietary kernel modules for a GPU without GSP (before Turing).",
        42,
        device_kind=_PCI,
        check=nvrm_line,
        formats=(
            Format(
                "NVRM: The NVIDIA GPU %04x:%02x:%02x.%x (PCI ID: %04x:%04x)\nNVRM: installed in "
                "this system is not supported by the\nNVRM: NVIDIA %s driver release.",
                _OSAPI,
                "r515-r595",
                args=(0, 1, 0, 0, 0x10DE, 0x1C82, "595.45.04"),
            ),
            Format(
                "NVRM: The NVIDIA GPU %04x:%02x:%02x.%x (PCI ID: %04x:%04x)\nNVRM: installed in "
                "this system is not supported by open\nNVRM: nvidia.ko because it does not "
                "include the required GPU\nNVRM: System Processor (GSP).",
                _OSAPI,
                "r530-r595",
                args=(0, 1, 0, 0, 0x10DE, 0x1B80),
            ),
            Format(
                "NVRM: The NVIDIA GPU %04x:%02x:%02x.%x (PCI ID: %04x:%04x)\nNVRM: installed in "
                "this vGPU host system is not supported by\nNVRM: open nvidia.ko.",
                _OSAPI,
                "r550-r595",
                args=(0, 0x3B, 0, 0, 0x10DE, 0x1EB8),
            ),
        ),
    ),
    # the GPUs the driver could not take up at all: nv.c nvidia_init_module's "NVRM: No NVIDIA
    # devices probed." (r515-r595: every GPU refused, bound elsewhere or failed its probe);
    # the Hopper/Blackwell FSP boot that GSP needs (kern_fsp_gh100.c, kern_fsp_gb100.c):
    # "FSP boot cmds failed. RM cannot boot." (r525-r570), "Preparing FSP boot cmds failed.
    # RM cannot boot." (r550-r595), the poll for its end "Timout while polling for FSP boot
    # complete I2CS_SCRATCH : %x" (r525-r545) and NV_ERROR_LOG's GPU_INIT_ERROR "Timeout while
    # polling for FSP boot complete, ..." (r550-r565), "Error status 0x%x while polling for
    # FSP boot complete, ..." (r570-r595); and a GPU short of power (osinit.c RmInitAdapter,
    # NV_ERR_INSUFFICIENT_POWER: NV_DEV_PRINTF "GPU does not have the necessary power cables
    # connected.", r595), printed before its "RmInitAdapter failed!"
    sig(
        "nvidia_init_failure",
        r"NVRM: No NVIDIA devices probed|FSP boot cmds failed\. RM cannot boot"
        r"|(?:Timout|Timeout|Error status 0x[0-9a-fA-F]+) while polling for FSP boot complete"
        r"|GPU does not have the necessary power cables connected",
        ("probed", "FSP", "cables"),
        Severity.ERROR,
        NVIDIA,
        "The NVIDIA driver could not initialise a GPU: it is unusable for this boot.",
        "See nvidia_init_failure.",
        43,
        device_kind=_PCI,
        check=nvrm_line,
        formats=(
            Format(
                "GPU does not have the necessary power cables connected.",
                _NVRM + "arch/nvalloc/unix/src/osinit.c",
                "r595",
                "NVRM: GPU 0000:01:00.0: ",
            ),
            Format("NVRM: No NVIDIA devices probed.", _NVK + "nv.c", "r515-r595"),
            Format(
                "FSP boot cmds failed. RM cannot boot.",
                _NVRM + "src/kernel/gpu/fsp/arch/hopper/kern_fsp_gh100.c",
                "r525-r570",
                _nv("kfspSendBootCommands_GH100"),
            ),
            Format(
                "Preparing FSP boot cmds failed. RM cannot boot.",
                _NVRM + "src/kernel/gpu/fsp/arch/hopper/kern_fsp_gh100.c",
                "r550-r595",
                _nv("kfspSendBootCommands_GH100"),
            ),
            Format(
                "Timout while polling for FSP boot complete I2CS_SCRATCH : %x",
                _NVRM + "src/kernel/gpu/fsp/arch/hopper/kern_fsp_gh100.c",
                "r525-r545",
                _nv("kfspWaitForSecureBoot_GH100"),
            ),
            Format(
                "Error status 0x%x while polling for FSP boot complete, 0x%x, 0x%x, 0x%x, "
                "0x%x, 0x%x",
                _NVRM + "src/kernel/gpu/fsp/arch/hopper/kern_fsp_gh100.c",
                "r570-r595",
                "NVRM: Xid (PCI:0000:41:00): 143, ",
                args=(0x65,),
            ),
        ),
    ),
    # nv_gpu_ops.c nvGpuOpsReportFatalError (r565-r595): UVM (nvidia-uvm) hit an error it
    # cannot recover from (a channel or fault-buffer error, an ECC or NVLink error, a lost
    # GPU) and marks the system for reboot: "uvm encountered global fatal error 0x%x,
    # requiring os reboot to recover."; uvm_global.c's own "Encountered a global fatal
    # error: %s" prints only with uvm_debug_prints (off in release builds)
    sig(
        "nvidia_uvm_fatal_error",
        r"uvm encountered global fatal error 0x[0-9a-fA-F]+"
        r"|\[pid:\d+\] Encountered a global fatal error: ",
        ("uvm", "Encountered"),
        Severity.CRITICAL,
        NVIDIA,
        "NVIDIA's unified-memory driver (nvidia-uvm) hit an error it cannot recover from: CUDA "
        "on this node is unusable until a reboot.",
        "Reboot the node; look before this line for the error that caused it (an Xid, a GPU "
        "lost from the bus, ECC or NVLink errors).",
        35,
        device_kind=_PCI,
        check=lambda m, i: "NVRM" in i.text or "nvidia-uvm" in i.text,
        formats=(
            Format(
                "uvm encountered global fatal error 0x%x, requiring os reboot to recover.",
                _NVRM + "src/kernel/rmapi/nv_gpu_ops.c",
                "r565-r595",
                "NVRM: nvGpuOpsReportFatalError: ",
                args=(0x60,),
            ),
            Format(
                "%s:%u %s[pid:%d] Encountered a global fatal error: %s",
                _NVK.replace("nvidia/", "nvidia-uvm/") + "uvm_global.c",
                "r515-r595",
                "nvidia-uvm: ",
                args=("uvm_global.c", 425, "uvm_global_set_fatal_error_impl", 4123, "Timeout"),
            ),
        ),
    ),
    # amdkfd's preemption of compute queues (the hardware scheduler, HWS, unmapping them for
    # an eviction, a suspend or a reset) not completing: kfd_device_queue_manager.c
    # amdkfd_fence_wait_timeout "qcm fence wait loop timeout expired" and unmap_queues_cpsch
    # "The cp might be in an unrecoverable state due to an unsuccessful queues preemption"
    # (pr_err with amdgpu's pr_fmt "amdgpu: ", 4.x "kfd: "; dev_err in 6.10+), its HIQ check
    # "HIQ MQD's queue_doorbell_id0 is not 0, Queue preemption time out" (5.10-6.5), moved to
    # kfd_mqd_manager.c kfd_check_hiq_mqd_doorbell_id "Queue preemption failed for queue with
    # doorbell_id: %x" (6.6+, "XCC %d: " first on GC 9.4.3), and the direct dequeue of
    # amdgpu_amdkfd_gfx_v*.c kgd_hqd_destroy "cp queue preemption time out" (4.x-6.x): the
    # command processor no longer answers, which is how a hung GPU shows on the compute side;
    # and what fails behind it (kfd_process_queue_manager.c pqm_create_queue pr_err "Pasid %d
    # DQM create queue %d failed. ret %d" 4.19, "Pasid 0x%x DQM create queue type %d failed.
    # ret %d" 6.1, "process pid %d DQM create queue type %d failed. ret %d" 6.18, not for
    # -ENOMEM or -ENOSPC: out of queue slots or memory, the application's limit, which 6.18
    # prints as pr_warn for SDMA; pqm_destroy_queue "Pasid %d destroy queue %d failed, ret %d"
    # 4.19-6.18; kfd_process.c kfd_process_restore_queues "Failed to restore queues" and
    # restore_process_worker "Failed to restore queues of pasid %d" 4.19-6.1, "… of process
    # pid %d" 6.18)
    sig(
        "amdgpu_kfd_error",
        r"qcm fence wait loop timeout expired"
        r"|cp might be in an unrecoverable state due to an unsuccessful queues? preemption"
        r"|Queue preemption (?:failed for queue with doorbell_id|time out)"
        r"|cp queue preemption time out"
        r"|\bDQM create queue (?:type )?\d+ failed\. ret (?!-12\b|-28\b)-?\d+"
        r"|\bPasid (?:0x)?[0-9a-f]+ destroy queue \d+ failed, ret -?\d+"
        r"|\bFailed to restore queues(?: of pasid| of process pid|$)",
        ("qcm", "preemption", "DQM", "Pasid", "Failed"),
        Severity.ERROR,
        AMDGPU,
        "The compute (KFD/ROCm) side could not stop or evict its queues.",
        "See amdgpu_kfd_error.",
        36,
        device_kind=_PCI,
        formats=(
            Format(
                "qcm fence wait loop timeout expired",
                "drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c",
                "5.4-6.8",
                "amdgpu: ",
            ),
            Format(
                "qcm fence wait loop timeout expired",
                "drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c",
                "6.12-6.18",
                _DEV_NOFMT,
            ),
            Format(
                "The cp might be in an unrecoverable state due to an unsuccessful queues "
                "preemption",
                "drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c",
                "4.19-6.8",
                "amdgpu: ",
            ),
            Format(
                "HIQ MQD's queue_doorbell_id0 is not 0, Queue preemption time out",
                "drivers/gpu/drm/amd/amdkfd/kfd_device_queue_manager.c",
                "5.15-6.1",
                "amdgpu: ",
            ),
            Format(
                "Queue preemption failed for queue with doorbell_id: %x",
                "drivers/gpu/drm/amd/amdkfd/kfd_mqd_manager.c",
                "6.8-6.18",
                _DEV,
                args=(0x80004008,),
            ),
            Format(
                "XCC %d: Queue preemption failed for queue with doorbell_id: %x",
                "drivers/gpu/drm/amd/amdkfd/kfd_mqd_manager.c",
                "6.8-6.18",
                _DEV,
                args=(2, 0x80030008),
            ),
            Format(
                "cp queue preemption time out.",
                _AMD + "amdgpu_amdkfd_gfx_v9.c",
                "5.4-6.18",
                "amdgpu: ",
            ),
            Format(
                "Pasid 0x%x DQM create queue type %d failed. ret %d",
                "drivers/gpu/drm/amd/amdkfd/kfd_process_queue_manager.c",
                "6.1",
                "amdgpu: ",
                args=(0x8001, 0, -62),
            ),
            Format(
                "process pid %d DQM create queue type %d failed. ret %d",
                "drivers/gpu/drm/amd/amdkfd/kfd_process_queue_manager.c",
                "6.18",
                "amdgpu: ",
                args=(4123, 0, -5),
            ),
            Format(
                "Pasid %d DQM create queue %d failed. ret %d",
                "drivers/gpu/drm/amd/amdkfd/kfd_process_queue_manager.c",
                "4.19",
                "amdgpu: ",
                args=(32769, 0, -62),
            ),
            Format(
                "Pasid 0x%x destroy queue %d failed, ret %d",
                "drivers/gpu/drm/amd/amdkfd/kfd_process_queue_manager.c",
                "6.1-6.18",
                "amdgpu: ",
                args=(0x8001, 3, -62),
            ),
            Format(
                "Failed to restore queues",
                "drivers/gpu/drm/amd/amdkfd/kfd_process.c",
                "4.19-6.18",
                "amdgpu: ",
            ),
            Format(
                "Failed to restore queues of pasid 0x%x",
                "drivers/gpu/drm/amd/amdkfd/kfd_process.c",
                "6.1",
                "amdgpu: ",
                args=(0x8001,),
            ),
            Format(
                "Failed to restore queues of process pid %d",
                "drivers/gpu/drm/amd/amdkfd/kfd_process.c",
                "6.18",
                "amdgpu: ",
                args=(4123,),
            ),
        ),
    ),
    # amdgpu_ras.c amdgpu_ras_error_print_error_data (dev_info): "%ld correctable hardware
    # errors detected in %s block" (5.x-6.6), "socket: %d, die: %d, %lld new correctable
    # hardware errors detected in %s block" and "... %lld correctable hardware errors detected
    # in total in %s block" (6.8+, RAS_EVENT_LOG's "{%llu}" before them from 6.12), and the
    # umc's ", no user action is needed." (6.8+): errors the ECC corrected. Routine: a count
    # beside a failure, never its cause (an uncorrectable one is amdgpu_ras_uncorrectable)
    sig(
        "amdgpu_ras_correctable",
        r"(?<![\w.])\d+ (?:new )?correctable hardware errors detected in (?:total in )?\w+ block",
        ("correctable",),
        Severity.WARNING,
        AMDGPU,
        "The GPU's RAS logic counted memory or logic errors that its ECC corrected.",
        "Nothing to do unless the count keeps rising; a card whose corrected errors climb "
        "steadily is failing (watch the bad-page table, amdgpu_ras_eeprom).",
        60,
        device_kind=_PCI,
        check=_amdgpu_line,
        routine=True,
        formats=(
            Format(
                "%ld correctable hardware errors detected in %s block",
                _AMD + "amdgpu_ras.c",
                "5.15-6.6",
                _DEV,
                args=(4, "umc"),
            ),
            Format(
                "socket: %d, die: %d, %lld new correctable hardware errors detected in %s block",
                _AMD + "amdgpu_ras.c",
                "6.8-6.18",
                _RAS_EVENT,
                args=(0, 1, 2, "gfx"),
            ),
            Format(
                "socket: %d, die: %d, %lld correctable hardware errors detected in total in %s "
                "block, no user action is needed.",
                _AMD + "amdgpu_ras.c",
                "6.8-6.18",
                _DEV,
                args=(4, 0, 1, "gfx"),
            ),
        ),
    ),
    # amdgpu_fence.c amdgpu_fence_fallback: the fence timer that catches a fence whose
    # interrupt never came, DRM_ERROR "Fence fallback timer expired on ring %s" (4.x-6.x;
    # dev_warn without the DRM prefix later): the ring still completes, polled. Routine: a
    # lost or late interrupt (MSI, IOMMU remapping), a hint beside a hang, not a hang
    sig(
        "amdgpu_fence_fallback",
        r"Fence fallback timer expired on ring \S+",
        ("Fence",),
        Severity.WARNING,
        AMDGPU,
        "amdgpu found a completed GPU job whose interrupt never arrived (its fallback timer "
        "polled the fence).",
        "Only worth a look if it repeats: check interrupt delivery (MSI, IOMMU interrupt "
        "remapping, pci=nomsi experiments) and the kernel version.",
        60,
        device_kind=_PCI,
        routine=True,
        formats=(
            Format(
                "Fence fallback timer expired on ring %s",
                _AMD + "amdgpu_fence.c",
                "4.19-6.8",
                _drm("amdgpu_fence_fallback"),
                args=("sdma0",),
            ),
        ),
    ),
    # nvidia-peermem.c (GPUDirect RDMA: the NIC's peer-memory client pinning GPU memory):
    # peer_err, printk(KERN_ERR "nvidia-peermem" " %s:%d " FMT) with " ERROR " after the line
    # from r550 (and r535.288), in nv_mem_get_pages "error %d while calling
    # nvidia_p2p_get_pages()", nv_mem_get_pages_nc "... with NULL callback" and nv_dma_map
    # "nv_dma_map -- error %d while calling nvidia_p2p_dma_map_pages()" (r515-r595): the
    # RDMA transfer (NCCL over InfiniBand or RoCE) to that GPU memory fails
    sig(
        "nvidia_peermem_error",
        r"nvidia-peermem \w+:\d+ (?:ERROR )?(?:nv_dma_map -- )?error -?\d+ while calling "
        r"nvidia_p2p_(?:get_pages|dma_map_pages)\(\)",
        ("nvidia_p2p_get_pages", "nvidia_p2p_dma_map_pages"),
        Severity.ERROR,
        NVIDIA,
        "GPUDirect RDMA (nvidia-peermem) could not pin or map GPU memory for the network "
        "card: RDMA transfers to that GPU fail.",
        "Check that nvidia-peermem matches the running NVIDIA driver and the NIC's driver "
        "(MLNX_OFED/DOCA), that the GPU and NIC share a PCIe switch or root with ACS/IOMMU "
        "set for P2P, and look for GPU errors (Xid) just before.",
        44,
        device_kind=_PCI,
        formats=(
            Format(
                "error %d while calling nvidia_p2p_get_pages()",
                _NVK.replace("nvidia/", "nvidia-peermem/") + "nvidia-peermem.c",
                "r515-r545",
                "nvidia-peermem nv_mem_get_pages:471 ",
                args=(-22,),
            ),
            Format(
                "error %d while calling nvidia_p2p_get_pages() with NULL callback",
                _NVK.replace("nvidia/", "nvidia-peermem/") + "nvidia-peermem.c",
                "r550-r595",
                "nvidia-peermem nv_mem_get_pages_nc:527 ERROR ",
                args=(-22,),
            ),
            Format(
                "nv_dma_map -- error %d while calling nvidia_p2p_dma_map_pages()",
                _NVK.replace("nvidia/", "nvidia-peermem/") + "nvidia-peermem.c",
                "r550-r595",
                "nvidia-peermem nv_dma_map:325 ERROR ",
                args=(-12,),
            ),
        ),
    ),
    # the kernel interface queue (KIQ), the ring the driver itself uses to write GPU
    # registers when the GPU is virtualised or the register needs the CP: its fence never
    # signalling is a hung command processor, the same stop as a ring timeout. amdgpu_virt.c
    # amdgpu_virt_kiq_reg_write_reg_wait pr_err "failed to write reg %x wait reg %x" (5.4-6.1),
    # amdgpu_gmc.c amdgpu_gmc_fw_reg_write_reg_wait dev_err the same (6.8+); amdgpu_gfx.c
    # amdgpu_kiq_rreg/amdgpu_kiq_wreg "failed to read reg:%x" / "failed to write reg:%x"
    sig(
        "amdgpu_ring_timeout",
        r"failed to write reg [0-9a-fA-F]+ wait reg [0-9a-fA-F]+"
        r"|failed to (?:read|write) reg:[0-9a-fA-F]+$",
        ("failed",),
        Severity.CRITICAL,
        AMDGPU,
        "A GPU command ring (gfx, compute, sdma) stopped completing jobs: the GPU hung.",
        "See amdgpu_ring_timeout.",
        38,
        device_kind=_PCI,
        check=_amdgpu_line,
        formats=(
            Format(
                "failed to write reg %x wait reg %x",
                _AMD + "amdgpu_virt.c",
                "5.4-6.1",
                "amdgpu: ",
                args=(0x28B4, 0x28C6),
            ),
            Format(
                "failed to write reg %x wait reg %x",
                _AMD + "amdgpu_gmc.c",
                "6.8-6.18",
                _DEV,
                args=(0x28B4, 0x28C6),
            ),
            Format("failed to read reg:%x", _AMD + "amdgpu_gfx.c", "6.1-6.18", _DEV, args=(0x1A6,)),
            Format(
                "failed to write reg:%x", _AMD + "amdgpu_gfx.c", "6.1-6.18", _DEV, args=(0x1A6,)
            ),
        ),
    ),
    # NVRM's interrupt service (intr.c _intrServiceStallCommonCheckBegin and the non-stall
    # path, r515-r595) reading NV_PMC_BOOT_0 and getting all-ones back: "Failed GPU reg read :
    # 0x%x. Check whether GPU is present on the bus" (GPU_REG_VALUE_INVALID): the GPU no longer
    # answers on PCIe, as "GPU has fallen off the bus" says once the driver declares it lost
    sig(
        "gpu_fell_off_bus",
        r"Failed GPU reg read : 0x[fF]{8}\. Check whether GPU is present on the bus",
        ("whether",),
        Severity.CRITICAL,
        "gpu",
        "The GPU stopped responding on PCIe: the system can no longer reach it.",
        "See gpu_fell_off_bus.",
        31,
        device_kind=_PCI,
        check=nvrm_line,
        formats=(
            Format(
                "Failed GPU reg read : 0x%x. Check whether GPU is present on the bus",
                _NVRM + "src/kernel/gpu/intr/intr.c",
                "r515-r595",
                _nv("_intrServiceStallCommonCheckBegin"),
                args=(0xFFFFFFFF,),
            ),
        ),
    ),
    # The RAS bad-page table in the board's EEPROM, read over the SMU's I2C bus at init
    # (amdgpu_ras_eeprom.c amdgpu_ras_eeprom_init: DRM_ERROR "Failed to read EEPROM table
    # header, res:%d", dev_err with the same words later) and the I2C controller's own
    # errors before it (smu_v11_0_i2c.c: DRM_ERROR "Received I2C_NAK_7B_ADDR_NOACK !!!",
    # "WriteI2CData() - I2C error occurred :%x"), and a table that reads but fails its
    # checksum (amdgpu_ras_eeprom.c: DRM_ERROR "RAS table incorrect checksum or error:%d" and
    # "RAS Table …" for a table marked bad, dev_err in 6.x; amdgpu_ras_eeprom_check_and_recover
    # dev_warn "…:%d, try to recover", then dev_err "RAS table recovery failed"), which the
    # driver resets or gives up on. A board whose EEPROM does not answer (a
    # server card in a PC slot whose SMBus pins are not wired) loses only the saved bad-page
    # list and the ECC reports from it: the GPU runs. So it is information (rank 100, as
    # workqueue_hog): listed, never blamed; a RAS failure that stops the init is
    # amdgpu_init_failure's line.
    sig(
        "amdgpu_ras_eeprom_error",
        r"Failed to read EEPROM table header, res:-?\d+|Received I2C_NAK_7B_ADDR_NOACK !!!"
        r"|WriteI2CData\(\) - I2C error occurred :|RAS [Tt]able incorrect checksum or error:-?\d+"
        r"|RAS table recovery failed$",
        ("EEPROM", "I2C_NAK_7B_ADDR_NOACK", "WriteI2CData", "checksum", "recovery"),
        Severity.INFO,
        AMDGPU,
        "amdgpu could not read the RAS bad-page table from the card's EEPROM over I2C: the "
        "saved bad pages and EEPROM-backed ECC reporting are lost; the GPU itself works.",
        "Harmless on a board that does not wire the slot's SMBus pins (a server card in a "
        "PC); on a server, check the card's seating and its firmware.",
        100,
        device_kind=_PCI,
        routine=True,
        formats=(
            Format(
                "Failed to read EEPROM table header, res:%d",
                _AMD + "amdgpu_ras_eeprom.c",
                "5.15-6.8 (as read)",
                _drm("amdgpu_ras_eeprom_init"),
                args=(-5,),
            ),
            Format(
                "Failed to read EEPROM table header, res:%d",
                _AMD + "amdgpu_ras_eeprom.c",
                "6.12-6.18 (as read)",
                _DEV,
                args=(-5,),
            ),
            Format(
                "RAS table incorrect checksum or error:%d",
                _AMD + "amdgpu_ras_eeprom.c",
                "5.15-6.8 (as read)",
                _drm("amdgpu_ras_eeprom_init"),
                args=(-22,),
            ),
            Format(
                "RAS table incorrect checksum or error:%d, try to recover",
                _AMD + "amdgpu_ras_eeprom.c",
                "6.12-6.18 (as read)",
                _DEV,
                args=(-22,),
            ),
            Format(
                "RAS table recovery failed",
                _AMD + "amdgpu_ras_eeprom.c",
                "6.12-6.18 (as read)",
                _DEV,
            ),
            Format(
                "Received I2C_NAK_7B_ADDR_NOACK !!!",
                _AMD + "smu_v11_0_i2c.c",
                "5.10-6.18 (as read)",
                _drm("smu_v11_0_i2c_xfer"),
            ),
            Format(
                "WriteI2CData() - I2C error occurred :%x",
                _AMD + "smu_v11_0_i2c.c",
                "5.10-6.18 (as read)",
                _drm("smu_v11_0_i2c_xfer"),
                args=(1,),
            ),
        ),
    ),
)
