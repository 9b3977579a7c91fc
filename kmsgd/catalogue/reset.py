"""AMD FCH reset status ("x86/amd: Previous system reset reason [0x…]: …", Linux ≥ 6.16).

arch/x86/kernel/cpu/amd.c prints one line per set bit of the S5 reset status register, each
with the whole value; an all-ones value is an error response and is not printed. We decode
by bit number, never by wording, so kernel rewording cannot change a verdict.
"""

from __future__ import annotations

from kmsgd.types import Outcome

# bit → (reason key, operator wording, outcome it implies when the log shows no other end)
RESET_BITS: dict[int, tuple[str, str, Outcome]] = {
    0: ("thermal_trip", "thermal trip pin BP_THERMTRIP_L", Outcome.THERMAL_SHUTDOWN),
    1: ("power_button", "power button held for 4 seconds", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    2: ("shutdown_pin", "shutdown pin SHUTDOWN_L tripped", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    4: ("remote_power_off", "remote ASF power-off command", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    9: ("cpu_thermal", "internal CPU thermal limit tripped", Outcome.THERMAL_SHUTDOWN),
    16: ("reset_pin", "reset pin RESET_L (reset button)", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    17: ("pci_reset", "software-issued PCI reset", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    18: ("cf9_reboot", "software wrote 0x4 to 0xCF9", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    19: ("cf9_reboot", "software wrote 0x6 to 0xCF9", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    20: ("cf9_reboot", "software wrote 0xE to 0xCF9", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    21: ("acpi_transition", "ACPI power state transition", Outcome.UNKNOWN),
    22: ("keyboard_reset", "keyboard reset pin KB_RST_L", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    23: (
        "cpu_shutdown",
        "internal CPU shutdown event (triple fault)",
        Outcome.ABRUPT_RESET_OR_POWER_LOSS,
    ),
    24: ("failed_boot_timer", "failed-boot timer expired", Outcome.WATCHDOG_RESET),
    25: ("watchdog", "hardware watchdog timer expired", Outcome.WATCHDOG_RESET),
    26: ("remote_reset", "remote ASF reset command", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    27: (
        "sync_flood",
        "data-fabric sync flood from an uncorrected error",
        Outcome.ABRUPT_RESET_OR_POWER_LOSS,
    ),
    29: (
        "fch_mp1_handshake",
        "FCH and MP1 failed the warm-reset handshake",
        Outcome.ABRUPT_RESET_OR_POWER_LOSS,
    ),
    30: ("parity_error", "a parity error", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
    31: ("sw_sync_flood", "a software sync flood event", Outcome.ABRUPT_RESET_OR_POWER_LOSS),
}
# when several bits are set, the most telling one names the reason
_PRIORITY = (0, 9, 25, 24, 27, 31, 30, 23, 29, 2, 1, 16, 22, 26, 4, 17, 18, 19, 20, 21)


def decode_reset(value: int) -> list[tuple[int, str, str, Outcome]]:
    """Set bits as (bit, key, wording, implied outcome), most telling first; [] for no data."""
    if value in (0, 0xFFFFFFFF):
        return []
    found = [(b, *RESET_BITS[b]) for b in _PRIORITY if value >> b & 1]
    known = {b for b, *_ in found}
    found += [
        (b, f"bit{b}", f"undocumented bit {b}", Outcome.UNKNOWN)
        for b in range(32)
        if value >> b & 1 and b not in known
    ]
    return found
