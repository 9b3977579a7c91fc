"""The lab's scenario model: what a scenario is, what it learns, what boot 2 reports.

A scenario ends boot 1 with a function of `Ctx` (the running guest plus facts learned while ending
it, e.g. the reset's time on the guest's clock) and turns boot 2's outputs (`Results`) into checks.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from lab.checks import Check
from lab.vm import Vm


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
