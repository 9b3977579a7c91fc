"""The skimmer (kmsgd/judge/skim.py) only saves time: every report is the same as with each
line parsed. Checked on generated logs of many small blocks, with everything that makes a
line need the parser sprinkled in: boot starts, stamps that step back or repeat, glued and
wrapped lines, other formats, markup, host names, signatures, and real logs of the corpus.
"""

from __future__ import annotations

import io
import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from kmsgd.catalogue.table import CATALOGUE
from kmsgd.commands.analyze import analyze_report
from kmsgd.judge import skim
from kmsgd.judge.timeline import TimelineBuilder
from kmsgd.logparse import decode
from kmsgd.report.render import render

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
ROUTINE = (
    "usb {a}-{b}: new high-speed USB device number {n} using xhci_hcd",
    "r8169 0000:0b:00.0 enp11s0: Link is Up - 1Gbps/Full - flow control rx/tx",
    "IPv6: ADDRCONF(NETDEV_CHANGE): enp11s0: link becomes ready",
    "[drm] PCIE GART of 512M enabled (table at 0x00000080FEB00000).",
    'audit: type=1400 audit(1700000000:{n}): apparmor="STATUS" pid={n}',
    "nvme nvme0: 16/0/0 default/read/poll queues",
    "usb {a}-{b}: device descriptor read/64, error -{n}",
)
# lines that each need the parser, the catalogue or the collector for some reason
SPECIAL = (
    "Linux version 6.8.0-45-generic (buildd@lcy02) #45-Ubuntu SMP",
    "systemd[1]: Hostname set to <gpubox{n}>.",
    "amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 12 resp_reg: 0",
    "[drm:amdgpu_job_timedout [amdgpu]] *ERROR* ring gfx timeout, signaled seq=1, emitted seq=3",
    "NVRM: Xid (PCI:0000:01:00): 79, pid=1234, GPU has fallen off the bus.",
    "mce: [Hardware Error]: Machine check events logged",
    "Starting new kernel",  # a trigger word ("kernel") that every journal line's ident holds
    "Out of memory: Killed process {n} (python3) total-vm:1000kB",
    "watchdog: BUG: soft lockup - CPU#3 stuck for 22s! [kworker:{n}]",
    "a line with trailing blanks   ",
    "cut by the pager at the screen edge and marked so at the very end of it, like less -S >",
    "&lt;details&gt; copied from an HTML page &amp; pasted",
    "[  OK  ] Started Journal Service.",
    "reboot: Restarting system",
)


def _routine(rnd: random.Random) -> str:
    tpl = ROUTINE[rnd.randrange(len(ROUTINE))]
    return tpl.format(a=rnd.randint(1, 4), b=rnd.randint(1, 9), n=rnd.randint(1, 99999))


def _dmesg(rnd: random.Random, lines: int, extra: list[str]) -> Iterator[str]:
    us = rnd.randint(0, 90_000) * 1_000_000
    for k in range(lines):
        us += rnd.randint(50, 2_000_000)
        r = rnd.random()
        stamp = f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}] "
        if r < 0.002:
            msg = SPECIAL[rnd.randrange(len(SPECIAL))].format(n=k)
        elif r < 0.003 and extra:
            msg = extra[rnd.randrange(len(extra))]
        elif r < 0.0035:  # the clock restarts: a new boot
            us = rnd.randint(0, 5_000_000)
            stamp = f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}] "
            msg = _routine(rnd)
        elif r < 0.004:  # a step back of under 5 s, and an equal stamp (a console copy)
            yield stamp + _routine(rnd)
            us -= rnd.choice((0, 1_000_000))
            stamp = f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}] "
            msg = _routine(rnd)
        elif r < 0.0045:  # glued, wrapped, other formats and prose
            yield rnd.choice(
                (
                    stamp + _routine(rnd) + stamp + _routine(rnd),
                    "  continued on the next line after a wrap",
                    "Nov 29 16:00:01 gpubox kernel: usb 1-1: reset high-speed USB device",
                    "so here is the rest of the log:",
                    "",
                    "-- Boot 0123456789abcdef0123456789abcdef --",
                )
            )
            continue
        else:
            msg = _routine(rnd)
        yield stamp + msg


