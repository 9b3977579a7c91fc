"""Ways to end a boot: clean, panics, resets, a freeze, memory exhaustion, a PSU trip.

Times compared with the guest are converted with a measured clock offset (`Vm.clock_offset`) and
stored in `ctx.facts` in seconds on the guest's wall clock.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from lab.checks import json_lines
from lab.model import Ctx
from lab.util import LabError, log
from lab.vm import Vm

FAKE_SYS = "/run/kmsgd-lab/sys"


def restarts(vm: Vm) -> int:
    """How often systemd restarted kmsgd.service after it died in this boot."""
    out = vm.sh("systemctl show -P NRestarts kmsgd.service", timeout=30, check=False).out
    return int(out.strip()) if out.strip().isdigit() else 0


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


FROZEN_FS = (
    "truncate -s 32M /dev/shm/frozen.img && mkfs.ext4 -q /dev/shm/frozen.img"
    " && mkdir -p /mnt/frozen && mount -o loop /dev/shm/frozen.img /mnt/frozen"
    " && fsfreeze -f /mnt/frozen"
)


def end_hung_task(ctx: Ctx) -> None:
    # No lkdtm or test_lockup in Debian's kernel: a writer blocked on a frozen filesystem is a
    # real hung task (D state in sb_start_write), and hung_task_panic turns it into a panic.
    ctx.vm.sh(
        "sysctl -q -w kernel.panic=1 kernel.hung_task_timeout_secs=10 kernel.hung_task_panic=1"
        f" && {FROZEN_FS}",
        timeout=60,
    )
    ctx.vm.spawn("echo stuck > /mnt/frozen/file")


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


def incident_records(vm: Vm) -> tuple[list[dict[str, object]], str]:
    """The `data` of this boot's incident records, as `kmsgd dump` prints them (the grep keeps
    the answer small: a whole dump is megabytes under TCG), and how the dump failed, if it did."""
    reply = vm.sh(
        "kmsgd dump --boot 0 --format json > /run/lab-dump.json; rc=$?;"
        ' grep \'"kind": *"incident"\' /run/lab-dump.json; exit $rc',
        timeout=120,
        check=False,
    )
    rows = [row.get("data") for row in json_lines(reply.out)]
    failed = f"kmsgd dump exit {reply.rc}: {reply.err.strip()[-200:]}" if reply.rc else ""
    return [r for r in rows if isinstance(r, dict)], failed


def wait_incident(ctx: Ctx, trigger: str, records: set[str], *, timeout: float = 180) -> None:
    """Poll the ring through the agent until an incident that `trigger` started or joined
    holds a record of each name in `records` (its snapshots ran). The boot is ended either
    way: on a timeout, boot 2's checks say what the ring holds."""
    started = time.monotonic()
    deadline = started + timeout
    seen: set[str] = set()
    failed = ""
    polls = 0
    while time.monotonic() < deadline:
        recs, failed = incident_records(ctx.vm)
        polls += 1
        ours = {r.get("incident") for r in recs if r.get("trigger") == trigger}
        seen = {str(r.get("record")) for r in recs if r.get("incident") in ours}
        if records <= seen:
            break
        time.sleep(3)
    took = round(time.monotonic() - started, 1)
    ctx.facts["incident_wait"] = {
        "seconds": took,
        "polls": polls,
        "records": sorted(seen),
        "last_dump_error": failed,
    }
    log(f"incident ({trigger}) after {took} s, {polls} polls: {sorted(seen)} {failed}")


# a copy of dd, so the blocked task has a name of its own; not in /run, which Debian's
# initramfs mounts noexec
WRITER = "/usr/local/bin/lab-writer"


def end_incident(ctx: Ctx) -> None:
    # A real hung task without hung_task_panic (kmsgd's sysctl.d leaves it off): the writer
    # waits in D state to create a file on a frozen ext4 (sb_start_write), the detector logs
    # "blocked for more than 10 seconds", kmsgd starts an incident and snapshots the task's
    # wchan and stack; then the box is reset, as an operator would.
    ctx.vm.sh(
        "sysctl -q -w kernel.hung_task_panic=0 kernel.hung_task_timeout_secs=10"
        f" && {FROZEN_FS} && cp /bin/dd {WRITER}",
        timeout=60,
    )
    ctx.vm.spawn(f"echo stuck | {WRITER} of=/mnt/frozen/file")
    wait_incident(ctx, "hung_task", {"start", "procs", "sysrq"})
    reset_now(ctx)


SPIN = "taskset -c 1 insmod /lib/modules/$(uname -r)/extra/lab_spin.ko seconds={s}"


def end_soft_lockup(ctx: Ctx) -> None:
    # lab/guest/lab-spin: insmod pinned to CPU 1 spins with preemption disabled. With
    # watchdog_thresh=5 the detector reports after 10 s (kernel/watchdog.c: 2 * thresh).
    # First with softlockup_panic=0: the report starts an incident and its snapshots run on
    # CPU 0. Then with kmsgd's own softlockup_panic=1 (sysctl.d/60-kmsgd.conf): the next
    # report panics, and boot 2 judges it.
    vm = ctx.vm
    vm.sh("sysctl -q -w kernel.watchdog_thresh=5 kernel.softlockup_panic=0", timeout=30)
    vm.spawn(SPIN.format(s=25))
    wait_incident(ctx, "soft_lockup", {"start", "procs"})
    vm.sh(
        "for i in $(seq 60); do grep -q '^lab_spin .*Live' /proc/modules && break; sleep 1; done;"
        " rmmod lab_spin",
        timeout=90,
    )
    vm.sh("sysctl -q -w kernel.panic=1 kernel.softlockup_panic=1", timeout=30)
    offset = vm.clock_offset()
    vm.spawn(SPIN.format(s=60))
    ctx.facts["spin2_guest_s"] = time.time() + offset
