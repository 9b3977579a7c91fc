"""The platform sweep's second module (sweep_platform.py holds the first): CPUs that do not
come up, and the faults the Tegra memory controller reports.

- CPU bring-up (kernel/cpu.c, arch/arm64/kernel/smp.c, arch/x86/kernel/smpboot.c): a CPU that
  did not answer its wakeup at boot, at hotplug or when resume brings the other CPUs back.
- Tegra memory controller (drivers/memory/tegra/mc.c): a client of the SoC's memory (the GPU,
  display, a camera or video engine) accessed memory it may not: an IOMMU fault's kin.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig, wording
from kmsgd.catalogue.hardware import HARDWARE_SIGNATURES

_IOMMU_FAULT = next(s for s in HARDWARE_SIGNATURES if s.tag == "iommu_fault")
# drivers/memory/tegra/mc.c status_names: the memory controller's interrupt causes a
# client's access can raise (error_names, in brackets after them, say which check refused it)
_TEGRA_MC_ERRORS = (
    "EMEM address decode error",
    "GART page fault",
    "Security violation",
    "EMEM arbitration error",
    "Page fault",
    "Invalid APB ASID update",
    "VPR violation",
    "Secure carveout violation",
    "MTS carveout violation",
)

SWEEP_PLATFORM2_SIGNATURES: tuple[Signature, ...] = (
    # A CPU that does not come up. kernel/cpu.c cpuhp_bp_sync_alive (6.5-6.18) pr_err "CPU%u
    # failed to report alive state" (the boot CPU waited 10 s for it; x86 and arm64);
    # arch/arm64/kernel/smp.c __cpu_up pr_crit "CPU%u: failed to come online" (4.4-6.18),
    # pr_err "CPU%u: failed to boot: %d" (the firmware's PSCI CPU_ON refused); kernel/cpu.c
    # thaw_secondary_cpus (enable_nonboot_cpus before 5.7) pr_warn "Error taking CPU%d up: %d"
    # when resume brings the other CPUs back (4.4-6.18); arch/x86/kernel/smpboot.c
    # native_cpu_up pr_err "do_boot_cpu failed(%d) to wakeup CPU#%u" (pr_fmt "smpboot: ",
    # 4.4-6.18: the INIT/SIPI wakeup got no answer). The box runs on without them; a
    # resume that cannot bring a CPU back often hangs next.
    sig(
        "cpu_bringup_failure",
        r"^CPU\d+(?: failed to report alive state|: failed to come online|: failed to boot: -?\d+)$"
        r"|^Error taking CPU\d+ up: -?\d+"
        r"|^(?:smpboot: )?do_boot_cpu failed\(-?\d+\) to wakeup CPU#\d+",
        ("alive", "online", "failed", "taking", "wakeup"),
        Severity.ERROR,
        "cpu",
        "A CPU did not come up (at boot, at hotplug, or when resume brought the other CPUs "
        "back): the box runs without it, and a resume that loses a CPU often hangs after.",
        "Check the firmware (BIOS/UEFI, TF-A's PSCI) and microcode are current and the CPU "
        "is not disabled or failing (the BMC's event log, mce records); try booting with "
        "fewer CPUs (maxcpus=) or without the suspend state that loses it.",
        24,
        device_kind=DeviceKind.CPU,
        formats=(
            Format(
                "CPU%u failed to report alive state",
                "kernel/cpu.c",
                "6.5-6.18",
                args=(3,),
            ),
            Format(
                "CPU%u: failed to come online",
                "arch/arm64/kernel/smp.c",
                "4.4-6.18",
                args=(3,),
            ),
            Format(
                "CPU%u: failed to boot: %d",
                "arch/arm64/kernel/smp.c",
                "4.4-6.18",
                args=(3, -22),
            ),
            Format(
                "do_boot_cpu failed(%d) to wakeup CPU#%u",
                "arch/x86/kernel/smpboot.c",
                "4.4-6.18",
                "smpboot: ",
                args=(-1, 4),
            ),
            Format(
                "Error taking CPU%d up: %d",
                "kernel/cpu.c",
                "4.4-6.18",
                args=(1, -5),
            ),
        ),
    ),
    # drivers/memory/tegra/mc.c tegra_mc_irq (4.4-5.x; tegra30_mc_handle_irq 5.15-6.18):
    # dev_err_ratelimited "%s: %s%s @%pa: %s (%s%s)" (the client, "secure ", "read"/"write",
    # the address, the status, the check that refused it and the page's permissions): a
    # client of the SoC's memory controller (the GPU, display, a camera or video engine)
    # accessed memory it may not, as an IOMMU fault does on a PCI box
    wording(
        _IOMMU_FAULT,
        r"^tegra-mc \S+: \S+: (?:secure )?(?:read|write) @0x[0-9a-f]+: "
        rf"(?:{'|'.join(_TEGRA_MC_ERRORS)}) \(",
        ("EMEM", "violation", "fault"),
        device_kind=DeviceKind.NONE,
        formats=(
            Format(
                "%s: %s%s @%pa: %s (%s%s)",
                "drivers/memory/tegra/mc.c",
                "4.4-6.18",
                "tegra-mc 2c00000.memory-controller: ",
                args=(
                    "gpusrd",
                    "",
                    "read",
                    "0x00000000f6c0a000",
                    "EMEM address decode error",
                    "EMEM decode error",
                    "",
                ),
            ),
        ),
    ),
)