def _journal(rnd: random.Random, lines: int, extra: list[str]) -> Iterator[str]:
    sec = rnd.randint(0, 200_000)
    host = rnd.choice(("gpubox", "node07"))
    for k in range(lines):
        sec += rnd.randint(0, 90)
        day = 29 + sec // 86400
        month, day = ("Dec", day - 30) if day > 30 else ("Nov", day)
        t = sec % 86400
        stamp = (
            f"{month} {day:02d} {t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d}.{k % 999999:06d}"
        )
        r = rnd.random()
        who = f"{host} kernel"
        if r < 0.002:
            msg = SPECIAL[rnd.randrange(len(SPECIAL))].format(n=k)
        elif r < 0.003 and extra:
            msg = extra[rnd.randrange(len(extra))]
        elif r < 0.0035:
            yield rnd.choice(
                (
                    "-- Boot 0123456789abcdef0123456789abcdef --",
                    f"{stamp} node08 kernel: usb 1-1: reset high-speed USB device",
                    f"{stamp} {host} kernel: [ 12.000000] usb 1-1: reset high-speed USB device",
                    "  wrapped rest of a long line",
                    f"{stamp} {host} CRON[{k}]: (root) CMD (test -x /usr/bin/x && x &amp; y)",
                )
            )
            continue
        elif r < 0.3:
            who, msg = f"{host} sshd[{rnd.randint(300, 9999)}]", "Accepted publickey for alice"
        else:
            msg = _routine(rnd)
        yield f"{stamp} {who}: {msg}"


def _syslog(rnd: random.Random, lines: int, extra: list[str]) -> Iterator[str]:
    """rsyslog's kern.log/syslog: kernel lines carry printk's stamp after "kernel: "."""
    sec, us = rnd.randint(0, 200_000), rnd.randint(0, 90_000) * 1_000_000
    for k in range(lines):
        sec += rnd.randint(0, 3)
        us += rnd.randint(50, 2_000_000)
        t = sec % 86400
        head = f"Nov {29 + sec // 86400:2d} {t // 3600:02d}:{t % 3600 // 60:02d}:{t % 60:02d} box"
        stamp = f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}]"
        r = rnd.random()
        if r < 0.002:
            msg = SPECIAL[rnd.randrange(len(SPECIAL))].format(n=k)
        elif r < 0.003 and extra:
            msg = extra[rnd.randrange(len(extra))]
        elif r < 0.0035:  # a new boot: printk's clock restarts
            us = rnd.randint(0, 5_000_000)
            stamp = f"[{us // 1_000_000:5d}.{us % 1_000_000:06d}]"
            msg = _routine(rnd)
        elif r < 0.004:  # an equal stamp, a kernel line without one, another program's line
            yield rnd.choice(
                (
                    f"{head} kernel: {stamp} {_routine(rnd)}",
                    f"{head} kernel: {_routine(rnd)}",
                    f"{head} kernel: [  OK  ] {_routine(rnd)}",
                )
            )
            msg = _routine(rnd)
        elif r < 0.05:
            yield f"{head} sshd[{rnd.randint(300, 9999)}]: Accepted publickey for alice"
            continue
        else:
            msg = _routine(rnd)
        yield f"{head} kernel: {stamp} {msg}"


def _corpus_lines() -> list[str]:
    """Message bodies of the corpus logs (the real wording of real failures)."""
    out: list[str] = []
    for log in sorted(CORPUS.glob("*/log.txt"))[::5]:
        for line in log.read_text(errors="replace").splitlines()[:60]:
            body = line.split("] ", 1)[-1].strip()
            if body and len(body) < 300:
                out.append(body)
    return out


