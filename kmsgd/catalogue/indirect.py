"""Evidence of known tags that their own entries do not read: another writer's line about
the same event, or a report's body when a cut lost its header.

Each entry here carries the tag of an entry elsewhere (kernel.py, gpu.py, hardware.py) and
the same rank, so the judge sees one event whichever line showed it. None of them starts an
incident in the recorder (no `trigger`): each follows a line that already did, or is printed
by the incident's own captures.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Severity, Signature, sig

# a stack frame as dump_stack prints it (arch/x86/kernel/dumpstack.c printk_stack_address:
# " %s%pBb" with "? " for a frame the unwinder only guessed; 4.x and older put the address
# first, " [<%px>] %s%pB"): only frames it did not guess count
_FRAME = r"^\s*(?:\[<[0-9a-f]+>\]\s*)?"

INDIRECT_SIGNATURES: tuple[Signature, ...] = (
    # mm/oom_kill.c dump_header calls dump_stack() from oom_kill_process (4.x-today; 3.x
    # from oom_kill_process via dump_header too), so a frame of oom_kill_process in a
    # printed stack is the OOM report's own stack: a cut that kept only the stack still
    # shows the kill under way
    sig(
        "oom_kill",
        _FRAME + r"oom_kill_process\+0x[0-9a-f]+/0x[0-9a-f]+",
        ("oom_kill_process",),
        Severity.ERROR,
        "memory",
        "The kernel OOM killer killed a process to free memory.",
        "Find who held memory (GPU-pinned memory is invisible in RSS on unified-memory "
        "machines); limit services (MemoryMax=) or model sizes.",
        60,
    ),
    # systemd src/core/unit.c unit_check_oomd_kill (248+): PID 1 (or the user's manager)
    # logs "<unit>: systemd-oomd killed %" PRIu64 " process(es) in this unit." when oomd's
    # kill of the unit's cgroup took effect
    sig(
        "oomd_kill",
        r"^\S+: systemd-oomd killed \d+ process\(es\) in this unit",
        ("systemd",),
        Severity.ERROR,
        "memory",
        "systemd-oomd killed a cgroup under memory pressure.",
        "The named unit used too much memory for too long; limit it or raise the oomd thresholds.",
        64,
        idents=("systemd",),
    ),
    # firmware-first PCIe errors: drivers/acpi/apei/ghes.c __ghes_print_estatus prints the
    # event, drivers/firmware/efi/cper.c cper_estatus_print_section each section: "%sError
    # %d, type: %s", then "%ssection_type: PCIe error" (3.x-today) and the port and device
    # lines. The section line does not carry the severity; the event's line before it does,
    # and an uncorrected event ("event severity: recoverable" / "fatal") is
    # ghes_hardware_error (gpu_other.py), critical and ranked before this routine tag, so it
    # leads. What is left alone is the corrected report, the native driver's "PCIe Bus Error:
    # severity=Corrected" by another path.
    sig(
        "aer_corrected",
        r"\[Hardware Error\]:\s+section_type: PCIe error",
        ("section_type",),
        Severity.WARNING,
        "pcie",
        "The platform firmware reported a PCIe error (APEI GHES, firmware-first): corrected "
        "unless the event's severity line says otherwise.",
        "Noise at low rates; a burst means a marginal link (riser, slot, signal): reseat or "
        "lower the link speed. The device_id line after it names the port.",
        17,
        device_kind=DeviceKind.PCI,
        routine=True,
    ),
    # NVIDIA open-gpu-kernel-modules kernel_gsp.c: _kgspRpcRecvPoll dumps the stack
    # (os_dump_stack) when an RPC to GSP times out, after its "Timeout waiting for RPC"
    # header and RPC history; a watchdog that catches a CPU spinning in the poll prints
    # the same frame. Either way GSP stopped answering.
    sig(
        "nvidia_gsp_timeout",
        _FRAME + r"_kgspRpcRecvPoll\+0x[0-9a-f]+/0x[0-9a-f]+ \[nvidia\]",
        ("_kgspRpcRecvPoll",),
        Severity.CRITICAL,
        "gpu.nvidia",
        "The GPU's System Processor (GSP firmware) stopped answering the driver (Xid 119/120).",
        "Update the driver; if it repeats, try NVreg_EnableGpuFirmware=0 on affected "
        "releases, then check PCIe and power.",
        30,
        device_kind=DeviceKind.PCI,
    ),
)
