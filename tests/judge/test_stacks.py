"""Blocked tasks' stacks read back from the kernel log (kmsgd/judge/stacks.py), and the
incident finding that uses them when the recorder could not read /proc/PID/stack itself."""

from __future__ import annotations

from pathlib import Path

from scenario import Machine

from kmsgd.commands import lastboot
from kmsgd.judge.stacks import MAX_TASKS, StackCollector
from kmsgd.report.render import render_text
from kmsgd.report.render_json import incident_json
from kmsgd.ring.reader import RingReader

# Debian 12's 6.1 kernel, a writer blocked creating a file on a frozen ext4 (the crash lab's
# incident scenario); the register lines of a task blocked in a syscall end the trace.
HUNG_6_1 = """\
INFO: task lab-writer:399 blocked for more than 10 seconds.
      Not tainted 6.1.0-57-amd64 #1 Debian 6.1.158-1
"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
task:lab-writer      state:D stack:0     pid:399   ppid:398    flags:0x00004002
Call Trace:
 <TASK>
 __schedule+0x351/0xa20
 schedule+0x5d/0xe0
 percpu_rwsem_wait+0x10a/0x130
 ? percpu_free_rwsem+0x30/0x30
 __percpu_down_read+0x5c/0x70
 mnt_want_write+0x92/0xa0
 path_openat+0xb12/0x1080
 do_filp_open+0xb3/0x160
 do_sys_openat2+0x9a/0x160
 __x64_sys_openat+0x53/0xa0
 do_syscall_64+0x58/0xc0
 entry_SYSCALL_64_after_hwframe+0x64/0xce
RIP: 0033:0x7f1c2a2f6e41
RSP: 002b:00007ffd1a0c5a30 EFLAGS: 00000202 ORIG_RAX: 0000000000000101
 </TASK>
"""

# A 4.15 kernel: no `task:` line, frames with addresses, no <TASK> marks.
HUNG_4_15 = """\
INFO: task python3:2201 blocked for more than 120 seconds.
      Tainted: P           OE    4.15.0-45-generic #48-Ubuntu
"echo 0 > /proc/sys/kernel/hung_task_timeout_secs" disables this message.
python3         D    0  2201   2150 0x00000000
Call Trace:
 [<ffffffff8f2b1a9c>] __schedule+0x3cc/0x860
 [<ffffffff8f2b1f5d>] schedule+0x2d/0x80
 [<ffffffffc0a1b2c3>] amdgpu_fence_wait_timeout+0x1a/0x40 [amdgpu]
 [<ffffffffc0a1c0de>] amdgpu_cs_ioctl+0x2e/0x60 [amdgpu]
 [<ffffffff8ee4a0b2>] do_vfs_ioctl+0xa4/0x600
sched: RT throttling activated
"""

# SysRq w on 6.1: two tasks, one after the other.
SYSRQ_W = """\
sysrq: Show Blocked State
task:llama-server    state:D stack:0     pid:4321  ppid:1      flags:0x00004002
Call Trace:
 <TASK>
 __schedule+0x34d/0x9e0
 schedule+0x5a/0xd0
 schedule_timeout+0x118/0x150
 dma_fence_default_wait+0x1f6/0x260
 amdgpu_vm_wait_idle+0x2c/0x50 [amdgpu]
 amdgpu_gem_va_ioctl+0x3e1/0x520 [amdgpu]
 </TASK>
task:kworker/u64:3   state:D stack:0     pid:512   ppid:2      flags:0x00004000
Workqueue: amdgpu-reset-dev amdgpu_device_gpu_recover [amdgpu]
Call Trace:
 <TASK>
 __schedule+0x34d/0x9e0
 schedule+0x5a/0xd0
 amdgpu_device_gpu_recover+0x88/0x3d0 [amdgpu]
 </TASK>
"""


def collect(*texts: str) -> StackCollector:
    sc = StackCollector()
    for text in texts:
        for line in text.splitlines():
            sc.add(line)
    return sc


