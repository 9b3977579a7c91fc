"""The daemon's log: priorities and fields reach the journal natively under systemd, logfmt
lines elsewhere. The last test runs a real systemd-journald (in a private mount namespace, so
the host's /run is untouched) and the real `kmsgd run` with stderr on journald's stream socket,
as systemd starts the service; systemd is not PID 1 on the CI machines, so this is as close to
`systemd-run` as they allow."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import make_proc

from kmsgd.record import log

ROOT = Path(__file__).resolve().parents[2]


def test_fields_map_to_journal_fields() -> None:
    got = log.journal_entry(
        {"event": "dropping_kernel_records", "level": "error", "timestamp": "x", "n": 3,
         "reason": "ring unwritable", "all-durable": False}
    )  # fmt: skip
    assert got == {
        "MESSAGE": 'dropping_kernel_records n=3 reason="ring unwritable" all-durable=False',
        "PRIORITY": "3",
        "SYSLOG_IDENTIFIER": "kmsgd",
        "KMSGD_EVENT": "dropping_kernel_records",
        "KMSGD_N": "3",
        "KMSGD_REASON": "ring unwritable",
        "KMSGD_ALL_DURABLE": "False",
    }
    assert log.journal_entry({"event": "e", "level": "warning"})["PRIORITY"] == "4"
    assert log.journal_entry({"event": "e", "level": "debug"})["PRIORITY"] == "7"


def test_journal_stream_must_be_stderr_itself(tmp_path: Path) -> None:
    with open(tmp_path / "f", "w") as f:
        st = os.fstat(f.fileno())
        assert log.under_journal(f, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino}"})
        assert not log.under_journal(f, {"JOURNAL_STREAM": f"{st.st_dev}:{st.st_ino + 1}"})
        assert not log.under_journal(f, {})
        assert not log.under_journal(f, {"JOURNAL_STREAM": "garbage"})


def test_configure_sends_entries_with_priorities(tmp_path: Path) -> None:
    sent: list[tuple[str, dict[str, Any]]] = []
    logger = log.configure("info", send=lambda m, **f: sent.append((m, f)))
    logger.error("config_problem", key="ringsize", did_you_mean="ring_size")
    logger.debug("not_shown")
    assert sent == [
        (
            "config_problem key=ringsize did_you_mean=ring_size",
            {
                "PRIORITY": "3",
                "SYSLOG_IDENTIFIER": "kmsgd",
                "KMSGD_EVENT": "config_problem",
                "KMSGD_KEY": "ringsize",
                "KMSGD_DID_YOU_MEAN": "ring_size",
            },
        )
    ]


def test_a_terminal_gets_logfmt() -> None:
    out = io.StringIO()
    log.configure("info", stream=out, env={}).warning("textfile_dir_missing", path="/x y")
    line = out.getvalue().strip()
    assert line.endswith('level=warning textfile_dir_missing path="/x y"')
    assert line[:4].isdigit()  # a UTC timestamp first


def test_the_journal_refusing_falls_back_to_stderr() -> None:
    out = io.StringIO()

    def refuse(_m: str, **_f: str) -> None:
        raise OSError("no journal socket")

    log.configure("info", stream=out, send=refuse).error("boom", x=1)
    assert out.getvalue() == "<3>boom x=1\n"


JOURNALD = "/lib/systemd/systemd-journald"
SCRIPT = """
set -e
mount -t tmpfs none /run/systemd && mount -t tmpfs none /run/log && mkdir -p /run/systemd/journal
{journald} & J=$!
for i in $(seq 50); do [ -S /run/systemd/journal/stdout ] && break; sleep 0.1; done
# systemd-cat connects stderr to journald's stream socket, as systemd does for a service;
# JOURNAL_STREAM names that socket, as systemd.exec(5) says systemd sets it.
systemd-cat -t kmsgd-test sh -c 'JOURNAL_STREAM=$(stat -L -c %d:%i /proc/self/fd/2) \\
  exec {python} -m kmsgd run --config {cfg} --kmsg {kmsg} --proc {proc} --ring {ring} \\
  --ring-size 1M --no-sysctl --no-mlock' &
K=$!
sleep 3; kill -TERM $(pgrep -P $K -f "kmsgd run" || echo $K) 2>/dev/null || true; wait $K || true
journalctl -D /run/log/journal --no-pager -o json SYSLOG_IDENTIFIER=kmsgd > {out}
kill $J; wait $J || true
"""


@pytest.mark.slow
def test_a_real_journal_gets_priorities_and_fields(tmp_path: Path) -> None:
    needs = [JOURNALD, shutil.which("unshare"), shutil.which("systemd-cat")]
    if os.geteuid() != 0 or not all(n and os.path.exists(n) for n in needs):
        pytest.skip("needs root, unshare, systemd-cat and systemd-journald")
    cfg = tmp_path / "kmsgd.toml"
    state = tmp_path / "state"
    state.mkdir()
    cfg.write_text(
        f'[kmsgd]\nringsize = "1M"\nstate_dir = "{state}"\nfs_root = "{state}"\n'
        f'textfile_dir = "{tmp_path}/absent"\nsensors = false\n'
    )
    kmsg = tmp_path / "kmsg"
    kmsg.write_bytes(b"6,1,1000,-;hello\n")
    out = tmp_path / "journal.json"
    script = SCRIPT.format(
        journald=JOURNALD,
        python=sys.executable,
        cfg=cfg,
        kmsg=kmsg,
        proc=make_proc(tmp_path / "proc"),
        ring=tmp_path / "ring",
        out=out,
    )
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", "sh", "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if done.returncode != 0 and "unshare" in done.stderr:
        pytest.skip(f"no private mount namespace here: {done.stderr.strip()}")
    entries = [json.loads(line) for line in out.read_text().splitlines()]
    by_event = {e.get("KMSGD_EVENT"): e for e in entries}
    assert "recording" in by_event, done.stderr[-2000:] + str(entries)[:2000]
    typo = by_event["config_problem"]
    assert typo["PRIORITY"] == "3" and typo["KMSGD_DID_YOU_MEAN"] == "ring_size"
    assert typo["_TRANSPORT"] == "journal"  # native, not a captured stderr line
    missing = by_event["textfile_dir_missing"]
    assert missing["PRIORITY"] == "4" and missing["KMSGD_PATH"] == f"{tmp_path}/absent"
    assert by_event["recording"]["PRIORITY"] == "6"
