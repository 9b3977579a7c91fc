"""powerpc EEH (Enhanced Error Handling): the host bridge isolating a PCI device after an error.

On POWER servers the PCIe host bridge (PHB) freezes a partitionable endpoint (PE: a device,
or a bus behind a bridge) when the device signals an error or makes a bad DMA: from then on
its MMIO reads return all ones and its writes are dropped, so its driver fails, until the EEH
core resets the slot and the driver recovers (or the PE is removed after too many freezes).
arch/powerpc/kernel/eeh.c notices the freeze (eeh_dev_check_failure, called when a read
returned all ones) and arch/powerpc/kernel/eeh_driver.c recovers it (eeh_handle_normal_event).
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

EEH_SIGNATURES: tuple[Signature, ...] = (
    # arch/powerpc/kernel/eeh.c eeh_dev_check_failure: pr_err "EEH: Frozen PHB#%x-PE#%x
    # detected" then "EEH: PE location: %s, PHB location: %s" and dump_stack() (3.x-4.19);
    # from 5.x the detection is pr_debug and eeh_driver.c eeh_handle_normal_event prints the
    # saved trace under the same "EEH: Frozen PHB#%x-PE#%x detected" (5.2-5.x), its event line
    # "EEH: PHB#%x failure detected, location: %s" for a whole PHB, then "EEH: Recovering
    # PHB#%x-PE#%x" / "EEH: Recovering PHB#%x, location: %s" (5.4+), with the event's number
    # "EEH(%u): " in later releases; "EEH: PHB#%x-PE#%x has failed %d times in the last hour and has
    # been permanently disabled." when the PE is given up (its device is removed).
    sig(
        "eeh_frozen_pe",
        r"^EEH(?:\(\d+\))?: (?:Frozen PHB#[0-9a-f]+-PE#[0-9a-f]+ detected"
        r"|PHB#[0-9a-f]+ failure detected|Recovering PHB#[0-9a-f]+"
        r"|PHB#[0-9a-f]+-PE#[0-9a-f]+ has failed \d+ times in the last hour)",
        ("PHB",),
        Severity.ERROR,
        "pcie",
        "The POWER host bridge's EEH froze a PCI device (or a bus of them) after an error: "
        "its reads return all ones and its driver fails until EEH resets the slot.",
        "Read the PE's location and the driver in the trace: a device that makes bad DMA or "
        "is failing (reseat, firmware, driver update); 'permanently disabled' means EEH gave "
        "up on it (eeh_max_freezes).",
        18,
        device_kind=DeviceKind.PCI,
        formats=(
            Format(
                "EEH: Frozen PHB#%x-PE#%x detected",
                "arch/powerpc/kernel/eeh.c",
                "3.x-4.x (eeh_dev_check_failure; then eeh_driver.c), the copies read",
                args=(0, 1),
            ),
            Format(
                "EEH(%u): Frozen PHB#%x-PE#%x detected",
                "arch/powerpc/kernel/eeh_driver.c",
                "6.x (the copies read, with the event number)",
                args=(3, 0, 1),
            ),
            Format(
                "EEH: PHB#%x failure detected, location: %s",
                "arch/powerpc/kernel/eeh_driver.c",
                "5.x (the copies read, before 'Recovering')",
                args=(1, "N/A"),
            ),
            Format(
                "EEH(%u): Recovering PHB#%x-PE#%x",
                "arch/powerpc/kernel/eeh_driver.c",
                "6.x (the copies read)",
                args=(3, 0, 1),
            ),
            Format(
                "EEH: PHB#%x-PE#%x has failed %d times in the last hour and has been "
                "permanently disabled.",
                "arch/powerpc/kernel/eeh_driver.c",
                "4.x-6.x (the copies read)",
                args=(0, 1, 6),
            ),
        ),
    ),
)