def test_hung_task_report_of_a_6_1_kernel() -> None:
    (got,) = collect("audit: something else\n", HUNG_6_1, "usb 1-4: new device\n").build().values()
    assert (got.comm, got.pid, got.source) == ("lab-writer", 399, "hung_task")
    assert got.frames[:4] == (
        "__schedule+0x351/0xa20",
        "schedule+0x5d/0xe0",
        "percpu_rwsem_wait+0x10a/0x130",
        "__percpu_down_read+0x5c/0x70",  # "? percpu_free_rwsem", a guess, is left out
    )
    assert got.frames[-1] == "entry_SYSCALL_64_after_hwframe+0x64/0xce"  # RIP ends it
    assert got.function == "__percpu_down_read"


def test_hung_task_report_of_a_4_15_kernel() -> None:
    stacks = collect(HUNG_4_15).build()
    got = stacks[2201]
    assert (got.comm, got.source, got.function) == (
        "python3",
        "hung_task",
        "amdgpu_fence_wait_timeout",
    )
    assert got.frames[2] == "amdgpu_fence_wait_timeout+0x1a/0x40 [amdgpu]"
    assert len(got.frames) == 5  # the scheduler line after it is not a frame


def test_sysrq_w_gives_every_blocked_task_and_the_latest_stack_wins() -> None:
    stacks = collect(HUNG_6_1, SYSRQ_W).build()
    assert set(stacks) == {399, 4321, 512}
    assert stacks[4321].source == "sysrq"
    assert stacks[4321].function == "amdgpu_vm_wait_idle"
    assert stacks[512].function == "amdgpu_device_gpu_recover"  # the Workqueue: line between
    again = collect(HUNG_6_1, HUNG_6_1.replace("mnt_want_write", "sb_start_write")).build()
    assert "sb_start_write+0x92/0xa0" in again[399].frames


def test_a_task_line_without_a_trace_and_userspace_words_give_nothing() -> None:
    stacks = collect(
        "task:foo state:D stack:0 pid:77 ppid:1 flags:0x0\n"
        "one\ntwo\nthree\nfour\nfive\n"
        "Call Trace:\n schedule+0x5a/0xd0\n"  # too late: the task line has expired
        "my task: finish the report\n"
    ).build()
    assert stacks == {}


def test_the_number_of_tasks_kept_is_bounded() -> None:
    many = "".join(
        f"task:t{n} state:D stack:0 pid:{n} ppid:1 flags:0x0\nCall Trace:\n f+0x1/0x2\n"
        for n in range(MAX_TASKS + 10)
    )
    stacks = collect(many).build()
    assert len(stacks) == MAX_TASKS and max(stacks) == MAX_TASKS + 9 and 0 not in stacks


def test_an_incident_names_the_function_from_the_kernels_report(tmp_path: Path) -> None:
    # The shipped unit cannot read /proc/PID/stack or wchan (docs/security.md): the recorder's
    # procs snapshot finds the task in D state without them (the fake /proc has neither file);
    # the hung-task report in the ring has the stack.
    m = Machine(tmp_path, lockstep=True)  # incident mode on the played clock: no race
    b = m.boot()
    b.run(5)
    stat = m.root / "proc0" / "399" / "task" / "399" / "stat"
    stat.parent.mkdir(parents=True)
    stat.write_text("399 (lab-writer) D 398 398 0 -1 4194560 0 0 0 0 0 0 0 0 20 0 1 0\n")
    for line in HUNG_6_1.splitlines():
        b.log(line, level=3 if line.startswith("INFO") else 6)
    b.run(0.25)  # the played kmsg is a file: its reader hands every line over in this step
    assert b.rec.incidents is not None and b.rec.incidents.current is not None
    b.run(5)
    b.die()
    m.boot(after_s=60).run(2)
    with RingReader(str(m.ring)) as r:
        rep = lastboot.report(r, None, lastboot.Options(current_boot_id=m.boots[-1].boot_id))
    (inc,) = [incident_json(i) for i in rep.incidents]
    assert inc["trigger"] == "hung_task"
    assert inc["findings"][0].startswith("lab-writer (399) blocked in __percpu_down_read for ")
    (blocked,) = inc["blocked"]
    assert blocked["stack_from"] == "hung_task"
    assert "mnt_want_write+0x92/0xa0" in blocked["stack"]
    text = render_text(rep)
    assert (
        "stack of lab-writer (399), from the kernel's hung-task report: __schedule ← schedule"
        " ← percpu_rwsem_wait ← __percpu_down_read ← mnt_want_write" in text
    )
