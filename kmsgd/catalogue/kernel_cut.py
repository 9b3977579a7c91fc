"""The kernel's own report headers as a cut or wrapped paste leaves them: more wording of the
tags of kernel.py, registered after it (table.py) so that kernel.py's entry stays each tag's
first.

kernel/panic.c __warn prints its header as one record, "WARNING: CPU: %d PID: %d at %pS"
(4.x-6.x); a mail client or a pager that wraps the line after "at" moves the location to a
line of its own, and a cut there leaves the header ending in "at". The header's words before
the location are the WARN's: kernel.py's entry requires the location after them.
"""

from __future__ import annotations

from kmsgd.catalogue.base import DeviceKind, Format, Severity, Signature, sig

KERNEL_CUT_SIGNATURES: tuple[Signature, ...] = (
    sig(
        "kernel_warning",
        r"^WARNING: CPU: \d+ PID: \d+ at\s*$",
        ("WARNING",),
        Severity.WARNING,
        "kernel",
        "A kernel WARN_ON fired: unexpected state, execution continued.",
        "See kernel_warning.",
        82,
        device_kind=DeviceKind.CPU,
        formats=(
            # the format's text up to the wrap; the location went to the next line
            Format("WARNING: CPU: %d PID: %d at", "kernel/panic.c", "4.4-6.18", args=(2, 4406)),
        ),
    ),
)
