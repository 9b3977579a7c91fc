"""NVIDIA Xid codes: meanings as NVIDIA publishes them (docs.nvidia.com/deploy/xid-errors,
"Xid Errors" catalog), with the usual operator action. Unknown codes get a generic entry."""

from __future__ import annotations

from kmsgd.catalogue.base import Severity

_C, _E, _W = Severity.CRITICAL, Severity.ERROR, Severity.WARNING
_APP = "Usually the application: check its logs and CUDA version; a healthy GPU recovers."
_HW = "Suspect the GPU or its memory: run NVIDIA field diagnostics, drain and RMA if it repeats."
_RESET = "Reset the GPU (nvidia-smi -r) or reboot; if it repeats, check driver and firmware."

XID: dict[int, tuple[str, str, Severity]] = {
    8: ("GPU stopped processing (timeout): driver, application or bus error.", _RESET, _E),
    13: ("Graphics engine exception: usually an application fault.", _APP, _W),
    31: ("GPU memory page fault: an application used a bad address.", _APP, _W),
    32: ("Invalid or corrupted push buffer stream (often PCIe or memory errors).", _HW, _E),
    38: ("Driver firmware error.", _RESET, _E),
    43: ("GPU stopped processing: user application fault, GPU still healthy.", _APP, _W),
    45: (
        "Preemptive cleanup after earlier errors (processes killed).",
        "Look at the Xid before it.",
        _W,
    ),
    48: ("Double-bit ECC error: uncorrectable GPU memory error.", _HW, _C),
    56: ("Display engine error.", _RESET, _W),
    57: ("Error programming the video memory interface.", _HW, _E),
    58: ("Unstable video memory interface detected.", _HW, _E),
    61: ("Internal micro-controller breakpoint/warning.", _RESET, _E),
    62: ("Internal micro-controller halt.", _RESET, _C),
    63: ("ECC page retirement or row remapping recorded.", "Schedule a GPU reset to apply it.", _W),
    64: ("ECC page retirement or row remapping failed.", _HW, _C),
    68: ("Video processor (NVDEC) exception.", _APP, _W),
    69: ("Graphics engine class error.", _APP, _W),
    74: ("NVLink error.", "Check NVLink bridges/cabling; run field diagnostics.", _C),
    79: (
        "GPU has fallen off the bus: the GPU stopped answering on PCIe.",
        "Check power cabling, PSU headroom and PCIe seating/risers; not a driver bug.",
        _C,
    ),
    92: ("High single-bit ECC error rate.", _HW, _W),
    94: ("Contained ECC error: affected applications were stopped.", _RESET, _E),
    95: ("Uncontained ECC error: the GPU must be reset.", _RESET, _C),
    109: ("Context switch timeout.", _APP, _E),
    119: ("GSP RPC timeout: the GPU System Processor stopped answering.", _RESET, _C),
    120: ("GSP error.", _RESET, _C),
    121: ("C2C link corrected error.", "Monitor; drain if it repeats.", _W),
    140: ("Unrecovered ECC error.", _HW, _C),
    154: ("GPU recovery action changed (reset or reboot required).", _RESET, _E),
}


# Xids that start an incident (kmsgd/record/triggers.py keeps a copy): a hung channel or
# engine (8, 109), a halted or silent firmware (62, 119, 120), a recovery that needs a reset
# (154), and the GPU gone from the bus (79).
XID_TRIGGERS: tuple[tuple[int, str], ...] = (
    (8, "gpu_hang"),
    (62, "gpu_hang"),
    (79, "gpu_lost"),
    (109, "gpu_hang"),
    (119, "gpu_hang"),
    (120, "gpu_hang"),
    (154, "gpu_hang"),
)


def xid_meaning(code: int) -> tuple[str, str, Severity]:
    """(meaning, next step, severity) for an Xid code; unknown codes are still reported."""
    return XID.get(
        code,
        (
            f"NVIDIA Xid {code} (not in kmsgd's table).",
            "Look the code up in NVIDIA's Xid catalog.",
            _E,
        ),
    )
