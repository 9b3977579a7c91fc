"""NVIDIA Xid codes: meanings as NVIDIA publishes them (docs.nvidia.com/deploy/xid-errors,
"Xid Errors" catalog), with the usual operator action. Unknown codes get a generic entry.

The codes are those of open-gpu-kernel-modules src/common/sdk/nvidia/inc/nverror.h (names
such as GSP_RPC_TIMEOUT = 119, NVLINK_SAW_ERROR = 144); a code whose name says no more than
an engine's number (NVDEC5_ERROR, CE12_ERROR) is left to the generic entry."""

from __future__ import annotations

from kmsgd.catalogue.base import Severity

_C, _E, _W = Severity.CRITICAL, Severity.ERROR, Severity.WARNING
_APP = "Usually the application: check its logs and CUDA version; a healthy GPU recovers."
_HW = "Suspect the GPU or its memory: run NVIDIA field diagnostics, drain and RMA if it repeats."
_RESET = "Reset the GPU (nvidia-smi -r) or reboot; if it repeats, check driver and firmware."
_NVLINK = (
    "Check NVLink bridges/cabling and the fabric manager; reset the GPU, run field diagnostics."
)
_PCIE = "Check the slot, riser, cabling and power of the GPU; reseat it if it repeats."

XID: dict[int, tuple[str, str, Severity]] = {
    8: ("GPU stopped processing (timeout): driver, application or bus error.", _RESET, _E),
    13: ("Graphics engine exception: usually an application fault.", _APP, _W),
    16: ("Display engine timed out (vblank callback).", _RESET, _W),
    31: ("GPU memory page fault: an application used a bad address.", _APP, _W),
    32: ("Invalid or corrupted push buffer stream (often PCIe or memory errors).", _HW, _E),
    38: ("Driver firmware error.", _RESET, _E),
    43: ("GPU stopped processing: user application fault, GPU still healthy.", _APP, _W),
    44: ("Graphics engine fault during a context switch.", _RESET, _E),
    45: (
        "Preemptive cleanup after earlier errors (processes killed).",
        "Look at the Xid before it.",
        _W,
    ),
    48: ("Double-bit ECC error: uncorrectable GPU memory error.", _HW, _C),
    56: ("Display engine error.", _RESET, _W),
    57: ("Error programming the video memory interface.", _HW, _E),
    58: ("Unstable video memory interface detected.", _HW, _E),
    59: ("Internal micro-controller (PMU) error.", _RESET, _E),
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
    80: ("Push buffer CRC mismatch: data corrupted on its way to the GPU.", _PCIE, _E),
    81: ("VGA subsystem error.", _RESET, _E),
    90: ("GPU L2 cache (LTC) error.", _HW, _C),
    92: ("High single-bit ECC error rate.", _HW, _W),
    93: ("InfoROM erase limit exceeded.", _HW, _W),
    94: ("Contained ECC error: affected applications were stopped.", _RESET, _E),
    95: ("Uncontained ECC error: the GPU must be reset.", _RESET, _C),
    109: ("Context switch timeout.", _APP, _E),
    110: ("Security fault error.", _RESET, _E),
    119: ("GSP RPC timeout: the GPU System Processor stopped answering.", _RESET, _C),
    120: ("GSP error.", _RESET, _C),
    121: ("C2C link corrected error.", "Monitor; drain if it repeats.", _W),
    122: ("SPI flash read through the PMU failed (firmware storage).", _RESET, _E),
    123: ("SPI flash write through the PMU failed (firmware storage).", _RESET, _E),
    124: ("SPI flash erase through the PMU failed (firmware storage).", _RESET, _E),
    125: ("InfoROM file-system error.", _HW, _E),
    136: ("NVLink link training (ALI) failed.", _NVLINK, _E),
    137: ("NVLink privilege error.", _NVLINK, _E),
    140: ("Unrecovered ECC error.", _HW, _C),
    143: ("GPU initialisation failed.", _RESET, _C),
    144: ("NVLink error (SAW unit).", _NVLINK, _E),
    145: ("NVLink error (RLW unit).", _NVLINK, _E),
    146: ("NVLink error (TLW unit).", _NVLINK, _E),
    147: ("NVLink error (TREX unit).", _NVLINK, _E),
    148: ("NVLink error (NVLPW control).", _NVLINK, _E),
    149: ("NVLink error (NETIR unit).", _NVLINK, _E),
    150: ("NVLink error (MSE unit).", _NVLINK, _E),
    151: ("Confidential-computing key rotation error.", _RESET, _E),
    154: ("GPU recovery action changed (reset or reboot required).", _RESET, _E),
    155: ("NVLink error (software defined).", _NVLINK, _E),
    156: ("Resource retirement event (memory or channel retired).", "Schedule a GPU reset.", _W),
    157: ("Resource retirement failed.", _HW, _C),
    158: ("GPU fatal timeout.", _RESET, _C),
    159: ("Coherent interconnect (CHI) non-data error.", _HW, _E),
    160: ("Channel retirement event.", "Schedule a GPU reset.", _W),
    161: ("Channel retirement failed.", _HW, _E),
    166: ("NVLink encryption (NVLE) error.", _NVLINK, _E),
    167: ("PCIe fatal timeout: the GPU stopped answering PCIe requests.", _PCIE, _C),
    168: ("GPU memory capacity reduced (retired memory).", _HW, _W),
    169: ("Internal micro-controller (SEC2) halt.", _RESET, _C),
    170: ("NVLink security error.", _NVLINK, _E),
    171: ("Uncorrectable GPU memory (DRAM) error.", _HW, _C),
    172: ("Uncorrectable on-chip memory (SRAM) error.", _HW, _C),
    173: ("Fatal chip-to-chip (C2C) link failure.", _HW, _C),
    175: ("GPU memory subsystem error.", _HW, _C),
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
