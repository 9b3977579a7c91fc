"""The tolerant reader: one test per class of paste that known formats alone would
refuse: each must come out as kernel lines with the message intact."""

from __future__ import annotations

import io

import pytest

from kmsgd.commands.analyze import analyze_report
from kmsgd.errors import BadInput
from kmsgd.logparse import BootMark, Line, Origin, parse_lines

TIMEOUT = "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx_0.0.0 timeout, signaled seq=1, emitted seq=3"


def kernel_lines(text: str) -> list[Line]:
    return [
        ev
        for ev in parse_lines(text.split("\n"))
        if isinstance(ev, Line) and ev.origin is Origin.KERNEL
    ]


def primary(text: str | bytes) -> str | None:
    data = text.encode() if isinstance(text, str) else text
    report, _ = analyze_report(io.BytesIO(data), name="paste")
    return report.primary.tag if report.primary else None


def test_syslog_without_hostname() -> None:
    got = kernel_lines(f"Feb  2 08:03:20 kernel: [37932.038809] {TIMEOUT}")
    assert [(ln.message, ln.ts_usec) for ln in got] == [(TIMEOUT, 37932038809)]


def test_syslog_with_a_localised_month() -> None:
    got = kernel_lines(
        f"nov. 05 18:35:49 archlinux kernel: {TIMEOUT}\nмар 12 00:48:02 kernel: {TIMEOUT}"
    )
    assert [ln.message for ln in got] == [TIMEOUT, TIMEOUT]
    assert got[0].wall_us is not None and got[1].wall_us is not None


def test_journal_userspace_line_with_a_localised_month_keeps_its_program() -> None:
    text = "avril 16 21:08:50 systemd-oomd[93234]: Killed /user.slice/app.scope due to memory"
    evs = [ev for ev in parse_lines([text]) if isinstance(ev, Line)]
    assert evs[0].origin is Origin.USERSPACE
    assert evs[0].message.startswith("systemd-oomd[93234]: Killed")


def test_markdown_quote() -> None:
    assert [ln.message for ln in kernel_lines(f"> [  12.000000] {TIMEOUT}")] == [TIMEOUT]


def test_diff_of_a_quote() -> None:
    got = kernel_lines(f"+> [Fri Aug 30 11:43:09 2024] {TIMEOUT}")
    assert [ln.message for ln in got] == [TIMEOUT]


def test_collector_prefix() -> None:
    got = kernel_lines(f"192.168.1.5: kern: warning: [2026-04-22T21:27:51.29Z]: {TIMEOUT}")
    assert [ln.message for ln in got] == [TIMEOUT]
    assert got[0].wall_us is not None


def test_hypervisor_and_launcher_prefixes() -> None:
    got = kernel_lines(
        f"[guest0/uart0] [    1.859726] {TIMEOUT}\n"
        f"[2026-09-10T01:28:40.861261Z ERROR init_or_kernel] [   60.892060] {TIMEOUT}"
    )
    assert [ln.ts_usec for ln in got] == [1859726, 60892060]


def test_journal_precise_stamp_without_host() -> None:
    got = kernel_lines(f"Aug 18 22:19:01.004092: {TIMEOUT}")
    assert [ln.message for ln in got] == [TIMEOUT]


def test_blank_console_stamps() -> None:
    assert [ln.message for ln in kernel_lines(f"[      ] {TIMEOUT}")] == [TIMEOUT]


def test_systemd_console_status_lines_are_not_kernel_lines() -> None:
    text = f"[  OK  ] Finished Load Kernel Modules.\n[   12.000000] {TIMEOUT}\n[  *** ] (2 of 3) A start job"
    assert [ln.message for ln in kernel_lines(text)] == [TIMEOUT]


def test_backticks_and_fences() -> None:
    text = f"```\n`[   12.000000] {TIMEOUT}`\n```text\n`[   13.000000] {TIMEOUT}\n```"
    assert [ln.ts_usec for ln in kernel_lines(text)] == [12000000, 13000000]


def test_line_numbers() -> None:
    text = f"  41 | [   12.000000] {TIMEOUT}\n42:[   13.000000] {TIMEOUT}\n43\t{TIMEOUT}"
    assert [ln.message for ln in kernel_lines(text)] == [TIMEOUT] * 3


