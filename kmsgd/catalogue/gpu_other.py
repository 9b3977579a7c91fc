"""GPU drivers beside amdgpu and NVIDIA's own, and NVIDIA's NVSwitch fabric.

radeon (drivers/gpu/drm/radeon, the pre-GCN AMD cards and GCN 1.0/1.1 when amdgpu does not take
them) and nouveau (drivers/gpu/drm/nouveau, NVIDIA cards without NVIDIA's driver) still run on
many boxes; the NVSwitch driver (NVIDIA's open-gpu-kernel-modules, src/common/nvswitch) prints
SXids for the NVLink fabric of HGX/DGX machines; the GPUs of SoCs (Raspberry Pi's V3D, Arm
Mali through panfrost, Vivante through etnaviv, Adreno through msm) report their hangs from
their own drivers' job timeouts. The firmware-first hardware errors of those
servers (APEI GHES) are here too until hardware.py takes them with its format-string data.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, Trigger, sig

_PCI = DeviceKind.PCI
RADEON = "gpu.radeon"
NOUVEAU = "gpu.nouveau"
NVSWITCH = "gpu.nvswitch"
SOC = "gpu.soc"
_RADEON = "drivers/gpu/drm/radeon/"


def _drm_radeon(func: str) -> str:
    # DRM_ERROR's prefix (include/drm/drm_print.h)
    return f"[drm:{func} [radeon]] *ERROR* "


OTHER_GPU_SIGNATURES: tuple[Signature, ...] = (
    # radeon_ring.c radeon_ring_test_lockup: dev_err "ring %d stalled for more than %llumsec"
    # (3.x-mainline; the FreeBSD port names the device "drmn0:"), then radeon_fence.c
    # radeon_fence_check_lockup: dev_warn "GPU lockup (current fence id 0x%016llx last fence
    # id 0x%016llx on ring %d)"; amdgpu carried the same stall text in 4.2-4.x only on its
    # own device, so the driver's name (or FreeBSD's device) must be on the line. The same
    # lockup found by the tests the driver runs at init and resume (a command the ring must
    # execute; radeon follows a failure with the same GPU soft reset): radeon_ring.c /
    # r600.c, cik.c, si.c ring tests DRM_ERROR "radeon: ring %d test failed
    # (scratch(0x%04X)=0x%08X)", their IB tests "radeon: ib test failed (scratch(0x%04X)=
    # 0x%08X)", "radeon: fence wait timed out.", "radeon: fence wait failed (%ld).", and
    # radeon_ib.c radeon_ib_ring_tests "radeon: failed testing IB on GFX ring (%d)." /
    # "radeon: failed testing IB on ring %d (%d)." (3.x-mainline)
    sig(
        "radeon_gpu_lockup",
        r"(?:radeon \S+: |drmn\d+: )(?:ring \d+ stalled for more than \d+msec"
        r"|GPU lockup \(current fence id)"
        r"|radeon: (?:(?:ring \d+|ib) test failed \(scratch|fence wait (?:timed out|failed)"
        r"|failed testing IB on (?:GFX ring|ring \d+) \(-?\d+\))",
        ("stalled", "lockup", "failed", "timed"),
        Severity.CRITICAL,
        RADEON,
        "The radeon driver found a GPU ring that stopped advancing (a GPU lockup).",
        "The driver resets the GPU next; repeated lockups point at the card, its power, or a "
        "Mesa/kernel bug for that chip (try the amdgpu driver for GCN 1.0/1.1 cards).",
        35,
        device_kind=_PCI,
        trigger=Trigger("gpu_hang"),
        # listed: the init and resume tests' wording (the stall and fence-lockup formats are
        # not among them)
        formats=(
            Format(
                "radeon: failed testing IB on GFX ring (%d).",
                _RADEON + "radeon_ib.c",
                "4.4-6.18",
                _drm_radeon("radeon_ib_ring_tests"),
                args=(-110,),
            ),
            Format(
                "radeon: failed testing IB on ring %d (%d).",
                _RADEON + "radeon_ib.c",
                "4.4-6.18",
                _drm_radeon("radeon_ib_ring_tests"),
                args=(5, -110),
            ),
            Format(
                "radeon: ring %d test failed (scratch(0x%04X)=0x%08X)",
                _RADEON + "r600.c",
                "4.4-6.18",
                _drm_radeon("r600_ring_test"),
                args=(0, 0x8504, 0xCAFEDEAD),
            ),
            Format(
                "radeon: ib test failed (scratch(0x%04X)=0x%08X)",
                _RADEON + "r600.c",
                "4.4-6.18",
                _drm_radeon("r600_ib_test"),
                args=(0x8504, 0xCAFEDEAD),
            ),
            Format(
                "radeon: fence wait timed out.",
                _RADEON + "r600.c",
                "4.19-6.18",
                _drm_radeon("r600_ib_test"),
            ),
            Format(
                "radeon: fence wait failed (%d).",
                _RADEON + "r600.c",
                "4.4-6.18",
                _drm_radeon("r600_ib_test"),
                args=(-35,),
            ),
        ),
    ),
    # nouveau's nvkm_error (nvkm/core/subdev.h: dev_err with "<subdev>: "): fifo
    # "DMA_PUSHER - ch %d [%s] get %08x put %08x state %08x (err: %s) push %08x"
    # (nvkm/engine/fifo/nv04.c, 4.x-mainline; nv50 adds ho/ib words), "SCHED_ERROR %02x [%s]"
    # (gf100.c/gk104.c, tu102.c drops the name in 6.x), "PBDMA%d: %08x [%s] ch %d [%010llx
    # %s] subc %d mthd %04x data %08x", "fault %02x [%s] at %016llx engine %02x [%s] client
    # %02x [%s%s] reason %02x [%s] on channel %d [%010llx %s]" (gk104 MMU fault); gr "TRAP ch
    # %d [%010llx %s]", "DATA_ERROR %08x [%s]", "ILLEGAL_MTHD" (nvkm/engine/gr/nv50.c, gf100.c);
    # and the probe's refusal of a chip it cannot read or does not know (nvkm/engine/device/
    # base.c nvkm_device_ctor: nvdev_error "unknown chipset (%08x)", 4.x-mainline; ffffffff
    # is a GPU that answers no register read); the DRM side's channel that never idles
    # (nouveau_chan.c nouveau_channel_idle: NV_PRINTK(err, cli, "failed to idle channel %d
    # [%s]"), and the fbcon's acceleration given up on a hung GPU (nouveau_fbcon.c
    # nouveau_fbcon_gpu_lockup: NV_ERROR "GPU lockup - switching to software fbcon"), both
    # with "DRM: " after the device (3.x printed "[drm] nouveau <bus id>: "); the host bus's
    # fault on a register access the GPU did not answer (nvkm/subdev/bus/nv31.c, nv50.c
    # "MMIO %s of %08x FAULT at %06x", gf100.c "MMIO %s of %08x FAULT at %06x [ %s%s%s]"
    # with !ENGINE/PRIVRING/TIMEOUT, 4.4-mainline; gf100's nvkm_error_ratelimited in 6.x);
    # before nvkm (3.3-3.6: NV_ERROR printed "[drm] nouveau <bus id>: ") the Fermi playlist
    # that the GPU never took (nvc0_fifo.c nvc0_fifo_playlist_update: "PFIFO - playlist
    # update failed"), the Fermi/Kepler channel's memory fault (nvc0_fifo.c, nve0_fifo.c
    # nvc0_fifo_isr_vm_fault NV_INFO "PFIFO: %s fault at 0x%010llx [", then the reason, unit
    # and channel by printk continuation; nv_error with the same words in core/engine/fifo/
    # nve0.c under nv_printk) and the channel that never idled (nouveau_channel.c: "Failed to idle
    # channel %d."); the DRM side's failures that leave the GPU half set up: the copy-engine
    # channel not created (nouveau_drm.c: NV_ERROR "failed to create ce channel, %d"), the
    # fences that the accelerated paths wait on never set up (nouveau_drm.c nouveau_accel_init
    # NV_ERROR "failed to initialise sync subsystem, %d", 3.8-6.18: acceleration is torn down
    # and the probe goes on without it) and the
    # display core's capability notifier never written by the GPU (dispnv50/core507d.c,
    # core907d.c: NV_ERROR "core caps notifier timeout"), "DRM: " after the device, "drm: " in
    # 6.x; the graphics engine that never went idle (nvkm/engine/gr/gf100.c gf100_gr_wait_idle
    # nvkm_error "wait for idle timeout (en: %d, ctxsw: %d, busy: %d)", 4.4-6.1), and a falcon
    # engine (msvld, msppp, sec)
    # started without its firmware (nvkm/engine/falcon.c nvkm_falcon_oneinit nvkm_error
    # "unable to load firmware data" / "… code", 4.4-6.1). A register wait that ran out
    # (include/nvkm/subdev/timer.h nvkm_msec's dev_WARN "timeout", 4.19-6.18) is the WARNING's
    # message line, kernel_warning's (batch 18's secboot case). Before 4.3 nouveau printed through
    # its own nv_printk_ (core/core/printk.c, nvkm/core/printk.c): "nouveau %c[%8s][%s]%s
    # %s", the level letter (E error, ! fatal), the subdev padded to eight, the device and
    # the object, then the engine's message (fifo/nvc0.c, nve0.c, gf100.c, gk104.c nv_error
    # "SCHED_ERROR [ %s ]", the faults, traps and MMIO faults as above; the client's "nouveau
    # E[     DRM] failed to idle channel 0x%08x" from nouveau_chan.c), 3.7-4.2
    sig(
        "nouveau_error",
        r"nouveau \S+: (?:bus: MMIO (?:read|write) of [0-9a-fA-F]+ FAULT at "
        r"|fifo: (?:DMA_PUSHER|SCHED_ERROR|PBDMA\d+: |fault \w+ \[|"
        r"(?:read|write) fault at )|gr: (?:TRAP|DATA_ERROR|ILLEGAL_MTHD|ILLEGAL_CLASS)"
        r"|mmu: (?:fault|Page fault)|gr: magic set \d+|unknown chipset \([0-9a-fA-F]+\)"
        r"|(?:DRM: )?(?:GPU lockup - switching to software fbcon|failed to idle channel \d+ \[)"
        r"|PFIFO - playlist update failed|Failed to idle channel \d+\."
        r"|PFIFO: (?:read|write) fault at 0x[0-9a-fA-F]+ \["
        r"|(?:DRM|drm): (?:failed to (?:create ce channel|initialise sync subsystem), -?\d+"
        r"|core caps notifier timeout)"
        r"|gr: wait for idle timeout \(en: |\w+: unable to load firmware (?:data|code)$)"
        r"|nouveau [E!]\[ *\w+\]\[[^\]]+\](?:\[[^\]]*\])* (?:SCHED_ERROR \[|TRAP|DATA_ERROR"
        r"|ILLEGAL_MTHD|ILLEGAL_CLASS|DMA_PUSHER|PBDMA\d|(?:PFIFO: )?(?:read|write) fault at"
        r"|MMIO (?:read|write) of)|nouveau [E!]\[ *DRM\] failed to idle channel",
        ("nouveau",),
        Severity.ERROR,
        NOUVEAU,
        "The nouveau driver reports a GPU engine fault (FIFO, PBDMA, graphics trap or MMU fault).",
        "Usually a nouveau bug on that chip or an application's GPU fault; repeated faults "
        "before a freeze name the engine: update the kernel and Mesa, or try NVIDIA's driver.",
        36,
        device_kind=_PCI,
        # listed: the probe's refusal and the bus fault (the engine-fault formats are not)
        formats=(
            Format(
                "unknown chipset (%08x)",
                "drivers/gpu/drm/nouveau/nvkm/engine/device/base.c",
                "4.4-6.18",
                "nouveau 0000:01:00.0: ",
                args=(0xFFFFFFFF,),
            ),
            Format(
                "failed to idle channel %d [%s]",
                "drivers/gpu/drm/nouveau/nouveau_chan.c",
                "4.4-6.18",
                "nouveau 0000:01:00.0: DRM: ",
                args=(2, "Xorg[1042]"),
            ),
            Format(
                "MMIO %s of %08x FAULT at %06x [ %s%s%s]",
                "drivers/gpu/drm/nouveau/nvkm/subdev/bus/gf100.c",
                "4.4-6.18",
                "nouveau 0000:02:00.0: bus: ",
                args=("read", 0, 0x6013D4, "", "PRIVRING ", ""),
            ),
            Format(
                "MMIO %s of %08x FAULT at %06x",
                "drivers/gpu/drm/nouveau/nvkm/subdev/bus/nv50.c",
                "4.4-6.18",
                "nouveau 0000:01:00.0: bus: ",
                args=("write", 0xBAD0DA00, 0x610004),
            ),
            Format(
                "failed to create ce channel, %d",
                "drivers/gpu/drm/nouveau/nouveau_drm.c",
                "5.4-6.18",
                "nouveau 0000:29:00.0: drm: ",
                args=(-22,),
            ),
            Format(
                "failed to initialise sync subsystem, %d",
                "drivers/gpu/drm/nouveau/nouveau_drm.c",
                "4.4-6.18",
                "nouveau 0000:01:00.0: DRM: ",
                args=(-22,),
            ),
            Format(
                "core caps notifier timeout",
                "drivers/gpu/drm/nouveau/dispnv50/core507d.c",
                "5.10-6.18",
                "nouveau 0000:01:00.0: DRM: ",
            ),
            Format(
                "GPU lockup - switching to software fbcon",
                "drivers/gpu/drm/nouveau/nouveau_fbcon.c",
                "4.4-6.1",
                "nouveau 0000:01:00.0: DRM: ",
            ),
            Format(
                "wait for idle timeout (en: %d, ctxsw: %d, busy: %d)",
                "drivers/gpu/drm/nouveau/nvkm/engine/gr/gf100.c",
                "4.4-6.1",
                "nouveau 0000:01:00.0: gr: ",
                args=(1, 0, 1),
            ),
            Format(
                "unable to load firmware data",
                "drivers/gpu/drm/nouveau/nvkm/engine/falcon.c",
                "4.4-6.1",
                "nouveau 0000:01:00.0: msvld: ",
            ),
            Format(
                "SCHED_ERROR [ %s ]",
                "drivers/gpu/drm/nouveau/core/engine/fifo/nve0.c",
                "3.10-4.2",
                "nouveau E[   PFIFO][0000:01:00.0] ",
                args=("CTXSW_TIMEOUT",),
            ),
            Format(
                "failed to idle channel 0x%08x [%s]",
                "drivers/gpu/drm/nouveau/nouveau_chan.c",
                "3.10-4.2",
                "nouveau E[     DRM] ",
                args=(0xCCCC0000, "DRM"),
            ),
            Format(
                "PFIFO: %s fault at 0x%010llx [",
                "drivers/gpu/drm/nouveau/nvc0_fifo.c",
                "3.3-3.6",
                "[drm] nouveau 0000:01:00.0: ",
                args=("read", 0),
            ),
            Format(
                "PFIFO: %s fault at 0x%010llx [",
                "drivers/gpu/drm/nouveau/core/engine/fifo/nve0.c",
                "3.10-4.2 (as read)",
                "nouveau E[   PFIFO][0000:01:00.0] ",
                args=("write", 0x1000),
            ),
            Format(
                "PFIFO - playlist update failed",
                "drivers/gpu/drm/nouveau/nvc0_fifo.c",
                "3.3-3.6",
                "[drm] nouveau 0000:01:00.0: ",
            ),
            Format(
                "Failed to idle channel %d.",
                "drivers/gpu/drm/nouveau/nouveau_channel.c",
                "3.3-3.6",
                "[drm] nouveau 0000:01:00.0: ",
                args=(1,),
            ),
        ),
    ),
    # src/common/nvswitch/kernel/inc/error_nvswitch.h NVSWITCH_PRINT_SXID: "nvidia-%s: SXid
    # (PCI:%04x:%02x:%02x.%x): %05d, " then "Fatal, ..." / "Non-fatal, ..." (the device name is
    # "nvswitchN"); NVIDIA's NVSwitch error guide: fatal SXids need the fabric reset, non-fatal
    # ones are counted and may repeat.
    sig(
        "nvswitch_sxid",
        r"nvidia-nvswitch\d+: SXid \(PCI:[0-9a-fA-F:.]+\): \d+",
        ("SXid",),
        Severity.ERROR,
        NVSWITCH,
        "An NVSwitch of the NVLink fabric reported an error (SXid).",
        "Fatal SXids stop the fabric: the GPUs on that switch lose NVLink until the fabric "
        "manager resets it; look up the SXid in NVIDIA's NVSwitch error guide and check the "
        "fabric manager's log.",
        24,
        device_kind=_PCI,
        formats=(
            Format(
                "nvidia-%s: SXid (PCI:%04x:%02x:%02x.%x): %05d, %s",
                "nvidia:src/common/nvswitch/kernel/inc/common_nvswitch.h",
                "r515-r595",
                args=("nvswitch0", 0, 0x6, 0, 0, 12028, "NVLink fatal error"),
            ),
        ),
    ),
    # drivers/acpi/apei/ghes.c __ghes_print_estatus: "%s{%u}[Hardware Error]: Hardware error
    # from APEI Generic Hardware Error Source: %d" (3.x-mainline), then
    # drivers/firmware/efi/cper.c cper_estatus_print: "%sevent severity: %s" with
    # "recoverable", "fatal", "corrected", "info"; only the first two are failures (the
    # firmware corrected the others); ghes_proc panics "Fatal hardware error!" on a fatal
    # one (6.12+: "GHES: Fatal hardware error", without the "!"). A memory or processor
    # section (cper.c cper_estatus_print_section "%ssection_type: memory error", "general
    # processor error", "ARM processor error", 3.x-mainline) is a hardware fault the firmware
    # reports whatever its severity: a corrected one is the only finding of its paste (a
    # corrected PCIe section is aer_corrected in indirect.py). In 3.x kernels cper.c
    # apei_estatus_print said "%sAPEI generic hardware error status", then "%sseverity: %d,
    # %s" and per section "%ssection: %d, severity: %d, %s" (RHEL 7's 3.10 still does).
    sig(
        "ghes_hardware_error",
        r"\[Hardware Error\]: event severity: (?:recoverable|fatal)\b|Fatal hardware error\b"
        r"|\[Hardware Error\]: (?:section: \d+, )?severity: \d+, (?:recoverable|fatal)\b"
        r"|\[Hardware Error\]:\s+section_type: (?:memory|general processor|ARM processor) error",
        ("severity", "Fatal", "section_type"),
        Severity.CRITICAL,
        "hardware",
        "The platform firmware reported an uncorrected hardware error (APEI GHES): memory, "
        "CPU or PCIe, named by the section lines that follow.",
        "Read the section_type and the FRU/DIMM lines after it; replace or reseat what they "
        "name and read the BMC's event log for the same moment.",
        11,
        formats=(
            # cper_estatus_print's "%s""event severity: %s" behind the GHES prefix
            Format(
                "%sevent severity: %s",
                "drivers/firmware/efi/cper.c",
                "4.4-6.18",
                args=("{1}[Hardware Error]: ", "fatal"),
            ),
            Format(
                "%sseverity: %d, %s",
                "drivers/acpi/apei/cper.c",
                "2.6.35-3.x (RHEL 7 3.10; the change not dated tree by tree)",
                args=("[Hardware Error]: ", 1, "fatal"),
            ),
            Format(
                "%ssection: %d, severity: %d, %s",
                "drivers/acpi/apei/cper.c",
                "2.6.35-3.x (RHEL 7 3.10; the change not dated tree by tree)",
                args=("[Hardware Error]: ", 0, 1, "fatal"),
            ),
            Format(
                "%ssection_type: memory error",
                "drivers/firmware/efi/cper.c",
                "4.4-6.18",
                args=("{35}[Hardware Error]:   ",),
            ),
            Format(
                "%ssection_type: general processor error",
                "drivers/firmware/efi/cper.c",
                "4.4-6.18",
                args=("{2}[Hardware Error]:   ",),
            ),
            Format(
                "Fatal hardware error!",
                "drivers/acpi/apei/ghes.c",
                "4.4-6.8",
                "Kernel panic - not syncing: ",
            ),
            Format(
                "Fatal hardware error",
                "drivers/acpi/apei/ghes.c",
                "6.12-6.18",
                "Kernel panic - not syncing: GHES: ",
            ),
        ),
    ),
    # The GPUs of SoCs, each found hung by its driver's DRM-scheduler timeout or hangcheck, then
    # reset: drivers/gpu/drm/v3d/v3d_gem.c v3d_reset "Resetting GPU for hang." (DRM_DEV_ERROR
    # 4.18-6.x, drm_err later), panfrost/panfrost_job.c panfrost_job_timedout dev_err "gpu
    # sched timeout, js=%d, config=0x%x, status=0x%x, head=0x%x, tail=0x%x, sched_job=%p"
    # (5.4-6.18), etnaviv/etnaviv_gpu.c etnaviv_gpu_recover_hang dev_err "recover hung GPU!"
    # (4.4-6.18; the device is "etnaviv-gpu" on SoCs, "etnaviv" where a PCI glue driver
    # binds a Vivante core, as on Loongson boards), msm/msm_gpu.c hangcheck_handler
    # DRM_DEV_ERROR "%s: hangcheck detected gpu lockup rb %d!" (4.4-6.18). A hang the reset
    # clears costs a frame; a repeated one freezes the desktop of the board.
    sig(
        "soc_gpu_hang",
        r"v3d \S+: .*Resetting GPU for hang\.|panfrost \S+: gpu sched timeout, js=\d+"
        r"|etnaviv(?:-gpu)? \S+: recover hung GPU!|hangcheck detected gpu lockup rb \d+!",
        ("Resetting", "sched", "hung", "hangcheck"),
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
                "Resetting GPU for hang.",
                "drivers/gpu/drm/v3d/v3d_gem.c",
                "4.19-6.12",
                "v3d fec00000.v3d: [drm:v3d_reset [v3d]] *ERROR* ",
            ),
            Format(
                "gpu sched timeout, js=%d, config=0x%x, status=0x%x, head=0x%x, tail=0x%x, "
                "sched_job=%p",
                "drivers/gpu/drm/panfrost/panfrost_job.c",
                "5.4-6.18",
                "panfrost ff9a0000.gpu: ",
                args=(1, 0x7300, 0x8, 0x1000, 0x1000, "00000000a1b2c3d4"),
            ),
            Format(
                "recover hung GPU!",
                "drivers/gpu/drm/etnaviv/etnaviv_gpu.c",
                "4.4-6.18",
                "etnaviv-gpu 130000.gpu: ",
            ),
            Format(
                "recover hung GPU!",
                "drivers/gpu/drm/etnaviv/etnaviv_gpu.c",
                "5.4-6.18 (a PCI-bound core)",
                "etnaviv 0000:00:06.0: ",
            ),
            Format(
                "%s: hangcheck detected gpu lockup rb %d!",
                "drivers/gpu/drm/msm/msm_gpu.c",
                "4.4-6.18",
                "msm_dpu ae01000.display-controller: [drm:hangcheck_handler [msm]] *ERROR* ",
                args=("5.0.6.0", 0),
            ),
        ),
        trigger=Trigger("gpu_hang"),
    ),
    # drivers/gpu/host1x/syncpt.c host1x_syncpt_wait (Tegra's host1x, 3.10-5.x and NVIDIA's
    # L4T kernels): a client's wait on a syncpoint the engine never advances, warned every
    # check period with the table of syncpoints after it: dev_warn "%s: syncpoint id %u (%s)
    # stuck waiting %d, timeout=%ld" (the first kernels printed "%s: syncpoint %u stuck
    # waiting %d, timeout=%ld"); the engine behind it (VIC, NVDEC, PVA) has hung
    sig(
        "tegra_host1x_syncpt_timeout",
        r"host1x \S+: .*: syncpoint (?:id )?\d+ (?:\(\S*\) )?stuck waiting -?\d+, timeout=",
        ("syncpoint",),
        Severity.ERROR,
        SOC,
        "A Tegra host1x client waited on a syncpoint its engine never advanced: the engine "
        "(video, vision or display accelerator) hung and the waiting process with it.",
        "Note the syncpoint's name (it names the engine) and the program that waited; update "
        "the board's kernel and firmware (JetPack / L4T) and report the workload.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "%s: syncpoint id %u (%s) stuck waiting %d, timeout=%ld",
                "drivers/gpu/host1x/syncpt.c",
                "3.17-5.x",
                "host1x 13e10000.host1x: ",
                args=("vpi_sample_05_b", 31, "pva_syncpt", 1, 519311586),
            ),
            Format(
                "%s: syncpoint %u stuck waiting %d, timeout=%ld",
                "drivers/gpu/host1x/syncpt.c",
                "3.10-3.16",
                "host1x 50000000.host1x: ",
                args=("Xorg", 18, 3, 10000),
            ),
        ),
    ),
    # the same stop on two more SoC GPUs: msm/msm_gpu.c recover_worker "%s: hangcheck
    # recover!" (dev_err 4.4-4.19, DRM_DEV_ERROR 5.x-6.x: the reset after hangcheck found the
    # Adreno hung; its "offending task: %s" line names the process) and lima/lima_sched.c
    # lima_sched_timedout_job DRM_ERROR "lima job timeout" (5.2-6.x, Mali-400/450); lima's
    # DRM_WARN "%s spurious timeout" (a job that did finish) is not one
    sig(
        "soc_gpu_hang",
        r"\S+: hangcheck recover!|\blima job timeout",
        ("hangcheck", "lima"),
        Severity.ERROR,
        SOC,
        "A SoC's GPU (V3D, Mali, Vivante or Adreno) stopped finishing its jobs: the driver "
        "timed the job out and reset the GPU.",
        "See soc_gpu_hang.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "%s: hangcheck recover!",
                "drivers/gpu/drm/msm/msm_gpu.c",
                "5.4-6.18",
                "msm_dpu ae01000.display-controller: [drm:recover_worker [msm]] *ERROR* ",
                args=("7.3.0.1",),
            ),
            Format(
                "%s: hangcheck recover!",
                "drivers/gpu/drm/msm/msm_gpu.c",
                "4.4-4.19",
                "msm 900000.mdss: ",
                args=("A530",),
            ),
            Format(
                "lima job timeout",
                "drivers/gpu/drm/lima/lima_sched.c",
                "5.4-6.12",
                "[drm:lima_sched_timedout_job [lima]] *ERROR* ",
            ),
        ),
    ),
    # ARM's own Mali driver (kbase, out of tree, shipped in vendor and handheld kernels; the
    # in-tree panfrost is above): a job that ends with a fault code, dev_err "t6xx: GPU fault
    # 0x%02lx from job slot %d" (kbase_js_complete_atom in mali_kbase_js.c and kbase_job_done
    # in backend/gpu/mali_kbase_jm_hw.c, the "t6xx: " dropped in later releases), after which
    # kbase soft-resets the GPU (and hard-resets it when that times out).
    sig(
        "soc_gpu_hang",
        r"^(?:mali \S+: )?(?:t6xx: )?GPU fault 0x[0-9a-f]+ from job slot \d+",
        ("fault",),
        Severity.ERROR,
        SOC,
        "A SoC's GPU (V3D, Mali, Vivante or Adreno) stopped finishing its jobs: the driver "
        "timed the job out and reset the GPU.",
        "Note the process in the lines around it; update the kernel and the vendor's Mali "
        "driver and its userspace blob together; repeated faults with one application point "
        "at it.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "t6xx: GPU fault 0x%02lx from job slot %d",
                "arm-kbase:mali_kbase/mali_kbase_js.c",
                "bifrost/midgard vendor releases (the copies read)",
                "mali ffe40000.gpu_mali_vulkan: ",
                args=(0x4002, 0),
            ),
            Format(
                "GPU fault 0x%02lx from job slot %d",
                "arm-kbase:mali_kbase/backend/gpu/mali_kbase_jm_hw.c",
                "midgard vendor releases (the copies read)",
                "mali ff9a0000.gpu: ",
                args=(0x58, 1),
            ),
        ),
    ),
    # radeon's DPM failing to program a power state (the SMC did not take the new state):
    # radeon/si_dpm.c si_dpm_set_power_state DRM_ERROR "si_set_sw_state failed",
    # "si_upload_sw_state failed", "si_resume_smc failed", … and the same "<chip>_<step>
    # failed" in ci_dpm.c, ni_dpm.c, rv770_dpm.c, cypress_dpm.c, btc_dpm.c, kv_dpm.c,
    # trinity_dpm.c, sumo_dpm.c (3.11-mainline); radeon_pm.c radeon_pm_init_dpm /
    # radeon_pm_resume_dpm DRM_ERROR "radeon: dpm initialization failed" / "radeon: dpm resume
    # failed". amdgpu's copy of si_dpm.c prints the same words from [amdgpu]: not radeon's.
    sig(
        "radeon_dpm_error",
        r"^(?!.*\bamdgpu\b).*\b(?:si|ci|ni|kv|rv6xx|rv770|cypress|btc|trinity|sumo)_\w+ failed$"
        r"|\bradeon: dpm (?:initialization|resume) failed\b",
        ("failed",),
        Severity.WARNING,
        RADEON,
        "radeon's power management (DPM) failed to program a power state into the GPU's SMC: "
        "the card stays at the clocks it had, or hangs when the new state is half applied.",
        "Boot with radeon.dpm=0 to see whether the hang goes; update the kernel and the "
        "radeon firmware (the SMC image); on GCN 1.0/1.1 cards try amdgpu (amdgpu.si_support=1 "
        "radeon.si_support=0).",
        39,
        device_kind=_PCI,
        formats=(
            Format(
                "si_set_sw_state failed",
                _RADEON + "si_dpm.c",
                "4.4-6.18",
                _drm_radeon("si_dpm_set_power_state"),
            ),
            Format(
                "si_upload_sw_state failed",
                _RADEON + "si_dpm.c",
                "4.4-6.18",
                _drm_radeon("si_dpm_set_power_state"),
            ),
            Format(
                "si_resume_smc failed",
                _RADEON + "si_dpm.c",
                "4.4-6.18",
                _drm_radeon("si_dpm_set_power_state"),
            ),
            Format(
                "radeon: dpm initialization failed",
                _RADEON + "radeon_pm.c",
                "4.4-6.18",
                _drm_radeon("radeon_pm_init_dpm"),
            ),
        ),
    ),
    # Qualcomm's display processing unit (msm/disp/dpu1) reporting its own failure: every
    # DPU_ERROR is pr_err("[dpu error]" fmt) (dpu_kms.h, 4.19-mainline), and the encoder's
    # add "enc%d " (DPU_ERROR_ENC) or "enc%d intf%d " (DPU_ERROR_VIDENC):
    # dpu_encoder.c "frame done timeout", dpu_encoder_phys_vid.c "ctl %d reset failure: %d";
    # dpu_hw_ctl.c pr_err "hw recovery is not complete for ctl:%d". The display stays black or
    # frozen; the SoC runs on.
    sig(
        "msm_dpu_error",
        r"\[dpu error\]|\bhw recovery is not complete for ctl:\d+",
        ("dpu", "recovery"),
        Severity.WARNING,
        SOC,
        "Qualcomm's display controller (MSM DPU) failed: a frame did not complete, or a "
        "control path could not be reset; the display stays black or frozen, the SoC runs on.",
        "Check the device tree's display nodes (the MDSS reset and clocks) against the "
        "kernel's bindings and update the kernel; a panel or bridge that does not answer "
        "shows in the lines before it.",
        40,
        formats=(
            Format(
                "[dpu error]enc%d frame done timeout",
                "drivers/gpu/drm/msm/disp/dpu1/dpu_encoder.c",
                "4.19-6.18",
                args=(33,),
            ),
            Format(
                "[dpu error]enc%d frame done timeout",
                "drivers/gpu/drm/msm/disp/dpu1/dpu_encoder.c",
                "6.17",
                "[drm:dpu_encoder_frame_done_timeout:2727] ",
                args=(33,),
            ),
            Format(
                "[dpu error]enc%d intf%d ctl %d reset failure: %d",
                "drivers/gpu/drm/msm/disp/dpu1/dpu_encoder_phys_vid.c",
                "4.19-6.18",
                args=(33, 1, 2, -22),
            ),
            Format(
                "hw recovery is not complete for ctl:%d",
                "drivers/gpu/drm/msm/disp/dpu1/dpu_hw_ctl.c",
                "5.4-6.18",
                args=(2,),
            ),
        ),
    ),
    # The faults and firmware timeouts SoC GPU drivers print when a job goes wrong, before
    # (or instead of) a scheduler timeout: lima/lima_mmu.c lima_mmu_irq_handler dev_err "mmu
    # page fault at 0x%x from bus id %d of type %s on %s" (5.2-6.x, the Mali-4xx MMU of a
    # GP or PP core, which the driver resumes or resets), etnaviv/etnaviv_gpu.c
    # dump_mmu_fault (irq_handler before 5.x) dev_err_ratelimited "MMU fault status 0x%08x"
    # (4.5-6.x; the job then times out and the GPU is recovered), and the Asahi driver's
    # (drivers/gpu/drm/asahi/gpu.rs, Apple AGX, Rust) dev_err "** GPU timeout nya~!!!!! **"
    # (the firmware reports a timed-out event; the driver dumps the fault info and recovers).
    # All three are the GPU failing its work, as soc_gpu_hang names it.
    sig(
        "soc_gpu_hang",
        r"\blima \S+: mmu page fault at 0x[0-9a-f]+ from bus id \d+ of type (?:read|write) on "
        r"|\betnaviv(?:-gpu)? \S+: MMU fault status 0x[0-9a-f]+"
        r"|\basahi \S+: \*\* GPU timeout nya~!+ \*\*",
        ("mmu", "MMU", "nya"),
        Severity.ERROR,
        SOC,
        "A SoC's GPU (Mali, Vivante or Apple AGX) faulted on a job's memory or timed a job "
        "out: the driver stopped the job and recovered the GPU.",
        "See soc_gpu_hang.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "mmu page fault at 0x%x from bus id %d of type %s on %s",
                "drivers/gpu/drm/lima/lima_mmu.c",
                "5.2-6.12",
                "lima 1c40000.gpu: ",
                args=(0x121020, 0, "read", "ppmmu0"),
            ),
            Format(
                "MMU fault status 0x%08x",
                "drivers/gpu/drm/etnaviv/etnaviv_gpu.c",
                "4.5-6.12",
                "etnaviv-gpu 130000.gpu: ",
                args=(0x2,),
            ),
            Format(
                "** GPU timeout nya~!!!!! **",
                "asahi:drivers/gpu/drm/asahi/gpu.rs",
                "Asahi Linux kernels (the copies read)",
                "asahi 206400000.gpu: ",
            ),
        ),
    ),
    # The Arm Mali (panfrost for Midgard/Bifrost, panthor for Valhall CSF, 6.10+) and V3D
    # faults and firmware timeouts that come before or instead of a scheduler timeout: the
    # terminal MMU fault of a job (panfrost_mmu.c panfrost_mmu_irq_handler_thread dev_err
    # "Unhandled Page fault in AS%d at VA 0x%016llX", 6.1-6.18; panthor_mmu.c the same
    # wording with drm_err, 6.18), the GPU's own fault interrupt (panfrost_gpu.c
    # panfrost_gpu_irq_handler dev_warn "GPU Fault 0x%08x (%s) at 0x%016llx", 6.1-6.18;
    # panthor_gpu.c drm_warn, 6.18), panthor's firmware that stops answering
    # (panthor_fw.c "FW ping timeout, scheduling a reset", panthor_sched.c "CSG %d update
    # request timedout", drm_err) and its job timeout (panthor_sched.c queue_timedout_job
    # drm_warn "job timeout: pid=%d, comm=%s, seqno=%llu", 6.18) and V3D's 4.18-4.19 reset
    # (v3d_gem.c v3d_reset DRM_ERROR "Resetting GPU.", "Resetting GPU for hang." later). V3D's
    # MMU error is no hang: v3d_mmu_error below.
    sig(
        "soc_gpu_hang",
        r"\b(?:panfrost|panthor) \S+: (?:\[drm\] (?:\*ERROR\* )?)?(?:Unhandled Page fault in "
        r"AS\d+ at VA 0x|GPU Fault 0x[0-9a-f]+ \(|FW ping timeout, scheduling a reset"
        r"|CSG \d+ update request timedout|job timeout: pid=\d+, comm=)"
        r"|\[drm:v3d_\w+ \[v3d\]\] \*ERROR\* Resetting GPU\.",
        ("panfrost", "panthor", "v3d"),
        Severity.ERROR,
        SOC,
        "A SoC's GPU (Arm Mali under panfrost or panthor, Broadcom V3D) faulted on a job's "
        "memory, raised a fault, or its firmware stopped answering: the job is killed and "
        "the GPU reset.",
        "See soc_gpu_hang.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "Unhandled Page fault in AS%d at VA 0x%016llX",
                "drivers/gpu/drm/panfrost/panfrost_mmu.c",
                "6.1-6.18",
                "panfrost ff9a0000.gpu: ",
                args=(1, 0x7F3C0000),
            ),
            Format(
                "Unhandled Page fault in AS%d at VA 0x%016llX",
                "drivers/gpu/drm/panthor/panthor_mmu.c",
                "6.18",
                "panthor fb000000.gpu: [drm] *ERROR* ",
                args=(0, 0x1000),
            ),
            Format(
                "GPU Fault 0x%08x (%s) at 0x%016llx",
                "drivers/gpu/drm/panfrost/panfrost_gpu.c",
                "6.1-6.18",
                "panfrost ff9a0000.gpu: ",
                args=(0x88, "UNKNOWN", 0),
            ),
            Format(
                "FW ping timeout, scheduling a reset",
                "drivers/gpu/drm/panthor/panthor_fw.c",
                "6.18",
                "panthor fb000000.gpu: [drm] *ERROR* ",
            ),
            Format(
                "CSG %d update request timedout",
                "drivers/gpu/drm/panthor/panthor_sched.c",
                "6.18",
                "panthor fb000000.gpu: [drm] *ERROR* ",
                args=(0,),
            ),
            Format(
                "job timeout: pid=%d, comm=%s, seqno=%llu",
                "drivers/gpu/drm/panthor/panthor_sched.c",
                "6.18",
                "panthor fb000000.gpu: [drm] ",
                args=(1234, "glmark2", 42),
            ),
            Format(
                "Resetting GPU.",
                "drivers/gpu/drm/v3d/v3d_gem.c",
                "4.19",
                "[drm:v3d_reset [v3d]] *ERROR* ",
            ),
        ),
    ),
    # V3D's MMU error (v3d_irq.c v3d_hub_irq dev_err "MMU error from client %d at
    # 0x%08llx%s%s%s", 4.19; "client %s (%d)" 5.4-6.12; "client %s (0x%x)" 6.18): the hub
    # interrupt only logs the violation and clears it; no job is stopped and no reset
    # follows (v3d_mmu.c points invalid PTEs at the MMU scratch page, V3D_MMU_ILLEGAL_ADDR,
    # so a CLE prefetch past the end of a control list, or a bin's read of a PTE past its
    # buffer, reads the scratch page). A hang shows as the job timeout and its reset
    # (soc_gpu_hang). So the MMU error is information (rank 100, as workqueue_hog): listed,
    # never blamed, and a log that holds nothing else has no culprit.
    sig(
        "v3d_mmu_error",
        r"\bv3d \S+: MMU error from client ",
        ("MMU",),
        Severity.INFO,
        SOC,
        "The Broadcom V3D GPU's MMU reported an access outside a job's pages (often a "
        "prefetch past the end of a buffer); the driver logs it and the GPU carries on.",
        'Usually harmless; blame the GPU only when a job timeout and "Resetting GPU for hang" '
        "(soc_gpu_hang) follow.",
        100,
        device_kind=_PCI,
        routine=True,
        formats=(
            Format(
                "MMU error from client %d at 0x%08llx%s%s%s",
                "drivers/gpu/drm/v3d/v3d_irq.c",
                "4.19",
                "v3d fec00000.v3d: ",
                args=(5, 0x1000, "", ", pte invalid", ""),
            ),
            Format(
                "MMU error from client %s (%d) at 0x%llx%s%s%s",
                "drivers/gpu/drm/v3d/v3d_irq.c",
                "5.4-6.12",
                "v3d fec00000.v3d: ",
                args=("CLE", 4, 0xB0E1000, "", ", pte invalid", ""),
            ),
            Format(
                "MMU error from client %s (0x%x) at 0x%llx%s%s%s",
                "drivers/gpu/drm/v3d/v3d_irq.c",
                "6.18",
                "v3d fec00000.v3d: ",
                args=("L2T", 0x2, 0x1000, "", ", pte invalid", ""),
            ),
        ),
    ),
    # Arm's Mali kbase driver (out of tree, GPL, shipped in vendor BSP trees as
    # drivers/gpu/arm/midgard or bifrost): a failed KBASE_DEBUG_ASSERT in a debug build
    # (mali_kbase_debug.h KBASEP_DEBUG_ASSERT_OUT: pr_err "Mali<ASSERT>: %s function:%s "
    # with the trace "In file: <file> line: <n>", then the asserted message on lines of its
    # own); kbase_reg_read's assert (device/backend/mali_kbase_device_hw*.c) is a register
    # read while the GPU is powered off.
    sig(
        "mali_kbase_assert",
        r"Mali<ASSERT>: In file: \S+ line: \d+ function:\s*\w+",
        ("ASSERT",),
        Severity.ERROR,
        SOC,
        "Arm's Mali kbase driver failed one of its own consistency checks (an assert of a "
        "debug build): the GPU driver's state is wrong from here on.",
        "Note the file and function; update the board's BSP kernel (the vendor's kbase "
        "release) or try panfrost/panthor where the board supports them.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "Mali<ASSERT>: %s function:%s ",
                "arm-kbase:drivers/gpu/arm/bifrost/mali_kbase_debug.h",
                "kbase r-releases in vendor BSP trees (midgard and bifrost, as read)",
                args=(
                    "In file: drivers/gpu/arm/bifrost/device/backend/mali_kbase_device_hw_csf.c"
                    " line: 225",
                    "kbase_reg_read",
                ),
            ),
        ),
    ),
    # radeon's soft reset after a lockup (cik.c cik_gpu_soft_reset, si.c, evergreen.c,
    # r600.c: dev_info "GPU softreset: 0x%08X", then "GRBM_SOFT_RESET=0x%08X" /
    # "SRBM_SOFT_RESET=0x%08X" and the status dump, 3.x-6.18): the recovery of a lockup whose
    # ring-stall line a cut may have lost. amdgpu's gfx soft reset prints the same register
    # words on its own device, so the radeon device must be on the line.
    sig(
        "radeon_gpu_lockup",
        r"radeon \S+: (?:GPU softreset: 0x[0-9A-Fa-f]+|[GS]RBM_SOFT_RESET=0x[0-9A-Fa-f]+)$",
        ("softreset", "GRBM_SOFT_RESET", "SRBM_SOFT_RESET"),
        Severity.CRITICAL,
        RADEON,
        "The radeon driver is soft-resetting the GPU after a lockup.",
        "See radeon_gpu_lockup.",
        35,
        device_kind=_PCI,
        context=True,
        formats=(
            Format(
                "GPU softreset: 0x%08X",
                _RADEON + "cik.c",
                "4.4-6.18",
                "radeon 0000:01:00.0: ",
                args=(0x4C,),
            ),
            Format(
                "GRBM_SOFT_RESET=0x%08X",
                _RADEON + "cik.c",
                "4.4-6.18",
                "radeon 0000:01:00.0: ",
                args=(0x10001,),
            ),
            Format(
                "SRBM_SOFT_RESET=0x%08X",
                _RADEON + "si.c",
                "4.4-6.18",
                "radeon 0000:01:00.0: ",
                args=(0x100,),
            ),
        ),
    ),
    # Arm's kbase driver (vendor BSP trees: drivers/gpu/arm/midgard, bifrost) finding a job
    # stuck or faulting: the GPU reset after soft-stopped jobs did not clear (JM
    # mali_kbase_jm_hw.c kbasep_reset_timeout_worker, CSF csf/mali_kbase_csf_reset_gpu.c:
    # dev_err "Resetting GPU (allowing up to %d ms)") and the terminal MMU fault that kills
    # the context (mali_kbase_mmu.c kbase_mmu_report_fault_and_kill: dev_err "Unhandled Page
    # fault in AS%d at VA 0x%016llX\nReason: %s…", "AS%u" in newer releases): panfrost's
    # same failures, soc_gpu_hang, on the "mali <device>: " of the vendor driver.
    sig(
        "soc_gpu_hang",
        r"\bmali \S+: (?:Resetting GPU \(allowing up to \d+ ms\)"
        r"|Unhandled Page fault in AS\d+ at VA 0x[0-9A-Fa-f]+)",
        ("Resetting", "Unhandled"),
        Severity.ERROR,
        SOC,
        "Arm's Mali kbase driver found a GPU job stuck (it resets the GPU) or a job's "
        "terminal memory fault (it kills that context).",
        "See soc_gpu_hang.",
        38,
        device_kind=_PCI,
        formats=(
            Format(
                "Resetting GPU (allowing up to %d ms)",
                "arm-kbase:drivers/gpu/arm/bifrost/csf/mali_kbase_csf_reset_gpu.c",
                "kbase r-releases in vendor BSP trees (midgard and bifrost, as read)",
                "mali fb000000.gpu: ",
                args=(500,),
            ),
            Format(
                "Unhandled Page fault in AS%d at VA 0x%016llX",
                "arm-kbase:drivers/gpu/arm/midgard/mali_kbase_mmu.c",
                "kbase r-releases in vendor BSP trees (midgard and bifrost, as read)",
                "mali ff9a0000.gpu: ",
                args=(1, 0x7F3C0000),
            ),
        ),
    ),
)
