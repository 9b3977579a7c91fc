"""The forensic sysctls: what kmsgd wants, what the kernel has, and setting the difference.

A freeze leaves evidence only if the kernel is told to turn lockups and oopses into panics (which
pstore and the ring can capture) and to reboot afterwards. The wanted values live here, once;
the shipped `sysctl.d/60-kmsgd.conf` is rendered from them (`render_conf`), a test keeps both equal.

Writes go through `os.open` + `os.write` with a trailing newline, as sysctl(8) writes them: a
buffered `open().write()` hides the errno until close (tests/record/test_sysctl.py).
Every value is read back afterwards: a write that "succeeded" is not proof that it took effect.
"""

from __future__ import annotations

import enum
import errno
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kmsgd.ring.sysctl import SysctlRecord, SysctlSetting

CONF_NAME = "60-kmsgd.conf"


@dataclass(frozen=True, slots=True)
class Desired:
    """One wanted sysctl. `optional`: the key is absent on kernels built without its detector."""

    key: str
    value: str
    why: str
    optional: bool = False


# Order is the order of the shipped file and of every report.
DESIRED: tuple[Desired, ...] = (
    Desired(
        "kernel.panic",
        "30",
        "reboot 30 s after a panic: time for pstore and the console to "
        "get the dump out, and a remote box comes back instead of hanging forever (0 = hang)",
    ),
    Desired(
        "kernel.panic_on_oops",
        "1",
        "an oops leaves the kernel in an unknown state; panicking "
        "now dumps the oops to pstore instead of a slow death with no record",
    ),
    Desired(
        "kernel.softlockup_panic",
        "1",
        "a CPU stuck in kernel code for 2*watchdog_thresh s "
        "(20 s) panics, so a 'soft' freeze becomes a dump and a reboot",
        optional=True,
    ),
    Desired(
        "kernel.hardlockup_panic",
        "1",
        "a CPU stuck with interrupts off (NMI watchdog) panics; "
        "absent when no hard-lockup detector is built",
        optional=True,
    ),
    Desired(
        "kernel.nmi_watchdog",
        "1",
        "hardlockup_panic needs the hard-lockup detector running; "
        "read-only (0444) where no PMU or buddy detector is usable, e.g. in many VMs",
        optional=True,
    ),
    Desired(
        "kernel.softlockup_all_cpu_backtrace",
        "1",
        "on a soft lockup print every CPU's "
        "stack, not only the stuck one: the other CPU usually holds the lock",
        optional=True,
    ),
    Desired("kernel.hardlockup_all_cpu_backtrace", "1", "same for hard lockups", optional=True),
    Desired(
        "kernel.sysrq",
        "1",
        "all SysRq functions: on a frozen console Alt+SysRq+l/w shows what "
        "runs, +c forces a panic (and a pstore dump); the keyboard or /proc/sysrq-trigger "
        "needs root or physical access. Absent without CONFIG_MAGIC_SYSRQ",
        optional=True,
    ),
)

# Deliberately not set; rendered as commented lines so an operator sees the choice and the reason.
NOT_SET: tuple[Desired, ...] = (
    Desired(
        "kernel.hung_task_panic",
        "1",
        "off: on GPU boxes tasks routinely sit in D state for "
        "minutes (model loads over NFS, amdgpu/nvidia waiting out a ring reset, fsync under "
        "writeback storms); a panic would turn a recoverable stall into a lost job. The "
        "hung-task warning is still logged and recorded",
    ),
    Desired(
        "kernel.panic_on_warn",
        "1",
        "off: GPU drivers WARN on recoverable conditions; panicking "
        "on each would reboot healthy machines",
    ),
    Desired(
        "kernel.panic_on_rcu_stall",
        "1",
        "off: RCU stalls are often transient under heavy "
        "load; the stall report is logged and recorded either way",
    ),
    Desired(
        "vm.panic_on_oom",
        "1",
        "off: the OOM killer recovering the box is the better outcome; "
        "kmsgd records the kill and memory pressure before it",
    ),
)


