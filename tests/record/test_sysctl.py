"""The forensic sysctls on a fake /proc/sys: check, apply, failures, and the shipped file."""

from __future__ import annotations

import errno
import os
from collections.abc import Iterable
from pathlib import Path

import pytest

from kmsgd.record import sysctl_conf, sysctl_set
from kmsgd.record.sysctl_set import DESIRED, Desired, Failure
from kmsgd.ring import frame as fr
from kmsgd.ring.records import Kind

REPO = Path(__file__).resolve().parents[2]


def make_proc(root: Path, values: dict[str, str]) -> Path:
    """A /proc with only the given sysctl files, each holding `value\\n` as the kernel prints."""
    for key, value in values.items():
        path = sysctl_set.key_path(root, key)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(value + "\n")
    return root


def all_wanted() -> dict[str, str]:
    return {d.key: d.value for d in DESIRED}


def test_shipped_conf_is_rendered_from_the_table() -> None:
    shipped = (REPO / "sysctl.d" / sysctl_set.CONF_NAME).read_text()
    assert shipped == sysctl_conf.render_conf(), (
        "regenerate: python -c 'kmsgd.record.sysctl_conf.render_conf()'"
    )


def test_shipped_conf_sets_exactly_the_desired_values() -> None:
    # Parsed the way systemd-sysctl reads it, independent of render_conf's own code.
    parsed = sysctl_conf.parse_sysctl_conf((REPO / "sysctl.d" / sysctl_set.CONF_NAME).read_text())
    assert parsed == all_wanted()
    for line in (REPO / "sysctl.d" / sysctl_set.CONF_NAME).read_text().splitlines():
        if "=" in line and not line.startswith("#"):
            assert line.startswith("-"), f"a missing key must not be fatal: {line}"


def test_issue_values_present() -> None:
    wanted = all_wanted()
    for key, value in {
        "kernel.hardlockup_panic": "1",
        "kernel.softlockup_panic": "1",
        "kernel.panic_on_oops": "1",
        "kernel.panic": "30",
        "kernel.sysrq": "1",
    }.items():
        assert wanted[key] == value
    assert "kernel.hung_task_panic" not in wanted
    assert "kernel.hung_task_panic" in {d.key for d in sysctl_set.NOT_SET}


def test_check_reports_drift_and_exit_status(tmp_path: Path) -> None:
    values = all_wanted() | {"kernel.panic": "0"}
    proc = make_proc(tmp_path, values)
    states = sysctl_set.check(proc)
    by_key = {s.key: s for s in states}
    assert by_key["kernel.panic"].current == "0"
    assert not by_key["kernel.panic"].ok
    assert by_key["kernel.panic_on_oops"].ok
    lines, status = sysctl_set.check_report(states)
    assert status == 1
    assert any(line.startswith("kernel.panic ") and "DRIFT" in line for line in lines)
    assert lines[-1] == f"1 of {len(DESIRED)} differ"


def test_check_all_as_wanted_exits_zero(tmp_path: Path) -> None:
    states = sysctl_set.check(make_proc(tmp_path, all_wanted()))
    lines, status = sysctl_set.check_report(states)
    assert status == 0
    assert lines[-1] == f"all {len(DESIRED)} as wanted"


def test_missing_optional_key_is_not_drift_but_missing_required_is(tmp_path: Path) -> None:
    values = all_wanted()
    del values["kernel.sysrq"]  # CONFIG_MAGIC_SYSRQ=n, as on the development VM
    del values["kernel.panic_on_oops"]
    states = {s.key: s for s in sysctl_set.check(make_proc(tmp_path, values))}
    assert states["kernel.sysrq"].error is Failure.MISSING
    assert states["kernel.sysrq"].ok
    assert states["kernel.panic_on_oops"].error is Failure.MISSING
    assert not states["kernel.panic_on_oops"].ok
    lines, status = sysctl_set.check_report(list(states.values()))
    assert status == 1
    assert any("kernel.sysrq" in line and "absent (optional)" in line for line in lines)


def test_check_writes_nothing(tmp_path: Path) -> None:
    proc = make_proc(tmp_path, {"kernel.panic": "0"})
    sysctl_set.check(proc, [Desired("kernel.panic", "30", "")])
    assert sysctl_set.key_path(proc, "kernel.panic").read_text() == "0\n"


