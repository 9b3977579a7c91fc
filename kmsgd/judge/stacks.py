"""Blocked tasks' stacks as the kernel printed them into its log: the hung-task report and
SysRq `w` (both print each task with `sched_show_task`, kernel/sched/core.c).

The recorder's own /proc/PID/stack needs CAP_SYS_ADMIN and /proc/PID/wchan needs
CAP_SYS_PTRACE (fs/proc/base.c), which the shipped unit does not grant (docs/security.md);
the kernel prints the same stacks into the ring when a task hangs and when the incident's
SysRq `w` runs. The shapes, from 4.x to today:

    INFO: task llama-server:4321 blocked for more than 122 seconds.
    task:llama-server    state:D stack:0     pid:4321  ppid:1      flags:0x00004002
    Call Trace:
     <TASK>
     __schedule+0x34d/0x9e0
     amdgpu_fence_wait_timeout+0x1a/0x40 [amdgpu]
     </TASK>

older kernels print `llama-server    D    0  4321      1 0x00000000` instead of `task:`, and
frames as ` [<ffffffffc0a1b2c3>] amdgpu_fence_wait_timeout+0x1a/0x40 [amdgpu]`, with no
`<TASK>` marks. Frames marked `?` are the unwinder's guesses and are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from kmsgd.catalogue.tags import Tag
from kmsgd.types import waiting_in

MAX_TASKS = 64  # the latest stack of this many tasks is kept
MAX_FRAMES = 32
_LOOKAHEAD = 4  # lines between a task's header and its "Call Trace:"

# the hung-task detector's report (kernel/hung_task.c); incidents.py reads its seconds too
HUNG = re.compile(r"INFO: task (?P<comm>.+?):(?P<pid>\d+) blocked for more than (?P<s>\d+) seconds")
_TASK = re.compile(r"^\s*task:(?P<comm>.+?)\s+state:\S.*?\bpid:\s*(?P<pid>\d+)")
_FRAME = re.compile(
    r"^\s*(?:\[<[0-9a-f]+>\]\s*)?(?P<guess>\?\s+)?"
    r"(?P<frame>[A-Za-z_][\w.]*\+0x[0-9a-f]+/0x[0-9a-f]+(?:\s+\[[\w]+\])?)\s*$"
)
_MARKS = ("<TASK>", "</TASK>")


@dataclass(frozen=True, slots=True)
class KernelStack:
    """One task's stack from the kernel log: who, the frames (innermost first), which report."""

    comm: str
    pid: int  # the kernel's pid: the thread id
    frames: tuple[str, ...]
    source: str  # "hung_task" (the detector's report) or "sysrq" (SysRq w, or another dump)

    @property
    def function(self) -> str:
        return waiting_in(self.frames)


class StackCollector:
    """Fed a boot's kernel messages in order; keeps each task's latest printed stack."""

    def __init__(self) -> None:
        self._stacks: dict[int, KernelStack] = {}
        self._task: tuple[str, int, str] | None = None  # (comm, pid, source)
        self._wait = 0  # lines left for "Call Trace:" to come
        self._frames: list[str] | None = None  # inside a call trace

    def add(self, message: str) -> None:
        if self._task is None and "task" not in message:
            return  # the common case: one substring test a line
        if self._frames is not None:
            if self._frame(message):
                return
            self._finish()
        if m := HUNG.search(message):
            self._task, self._wait = (m["comm"], int(m["pid"]), Tag.HUNG_TASK), _LOOKAHEAD
        elif m := _TASK.match(message):
            pid = int(m["pid"])
            same = self._task is not None and self._task[1] == pid
            source = self._task[2] if same and self._task else "sysrq"
            self._task, self._wait = (m["comm"].strip(), pid, source), _LOOKAHEAD
        elif self._task is not None and message.strip() == "Call Trace:":
            self._frames = []
        elif self._task is not None:
            self._wait -= 1
            if self._wait <= 0:
                self._task = None

    def _frame(self, message: str) -> bool:
        """Whether `message` belongs to the trace being read (a frame or a mark)."""
        assert self._frames is not None
        text = message.strip()
        if text in _MARKS:
            return text == "<TASK>"  # "</TASK>" ends it
        m = _FRAME.match(message)
        if m is None:
            return False
        if not m["guess"] and len(self._frames) < MAX_FRAMES:
            self._frames.append(m["frame"])
        return True

    def _finish(self) -> None:
        if self._task is not None and self._frames:
            comm, pid, source = self._task
            self._stacks.pop(pid, None)
            self._stacks[pid] = KernelStack(comm, pid, tuple(self._frames), source)
            while len(self._stacks) > MAX_TASKS:
                del self._stacks[next(iter(self._stacks))]
        self._task, self._frames = None, None

    def build(self) -> dict[int, KernelStack]:
        """pid -> the task's latest stack (a trace still open at the end counts)."""
        if self._frames is not None:
            self._finish()
        return dict(self._stacks)
