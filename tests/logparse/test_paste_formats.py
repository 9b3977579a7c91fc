"""The log-paste formats bug-report tools and people make, each read as the log it holds:
`journalctl -o verbose` records (made here from real journal files), RFC 5424 syslog, and
Kubernetes event tables quoting kernel lines (node-problem-detector's kernel-monitor)."""

from __future__ import annotations

import io
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from kmsgd.commands.analyze import analyze_report
from kmsgd.logparse import Line, LogFormat, Origin, parse_lines
from kmsgd.report import render_json

XID = "NVRM: Xid (PCI:0000:41:00): 79, pid=1, GPU has fallen off the bus."


def lines_of(text: str) -> list[Line]:
    return [ev for ev in parse_lines(text.split("\n")) if isinstance(ev, Line)]


def report_of(text: str | bytes) -> dict[str, Any]:
    data = text.encode() if isinstance(text, str) else text
    report, _ = analyze_report(io.BytesIO(data), name="paste")
    return render_json.report_json(report)


def _verdict(report: dict[str, Any]) -> tuple[object, ...]:
    """What a report concludes: the outcome, the culprit, each signature and its count, the
    boots and their lines."""
    return (
        report["outcome"],
        report["primary"] and report["primary"]["tag"],
        [(s["tag"], s["count"]) for s in report["signatures"]],
        [(b["boot_id"], b["lines"], b["outcome"]) for b in report["boots"]],
        report["source"]["evidence_lines"],
    )


def _journalctl(journal: Path, output: str) -> bytes:
    done = subprocess.run(
        ["journalctl", "--file", str(journal), "--no-pager", "-o", output],
        check=True,
        capture_output=True,
        env={"SYSTEMD_COLORS": "0", "TZ": "UTC", "LC_ALL": "C"},
    )
    return done.stdout


@pytest.mark.skipif(shutil.which("journalctl") is None, reason="journalctl is not installed")
def test_journal_verbose_reads_as_the_same_journal_in_json(journal_dir: Path) -> None:
    """systemd's own `-o verbose` (src/shared/logs-show.c output_verbose) of real journal
    files: the same verdict as `-o json` of the same entries (a binary MESSAGE, which verbose
    shows as "[89B blob data]", is one of them)."""
    for journal in sorted(journal_dir.glob("*.journal")):
        verbose = _journalctl(journal, "verbose")
        assert b"[s=" in verbose.split(b"\n", 1)[0]
        got = report_of(verbose)
        assert got["source"]["formats"] == ["verbose"], journal.name
        want = report_of(_journalctl(journal, "json"))
        assert _verdict(got) == _verdict(want), journal.name


HEAD = (
    "Sat 2019-11-30 12:58:09.535491 CET [s=61d5ee7e42bb4900912af0e16d741d76;i=97fc;"
    "b=26be15ca5afe45098c35b48559b27c93;m=2089dec14a;t=5988f0f646280;x=fa672a0c41f30f11]"
)


def test_a_verbose_record_gives_its_message_origin_and_stamps() -> None:
    kernel = lines_of(
        f"{HEAD}\n    _TRANSPORT=kernel\n    PRIORITY=4\n    SYSLOG_FACILITY=0\n"
        f"    _SOURCE_MONOTONIC_TIMESTAMP=139753124810\n    MESSAGE={XID}\n"
    )
    assert [(k.origin, k.message, k.ts_usec, k.fmt) for k in kernel] == [
        (Origin.KERNEL, XID, 139_753_124_810, LogFormat.VERBOSE)
    ]
    assert kernel[0].wall_us == 0x5988F0F646280  # the cursor's t=, UTC µs
    assert kernel[0].boot_id == "26be15ca5afe45098c35b48559b27c93"
    # a program's record stays a program's, whatever its message says
    (prog,) = lines_of(
        f"{HEAD}\n    _TRANSPORT=journal\n    SYSLOG_IDENTIFIER=logger\n    _PID=4242\n"
        f"    MESSAGE={XID}\n"
    )
    assert (prog.origin, prog.message) == (Origin.USERSPACE, f"logger[4242]: {XID}")
    assert (
        report_of(f"{HEAD}\n    SYSLOG_IDENTIFIER=logger\n    _PID=1\n    MESSAGE={XID}\n")[
            "signatures"
        ]
        == []
    )


