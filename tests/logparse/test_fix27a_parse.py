"""Paste shapes corpus batch 27 (docs/accuracy.md) showed refused: a Linux driver's lines
behind a Genode component's session label, a kernel line quoted in an inline code span of a
prose sentence, bare message bodies of the xHCI controller's death and an Intel NIC's reset,
the Xen hypervisor's console ("(XEN) ") with its dumps after a long first line, FreeBSD's
spin-lock check."""

from __future__ import annotations

from kmsgd.logparse import Line, Origin, parse_lines
from tests.catalogue.lines import paste_primary


def _kernel(*text: str) -> list[str]:
    evs = parse_lines(list(text))
    return [ev.message for ev in evs if isinstance(ev, Line) and ev.origin is Origin.KERNEL]


def test_a_genode_session_label_is_no_part_of_the_ported_driver_s_message() -> None:
    lines = (
        "[init -> usb_hid] Error: no device",
        "[init -> drivers -> usb_host] xhci_hcd 0000:00:14.0: HC died; cleaning up",
        "[init -> drivers -> usb_host] Backtrace follows:",
    )
    assert _kernel(*lines) == ["xhci_hcd 0000:00:14.0: HC died; cleaning up"]
    assert paste_primary("\n".join(lines) + "\n") == "xhci_host_dead"


def test_a_label_without_a_parent_or_a_plain_bracket_is_not_genode_s() -> None:
    assert _kernel("[init] xhci_hcd 0000:00:14.0: HC died; cleaning up") == []
    assert _kernel("[note -> see below]") == []


def test_an_inline_code_span_in_prose_is_read_when_it_opens_as_the_kernel_s() -> None:
    line = (
        "The journal shows `nvme nvme1: I/O 7 QID 2 timeout, aborting` now and then, "
        "and `smartctl` says the disk is fine."
    )
    assert _kernel(line) == ["nvme nvme1: I/O 7 QID 2 timeout, aborting"]
    assert paste_primary(line + "\n") == "nvme_timeout"
    # a span of a command or a file name is prose
    assert _kernel("I ran `dmesg -T` and `cat /var/log/syslog` but saw nothing.") == []


def test_bare_bodies_of_the_usb_controller_s_death_are_kernel_lines() -> None:
    lines = ("xHCI host controller not responding, assume dead", "HC died; cleaning up")
    assert _kernel(*lines) == list(lines)
    assert _kernel("xHCI host not responding to stop endpoint command") != []
    assert _kernel("the HC died; cleaning up took long") == []


def test_an_interface_s_reset_adapter_line_is_a_kernel_line() -> None:
    assert _kernel("enp3s0: Reset adapter") == ["enp3s0: Reset adapter"]
    assert _kernel("enp3s0: Reset adapter settings to defaults") == []


def test_xen_console_records_are_not_the_wrapped_rest_of_a_long_first_line() -> None:
    lines = (
        "```(XEN) d3v1 vmentry failure (reason 0x80000021): Invalid guest state (0)",
        "(XEN) ************* VMCS Area **************",
        "(XEN) *** Guest State ***",
    )
    got = [ev for ev in parse_lines(list(lines)) if isinstance(ev, Line)]
    assert (
        got[0].message == "(XEN) d3v1 vmentry failure (reason 0x80000021): Invalid guest state (0)"
    )
    assert all("VMCS Area" not in ln.message for ln in got[:1])
    assert paste_primary("\n".join(lines) + "\n") == "xen_domain_crash"


def test_freebsd_s_spin_lock_check_and_its_panic_are_kernel_lines() -> None:
    lines = (
        "spin lock 0xffffffff81a2c5c0 (sched lock 1) held by 0xfffff8000b4e2000 (tid 100004) "
        "too long",
        "panic: spin lock held too long",
    )
    assert _kernel(*lines) == list(lines)
    assert paste_primary("\n".join(lines) + "\n") == "spinlock_lockup"
    # a Go program's crash opens with "panic: " too: not the kernel's
    assert _kernel("panic: runtime error: invalid memory address or nil pointer dereference") == []
