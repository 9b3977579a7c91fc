"""Where an incident's SysRq keys go: the unit's writable bind of /proc/sysrq-trigger in the
runtime directory, since ProtectKernelTunables= keeps /proc/sysrq-trigger read-only."""

from __future__ import annotations

from pathlib import Path

from kmsgd.record.captures import sysrq, trigger_path


def test_the_bound_trigger_in_the_runtime_directory_is_used_for_the_real_proc(
    tmp_path: Path,
) -> None:
    run = tmp_path / "run-kmsgd"
    run.mkdir()
    assert (
        trigger_path(Path("/proc"), str(run)) == "/proc/sysrq-trigger"
    )  # no bind: the file itself
    (run / "sysrq-trigger").write_text("")
    assert trigger_path(Path("/proc"), str(run)) == str(run / "sysrq-trigger")
    # systemd lists several runtime directories with ":"; kmsgd's is the only one
    assert trigger_path(Path("/proc"), f"{run}:/run/other") == str(run / "sysrq-trigger")
    # a test tree's proc root is never redirected, nor is a service without a runtime directory
    assert trigger_path(tmp_path / "proc", str(run)) == str(tmp_path / "proc/sysrq-trigger")
    assert trigger_path(Path("/proc"), "") == "/proc/sysrq-trigger"


def test_sysrq_writes_each_key_and_reports_each_failure(tmp_path: Path) -> None:
    proc = tmp_path / "proc"
    proc.mkdir()
    (proc / "sysrq-trigger").write_text("")
    seen: list[str] = []
    got = sysrq(proc, "w", seen.append)
    assert got == {"keys": "w", "w": "ok"} and (proc / "sysrq-trigger").read_text() == "w"
    assert seen == [str(proc / "sysrq-trigger")]
    (proc / "sysrq-trigger").unlink()
    (proc / "sysrq-trigger").mkdir()  # not writable as a file: the error is the result
    assert sysrq(proc, "wl", seen.append)["l"] == "Is a directory"
