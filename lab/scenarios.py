"""The scenarios: how each ends boot 1, and what boot 2's kmsgd must then say about it.

Each scenario gets `Ctx` (the running guest plus what was learned while ending the boot, e.g.
the reset's time on the guest's clock) and returns nothing; `expect` turns boot 2's outputs
into checks. Times compared with the guest are converted with a measured clock offset.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lab.checks import (
    Check,
    downtime_s,
    heartbeat_interval_s,
    heartbeats_us,
    kernel_messages,
    ok,
    power_readings,
    power_step_in,
    primary_tag,
    signature_tags,
    skip,
    time_of_death_s,
)
from lab.util import LabError, log
from lab.vm import Vm

NEED_VERDICT = "`kmsgd last-boot` is not in this build yet (issue 5)"
NEED_SAMPLES = (
    "the recorder wrote no `sample` record in boot 1 (sensors not wired into `kmsgd run`)"
)
FAKE_SYS = "/run/kmsgd-lab/sys"


@dataclass
class Ctx:
    """A scenario in progress: the guest, and facts for the checks (guest wall clock, s)."""

    vm: Vm
    facts: dict[str, Any] = field(default_factory=dict)
    powered_off: bool = False  # boot 1 ended with QEMU exiting: boot 2 is a cold start


@dataclass
class Results:
    """Boot 2's view of boot 1."""

    facts: dict[str, Any]
    boots: list[dict[str, Any]]
    dump: list[dict[str, Any]]  # boot 1's records
    dump2: list[dict[str, Any]]  # boot 2's records (pstore imports land here)
    report: dict[str, Any] | None  # `kmsgd last-boot --format json`, None when unavailable
    probe: dict[str, str]  # name -> text of guest probes (pstore listing, files)
    failures: dict[str, str]  # kmsgd command -> how it failed in boot 2

    def samples(self) -> bool:
        """Whether the recorder wrote any sensor sample in boot 1 (sensors are wired in)."""
        return any(e.get("kind") == "sample" for e in self.dump)

    def boot1_row(self) -> dict[str, Any] | None:
        return next((b for b in self.boots if b.get("boot_id") == self.facts["boot1"]), None)


Expect = Callable[[Results], list[Check]]


@dataclass(frozen=True)
class Scenario:
    name: str
    summary: str
    end: Callable[[Ctx], None]
    expect: Expect
    timeout_s: int = 300
    memory_mb: int = 1024
    recorder: bool = True  # wait for kmsgd in each boot (the probe does not need it)
    # Further (end, expect) stages run on from the boot the previous stage came up in: one
    # QEMU for several endings saves a cold boot and an install-to-ready wait per ending.
    then: tuple[tuple[Callable[[Ctx], None], Expect], ...] = ()


def restarts(vm: Vm) -> int:
    """How often systemd restarted kmsgd.service after it died in this boot."""
    out = vm.sh("systemctl show -P NRestarts kmsgd.service", timeout=30, check=False).out
    return int(out.strip()) if out.strip().isdigit() else 0


def crash_checks(res: Results) -> list[Check]:
    """kmsgd itself must not die in either boot (systemd's NRestarts counts each death)."""
    out = []
    for boot in ("boot1", "boot2"):
        n = res.facts.get(f"{boot}_restarts")
        if n is not None:
            out.append(ok(f"kmsgd alive in {boot}", n == 0, f"NRestarts={n}"))
    if "psu_restart_failed" in res.facts:
        out.append(ok("kmsgd restarts with --sys", False, res.facts["psu_restart_failed"]))
    return out


# --- ways to end a boot ------------------------------------------------------------------------


def reset_now(ctx: Ctx) -> None:
    """QMP system_reset, noting when it happened on the guest's clock."""
    offset = ctx.vm.clock_offset()
    ctx.vm.q().execute("system_reset")
    ctx.facts["reset_guest_s"] = time.time() + offset


def end_poweroff(ctx: Ctx) -> None:
    ctx.vm.spawn("systemctl poweroff")
    ctx.powered_off = True


def end_reboot(ctx: Ctx) -> None:
    ctx.vm.spawn("systemctl reboot")


