"""GPU wordings added from the drivers' source in the NVIDIA/virtual/SoC sweep.

NVIDIA (open-gpu-kernel-modules, r515-r595): the kernel module's own refusals of a GPU at
probe and open time (kernel-open/nvidia/nv.c, nv-pci.c, os-interface.c: another driver owns
the GPU, no interrupt line, a BAR1 the PCI core could not give back, Grace Hopper memory that
cannot be onlined) and GSP-RM's boot steps that fail before RmInitAdapter reports it
(src/nvidia/src/kernel/gpu/gsp: Booter, FWSEC, GSP-FMC); each is nvidia_init_failure's. The
resource manager's channel watchdog declaring the GPU locked (nvidia_rc_watchdog_timeout), and
the PCI error recovery finding the GPU still unreachable (gpu_fell_off_bus).
VMware's virtual GPU (drivers/gpu/drm/vmwgfx) declaring its device locked up; Adreno
(drivers/gpu/drm/msm/adreno) hang-detect interrupts and ring-drain timeouts and lima's failed
tasks, soc_gpu_hang's; Tegra's multimedia engines whose Falcon firmware does not boot
(tegra_engine_boot_failure). Intel's and nouveau's wordings of the sweep are in
gpu_nvother2.py.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig, wording
from kmsgd.catalogue.gpu import GPU_SIGNATURES

_PCI = DeviceKind.PCI
NVIDIA = "gpu.nvidia"
SOC = "gpu.soc"
VIRTUAL = "gpu.virtual"
_NVK = "nvidia:kernel-open/nvidia/"
_GSP = "nvidia:src/nvidia/src/kernel/gpu/gsp/"
_NV_DEV = "NVRM: GPU 0000:41:00.0: "  # NV_DEV_PRINTF (kernel-open/common/inc/os-interface.h)
_MSM = "drivers/gpu/drm/msm/adreno/"

# nvidia_init_failure's own entry (gpu.py): the wordings below are more of its event
_INIT = next(s for s in GPU_SIGNATURES if s.tag == "nvidia_init_failure")


def _nv(func: str) -> str:
    # NV_PRINTF(LEVEL_ERROR, …) as the release build prints it
    return f"NVRM: GPU0 {func}: "


NVOTHER_GPU_SIGNATURES: tuple[Signature, ...] = (
    # kernel-open/nvidia/nv.c nvidia_init_module (r515-r595): the PCI core offered the
    # module fewer NVIDIA GPUs than the bus holds: "NVRM: The NVIDIA probe routine was not
    # called for %d device(s)." then "This can occur when another driver was loaded and
    # obtained ownership of the NVIDIA device(s)." (nouveau, vfio-pci, a simple frame buffer);
    # nv.c nv_start_device (r515-r595): a GPU without MSI, MSI-X or a legacy interrupt
    # (NV_DEV_PRINTF "No interrupts of any type are available. Cannot use this GPU."), a
    # legacy line another driver holds unshared ("Tried to get IRQ %d, but another driver"),
    # any request_irq failure ("request_irq() failed (%d)"): the GPU cannot be opened;
    # nv-pci.c nv_pci_probe (r515-r595): "NVRM: pci_enable_device failed, aborting", "NVRM:
    # Can't find an IRQ for your NVIDIA card!"; nv-pci.c nv_resize_pcie_bars (r535-r595):
    # "NVRM: FATAL: Failed to re-allocate BAR1." (the PCI core could not give the BAR back
    # after resizing it; the smaller-size fallbacks before it are warnings); os-interface.c
    # os_numa_add_gpu_memory (Grace Hopper, GPU memory onlined as a NUMA node, r550-r595):
    # "NVRM: Failing GPU memory onlining as the onlining zone is not movable." (memory
    # auto-onlining is not online_movable) and "GPU memory zone movable auto onlining
    # failed!" (r550-r595; r535 printed it without "NVRM: ", not matched): CUDA cannot use
    # the GPU's memory on that box.
    wording(
        _INIT,
        r"\bThe NVIDIA probe routine was not called for \d+ device"
        r"|\bNo interrupts of any type are available\. Cannot use this GPU"
        r"|\bTried to get IRQ \d+, but another driver"
        r"|\brequest_irq\(\) failed \(-?\d+\)"
        r"|\bpci_enable_device failed, aborting"
        r"|\bCan't find an IRQ for your NVIDIA card"
        r"|\bFATAL: Failed to re-allocate BAR1\b"
        r"|\bFailing GPU memory onlining as the onlining zone is not movable"
        r"|\bGPU memory zone movable auto onlining failed",
        (
            "routine",
            "interrupts",
            "Tried",
            "request_irq",
            "pci_enable_device",
            "card",
            "BAR1",
            "onlining",
        ),
        formats=(
            Format(
                "NVRM: The NVIDIA probe routine was not called for %d device(s).",
                _NVK + "nv.c",
                "r515-r595",
                args=(1,),
            ),
            Format(
                "No interrupts of any type are available. Cannot use this GPU.",
                _NVK + "nv.c",
                "r515-r595",
                _NV_DEV,
            ),
            Format("Tried to get IRQ %d, but another driver", _NVK + "nv.c", "r515-r595", _NV_DEV),
            Format("request_irq() failed (%d)", _NVK + "nv.c", "r515-r595", _NV_DEV, args=(-16,)),
            Format("NVRM: pci_enable_device failed, aborting", _NVK + "nv-pci.c", "r515-r595"),
            Format("NVRM: Can't find an IRQ for your NVIDIA card!", _NVK + "nv-pci.c", "r515-r595"),
            Format("NVRM: FATAL: Failed to re-allocate BAR1.", _NVK + "nv-pci.c", "r535-r595"),
            Format(
                "NVRM: Failing GPU memory onlining as the onlining zone is not movable. pa: "
                "0x%llx size: 0x%llx",
                _NVK + "os-interface.c",
                "r550-r595",
            ),
            Format(
                "NVRM: GPU memory zone movable auto onlining failed!",
                _NVK + "os-interface.c",
                "r550-r595",
            ),
        ),
    ),
    # kernel-open/nvidia/nv-pci.c nv_pci_mmio_enabled (the PCI error recovery's callback
    # after an AER or EEH fatal error, r515-r560): NV_DEV_PRINTF "The kernel has enabled
    # MMIO for the device,\nNVRM: but it still appears unreachable. The device\nNVRM: will
    # not function properly until it is reset." when the GPU still does not answer once the
    # link is back: the GPU is lost until a reset, as gpu_fell_off_bus says. The "A fatal
    # error was detected." before it only names the recovery's start (the AER lines say why).
    sig(
        "gpu_fell_off_bus",
        r"\bThe kernel has enabled MMIO for the device,",
        ("MMIO",),
        Severity.CRITICAL,
        "gpu",
        "The GPU stopped responding on PCIe: the system can no longer reach it.",
        "Check power cabling, PSU headroom and PCIe seating/risers; not a driver bug.",
        31,
        device_kind=_PCI,
        check=lambda m, i: "NVRM" in i.text,
        formats=(
            Format(
                "The kernel has enabled MMIO for the device,\nNVRM: but it still appears "
                "unreachable. The device\nNVRM: will not function properly until it is reset.",
                _NVK + "nv-pci.c",
                "r515-r560",
                _NV_DEV,
            ),
        ),
    ),
    # GSP-RM's boot on Turing and later (r515-r595), each printed with NV_PRINTF(LEVEL_ERROR)
    # before RmInitAdapter fails: the Booter ucode that loads GSP (arch/turing/
    # kernel_gsp_booter_tu102.c "failed to execute Booter: status 0x%x, mailbox 0x%x",
    # kernel_gsp_tu102.c kgspBootstrap "failed to execute Booter Load (ucode for initial boot):
    # 0x%x" and, r515-r525, "failed to execute Booter Load: 0x%x"), the VBIOS's FWSEC that
    # carves the WPR2 region (kernel_gsp_frts_tu102.c "failed to execute FWSEC for FRTS: …",
    # "failed to execute FWSEC cmd 0x%x: status 0x%x"), the RISC-V core that never starts
    # (kernel_gsp_tu102.c "Failed to boot GSP."), and Hopper's GSP-FMC boot
    # (arch/hopper/kernel_gsp_gh100.c "Fatal GSP-FMC Error: …", r525-r595). Booter Unload's
    # failures are the driver's unload path, not a GPU that will not come up.
    wording(
        _INIT,
        r"\bfailed to execute Booter(?: Load(?: \(ucode for initial boot\))?)?: (?:status )?0x"
        r"|\bfailed to execute FWSEC (?:for FRTS: |cmd 0x)"
        r"|\bFailed to boot GSP\."
        r"|\bFatal GSP-FMC Error: ",
        ("Booter", "FWSEC", "GSP"),
        formats=(
            Format(
                "failed to execute Booter: status 0x%x, mailbox 0x%x",
                _GSP + "arch/turing/kernel_gsp_booter_tu102.c",
                "r515-r595",
                _nv("kgspExecuteBooterHs_TU102"),
            ),
            Format(
                "failed to execute Booter Load (ucode for initial boot): 0x%x",
                _GSP + "arch/turing/kernel_gsp_tu102.c",
                "r535-r595",
                _nv("kgspBootstrap_TU102"),
                args=(0x62,),
            ),
            Format(
                "failed to execute Booter Load: 0x%x",
                _GSP + "arch/turing/kernel_gsp_booter_tu102.c",
                "r515-r595",
                _nv("kgspExecuteBooterLoad_TU102"),
                args=(0x62,),
            ),
            Format(
                "failed to execute FWSEC for FRTS: FRTS error code 0x%x",
                _GSP + "arch/turing/kernel_gsp_frts_tu102.c",
                "r515-r595",
                _nv("kgspExecuteFwsecFrts_TU102"),
            ),
            Format(
                "failed to execute FWSEC for FRTS: no initialized WPR2 found",
                _GSP + "arch/turing/kernel_gsp_frts_tu102.c",
                "r515-r595",
                _nv("kgspExecuteFwsecFrts_TU102"),
            ),
            Format(
                "failed to execute FWSEC cmd 0x%x: status 0x%x",
                _GSP + "arch/turing/kernel_gsp_frts_tu102.c",
                "r525-r595",
                _nv("kgspExecuteFwsec_TU102"),
            ),
            Format(
                "Failed to boot GSP.",
                _GSP + "arch/turing/kernel_gsp_tu102.c",
                "r535-r595",
                _nv("kgspBootstrap_TU102"),
            ),
            Format(
                "Fatal GSP-FMC Error: version=0x%x, partition=0x%x, error code=0x%x, "
                "additional info=0x%x",
                _GSP + "arch/hopper/kernel_gsp_gh100.c",
                "r550-r595",
                _nv("kgspCheckGspRmCcCleanup_GH100"),
            ),
        ),
    ),
    # src/nvidia/src/kernel/gpu/rc/kernel_rc_watchdog_callback.c krcWatchdog (r515-r595):
    # the resource manager's own channel watchdog (a kernel channel that must finish a
    # notifier every second) found the GPU silent past its limit: NV_PRINTF(LEVEL_ERROR)
    # "RC watchdog: GPU is probably locked!  Notify Timeout Seconds: %d", then its recovery
    # (krcWatchdogRecovery, usually with Xid 8). Its warning a few seconds earlier, "RC
    # watchdog: GPU is possibly locked. Attempting to restart watchdog." (LEVEL_WARNING, a
    # busy GPU during a mode set or power event), is not a failure.
    sig(
        "nvidia_rc_watchdog_timeout",
        r"\bRC watchdog: GPU is probably locked!",
        ("probably",),
        Severity.ERROR,
        NVIDIA,
        "NVIDIA's driver found the GPU stopped: its watchdog channel got no answer within the "
        "timeout, and the driver tries to recover the GPU's channels.",
        "Look for the Xid after it (usually 8); reset the GPU (nvidia-smi -r) or reboot; if it "
        "repeats, check the GPU's power and cooling and update the driver.",
        33,
        device_kind=_PCI,
        check=lambda m, i: "NVRM" in i.text,
        formats=(
            Format(
                "RC watchdog: GPU is probably locked!  Notify Timeout Seconds: %d",
                "nvidia:src/nvidia/src/kernel/gpu/rc/kernel_rc_watchdog_callback.c",
                "r515-r595",
                _nv("krcWatchdog_IMPL"),
                args=(7,),
            ),
        ),
    ),
    # drivers/gpu/drm/vmwgfx/vmwgfx_irq.c vmw_fallback_wait and vmwgfx_fifo.c
    # vmw_fifo_wait_noirq (4.4-5.x, read there): DRM_ERROR "SVGA device lockup." when the
    # VMware SVGA device has not passed a fence (or freed FIFO space) within the wait's
    # timeout: the guest's virtual GPU stopped answering (the host's 3D backend hung or the
    # VM is starved), and the display and every GPU client of the guest freeze behind it.
    sig(
        "vmwgfx_device_lockup",
        r"\bSVGA device lockup\.",
        ("SVGA",),
        Severity.ERROR,
        VIRTUAL,
        "The VMware virtual GPU (vmwgfx, SVGA) stopped answering: the guest's display and "
        "every program drawing on it hang.",
        "Check the host (ESXi/Workstation logs, 3D acceleration, host GPU and load); disable "
        "3D acceleration for the VM or update VMware Tools and the guest kernel if it repeats.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "SVGA device lockup.",
                "drivers/gpu/drm/vmwgfx/vmwgfx_irq.c",
                "4.4-5.x",
                "[drm:vmw_fallback_wait [vmwgfx]] *ERROR* ",
            ),
            Format(
                "SVGA device lockup.",
                "drivers/gpu/drm/vmwgfx/vmwgfx_fifo.c",
                "4.4-5.x",
                "[drm:vmw_fifo_wait_noirq [vmwgfx]] *ERROR* ",
            ),
        ),
    ),
    # Adreno's hang detection (drivers/gpu/drm/msm/adreno): the CP's "hang detect" interrupt,
    # a5xx_gpu.c a5xx_fault_detect_irq (4.14-6.18), a6xx_gpu.c a6xx_fault_detect_irq
    # (4.19-6.18) and a7xx's (6.18) DRM_DEV_ERROR "gpu fault ring %d fence %x status %8.8X
    # rb %4.4x/%4.4x ib1 %16.16llX/%4.4x ib2 %16.16llX/%4.4x", followed by the recovery
    # worker's reset; and adreno_gpu.c adreno_idle's DRM_ERROR "%s: timeout waiting to drain
    # ringbuffer %d rptr/wptr = %X/%X" (4.14-6.18; "%s: timeout waiting to drain ringbuffer!"
    # before): the CP stopped reading its ring; lima (Mali-400/450, drivers/gpu/drm/lima,
    # 5.2-6.18) lima_gp.c lima_gp_task_error dev_err "gp task error int_state=%x status=%x"
    # and lima_pp.c lima_pp_task_error "pp task error %d int_state=%x status=%x": the job
    # failed on the GPU and the processor is hard-reset
    sig(
        "soc_gpu_hang",
        r"\blima \S+: (?:gp|pp)(?: \w+)? task error(?: \d+)? int_state=[0-9a-f]+ status="
        r"|\bgpu fault ring \d+ fence [0-9a-f]+ status [0-9A-F]+ rb [0-9a-f]+/[0-9a-f]+ ib1 "
        r"|\btimeout waiting to drain ringbuffer(?: \d+ rptr/wptr = [0-9A-F]+/[0-9A-F]+|!)",
        ("ib1", "ringbuffer", "int_state"),
        Severity.ERROR,
        SOC,
        "A SoC's GPU (V3D, Mali, Vivante or Adreno) stopped finishing its jobs: the driver "
        "timed the job out and reset the GPU.",
        "Note the process in the lines around it; update the kernel and Mesa (v3d, panfrost, "
        "etnaviv, freedreno); repeated hangs with one application point at it or its driver.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "gpu fault ring %d fence %x status %8.8X rb %4.4x/%4.4x ib1 %16.16llX/%4.4x "
                "ib2 %16.16llX/%4.4x",
                _MSM + "a6xx_gpu.c",
                "4.19-6.18",
                "msm_dpu ae01000.display-controller: [drm:a6xx_fault_detect_irq] *ERROR* ",
                args=(0, 0x1A2B, 0x00800005, 0x1F0, 0x200, 0x10001000, 0x10, 0, 0),
            ),
            Format(
                "gpu fault ring %d fence %x status %8.8X rb %4.4x/%4.4x ib1 %16.16llX/%4.4x "
                "ib2 %16.16llX/%4.4x",
                _MSM + "a5xx_gpu.c",
                "4.14-6.18",
                "msm 5000000.gpu: [drm:a5xx_fault_detect_irq] *ERROR* ",
                args=(0, 0x1A2B, 0x00800005, 0x1F0, 0x200, 0x10001000, 0x10, 0, 0),
            ),
            Format(
                "%s: timeout waiting to drain ringbuffer %d rptr/wptr = %X/%X",
                _MSM + "adreno_gpu.c",
                "4.14-6.18",
                "[drm:adreno_idle] *ERROR* ",
                args=("a630", 0, 0x1A0, 0x1C0),
            ),
            Format(
                "gp task error int_state=%x status=%x",
                "drivers/gpu/drm/lima/lima_gp.c",
                "5.2-6.18",
                "lima 1c40000.gpu: ",
                args=(0x1, 0x0),
            ),
            Format(
                "pp task error %d int_state=%x status=%x",
                "drivers/gpu/drm/lima/lima_pp.c",
                "5.2-6.18",
                "lima 1c40000.gpu: ",
                args=(0, 0x1, 0x0),
            ),
        ),
    ),
    # The Tegra multimedia engines' Falcon microcontrollers (drivers/gpu/drm/tegra: vic.c
    # vic_boot 4.16-6.18, nvdec.c nvdec_boot_falcon 5.17-6.18; NVIDIA's L4T adds nvenc.c,
    # nvjpg.c, ofa.c with the same words): dev_err "falcon boot timed out" when the engine's
    # firmware does not come up, and nvdec.c nvdec_wait_debuginfo "failed to boot %s,
    # debuginfo=0x%x" (6.3-6.18, Tegra234's RISC-V boot): the engine (video compositor,
    # decoder) is unusable, and every job sent to it stalls
    sig(
        "tegra_engine_boot_failure",
        r"\bfalcon boot timed out\b|\bfailed to boot [\w -]+, debuginfo=0x",
        ("falcon", "debuginfo"),
        Severity.ERROR,
        SOC,
        "A Tegra multimedia engine (VIC, NVDEC, NVENC, NVJPG or OFA) did not boot its "
        "firmware: video composition, decoding or encoding on the board fails.",
        "Check that the engine's firmware (nvidia/tegra*/vic*.bin, nvdec*.bin) is in "
        "/lib/firmware and in the initramfs, and that it matches the kernel (L4T release).",
        38,
        formats=(
            Format(
                "falcon boot timed out",
                "drivers/gpu/drm/tegra/vic.c",
                "4.16-6.18",
                "tegra-vic 15340000.vic: ",
            ),
            Format(
                "falcon boot timed out",
                "drivers/gpu/drm/tegra/nvdec.c",
                "5.17-6.18",
                "tegra-nvdec 15480000.nvdec: ",
            ),
            Format(
                "failed to boot %s, debuginfo=0x%x",
                "drivers/gpu/drm/tegra/nvdec.c",
                "6.3-6.18",
                "tegra-nvdec 15480000.nvdec: ",
                args=("RISC-V", 0x1),
            ),
        ),
    ),
)
