"""The scenario table and the two-boot runner: boot, end the boot, boot again, collect, check.

Every step has a timeout and each scenario a hard one (SIGALRM); QEMU is always killed on the
way out. The scenario's folder under build/lab-artifacts/ keeps the serial console log, QEMU's
log and kmsgd's outputs when it fails, and is removed when it passes (unless --keep).
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import signal
import time
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from lab import blockcrash, ends, expect
from lab import model as s
from lab.checks import Check, Status, json_lines
from lab.image import Image
from lab.payload import MOUNT_PAYLOAD, Installed, overlay
from lab.util import LabError, log
from lab.vm import Vm


def table(freeze_s: float) -> list[s.Scenario]:
    """The lab's scenarios, in run order (the long freeze last)."""
    return [
        s.Scenario(
            "probe",
            "fsync'd file survives a reset ~20 ms later, unsynced one is lost",
            ends.end_probe,
            expect.expect_probe,
            timeout_s=240,
            recorder=False,
        ),
        s.Scenario(
            "clean",
            "systemctl reboot -> clean_reboot, then systemctl poweroff -> clean_shutdown",
            ends.end_reboot,
            expect.expect_clean("clean_reboot"),
            timeout_s=420,
            then=((ends.end_poweroff, expect.expect_clean("clean_shutdown")),),
        ),
        s.Scenario(
            "panic",
            "echo c > /proc/sysrq-trigger, kernel.panic=1 -> kernel_panic/sysrq",
            ends.end_sysrq,
            expect.expect_panic(
                ("sysrq: Trigger a crash", "sysrq triggered crash"), {"sysrq_crash"}
            ),
            timeout_s=300,
        ),
        s.Scenario(
            "reset",
            "QMP system_reset under CPU+disk load -> abrupt_reset_or_power_loss",
            ends.end_reset_under_load,
            expect.expect_reset,
            timeout_s=300,
        ),
        s.Scenario(
            "psu",
            "fake 2x amdgpu 12 W -> 300 W, reset 0.3 s later (seed 004)",
            ends.end_psu_trip,
            expect.expect_psu,
            timeout_s=300,
        ),
        s.Scenario(
            "oom",
            "hogs in a 1 GiB guest, OOM kills, reset -> hang_memory_exhaustion",
            ends.end_oom,
            expect.expect_oom,
            timeout_s=420,
            memory_mb=1024,
        ),
        s.Scenario(
            "hung_task",
            "writer blocked on a frozen fs, hung_task_panic -> kernel_panic",
            ends.end_hung_task,
            expect.expect_panic(
                ("blocked for more than", "hung_task: blocked tasks"), {"hung_task"}
            ),
            timeout_s=360,
        ),
        s.Scenario(
            "incident",
            "writer blocked on a frozen fs, no hung_task_panic: incident, then reset",
            ends.end_incident,
            expect.expect_incident,
            timeout_s=420,
        ),
        s.Scenario(
            "soft_lockup",
            "lab_spin module: soft lockup as an incident, then softlockup_panic -> kernel_panic",
            ends.end_soft_lockup,
            expect.expect_soft_lockup,
            timeout_s=480,
        ),
        s.Scenario(
            "blockcrash",
            "dm-log-writes under a second recorder on ext4: ring checked at every flush/FUA",
            blockcrash.end_blockcrash,
            blockcrash.expect_blockcrash,
            timeout_s=480,
            recorder=False,
        ),
        s.Scenario(
            "freeze",
            f"QMP stop, {freeze_s:.0f} s, system_reset -> hard_freeze",
            ends.end_freeze(freeze_s),
            expect.expect_freeze,
            timeout_s=int(freeze_s) + 360,
        ),
    ]


@dataclass(frozen=True, slots=True)
class Outcome:
    name: str
    checks: tuple[Check, ...]
    seconds: float
    error: str = ""

    @property
    def passed(self) -> bool:
        return not self.error and all(c.status is not Status.FAIL for c in self.checks)


class _HardTimeout(LabError):
    pass


def _alarm(_sig: int, _frame: FrameType | None) -> None:
    raise _HardTimeout("scenario hit its hard timeout")


