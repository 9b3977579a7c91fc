"""GPU wording the family modules lacked (corpus batch 26): Intel's GVT-g mediated vGPU, radeon's
microcode that FreeBSD's drm-kmod cannot load, Intel's GuC file that cannot be read,
the Mali-400 MMU of lima and the GR engine exceptions of NVIDIA's Tegra nvgpu.

One tag is new here, gvt_vgpu_error: the host side of Intel GVT-g (drivers/gpu/drm/i915/gvt,
4.10-6.18), which parses every workload a guest submits to its mediated vGPU and emulates the
guest's MMIO. A command it refuses or a workload it cannot scan puts the vGPU into failsafe
mode: the guest's GPU stops rendering while the host and its own i915 run on. Every other
entry carries a tag of another module, whose first entry gives its meaning and next step:
table.py registers this module after those.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

_PCI = DeviceKind.PCI
I915 = "gpu.i915"
SOC = "gpu.soc"
NVGPU = "gpu.nvgpu"
_GVT = "drivers/gpu/drm/i915/gvt/"
_GVT_VGPU = "gvt: vgpu 1: "  # gvt/debug.h gvt_vgpu_err: pr_err("gvt: vgpu %d: " fmt)
_NVGPU_SRC = "nvgpu:drivers/gpu/nvgpu/"  # NVIDIA's L4T nvgpu (linux-nvgpu, L4T r36 tree)


def _nvgpu(func: str, line: int) -> str:
    # os/linux/log.c LOG_FMT "nvgpu: %s %33s:%-4d [%s]  %s" ([ERR] from nvgpu_err)
    return f"nvgpu: 17000000.gpu {func:>33}:{line:<4d} [ERR]  "


GPU_WORDING26_SIGNATURES: tuple[Signature, ...] = (
    # GVT-g's host (drivers/gpu/drm/i915/gvt): handlers.c enter_failsafe_mode pr_err "Now vgpu
    # %d will enter failsafe mode." after its reason ("Detected your guest driver doesn't
    # support GVT-g.", "Graphics resource is not enough for the guest", "GVT Internal error
    # for the guest", with two spaces) (4.10-6.18); cmd_parser.c gvt_vgpu_err "cmd parser
    # error" (the command dump that follows is bare hex), "scan wa ctx error", "scan workload
    # error", and the register command it refused: cmd_reg_handler "%s access to non-render
    # register (%x)" for lri, lrr, lrm and srm (gvt_vgpu_err 4.20-6.18, gvt_err before), then
    # "%s handler error" with the command's name; execlist.c /
    # scheduler.c "fail submit workload on ring %d" / "failed to submit desc %d" (4.10-5.x).
    sig(
        "gvt_vgpu_error",
        r"\bgvt: (?:vgpu \d+: )?(?:cmd parser error|scan (?:wa ctx|workload) error"
        r"|(?:lri|lrr|lrm|srm) access to non-render register \("
        r"|fail(?:ed)? (?:to )?submit (?:workload on ring|desc) \d+)"
        r"|\bNow vgpu \d+ will enter failsafe mode\.",
        ("parser", "scan", "access", "submit", "failsafe"),
        Severity.ERROR,
        I915,
        "Intel GVT-g refused a guest's GPU workload (its command parser or MMIO emulation "
        "found a command or register the vGPU may not use) and put the mediated vGPU into "
        "failsafe mode: the guest's GPU stops rendering; the host runs on.",
        "Match the guest's i915 or Windows driver to the host's GVT-g (kernel) release, try "
        "the guest with the machine type the GVT-g guide names (Q35), and report the refused "
        "command (the lines before 'cmd parser error') to the GVT-g project.",
        45,
        device_kind=_PCI,
        formats=(
            Format(
                "Now vgpu %d will enter failsafe mode.", _GVT + "handlers.c", "4.10-6.18", args=(1,)
            ),
            Format("cmd parser error", _GVT + "cmd_parser.c", "4.10-6.18", _GVT_VGPU),
            Format("scan wa ctx error", _GVT + "cmd_parser.c", "4.12-6.18", _GVT_VGPU),
            Format("scan workload error", _GVT + "cmd_parser.c", "4.10-6.18", _GVT_VGPU),
            Format(
                "srm access to non-render register (%x)",
                _GVT + "cmd_parser.c",
                "4.20-6.18",
                _GVT_VGPU,
                args=(0x21F0,),
            ),
            Format(
                "fail submit workload on ring %d",
                _GVT + "execlist.c",
                "4.10-5.4",
                _GVT_VGPU,
                args=(0,),
            ),
        ),
    ),
    # The GuC firmware file that could not be read: gt/uc/intel_uc_fw.c intel_uc_fw_fetch
    # dev_notice / i915_probe_error "%s firmware %s: fetch failed with error %d" (5.4-6.1;
    # "%s firmware(s) can be downloaded from %s" follows), gt_probe_error "%s firmware %s: fetch
    # failed %pe" (6.4-6.18); xe_uc_fw.c uc_fw_request xe_gt_notice "%s firmware %s: fetch
    # failed with error %pe" (6.8-6.18). The file is missing: whether the GPU still comes up is
    # told by the lines after it (i915 runs without GuC where GuC submission is optional,
    # Gen9-Gen11; where it is required it prints "GuC initialization failed" or declares the
    # GPU wedged: gpu_intel.py's i915_init_failure). GuC only: a missing HuC or GSC file only
    # disables media authentication.
    sig(
        "firmware_load_failure",
        r"\bGuC firmware \S+: fetch failed\b",
        ("GuC",),
        Severity.ERROR,
        I915,
        "Intel's GPU driver could not read its GuC firmware file: the GPU runs without the GuC "
        "(no GuC submission, no HuC authentication) or, where the GuC is required, not at all.",
        "Install the GuC firmware file the line names (linux-firmware's i915/ or xe/ "
        "directory) and rebuild the initramfs, or drop i915.enable_guc where the kernel asks "
        "for a file the distribution lacks.",
        47,
        device_kind=_PCI,
        formats=(
            Format(
                "%s firmware %s: fetch failed with error %d",
                "drivers/gpu/drm/i915/gt/uc/intel_uc_fw.c",
                "5.4-6.1",
                "i915 0000:00:02.0: ",
                args=("GuC", "i915/bxt_guc_33.0.0.bin", -2),
            ),
            Format(
                "%s firmware %s: fetch failed %pe",
                "drivers/gpu/drm/i915/gt/uc/intel_uc_fw.c",
                "6.4-6.18",
                "i915 0000:00:02.0: [drm] *ERROR* GT0: ",
                args=("GuC", "i915/tgl_guc_70.bin", "-ENOENT"),
            ),
            Format(
                "%s firmware %s: fetch failed with error %pe",
                "drivers/gpu/drm/xe/xe_uc_fw.c",
                "6.8-6.18",
                "xe 0000:03:00.0: [drm] GT0: ",
                args=("GuC", "xe/bmg_guc_70.bin", "-ENOENT"),
            ),
        ),
    ),
    # FreeBSD's firmware(9) (sys/kern/subr_firmware.c loadimage: printf "%s: could not load
    # firmware image, error %d", FreeBSD 8-14; DragonFly's kprintf the same) for radeon's
    # microcode through drm-kmod's linuxkpi request_firmware. The loader's line alone is no
    # evidence (firmware.py's rule), but radeon's legacy upper-case files of the command
    # processor, RLC, memory controller and SDMA (radeon/<CHIP>_pfp.bin, _me, _ce, _mec, _rlc,
    # _mc, _sdma; r600.c, ni.c, si.c, cik.c *_init_microcode) are the last name it tries and
    # the ones it cannot run without: the probe gives up ("Failed to load firmware!"). UVD,
    # VCE and SMC files are optional (the block is disabled): not these.
    sig(
        "firmware_load_failure",
        r"^radeon/[A-Z0-9]+_(?:pfp|me|ce|mec|rlc|mc|sdma)\.bin: could not load firmware image,"
        r" error \d+",
        ("could",),
        Severity.ERROR,
        "gpu.radeon",
        "The radeon driver could not load the GPU's microcode (command processor, RLC or "
        "memory controller): the GPU stays without acceleration for this boot.",
        "Install the firmware the port needs (FreeBSD: the gpu-firmware-kmod package, or "
        "the radeonkmsfw modules) and reboot.",
        47,
        device_kind=_PCI,
        formats=(
            Format(
                "%s: could not load firmware image, error %d",
                "freebsd:sys/kern/subr_firmware.c",
                "FreeBSD 8-14",
                args=("radeon/ARUBA_pfp.bin", 2),
            ),
        ),
    ),
    # lima (Mali-400/450, drivers/gpu/drm/lima): lima_mmu.c lima_mmu_send_command dev_err "mmu
    # command %x timeout" (5.2 on), "%s command %x timeout" with the MMU's name (gpmmu,
    # ppmmu0…, later releases to 6.18): the GPU's MMU did not complete a page-table or stall
    # command, the jobs on it hang; the out-of-tree lima of 2017 (lima_sched.c worker) then
    # DRM_INFO "lima worker wait dep fence error %d" / "lima worker wait task error" for the
    # jobs it waited on.
    sig(
        "soc_gpu_hang",
        r"\blima \S+: (?:mmu|gpmmu|ppmmu\d+) command [0-9a-f]+ timeout\b"
        r"|\blima worker wait (?:dep fence|task) error\b",
        ("lima",),
        Severity.ERROR,
        SOC,
        "A SoC's GPU (V3D, Mali, Vivante or Adreno) stopped finishing its jobs: the driver "
        "timed the job out and reset the GPU.",
        "See soc_gpu_hang.",
        40,
        formats=(
            Format(
                "mmu command %x timeout",
                "drivers/gpu/drm/lima/lima_mmu.c",
                "5.2",
                "lima 1c40000.gpu: ",
                args=(2,),
            ),
            Format(
                "%s command %x timeout",
                "drivers/gpu/drm/lima/lima_mmu.c",
                "6.18",
                "lima 1c40000.gpu: ",
                args=("ppmmu0", 2),
            ),
            Format(
                "lima worker wait dep fence error %d",
                "lima:drivers/gpu/drm/lima/lima_sched.c",
                "out-of-tree lima (2017)",
                "[drm] ",
                args=(-110,),
            ),
        ),
    ),
    # nvgpu's GR engine exceptions (L4T r32-r36): hal/gr/intr/gr_intr_gm20b.c, _gv11b_fusa.c,
    # _ga10b_fusa.c nvgpu_err "fe exception: esr 0x%08x, info 0x%08x", "mme exception: esr
    # 0x%08x info:0x%08x", "mme_fe1 exception: esr 0x%08x, info 0x%08x,info_mthd 0x%08x,
    # info_mthd2 0x%08x", "ssync exception: esr 0x%08x", and the channel told of it:
    # os/linux/channel.c nvgpu_set_err_notifier_locked nvgpu_err "error notifier set to %d for
    # ch %d" (" owned by %s" in r36). A record wrapped after its LOG_FMT header keeps the
    # function's name ("…_exception:246 [ERR]", "nvgpu_set_err_notifier_locked:143 [ERR]"):
    # the header alone names the event, as kernel_cut.py's WARNING header does.
    sig(
        "nvgpu_error",
        r"nvgpu: \S+ +\S+:\d+ +\[ERR\] +(?:\w+ exception: esr 0x[0-9a-f]+"
        r"|error notifier set to \d+ for ch \d+)"
        r"|nvgpu: \S+ +(?:\w+_gr_intr_\w*exception|nvgpu_set_err_notifier_locked):\d+ +\[ERR\]"
        r"\s*$",
        ("ERR",),
        Severity.ERROR,
        NVGPU,
        "The Tegra GPU driver (nvgpu, Jetson/Orin) reported a GPU engine exception or an "
        "error it signalled to a GPU channel: that channel's work failed.",
        "See nvgpu_error.",
        36,
        formats=(
            Format(
                "mme_fe1 exception: esr 0x%08x, info 0x%08x,info_mthd 0x%08x, info_mthd2 0x%08x",
                _NVGPU_SRC + "hal/gr/intr/gr_intr_ga10b_fusa.c",
                "L4T r36",
                _nvgpu("ga10b_gr_intr_check_gr_mme_fe1_exception", 246),
                args=(0x80020000, 0, 0, 0),
            ),
            Format(
                "fe exception: esr 0x%08x, info 0x%08x",
                _NVGPU_SRC + "hal/gr/intr/gr_intr_gv11b_fusa.c",
                "L4T r32-r36",
                _nvgpu("gm20b_gr_intr_handle_exceptions", 120),
                args=(0x80000100, 0),
            ),
            Format(
                "error notifier set to %d for ch %d",
                _NVGPU_SRC + "os/linux/channel.c",
                "L4T r32-r36",
                _nvgpu("nvgpu_set_err_notifier_locked", 143),
                args=(13, 508),
            ),
        ),
    ),
)