def _reports(data: bytes, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """(report with skimming, report with every line parsed), in JSON."""
    monkeypatch.setattr(decode, "BLOCK_READ", 64 * 1024)  # many blocks from a small log
    counted = []
    count = TimelineBuilder.count
    monkeypatch.setattr(
        TimelineBuilder, "count", lambda self, n, *a: counted.append(n) or count(self, n, *a)
    )
    fast, _ = analyze_report(io.BytesIO(data), name="log")
    assert sum(counted) > 1000  # the skimmer did count lines
    monkeypatch.setattr(skim.Skimmer, "plan", lambda self, lines, text: None)
    slow, _ = analyze_report(io.BytesIO(data), name="log")
    return render(fast, "json"), render(slow, "json")


# seed 0 of each format stays in the quick loop: its one check that skimming gives the report
# that parsing every line gives
@pytest.mark.parametrize(
    "seed", [0, *(pytest.param(n, marks=pytest.mark.slow) for n in range(1, 6))]
)
@pytest.mark.parametrize("make", [_dmesg, _journal, _syslog], ids=["dmesg", "journal", "syslog"])
def test_the_report_is_the_same_as_with_every_line_parsed(
    make: object, seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    rnd = random.Random(seed)
    extra = _corpus_lines() if seed % 2 else []
    gen = make(rnd, 12_000, extra)  # type: ignore[operator]
    data = ("\n".join(gen) + "\n").encode()
    fast, slow = _reports(data, monkeypatch)
    assert fast == slow


def test_lines_are_counted_on_a_routine_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan covers most of a routine dmesg: only the head, the signatures and the
    final window are parsed."""
    rnd = random.Random(1)
    lines = [f"[{k:5d}.000000] {_routine(rnd)}" for k in range(1, 3001)]
    lines[1500] = "[ 1500.500000] amdgpu 0000:05:00.0: amdgpu: SMU: No response msg_reg: 1"
    plan = skim.Skimmer().plan(lines, "\n".join(lines) + "\n")
    assert plan is not None
    counted = sum(b - a for a, b in plan.runs)
    assert counted > 2000
    assert all(not (a <= 1500 < b) for a, b in plan.runs)  # the signature is parsed
    assert all(b <= len(lines) - 400 for _, b in plan.runs)  # so is the final window


def test_a_step_back_in_the_stamps_is_parsed_with_the_window_before_it() -> None:
    lines = [f"[{k:5d}.000000] usb 1-1: new device" for k in range(1, 3001)]
    lines[2000] = "[    1.000000] usb 1-1: new device"  # printk's clock restarted
    plan = skim.Skimmer().plan(lines, "\n".join(lines) + "\n")
    assert plan is not None
    assert all(b <= 2000 - 400 or a > 2000 for a, b in plan.runs)


def test_only_the_at_boot_entries_read_the_stamp() -> None:
    """A message's answer is remembered only where no check reads MatchInput.ts_usec;
    `timed` marks the entries whose check does (kmsgd/catalogue/hardware.py _early, the
    link-down lines printed at every boot's open: kmsgd/catalogue/net.py)."""
    timed = {s.tag for s in CATALOGUE if s.timed}
    assert timed == {"mce", "mce_logged_at_boot", "nic_link_down"}


def test_a_journal_ident_is_not_a_trigger_word() -> None:
    """A kernel line of a journal is counted in the block when its message holds no trigger
    word, although its ident ("kernel: ") is one: "Starting new kernel" keys on it."""
    prefix = "Dec 00 00:00:00.000000 gpubox "
    routine = skim._judge_key(
        "kernel: usb 0-0: new high-speed USB device", prefix, skim.LogFormat.JOURNAL
    )
    assert routine & skim._NEEDS == 0
    kexec = skim._judge_key("kernel: Starting new kernel", prefix, skim.LogFormat.JOURNAL)
    assert kexec & skim._NEEDS