class Failure(enum.StrEnum):
    """Why a sysctl could not be read or set (`error` in the ring payload)."""

    MISSING = "missing"  # ENOENT: key not built into this kernel (no such detector)
    READ_ONLY = "read_only"  # EACCES/EROFS: 0444 key, read-only /proc/sys (container), not root
    PERMISSION = "permission"  # EPERM: needs a capability (CAP_SYS_ADMIN for a few keys)
    INVALID = "invalid"  # EINVAL: the kernel rejected the value
    NOT_APPLIED = "not_applied"  # the write returned success but the value read back differs
    ERROR = "error"  # anything else; `detail` has strerror


_HINTS: dict[Failure, str] = {
    Failure.MISSING: "no such key: the kernel is built without it",
    Failure.READ_ONLY: "not writable: read-only key, read-only /proc/sys (container) or not root",
    Failure.PERMISSION: "operation not permitted: needs a capability this process lacks",
    Failure.INVALID: "the kernel rejected the value",
    Failure.NOT_APPLIED: "written, but the kernel kept another value",
}


def classify(err: OSError) -> Failure:
    """Map an errno from /proc/sys to the failure an operator can act on."""
    if err.errno == errno.ENOENT:
        return Failure.MISSING
    if err.errno in (errno.EACCES, errno.EROFS):
        return Failure.READ_ONLY
    if err.errno == errno.EPERM:
        return Failure.PERMISSION
    if err.errno == errno.EINVAL:
        return Failure.INVALID
    return Failure.ERROR


@dataclass(frozen=True, slots=True)
class SysctlState:
    """What `check` found for one key: `current` is None when it could not be read."""

    key: str
    desired: str
    current: str | None
    optional: bool
    error: Failure | None = None
    detail: str = ""

    @property
    def ok(self) -> bool:
        """True when the key holds the wanted value, or is an optional key this kernel lacks."""
        if self.current is None:
            return self.optional and self.error is Failure.MISSING
        return same_value(self.current, self.desired)


@dataclass(frozen=True, slots=True)
class SysctlChange:
    """What `apply` did to one key. `old`/`new` are read from the kernel, never assumed."""

    key: str
    desired: str
    old: str | None
    new: str | None
    optional: bool
    error: Failure | None = None
    detail: str = ""

    @property
    def changed(self) -> bool:
        return self.old is not None and self.new is not None and not same_value(self.old, self.new)

    @property
    def ok(self) -> bool:
        if self.new is None:
            return self.optional and self.error is Failure.MISSING
        return same_value(self.new, self.desired)


def observed(states: Sequence[SysctlState]) -> list[SysctlChange]:
    """`check`'s findings in the shape of `apply`'s, for the ring when another step applied the
    values: nothing changed here (old is new), and a key not at its value says why."""
    out = []
    for s in states:
        error = s.error
        if error is None and not s.ok:
            error = Failure.NOT_APPLIED
        out.append(
            SysctlChange(s.key, s.desired, s.current, s.current, s.optional, error, s.detail)
        )
    return out


def same_value(a: str, b: str) -> bool:
    """Compare as the kernel prints: multi-field keys (kernel.printk) are tab-separated."""
    return a.split() == b.split()


def key_path(proc_root: Path, key: str) -> Path:
    """`kernel.panic` -> `<proc_root>/sys/kernel/panic` (sysctl.d(5) also allows `/` separators)."""
    return proc_root / "sys" / key.replace(".", "/")


def read_value(path: Path) -> str:
    """The value as the kernel reports it, without the trailing newline. Raises OSError."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        return os.read(fd, 4096).decode("ascii", "replace").strip()
    finally:
        os.close(fd)


def write_value(path: Path, value: str) -> None:
    """One write() with a trailing newline, so the errno reaches us. Raises OSError."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, (value + "\n").encode("ascii"))
    finally:
        os.close(fd)


def _detail(failure: Failure, err: OSError | None = None) -> str:
    hint = _HINTS.get(failure)
    if hint is None:
        return (err.strerror or str(err)) if err is not None else failure.value
    return hint


