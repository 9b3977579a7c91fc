"""NMIs that no handler claimed (x86).

An NMI that no registered handler (perf, the NMI watchdog, GHES, a vendor's watchdog driver)
takes and that the system-control port does not explain reaches arch/x86/kernel/nmi.c
unknown_nmi_error: platform hardware raised it without saying why. Chipsets, BMCs and RAID
or other PCIe cards signal errors this way; so does an NMI button or `ipmitool chassis
power diag`. With unknown_nmi_panic or panic_on_unrecovered_nmi set it panics ("NMI: Not
continuing").
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig
from kmsgd.catalogue.tags import Tag

_MEANING = (
    "The CPU got a non-maskable interrupt that no driver claimed: platform hardware "
    "signalled an error without saying which."
)
_NEXT = (
    "Read the BMC's event log (ipmitool sel list) for the same moment: it usually names "
    "the PCIe card, DIMM or chipset; update the BIOS/BMC and the firmware of add-in cards."
)

NMI_SIGNATURES: tuple[Signature, ...] = (
    # arch/x86/kernel/nmi.c unknown_nmi_error: pr_emerg "Uhhuh. NMI received for unknown
    # reason %02x on CPU %d." (2.6-today, ratelimited since 5.x); 2.6's
    # arch/i386/kernel/traps.c printed the same words
    sig(
        "unknown_nmi",
        r"Uhhuh\. NMI received for unknown reason [0-9a-fA-F]+ on CPU \d+",
        ("Uhhuh",),
        Severity.ERROR,
        "hardware.nmi",
        _MEANING,
        _NEXT,
        15,
        device_kind=DeviceKind.NONE,
        formats=(
            Format(
                "Uhhuh. NMI received for unknown reason %02x on CPU %d.",
                "arch/x86/kernel/nmi.c",
                "4.4-6.18",
                args=(0x2D, 0),
            ),
        ),
    ),
    # the same report's next lines: "Do you have a strange power saving mode enabled?"
    # (2.6-6.x), "Dazed and confused, but trying to continue" (2.6-today)
    sig(
        "unknown_nmi",
        r"^Dazed and confused, but trying to continue"
        r"|^Do you have a strange power saving mode enabled\?",
        ("Dazed", "strange"),
        Severity.ERROR,
        "hardware.nmi",
        _MEANING,
        _NEXT,
        15,
        device_kind=DeviceKind.NONE,
        context=True,
        formats=(
            Format(
                "Dazed and confused, but trying to continue", "arch/x86/kernel/nmi.c", "4.4-6.18"
            ),
            Format(
                "Do you have a strange power saving mode enabled?",
                "arch/x86/kernel/nmi.c",
                "4.4-5.15",
            ),
        ),
    ),
    # drivers/watchdog/hpwdt.c hpwdt_pretimeout, the NMI handler of HPE ProLiant's iLO
    # watchdog: it claims the NMI the iLO raises (its pretimeout, or the iLO's NMI button or
    # `ipmitool chassis power diag`; before iLO5 every unclaimed NMI) and panics through
    # nmi_panic with a message that points to the iLO logs for the reason. 4.16+ (and EL7's
    # 3.10 backport) put the NMI status byte in front ("%02x: " over "00: "); 4.4-4.15
    # printed the bare sentence, or "but unable to determine source" from the CRU ROM call
    sig(
        "hpwdt_nmi",
        r"(?:\b[0-9a-fA-F]{2}: )?An NMI occurred(?:\. Depending on your system the reason"
        r"|, but unable to determine source)",
        ("NMI",),
        Severity.CRITICAL,
        "hardware.nmi",
        "The HPE iLO watchdog driver (hpwdt) took an NMI and panicked: the iLO or platform "
        "hardware raised it (watchdog pretimeout, a hardware error, an NMI button).",
        "Read the iLO Event Log and the Integrated Management Log (IML) for the same moment; "
        "they name the reason for the NMI.",
        14,
        device_kind=DeviceKind.NONE,
        formats=(
            Format(
                "00: An NMI occurred. Depending on your system the reason for the NMI is "
                "logged in any one of the following resources:\n1. Integrated Management Log "
                "(IML)\n2. OA Syslog\n3. OA Forward Progress Log\n4. iLO Event Log",
                "drivers/watchdog/hpwdt.c",
                "4.19-6.18",
                "Kernel panic - not syncing: ",
            ),
            Format(
                "An NMI occurred. Depending on your system the reason for the NMI is logged "
                "in any one of the following resources:\n1. Integrated Management Log (IML)"
                "\n2. OA Syslog\n3. OA Forward Progress Log\n4. iLO Event Log",
                "drivers/watchdog/hpwdt.c",
                "4.4",
                "Kernel panic - not syncing: ",
            ),
            Format(
                "An NMI occurred, but unable to determine source.",
                "drivers/watchdog/hpwdt.c",
                "4.4",
                "Kernel panic - not syncing: ",
            ),
        ),
    ),
    # drivers/watchdog/softdog.c softdog_fire, the software watchdog's timer: nothing pinged
    # /dev/watchdog (systemd's RuntimeWatchdogSec, the watchdog daemon) for soft_margin
    # seconds, so it resets the box: pr_crit "Initiating system reboot" then
    # emergency_restart() (no shutdown), "Initiating panic" then panic("Software Watchdog
    # Timer expired") with soft_panic=1, "Triggered - Reboot ignored" with soft_noboot=1
    # (pr_fmt "softdog: ", 4.4-6.18; 2.6-3.x printed "SOFTDOG: Initiating system reboot.").
    # The pinger stopped because the box (or userspace) was stuck: a lockup, a hung task, an
    # OOM before it is the cause, the watchdog only its end.
    sig(
        "watchdog_expired",
        r"^(?:softdog|SOFTDOG): (?:Initiating (?:system reboot|panic)|Triggered - Reboot ignored)"
        r"|Software Watchdog Timer expired",
        ("softdog", "SOFTDOG", "Watchdog"),
        Severity.CRITICAL,
        "watchdog",
        "The software watchdog (softdog) expired: nothing pinged /dev/watchdog in time, so the "
        "kernel reset the machine at once (no shutdown) or panicked.",
        "Find why the pinger (systemd, watchdog daemon) stopped: the lockups, hung tasks or "
        "OOM kills before this line; with none, the box stalled without a report "
        "(raise the margin or enable pstore/kdump).",
        90,
        formats=(
            Format(
                "Initiating system reboot", "drivers/watchdog/softdog.c", "4.4-6.18", "softdog: "
            ),
            Format("Initiating panic", "drivers/watchdog/softdog.c", "4.4-6.18", "softdog: "),
            Format(
                "Triggered - Reboot ignored", "drivers/watchdog/softdog.c", "4.4-6.18", "softdog: "
            ),
            Format(
                "Software Watchdog Timer expired",
                "drivers/watchdog/softdog.c",
                "4.4-6.18",
                "Kernel panic - not syncing: ",
            ),
        ),
    ),
    # An NMI the system-control port (0x61) explains: arch/x86/kernel/nmi.c pci_serr_error
    # "NMI: PCI system error (SERR) for reason %02x on CPU %d." (a PCI device or the chipset
    # asserted SERR#; some boards report memory errors this way) and io_check_error "NMI:
    # IOCK error (debug interrupt?) for reason %02x on CPU %d." (an I/O channel check: a BMC's
    # diagnostic NMI, an NMI button, a card's fatal error), 3.2-6.18 (arch/x86/kernel/traps.c
    # before); then "Dazed and confused, but trying to continue" or, with
    # panic_on_unrecovered_nmi / panic_on_io_nmi, the panic "NMI: Not continuing"
    sig(
        Tag.NMI_HARDWARE_ERROR,
        r"^NMI: (?:PCI system error \(SERR\)|IOCK error \(debug interrupt\?\)) for reason "
        r"[0-9a-fA-F]+ on CPU \d+",
        ("SERR", "IOCK"),
        Severity.ERROR,
        "hardware.nmi",
        "Platform hardware raised an NMI for a PCI system error (SERR#) or an I/O channel "
        "check: a device, the chipset or the BMC signalled a fatal error.",
        _NEXT,
        15,
        formats=(
            Format(
                "NMI: PCI system error (SERR) for reason %02x on CPU %d.",
                "arch/x86/kernel/nmi.c",
                "3.10-6.18",
                args=(0xA0, 0),
            ),
            Format(
                "NMI: IOCK error (debug interrupt?) for reason %02x on CPU %d.",
                "arch/x86/kernel/nmi.c",
                "3.10-6.18",
                args=(0x71, 0),
            ),
        ),
    ),
)
