"""What boot 2 must say about boot 1, per scenario: checks over kmsgd's JSON and guest probes.

Checks that need a piece kmsgd does not have yet skip with the reason, never pass.
"""

from __future__ import annotations

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
from lab.model import Expect, Results

NEED_VERDICT = "`kmsgd last-boot` is not in this build"
NEED_SAMPLES = (
    "the recorder wrote no `sample` record in boot 1 (sensors not wired into `kmsgd run`)"
)


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


def dump_failed(res: Results) -> str:
    """How `kmsgd dump` failed, when it did: a ring check then says why it saw nothing."""
    why = [f for cmd, f in res.failures.items() if cmd.startswith("kmsgd dump")]
    return f" (kmsgd dump failed: {why[0][:200]})" if why else ""


def verdict(res: Results, outcomes: set[str], primary: set[str] | None = None) -> list[Check]:
    if res.report is None:
        return [skip("last-boot outcome", NEED_VERDICT)]
    out = [
        ok(
            "last-boot outcome",
            res.report.get("outcome") in outcomes,
            f"outcome={res.report.get('outcome')} reason={res.report.get('reason')} "
            f"{res.report.get('error', '')}"
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
        return ok("heartbeats to the end", False, "boot 1 has < 2 heartbeats" + dump_failed(res))
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
                f"in ring={ring}, in /sys/fs/pstore={pstore}, pstore record imported={imported}"
                + dump_failed(res),
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
        ok("OOM kills in ring", kills >= 1, f"{kills} 'Killed process' lines" + dump_failed(res)),
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


def _incident(res: Results, trigger: str) -> tuple[dict[str, Any] | None, list[Check]]:
    """The report's incident that `trigger` started or joined: an incident a late heartbeat
    started under a loaded host takes the kernel's trigger as a further one (other_triggers)."""
    if res.report is None:
        return None, [skip("report incident", NEED_VERDICT)]
    incidents = [i for i in res.report.get("incidents") or [] if isinstance(i, dict)]
    found = next(
        (i for i in incidents if trigger in (i.get("trigger"), *(i.get("other_triggers") or []))),
        None,
    )
    got = [(i.get("trigger"), i.get("other_triggers")) for i in incidents]
    detail = f"want {trigger} as trigger or other trigger; (trigger, others) = {got}"
    return found, [ok("report incident", found is not None, detail)]


def _waited(res: Results, wanted: set[str]) -> Check:
    """Whether the lab saw the incident's records in the ring before it ended boot 1."""
    w = res.facts.get("incident_wait") or {}
    got = set(w.get("records") or [])
    return ok(
        "incident seen live",
        wanted <= got,
        f"{sorted(got)} after {w.get('seconds')} s, {w.get('polls')} polls of the ring "
        f"(want {sorted(wanted)}) {w.get('last_dump_error') or ''}",
    )


def _snapshot_tasks(res: Results, comm: str) -> list[dict[str, Any]]:
    """The D-state tasks named `comm` in boot 1's `procs` incident snapshots."""
    out = []
    for e in res.dump:
        data = e.get("data") or {}
        if e.get("kind") == "incident" and data.get("record") == "procs":
            out += [t for t in data.get("blocked") or [] if t.get("comm") == comm]
    return out


def expect_incident(res: Results) -> list[Check]:
    """A hung task without hung_task_panic, then a reset: the incident names the writer, its
    function and stack. The shipped unit grants no CAP_SYS_ADMIN/CAP_SYS_PTRACE, so the
    snapshot cannot read /proc/PID/stack or wchan (docs/security.md): the stack comes from
    what the kernel printed into the ring, the hung-task report or the incident's SysRq w."""
    writer = "lab-writer"
    tasks = _snapshot_tasks(res, writer)
    sysrq = [
        e.get("data") or {}
        for e in res.dump
        if e.get("kind") == "incident" and (e.get("data") or {}).get("record") == "sysrq"
    ]
    printed = [m for m in kernel_messages(res.dump) if "task:" + writer in m]
    checks = [
        ring_end(res, stopped=False),
        _waited(res, {"start", "procs", "sysrq"}),
        ok(
            "writer in a procs snapshot",
            bool(tasks),
            f"{len(tasks)} snapshot(s) of {writer} in D state" + dump_failed(res),
        ),
        ok(
            "SysRq w ran",
            any(s.get("w") == "ok" for s in sysrq),
            f"sysrq records {sysrq[:2]}; {len(printed)} task:{writer} line(s) in the ring",
        ),
    ]
    first, found = _incident(res, "hung_task")
    checks += found
    if first is not None:
        stuck = [b for b in first.get("blocked") or [] if b.get("comm") == writer]
        fn = str(stuck[0].get("function")) if stuck else ""
        stack = list(stuck[0].get("stack") or []) if stuck else []
        source = stuck[0].get("stack_from") if stuck else None
        checks.append(
            ok(
                "writer's stack from the kernel log",
                bool(stack) and source in ("hung_task", "sysrq") and fn not in ("", "?"),
                f"function={fn!r}, {len(stack)} frames from {source}: {stack[:6]}",
            )
        )
        findings = [str(f) for f in first.get("findings") or []]
        named = [f for f in findings if writer in f and fn and f"blocked in {fn}" in f]
        checks.append(ok("finding names the writer", bool(named), f"findings={findings[:4]}"))
    # the box was reset while alive (heartbeats to the end): an abrupt reset is as honest a
    # verdict as a freeze
    ends = {"hard_freeze", "unknown", "abrupt_reset_or_power_loss"}
    return checks + verdict(res, ends, {"hung_task"})


def expect_soft_lockup(res: Results) -> list[Check]:
    """A soft lockup as an incident (softlockup_panic=0), then as a panic (=1)."""
    lines = kernel_messages(res.dump)
    reports = [m for m in lines if "soft lockup - CPU#" in m]
    pstore = "soft lockup" in res.probe.get("pstore", "")
    _first, found = _incident(res, "soft_lockup")
    return [
        ring_end(res, stopped=False),
        _waited(res, {"start", "procs"}),
        ok(
            "soft lockup in ring",
            bool(reports),
            f"{len(reports)} report(s): {reports[:1]}; in pstore={pstore}" + dump_failed(res),
        ),
        *found,
        *verdict(res, {"kernel_panic"}, {"soft_lockup"}),
    ]