def check(proc_root: Path, desired: Iterable[Desired] = DESIRED) -> list[SysctlState]:
    """Read each wanted key under `proc_root` (normally /proc) and compare; writes nothing."""
    states = []
    for want in desired:
        try:
            current = read_value(key_path(proc_root, want.key))
        except OSError as err:
            failure = classify(err)
            states.append(
                SysctlState(
                    want.key, want.value, None, want.optional, failure, _detail(failure, err)
                )
            )
            continue
        states.append(SysctlState(want.key, want.value, current, want.optional))
    return states


def apply(proc_root: Path, desired: Iterable[Desired] = DESIRED) -> list[SysctlChange]:
    """Set each wanted key that differs; a failing key is reported and the rest still applied."""
    return [_apply_one(proc_root, want) for want in desired]


def _apply_one(proc_root: Path, want: Desired) -> SysctlChange:
    path = key_path(proc_root, want.key)
    try:
        old = read_value(path)
    except OSError as err:
        unread = classify(err)
        return SysctlChange(
            want.key, want.value, None, None, want.optional, unread, _detail(unread, err)
        )
    if same_value(old, want.value):
        return SysctlChange(want.key, want.value, old, old, want.optional)
    failure: Failure | None = None
    detail = ""
    try:
        write_value(path, want.value)
    except OSError as err:
        failure = classify(err)
        detail = _detail(failure, err)
    try:
        new: str | None = read_value(path)
    except OSError as err:  # it was readable a moment ago; say so rather than guess
        failure = failure or classify(err)
        detail = detail or _detail(failure, err)
        new = None
    if failure is None and new is not None and not same_value(new, want.value):
        failure = Failure.NOT_APPLIED
        detail = _detail(failure)
    return SysctlChange(want.key, want.value, old, new, want.optional, failure, detail)


def to_record(changes: Sequence[SysctlChange]) -> SysctlRecord:
    """The `sysctl` ring record: per key the value wanted, before and after, and the failure."""
    return SysctlRecord(
        tuple(
            SysctlSetting(
                c.key, c.desired, c.old, c.new, c.error.value if c.error is not None else None
            )
            for c in changes
        )
    )


def _width(keys: Iterable[str]) -> int:
    return max((len(k) for k in keys), default=0) + 2


def check_report(states: Sequence[SysctlState]) -> tuple[list[str], int]:
    """Lines for `kmsgd sysctl check` and its exit status: 0 all as wanted, 1 on any drift."""
    w = _width(s.key for s in states)
    lines = []
    for s in states:
        current = s.current if s.current is not None else "-"
        if s.ok and s.current is not None:
            verdict = "ok"
        elif s.ok:
            verdict = f"absent (optional): {s.detail}"
        elif s.current is None:
            verdict = f"DRIFT: {s.detail}"
        else:
            verdict = "DRIFT"
        lines.append(f"{s.key:<{w}}desired {s.desired:<4} current {current:<4} {verdict}")
    drift = sum(not s.ok for s in states)
    lines.append(f"{drift} of {len(states)} differ" if drift else f"all {len(states)} as wanted")
    return lines, 1 if drift else 0


def apply_report(changes: Sequence[SysctlChange]) -> tuple[list[str], int]:
    """Lines for `kmsgd sysctl apply` and its exit status: 0 unless a key could not be set."""
    w = _width(c.key for c in changes)
    lines = []
    for c in changes:
        if c.error is None:
            what = f"{c.old} -> {c.new}" if c.changed else f"{c.new} (unchanged)"
        elif c.ok:
            what = f"absent (optional): {c.detail}"
        else:
            now = f" (now {c.new})" if c.new is not None else ""
            what = f"NOT SET to {c.desired}: {c.detail}{now}"
        lines.append(f"{c.key:<{w}}{what}")
    changed = sum(c.changed for c in changes)
    failed = sum(not c.ok for c in changes)
    lines.append(f"{changed} changed, {failed} could not be set, {len(changes)} checked")
    return lines, 1 if failed else 0