def test_html_details() -> None:
    text = f"<details>\n<summary>dmesg</summary>\n<code>[   12.000000] {TIMEOUT}</code>\n</details>"
    assert [ln.message for ln in kernel_lines(text)] == [TIMEOUT]


def test_html_entities() -> None:
    got = kernel_lines("[   12.000000] amdgpu: ring &lt;gfx&gt; timeout")
    assert got[0].message == "amdgpu: ring <gfx> timeout"


def test_ansi_colours() -> None:
    text = f"\x1b[32m[   12.000000]\x1b[0m \x1b[1;31m{TIMEOUT}\x1b[0m"
    assert [ln.message for ln in kernel_lines(text)] == [TIMEOUT]


def test_crlf() -> None:
    assert primary(f"[   12.000000] {TIMEOUT}\r\n[   13.000000] x\r\n") == "amdgpu_ring_timeout"


def test_bare_messages_without_stamps() -> None:
    text = "NVRM: Xid (0000:01:00): 16, Head 00000000 Count 00000000\ndrmn0: GPU reset begin!"
    assert [ln.message[:5] for ln in kernel_lines(text)] == ["NVRM:", "drmn0"]


def test_bare_messages_are_judged() -> None:
    text = "NMI watchdog: Watchdog detected hard LOCKUP on cpu 0\n"
    assert primary(text) == "hard_lockup"


def test_hard_wrapped_line_is_rejoined() -> None:
    first = " pcieport 0000:00:1c.0: PCIe Bus Error: severity=Corrected, type=Physical La"
    got = kernel_lines(f"{first}\nyer, id=00e0(Receiver ID)\n pcieport 0000:00:1c.0: next")
    assert len(got) == 2
    assert got[0].message.endswith("(Receiver ID)")


def test_indented_dump_lines_are_not_joined_to_the_line_before() -> None:
    long = "[   12.000000] " + "x" * 80
    evs = [ev for ev in parse_lines([long, "        0-...: (1 GPs behind) idle=d09/1/0"])]
    assert next(ev.message for ev in evs if isinstance(ev, Line)) == "x" * 80


def test_duplicated_console_copies_glued_mid_line() -> None:
    text = (
        "[  349.166130] sysrq: SysRq : [  349.166130] sysrq: SysRq : Trigger a crash\n"
        "Trigger a crash\n"
        "[  349.166638] Unable to handle kernel paging request for data at address 0x0\n"
        "[  349.166638] Unable to handle kernel paging request for data at address 0x0\n"
    )
    got = [ln.message for ln in kernel_lines(text)]
    assert got == [
        "sysrq: SysRq : Trigger a crash",
        "Unable to handle kernel paging request for data at address 0x0",
    ]


def test_two_consoles_interleaved_mid_line() -> None:
    text = (
        "[  415.121299] blk_update_request: I/O error, dev nvme1n1, sector 1757028 op 0x0:(READ) "
        "prio cl[  OK  ] Finished Download data.\n[  416.000000] next"
    )
    got = kernel_lines(text)
    assert got[0].message.endswith("prio cl")
    assert got[-1].message == "next"


def test_reversed_journal_is_read_oldest_first() -> None:
    lines = [f"> feb 27 10:48:{s:02d} x kernel: line {s}" for s in range(30, 20, -1)]
    report, _ = analyze_report(io.BytesIO("\n".join(lines).encode()), name="paste")
    assert report.source is not None and report.source.reversed


def test_pager_truncated_line_loses_the_marker() -> None:
    long = "Aug 18 08:54:42 TR kernel: Code: " + "8b 40 28 " * 12 + "48 8b 1>"
    got = kernel_lines(long)
    assert got[0].message.endswith("48 8b 1")


def test_boots_split_where_the_text_shows_one() -> None:
    text = (
        "kernel: [  221.562629] a\nkernel: [  300.000000] b\n"
        "kernel: [    0.000000] Linux version 6.1.0 (gcc)\nkernel: [    1.000000] c"
    )
    marks = [ev for ev in parse_lines(text.split("\n")) if isinstance(ev, BootMark)]
    assert len(marks) == 1


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"I upgraded the driver yesterday and since then the screen goes black.\n"
        b"Any idea? It happens at 10:30:00 every day.\n",
        bytes(range(256)) * 32,
    ],
    ids=["empty", "prose", "binary"],
)
def test_input_without_kernel_lines_is_still_refused(data: bytes) -> None:
    with pytest.raises(BadInput):
        analyze_report(io.BytesIO(data), name="paste")