def test_a_verbose_value_on_several_lines_is_one_value() -> None:
    # print_multiline indents a value's further lines past "MESSAGE="
    (line, after) = lines_of(
        f"{HEAD}\n    _TRANSPORT=kernel\n    MESSAGE=first line\n            second line\n"
        f"    PRIORITY=3\n[   12.000000] {XID}\n"
    )
    assert line.message == "first line\nsecond line"
    assert (after.fmt, after.message) == (LogFormat.DMESG, XID)


@pytest.mark.parametrize(
    ("text", "origin", "ts"),
    [
        (f"<4>1 2024-05-06T14:02:37.123456+00:00 gpu-node kernel - - - {XID}", Origin.KERNEL, None),
        (
            f'<4>1 2024-05-06T14:02:37Z gpu-node kernel - - [meta sequenceId="7"] '
            f"[ 1234.567890] {XID}",
            Origin.KERNEL,
            1_234_567_890,
        ),
        # the facility decides: a program's message with the kernel's words is the program's
        (f"<12>1 2024-05-06T14:02:37Z gpu-node logger 4242 - - {XID}", Origin.USERSPACE, None),
    ],
)
def test_rfc5424_syslog_carries_the_facility(text: str, origin: Origin, ts: int | None) -> None:
    (line,) = lines_of(text)
    assert (line.fmt, line.origin, line.ts_usec) == (LogFormat.RFC5424, origin, ts)
    assert line.message.endswith(XID)
    tags = [s["tag"] for s in report_of(text)["signatures"]]
    assert tags == (["nvidia_xid_79"] if origin is Origin.KERNEL else [])


EVENTS = """Events:
  Type     Reason      Age                 From            Message
  ----     ------      ----                ----            -------
  Warning  TaskHung    5m23s               kernel-monitor  INFO: task kswapd0:49 blocked for more than 120 seconds.
  Warning  KernelOops  3m (x2 over 10m)    kernel-monitor, node-1  BUG: unable to handle kernel NULL pointer dereference at 0000000000000008
  Normal   NodeNotReady  2m                node-controller  Node node-1 status is now: NodeNotReady
  Warning  FailedMount   1m                kubelet          MountVolume.SetUp failed for volume "data" : rpc error: code = Internal
"""

GET_EVENTS = """LAST SEEN   TYPE      REASON       OBJECT        MESSAGE
5m23s       Warning   OOMKilling   node/node-1   Memory cgroup out of memory: Killed process 4242 (python3) total-vm:8000kB, anon-rss:4000kB, file-rss:0kB, shmem-rss:0kB, UID:0 pgtables:40kB oom_score_adj:0
2m          Normal    Starting     node/node-1   Starting kubelet.
"""


def test_kubernetes_events_quoting_kernel_lines_are_read_as_kernel_lines() -> None:
    kernel = [ln.message for ln in lines_of(EVENTS) if ln.origin is Origin.KERNEL]
    assert kernel == [
        "INFO: task kswapd0:49 blocked for more than 120 seconds.",
        "BUG: unable to handle kernel NULL pointer dereference at 0000000000000008",
    ]
    assert sorted(s["tag"] for s in report_of(EVENTS)["signatures"]) == ["hung_task", "oops"]
    got = report_of(GET_EVENTS)
    assert [s["tag"] for s in got["signatures"]] == ["oom_kill"]
    assert [ln.origin for ln in lines_of(GET_EVENTS)][-1] is Origin.TEXT  # kubelet's own


WARN_AT = "WARNING: at drivers/net/dsl/kdsld.c:1915 kdsld_net_xmit+0x480/0x560 [kdsldmod]()"


@pytest.mark.parametrize(
    "text",
    [
        f"[  183.060000][0]{WARN_AT}",  # a vendor kernel's CPU number against the stamp
        f"[  183.060000] [T412] {WARN_AT}",  # CONFIG_PRINTK_CALLER
        f"[  183.060000][C1] {WARN_AT}",
        f"Feb 25 20:33:54 fritz kern.warn kernel: [  183.060000][0]{WARN_AT}",  # BusyBox
        f"Feb 25 20:33:54 fritz kernel: [  183.060000][0]{WARN_AT}",
    ],
)
def test_the_caller_or_cpu_field_after_the_stamp_is_not_the_message(text: str) -> None:
    (line,) = lines_of(text)
    assert (line.message, line.ts_usec) == (WARN_AT, 183_060_000)
    assert [s["tag"] for s in report_of(text)["signatures"]] == ["kernel_warning"]