def end_sysrq(ctx: Ctx) -> None:
    # kmsgd's sysctl.d sets kernel.panic=30; 1 s keeps the lab fast and changes nothing else.
    ctx.vm.sh("sysctl -q -w kernel.panic=1", timeout=30)
    ctx.vm.spawn("sleep 0.5; echo c > /proc/sysrq-trigger")


def end_reset_under_load(ctx: Ctx) -> None:
    ctx.vm.spawn("while :; do :; done")  # one vCPU busy
    ctx.vm.spawn(
        "while :; do dd if=/dev/zero of=/var/tmp/load bs=1M count=32 conv=fdatasync "
        "2>/dev/null; done"
    )
    time.sleep(10)
    reset_now(ctx)


def end_freeze(seconds: float) -> Callable[[Ctx], None]:
    def end(ctx: Ctx) -> None:
        offset = ctx.vm.clock_offset()
        ctx.vm.q().execute("stop")
        ctx.facts["freeze_guest_s"] = time.time() + offset
        ctx.facts["freeze_s"] = seconds
        log(f"guest frozen (QMP stop) for {seconds:.0f} s")
        time.sleep(seconds)
        ctx.vm.q().execute("system_reset")
        ctx.vm.q().execute("cont")
        ctx.facts["reset_guest_s"] = time.time() + offset

    return end


def end_oom(ctx: Ctx) -> None:
    # Children of the agent inherit its oom_score_adj of -1000: give the hogs the default back,
    # or the OOM killer takes everything else first (as seen in the first runs).
    ctx.vm.spawn(
        "echo 0 > /proc/self/oom_score_adj; "
        "for i in 1 2 3; do python3 /mnt/payload/lab/hog.py; done"
    )
    deadline = time.monotonic() + 200
    kills = 0
    while time.monotonic() < deadline and kills < 2:
        time.sleep(2)
        kills = ctx.vm.console.read_text(errors="replace").count("Out of memory: Killed process")
    ctx.facts["oom_kills_on_console"] = kills
    time.sleep(5)  # the third hog: the machine stalls again
    reset_now(ctx)


def end_psu_trip(ctx: Ctx) -> None:
    vm = ctx.vm
    vm.sh(f"python3 /mnt/payload/lab/fakegpu.py make {FAKE_SYS}", timeout=60)
    # Point the installed unit at the fake tree, as an operator's drop-in would.
    unit = vm.sh("systemctl show -P ExecStart kmsgd.service", timeout=30).out
    argv = unit.split("argv[]=", 1)[1].split(" ;", 1)[0].strip() if "argv[]=" in unit else ""
    if not argv:
        raise LabError(f"cannot read kmsgd.service's ExecStart: {unit!r}")
    dropin = f"[Service]\nExecStart=\nExecStart={argv} --sys {FAKE_SYS}\n"
    vm.sh(
        "mkdir -p /run/systemd/system/kmsgd.service.d && printf '%s' "
        f"'{dropin}' > /run/systemd/system/kmsgd.service.d/lab-fake-gpu.conf && "
        "systemctl daemon-reload",
        timeout=60,
    )
    # A failed start is kmsgd's to explain (counted by the restart check), not the lab's: its
    # unit restarts it, and the scenario goes on with whatever runs.
    restart = vm.sh("systemctl restart kmsgd.service", timeout=90, check=False)
    if restart.rc != 0:
        ctx.facts["psu_restart_failed"] = restart.err.strip()[-300:]
        vm.sh(
            "for i in $(seq 60); do systemctl is-active -q kmsgd.service && break; sleep 1; done",
            timeout=90,
            check=False,
        )
    time.sleep(12)  # idle samples at 12 W
    ctx.facts["boot1_restarts"] = restarts(vm)
    offset = vm.clock_offset()
    step = vm.sh(f"python3 /mnt/payload/lab/fakegpu.py set {FAKE_SYS} 300", timeout=30)
    ctx.facts["step_guest_s"] = float(step.out.strip())
    time.sleep(0.3)
    vm.q().execute("system_reset")
    ctx.facts["reset_guest_s"] = time.time() + offset