def wait_recorder(
    vm: Vm, commands: frozenset[str], *, beats: int = 3, timeout: float = 120
) -> None:
    """Until the running kmsgd has this boot in its ring with `beats` heartbeats."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if "boots" in commands:
            rows = json_lines(vm.sh("kmsgd boots --format json", timeout=60, check=False).out)
            row = next((r for r in rows if r.get("boot_id") == vm.boot_id), None)
            if row and int((row.get("kinds") or {}).get("heartbeat", 0)) >= beats:
                return
        elif vm.sh("systemctl is-active kmsgd.service", timeout=30, check=False).rc == 0:
            time.sleep(3)
            return
        time.sleep(2)
    state = vm.sh("systemctl status kmsgd.service --no-pager -n 20", timeout=30, check=False)
    raise LabError(f"kmsgd did not record this boot within {timeout:.0f} s:\n{state.out}")


def collect(
    vm: Vm, ctx: s.Ctx, inst: Installed, workdir: Path, prefix: str = "", *, kmsgd: bool = True
) -> s.Results:
    """Boot 2's outputs about boot 1, each also saved as a file in the scenario's folder
    (`kmsgd=False`: only the guest probes, for scenarios that do not test kmsgd)."""
    boot1 = ctx.facts["boot1"]
    if not kmsgd:
        inst = dataclasses.replace(inst, commands=frozenset())

    failures: dict[str, str] = {}

    def grab(name: str, cmd: str) -> str:
        reply = vm.sh(cmd, timeout=120, check=False)
        (workdir / (prefix + name)).write_text(
            reply.out + (f"\n# stderr:\n{reply.err}" if reply.err else "")
        )
        if reply.rc != 0 and cmd.startswith("kmsgd"):
            failures[cmd] = f"exit {reply.rc}: {reply.err.strip()[-300:]}"
        return reply.out

    boots: list[dict[str, object]] = []
    dump: list[dict[str, object]] = []
    dump2: list[dict[str, object]] = []
    if "boots" in inst.commands:
        boots = json_lines(grab("boots.json", "kmsgd boots --format json"))
        dump = json_lines(grab("dump-boot1.json", f"kmsgd dump --boot {boot1} --format json"))
        dump2 = json_lines(grab("dump-boot2.json", "kmsgd dump --boot 0 --format json"))
    report = None
    if "last-boot" in inst.commands:
        # Name the boot: the verdict must be about boot 1 whatever "last" means on this ring.
        text = grab("last-boot.json", f"kmsgd last-boot --boot {boot1} --format json")
        try:
            report = json.loads(text)
        except ValueError:
            cmd = f"kmsgd last-boot --boot {boot1} --format json"
            report = {"outcome": "<no JSON>", "raw": text[:300], "error": failures.get(cmd, "")}
    probe = {
        # systemd-pstore may have moved the dumps before kmsgd started: look in both places.
        "pstore": grab(
            "pstore.txt",
            "ls -lR /sys/fs/pstore /var/lib/systemd/pstore 2>&1; "
            "cat /sys/fs/pstore/dmesg-* 2>/dev/null | tail -c 20000; "
            "find /var/lib/systemd/pstore -name 'dmesg*' -newer /proc/1/cmdline -type f "
            "-exec tail -c 20000 {} + 2>/dev/null",
        ),
        "A": grab("probe-A.txt", "cat /probe/A 2>/dev/null || echo '<absent>'"),
        "B": grab("probe-B.txt", "cat /probe/B 2>/dev/null || echo '<absent>'"),
    }
    grab("journal-boot1-tail.txt", "journalctl -b -1 -n 60 --no-pager 2>&1")
    return s.Results(ctx.facts, boots, dump, dump2, report, probe, failures)


def run_one(sc: s.Scenario, image: Image, inst: Installed, root: Path, *, keep: bool) -> Outcome:
    workdir = root / sc.name
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    started = time.monotonic()
    disk = overlay(inst.disk, workdir / "disk.qcow2")
    vm = Vm(image, disk, workdir, payload=inst.payload, memory_mb=sc.memory_mb)
    checks: tuple[Check, ...] = ()
    error = ""
    old = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(sc.timeout_s)
    try:
        vm.start()
        vm.wait_boot(timeout=240)
        for n, (end_fn, expect_fn) in enumerate(((sc.end, sc.expect), *sc.then)):
            ctx = s.Ctx(vm)
            ctx.facts["boot1"] = vm.boot_id
            vm.sh(MOUNT_PAYLOAD, timeout=30)
            if sc.recorder:
                wait_recorder(vm, inst.commands)
            ctx.facts["boot1_restarts"] = ends.restarts(vm)
            ctx.facts["boot1_ready_s"] = round(time.monotonic() - started, 1)
            end_fn(ctx)
            if ctx.powered_off:
                vm.wait_exit(timeout=120)
                vm.start()
            ctx.facts["boot2"] = vm.wait_boot(timeout=300).boot_id
            vm.sh(MOUNT_PAYLOAD, timeout=30)
            if sc.recorder:
                # boot 2 in the ring, so `last-boot` sees boot 1 as the previous boot
                wait_recorder(vm, inst.commands, beats=1)
            ctx.facts["boot2_ready_s"] = round(time.monotonic() - started, 1)
            prefix = f"stage{n + 1}-" if sc.then else ""
            results = collect(vm, ctx, inst, workdir, prefix, kmsgd=sc.recorder)
            ctx.facts["collected_s"] = round(time.monotonic() - started, 1)
            got = list(expect_fn(results))
            if sc.recorder:
                ctx.facts["boot2_restarts"] = ends.restarts(vm)
                got += expect.crash_checks(results)
            if sc.then:
                got = [Check(f"stage {n + 1}: {c.name}", c.status, c.detail) for c in got]
            checks += tuple(got)
            facts = json.dumps(ctx.facts, indent=2, default=str) + "\n"
            (workdir / f"{prefix}facts.json").write_text(facts)
    except Exception as e:  # one scenario's failure must not stop the others
        error = f"{type(e).__name__}: {e}"
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        vm.kill()
    outcome = Outcome(sc.name, checks, time.monotonic() - started, error)
    disk.unlink(missing_ok=True)
    if outcome.passed and not keep:
        shutil.rmtree(workdir, ignore_errors=True)
    else:
        log(f"{sc.name}: artefacts kept in {workdir}")
    return outcome