def test_a_message_in_inline_triple_backticks_keeps_its_first_word() -> None:
    """```watchdog: BUG: …``` on one line: "watchdog" is the message, not a fence's language."""
    msg = "watchdog: BUG: soft lockup - CPU#1 stuck for 22s! [init:4235]"
    assert [ln.message for ln in kernel_lines(f"```{msg}```")] == [msg]
    assert kernel_lines("```dmesg\n[    1.000000] " + msg + "\n```")[0].message == msg


def test_a_kernel_message_quoted_in_a_tools_report() -> None:
    """A health scanner's '[XID found] (54 minutes ago) "NVRM: Xid …"'."""
    msg = "NVRM: Xid (PCI:0000:9b:00): 119, pid=1, name=python, Timeout after 45s of waiting"
    got = kernel_lines(f'[XID found] (54 minutes ago) "{msg}"')
    assert [ln.message for ln in got] == [msg]
    assert kernel_lines('He said "thanks" and left') == []


def test_a_driver_prefix_printed_alone_joins_its_message() -> None:
    """4.x powerplay printed "[powerplay] " and its message as two records."""
    got = kernel_lines("amdgpu: [powerplay] \nfailed to send message 309 ret is 254")
    assert [ln.message for ln in got] == [
        "amdgpu: [powerplay] failed to send message 309 ret is 254"
    ]
    assert primary("amdgpu: [powerplay] \nfailed to send message 309 ret is 254") == (
        "amdgpu_smu_timeout"
    )


@pytest.mark.parametrize(
    "msg",
    [
        "PM: suspend entry (deep)",
        "JBD2: Invalid checksum recovering block 4194315 in log",
        "Uhhuh. NMI received for unknown reason 1c on CPU 9.",
    ],
)
def test_bare_messages_that_open_as_only_kernel_messages_do(msg: str) -> None:
    """kernel/power/suspend.c's "PM: ", fs/jbd2's "JBD2: ", arch/x86/kernel/nmi.c."""
    assert [ln.message for ln in kernel_lines(msg)] == [msg]


def test_dmesg_ctime_with_a_two_letter_weekday() -> None:
    """dmesg -T under a German locale: "[Mo Aug 17 14:44:27 2026]"."""
    msg = "amdgpu 0000:08:00.0: [drm] Cannot find any crtc or sizes"
    (line,) = kernel_lines(f"[Mo Aug 17 14:44:27 2026] {msg}")
    assert line.message == msg and line.wall_us is not None


def test_a_time_alone_is_not_a_line_number_gutter() -> None:
    """'hh:mm:ss message', the date and host cut by the poster; a gutter still goes."""
    msg = "amdgpu 0000:c3:00.0: [gfxhub] page fault (src_id:0 ring:24 vmid:5 pasid:48)"
    got = kernel_lines(f"12:09:20 {msg}")
    assert [ln.message for ln in got] == [msg]
    assert [ln.message for ln in kernel_lines(f"12: [    1.000000] {msg}")] == [msg]


def test_kmsg_records_forwarded_verbatim_into_syslog() -> None:
    """A forwarder that wrote /dev/kmsg records as they are: each syslog message is
    'level,seq,usec,flags,caller;text' (Documentation/ABI/testing/dev-kmsg)."""
    text = (
        "May 25 07:29:42 x 0,16627,40311380557,-,caller=C0;BUG: workqueue lockup - pool cpus=3"
        " node=0 flags=0x1 nice=0 stuck for 23152s!\n"
        "May 25 07:29:42 x 6,16628,40311381019,-,caller=C0;Showing busy workqueues and worker pools:"
    )
    got = kernel_lines(text)
    assert [(ln.level, ln.seq, ln.ts_usec) for ln in got] == [
        (0, 16627, 40311380557),
        (6, 16628, 40311381019),
    ]
    assert got[0].message.startswith("BUG: workqueue lockup - pool cpus=3")
    assert got[1].message == "Showing busy workqueues and worker pools:"
    assert all(ln.wall_us is not None for ln in got)