def end_hung_task(ctx: Ctx) -> None:
    # No lkdtm or test_lockup in Debian's kernel: a writer blocked on a frozen filesystem is a
    # real hung task (D state in sb_start_write), and hung_task_panic turns it into a panic.
    ctx.vm.sh(
        "sysctl -q -w kernel.panic=1 kernel.hung_task_timeout_secs=10 kernel.hung_task_panic=1"
        " && truncate -s 32M /dev/shm/frozen.img && mkfs.ext4 -q /dev/shm/frozen.img"
        " && mkdir -p /mnt/frozen && mount -o loop /dev/shm/frozen.img /mnt/frozen"
        " && fsfreeze -f /mnt/frozen",
        timeout=60,
    )
    ctx.vm.spawn("echo stuck > /mnt/frozen/file")


# --- expectations ------------------------------------------------------------------------------


def verdict(res: Results, outcomes: set[str], primary: set[str] | None = None) -> list[Check]:
    if res.report is None:
        return [skip("last-boot outcome", NEED_VERDICT)]
    out = [
        ok(
            "last-boot outcome",
            res.report.get("outcome") in outcomes,
            f"outcome={res.report.get('outcome')} reason={res.report.get('reason')} "
            f"(want {'|'.join(sorted(outcomes))})",
        )
    ]
    if primary:
        tag = primary_tag(res.report)
        out.append(ok("last-boot primary", tag in primary, f"primary={tag} (want {primary})"))
    return out


def ring_end(res: Results, *, stopped: bool) -> Check:
    row = res.boot1_row()
    if row is None:
        why = "; ".join(f"`{c}` {f}" for c, f in res.failures.items())
        return ok("ring has boot 1", False, f"boot 1 is missing from `kmsgd boots` {why}")
    got = bool(row.get("stopped")) and bool(row.get("shutting_down"))
    want = "a stop record (system shutting down)" if stopped else "no stop record"
    return ok(
        "ring end of boot 1",
        got == stopped,
        f"want {want}: stopped={row.get('stopped')} shutting_down={row.get('shutting_down')}",
    )


def beats_near(res: Results, key: str, n: float = 2) -> Check:
    """The last heartbeat lies within n heartbeat intervals before the event `key`."""
    beats = heartbeats_us(res.dump)
    interval = heartbeat_interval_s(beats)
    if not beats or interval is None:
        return ok("heartbeats to the end", False, "boot 1 has fewer than two heartbeats")
    gap = res.facts[key] - beats[-1] / 1e6
    return ok(
        "heartbeats to the end",
        -1.0 <= gap <= n * interval + 1.0,
        f"last heartbeat {gap:.2f} s before {key} (interval {interval:.2f} s; "
        f"±1 s for the guest's RTC-granular clock)",
    )


def expect_clean(outcome: str) -> Expect:
    return lambda res: [ring_end(res, stopped=True), *verdict(res, {outcome})]


def expect_panic(lines: tuple[str, ...], primary: set[str]) -> Expect:
    def check(res: Results) -> list[Check]:
        ring = any(any(s in m for s in lines) for m in kernel_messages(res.dump))
        pstore = any(s in res.probe.get("pstore", "") for s in lines)
        imported = any(e.get("kind") == "pstore" for e in res.dump2)
        res.facts["panic_evidence"] = {"ring": ring, "pstore_files": pstore, "imported": imported}
        return [
            ring_end(res, stopped=False),
            ok(
                "panic evidence",
                ring or pstore,
                f"in ring={ring}, in /sys/fs/pstore={pstore}, pstore record imported={imported}",
            ),
            *verdict(res, {"kernel_panic"}, primary),
        ]

    return check


def expect_reset(res: Results) -> list[Check]:
    checks = [
        ring_end(res, stopped=False),
        beats_near(res, "reset_guest_s"),
        *verdict(res, {"abrupt_reset_or_power_loss"}),
    ]
    if res.report is not None:
        checks.append(tod_check(res, "reset_guest_s"))
    return checks


def tod_check(res: Results, key: str) -> Check:
    assert res.report is not None
    tod = time_of_death_s(res.report)
    interval = heartbeat_interval_s(heartbeats_us(res.dump)) or 1.0
    if tod is None:
        what = res.report.get("time_of_death")
        return ok("time of death", False, f"no time in time_of_death: {what}")
    gap = res.facts[key] - tod
    return ok(
        "time of death",
        -1.0 <= gap <= 2 * interval + 1.0,
        f"time of death {gap:.2f} s before {key} (2 heartbeats = {2 * interval:.1f} s)",
    )


