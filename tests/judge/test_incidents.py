"""The report's incidents read back from a boot's incident records (kmsgd/judge/incidents.py):
what happens when the recorder restarts within a boot, and which trigger names an incident."""

from __future__ import annotations

from typing import Any

from kmsgd.judge.incidents import blocked_calls, incidents
from kmsgd.report.render_incident import incident_lines
from kmsgd.report.render_json import incident_json
from kmsgd.ring import frame as fr
from kmsgd.ring.records import Entry, Kind

HUNG = "INFO: task lab-writer:399 blocked for more than 10 seconds."


class Records:
    """Incident records of one boot, in ring order."""

    def __init__(self) -> None:
        self.entries: list[Entry] = []

    def add(self, wall_s: float, number: int, record: str, **data: Any) -> None:
        if "cls" in data:  # as the recorder writes it (kmsgd/record/incident_mode.py)
            data["class"] = data.pop("cls")
        payload = {"record": record, "incident": number, "mono_us": 0, **data}
        rec = fr.decode_payload(Kind.INCIDENT, fr.encode_payload(Kind.INCIDENT, payload))  # type: ignore[arg-type]
        serial = len(self.entries) + 1
        self.entries.append(Entry(serial, "b" * 32, int(wall_s * 1e6), Kind.INCIDENT, rec))


def test_a_recorder_restart_within_a_boot_keeps_both_incidents_apart() -> None:
    # systemd restarted kmsgd at 500 s; the new process numbers its incidents from 1 again
    r = Records()
    r.add(100, 1, "start", trigger="amdgpu_ring_timeout", source="kernel", line="ring gfx timeout")
    task = {"pid": 10, "tid": 10, "comm": "llama-server", "in": "amdgpu_fence_wait_timeout"}
    r.add(100, 1, "procs", blocked=[task])
    r.add(400, 1, "end", reason="quiet", duration_s=300)
    r.add(600, 1, "start", trigger="hung_task", source="kernel", line=HUNG)
    writer = {"pid": 399, "tid": 399, "comm": "lab-writer", "in": "percpu_rwsem_wait"}
    r.add(600, 1, "procs", blocked=[writer])
    r.add(630, 1, "procs", blocked=[writer])
    got = [incident_json(i) for i in incidents(r.entries)]
    assert [(i["trigger"], i["ended"] is not None) for i in got] == [
        ("amdgpu_ring_timeout", True),
        ("hung_task", False),
    ]
    assert got[1]["captured"]["procs"] == 2 and got[1]["other_triggers"] == []
    assert got[1]["findings"][0] == "lab-writer (399) blocked in percpu_rwsem_wait for 30 s"
    # the verdict's stuck call is the last incident's, not a mix of both processes'
    (stuck,) = blocked_calls(r.entries)
    assert (stuck.comm, stuck.function) == ("lab-writer", "percpu_rwsem_wait")


def test_the_kernels_trigger_names_an_incident_a_late_heartbeat_started() -> None:
    # Under load the recorder's own heartbeat comes late first; the kernel's soft lockup
    # report joins the open incident 8 s later and is what the incident is about.
    r = Records()
    r.add(50, 1, "start", trigger="heartbeat_late", cls="recorder_late", source="recorder")
    r.add(
        58,
        1,
        "trigger",
        trigger="soft_lockup",
        cls="cpu_lockup",
        source="kernel",
        line="watchdog: BUG: soft lockup - CPU#1 stuck for 13s! [insmod:379]",
    )
    r.add(59, 1, "trigger", trigger="rcu_stall", cls="cpu_lockup", source="kernel", line="rcu")
    (inc,) = incidents(r.entries)
    got = incident_json(inc)
    assert got["trigger"] == "soft_lockup" and got["class"] == "cpu_lockup"
    assert got["line"].startswith("watchdog: BUG: soft lockup")
    assert got["started_by"] == "heartbeat_late"
    assert got["other_triggers"] == ["heartbeat_late", "rcu_stall"]
    (head, *_rest) = incident_lines([inc])
    assert head.startswith("#1 soft_lockup at ") and "(opened by heartbeat_late)" in head
    # a kernel trigger that started an incident keeps its name
    k = Records()
    k.add(10, 1, "start", trigger="hung_task", source="kernel", line=HUNG)
    k.add(12, 1, "trigger", trigger="soft_lockup", source="kernel", line="soft lockup")
    (first,) = [incident_json(i) for i in incidents(k.entries)]
    assert first["trigger"] == "hung_task" and first["other_triggers"] == ["soft_lockup"]