def test_multi_field_values_compare_by_fields(tmp_path: Path) -> None:
    proc = make_proc(tmp_path, {"kernel.printk": "4\t4\t1\t7"})
    [state] = sysctl_set.check(proc, [Desired("kernel.printk", "4 4 1 7", "")])
    assert state.ok


def test_apply_writes_with_newline_and_reads_back(tmp_path: Path) -> None:
    values = all_wanted() | {"kernel.panic": "0", "kernel.softlockup_panic": "0"}
    proc = make_proc(tmp_path, values)
    changes = {c.key: c for c in sysctl_set.apply(proc)}
    assert sysctl_set.key_path(proc, "kernel.panic").read_text() == "30\n"
    assert (changes["kernel.panic"].old, changes["kernel.panic"].new) == ("0", "30")
    assert changes["kernel.panic"].changed
    assert not changes["kernel.panic_on_oops"].changed
    lines, status = sysctl_set.apply_report(list(changes.values()))
    assert status == 0
    assert any(line.startswith("kernel.panic ") and "0 -> 30" in line for line in lines)
    assert lines[-1] == f"2 changed, 0 could not be set, {len(DESIRED)} checked"
    assert all(s.ok for s in sysctl_set.check(proc))


def test_apply_leaves_equal_values_untouched(tmp_path: Path) -> None:
    proc = make_proc(tmp_path, all_wanted())
    path = sysctl_set.key_path(proc, "kernel.panic")
    path.chmod(0o444)
    before = path.stat().st_mtime_ns
    changes = sysctl_set.apply(proc)
    assert all(c.ok and not c.changed and c.error is None for c in changes)
    assert path.stat().st_mtime_ns == before


class FakeKernel:
    """Stands in for /proc/sys write semantics that a root test cannot get from plain files.

    Root bypasses file modes, so EACCES, EROFS, EPERM and EINVAL are raised here per key; other
    keys are written for real. `ignore` keys accept the write and keep their value, as a kernel
    handler that clamps does.
    """

    def __init__(self, proc: Path, errors: dict[str, int], ignore: Iterable[str] = ()) -> None:
        self.errors = {sysctl_set.key_path(proc, k): e for k, e in errors.items()}
        self.ignore = {sysctl_set.key_path(proc, k) for k in ignore}
        self.real = sysctl_set.write_value

    def write(self, path: Path, value: str) -> None:
        if path in self.errors:
            raise OSError(self.errors[path], os.strerror(self.errors[path]), str(path))
        if path not in self.ignore:
            self.real(path, value)


@pytest.mark.parametrize(
    ("err", "failure"),
    [
        (errno.EACCES, Failure.READ_ONLY),
        (errno.EROFS, Failure.READ_ONLY),
        (errno.EPERM, Failure.PERMISSION),
        (errno.EINVAL, Failure.INVALID),
        (errno.EIO, Failure.ERROR),
    ],
)
def test_apply_isolates_a_failing_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, err: int, failure: Failure
) -> None:
    values = {d.key: "0" for d in DESIRED}
    proc = make_proc(tmp_path, values)
    fake = FakeKernel(proc, {"kernel.hardlockup_panic": err})
    monkeypatch.setattr(sysctl_set, "write_value", fake.write)
    changes = {c.key: c for c in sysctl_set.apply(proc)}
    bad = changes["kernel.hardlockup_panic"]
    assert bad.error is failure
    assert (bad.old, bad.new) == ("0", "0")
    assert not bad.ok
    # Every other key was still set.
    assert all(c.ok and c.changed for k, c in changes.items() if k != "kernel.hardlockup_panic")
    lines, status = sysctl_set.apply_report(list(changes.values()))
    assert status == 1
    assert any(
        line.startswith("kernel.hardlockup_panic") and "NOT SET to 1" in line for line in lines
    )