def expect_freeze(res: Results) -> list[Check]:
    checks = [ring_end(res, stopped=False), beats_near(res, "freeze_guest_s")]
    if res.report is None:
        return [*checks, skip("last-boot outcome", NEED_VERDICT)]
    down = downtime_s(res.report)
    want = 0.9 * res.facts["freeze_s"]
    return [
        *checks,
        *verdict(res, {"hard_freeze", "abrupt_reset_or_power_loss", "unknown"}),
        tod_check(res, "freeze_guest_s"),
        ok(
            "downtime shown", down is not None and down >= want, f"downtime {down} s (≥ {want:.0f})"
        ),
    ]


def expect_oom(res: Results) -> list[Check]:
    kills = sum("Killed process" in m for m in kernel_messages(res.dump))
    named = "lab-mem-hog" in str([e for e in res.dump if e.get("kind") != "kernel"])
    checks = [
        ring_end(res, stopped=False),
        ok("OOM kills in ring", kills >= 1, f"{kills} 'Killed process' lines in boot 1"),
        ok("memory holder in ring", named, "lab-mem-hog named in boot 1's sample records")
        if res.samples()
        else skip("memory holder in ring", NEED_SAMPLES),
    ]
    checks += verdict(res, {"hang_memory_exhaustion"})
    if res.report is not None:
        checks.append(
            ok("report names holder", "lab-mem-hog" in str(res.report), "lab-mem-hog in the report")
        )
        checks.append(
            ok(
                "report has oom_kill",
                "oom_kill" in signature_tags(res.report),
                f"signatures={sorted(signature_tags(res.report))}",
            )
        )
    return checks


def expect_psu(res: Results) -> list[Check]:
    series = power_readings(res.dump)
    high = sorted(d for d, vals in series.items() if any(w >= 250 for _, w in vals))
    low = sorted(d for d, vals in series.items() if any(w <= 20 for _, w in vals))
    after = res.facts["reset_guest_s"] - res.facts["step_guest_s"]
    sensors = [
        ok("idle power sampled", len(low) >= 2, f"≤20 W on {low or 'no device'}"),
        ok(
            "power step in ring",
            len(high) >= 2,
            f"≥250 W reached the ring on {high or 'no device'} before the reset "
            f"({after:.2f} s after the step)",
        ),
    ]
    if not res.samples():
        sensors = [skip(c.name, NEED_SAMPLES) for c in sensors]
    checks = [
        ring_end(res, stopped=False),
        *sensors,
        beats_near(res, "reset_guest_s"),
        *verdict(res, {"abrupt_reset_or_power_loss"}),
    ]
    if res.report is not None:
        steps = power_step_in(res.report, low_w=20, high_w=250)
        checks.append(ok("report shows power step", len(steps) >= 1, f"{steps or 'none found'}"))
    return checks


def expect_probe(res: Results) -> list[Check]:
    a, b = res.probe.get("A", ""), res.probe.get("B", "")
    gap = res.facts["reset_guest_s"] - res.facts["b_written_guest_s"]
    return [
        ok("fsync'd file survives", a.strip() == "durable", f"A={a.strip()!r}"),
        ok(
            "unsynced file lost",
            b.strip() == "<absent>",
            f"B={b.strip()!r}, reset {gap * 1000:.0f} ms after B was written",
        ),
    ]


def end_probe(ctx: Ctx) -> None:
    vm = ctx.vm
    vm.sh("mkdir -p /probe && sync", timeout=30)
    vm.sh(
        "python3 -c \"import os\nwith open('/probe/A','w') as f:\n f.write('durable')\n"
        " f.flush(); os.fsync(f.fileno())\nd=os.open('/probe',os.O_RDONLY); os.fsync(d)\"",
        timeout=30,
    )
    offset = vm.clock_offset()
    b = vm.sh("echo volatile > /probe/B && date +%s.%N", timeout=30)
    vm.q().execute("system_reset")
    ctx.facts["reset_guest_s"] = time.time() + offset
    ctx.facts["b_written_guest_s"] = float(b.out.strip())