def test_a_write_that_does_not_take_effect_is_reported(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    proc = make_proc(tmp_path, {"kernel.nmi_watchdog": "0"})
    monkeypatch.setattr(
        sysctl_set, "write_value", FakeKernel(proc, {}, {"kernel.nmi_watchdog"}).write
    )
    [change] = sysctl_set.apply(proc, [Desired("kernel.nmi_watchdog", "1", "", optional=True)])
    assert change.error is Failure.NOT_APPLIED
    assert change.new == "0"
    assert not change.ok


def test_apply_missing_keys(tmp_path: Path) -> None:
    proc = make_proc(tmp_path, {"kernel.panic": "0"})
    changes = {c.key: c for c in sysctl_set.apply(proc)}
    assert changes["kernel.sysrq"].error is Failure.MISSING
    assert changes["kernel.sysrq"].ok  # optional
    assert not changes["kernel.panic_on_oops"].ok  # required and missing
    assert changes["kernel.panic"].new == "30"


def test_read_only_proc_sys_as_non_root(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root ignores file modes; FakeKernel covers EACCES for root")
    proc = make_proc(tmp_path, {"kernel.panic": "0"})
    sysctl_set.key_path(proc, "kernel.panic").chmod(0o444)
    [change] = sysctl_set.apply(proc, [Desired("kernel.panic", "30", "")])
    assert change.error is Failure.READ_ONLY


def test_payload_for_the_ring(tmp_path: Path) -> None:
    proc = make_proc(tmp_path, {"kernel.panic": "0"})
    changes = sysctl_set.apply(
        proc, [Desired("kernel.panic", "30", ""), Desired("kernel.x", "1", "")]
    )
    record = sysctl_set.to_record(changes)
    assert fr.encode_payload(Kind.SYSCTL, record) == (
        b'{"changes":[{"key":"kernel.panic","desired":"30","old":"0","new":"30","error":null},'
        b'{"key":"kernel.x","desired":"1","old":null,"new":null,"error":"missing"}]}'
    )
    assert fr.decode_payload(Kind.SYSCTL, fr.encode_payload(Kind.SYSCTL, record)) == record


def test_check_on_the_real_proc_reads_without_writing() -> None:
    if not Path("/proc/sys/kernel/panic").exists():
        pytest.skip("no /proc/sys on this machine")
    before = Path("/proc/sys/kernel/panic").read_text()
    states = {s.key: s for s in sysctl_set.check(Path("/proc"))}
    assert states["kernel.panic"].current == before.strip()
    assert Path("/proc/sys/kernel/panic").read_text() == before


# --- what systemd-sysctl would set: admin overrides and masks ---------------------------------


def write(root: Path, rel: str, text: str) -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def resolved(root: Path) -> dict[str, str]:
    return {d.key: d.value for d in sysctl_conf.resolve_desired(root)}


def test_resolve_without_any_file_keeps_ours(tmp_path: Path) -> None:
    assert resolved(tmp_path) == all_wanted()


def test_resolve_later_admin_file_wins(tmp_path: Path) -> None:
    write(tmp_path, "usr/lib/sysctl.d/60-kmsgd.conf", sysctl_conf.render_conf())
    write(tmp_path, "etc/sysctl.d/90-fleet.conf", "kernel.panic = 10\n-kernel/sysrq=176\n")
    write(tmp_path, "etc/sysctl.d/10-early.conf", "kernel.panic_on_oops = 0\n")  # earlier: loses
    got = resolved(tmp_path)
    assert got["kernel.panic"] == "10"
    assert got["kernel.sysrq"] == "176"
    assert got["kernel.panic_on_oops"] == "1"


def test_resolve_debian_sysctl_conf_link_read_once(tmp_path: Path) -> None:
    write(tmp_path, "usr/lib/sysctl.d/60-kmsgd.conf", sysctl_conf.render_conf())
    write(tmp_path, "etc/sysctl.conf", "kernel.panic = 5\n")
    (tmp_path / "etc/sysctl.d").mkdir(parents=True)
    (tmp_path / "etc/sysctl.d/99-sysctl.conf").symlink_to("../sysctl.conf")
    assert resolved(tmp_path)["kernel.panic"] == "5"


def test_resolve_masked_file_sets_nothing(tmp_path: Path) -> None:
    write(tmp_path, "usr/lib/sysctl.d/60-kmsgd.conf", sysctl_conf.render_conf())
    (tmp_path / "etc/sysctl.d").mkdir(parents=True)
    (tmp_path / "etc/sysctl.d/60-kmsgd.conf").symlink_to("/dev/null")
    write(tmp_path, "etc/sysctl.d/90-fleet.conf", "kernel.panic = 10\n")
    assert resolved(tmp_path) == {"kernel.panic": "10"}


def test_resolve_etc_copy_replaces_shipped_file(tmp_path: Path) -> None:
    write(tmp_path, "usr/lib/sysctl.d/60-kmsgd.conf", sysctl_conf.render_conf())
    write(tmp_path, "etc/sysctl.d/60-kmsgd.conf", "# trimmed by the admin\nkernel.panic = 60\n")
    assert resolved(tmp_path) == {"kernel.panic": "60"}
