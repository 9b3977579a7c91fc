"""The kernel core swept from its source over the versions servers run (2.6.32-mainline):
each line as its format prints it (the format strings are in each catalogue entry's
`formats`), the routine lines beside it, and the place of each in the culprit order."""

from __future__ import annotations

import pytest

from kmsgd.catalogue.table import match_record
from kmsgd.judge.classify import classify
from kmsgd.judge.timeline import Timeline
from kmsgd.ring.records import KernelRecord

MCE = "mce: [Hardware Error]: "

# tag → (positives, negatives); a positive may name a userspace ident as "ident[pid]: "
SWEEP_CORE_EXAMPLES: dict[str, tuple[list[str], list[str]]] = {
    "thermal_throttle": (
        [
            # mcelog intel.c decode_thermal, mcelog.c "CPU %d %s" with bankname()
            "mcelog[672]: Processor 1 heated above trip temperature. Throttling enabled.",
            "mcelog[672]: CPU 1 THERMAL EVENT TSC 5aafdf91021",
            "Processor 3 heated above trip temperature. Throttling enabled.",
        ],
        ["mcelog[672]: Processor 1 below trip temperature. Throttling disabled"],
    ),
    "mce": (
        ["mcelog[672]: CPU 3 BANK 5 TSC 5aafdf91021"],
        ["mcelog[672]: CPU 1 THERMAL EVENT TSC 5aafdf91021"],
    ),
    "mce_logged_at_boot": (
        [
            # print_mce of a polled record: no MCIP in the MCG status, UC and PCC set
            MCE + "CPU 10: Machine Check: 0 Bank 5: bea0000000000108",
            "[Hardware Error]: CPU 2: Machine Check Exception: 0 Bank 4: b200000000070f0f",
        ],
        [
            # a live #MC (MCIP set in the MCG status 5), a corrected record (no UC)
            MCE + "CPU 3: Machine Check Exception: 5 Bank 4: b200000000070f0f",
            MCE + "CPU 0: Machine Check: 0 Bank 6: 9c2040000000011b",
            MCE + "CPU 0: Machine Check: 0 Bank 6: dc2040000000011b",  # UC without PCC
        ],
    ),
    "workqueue_hog": (
        [
            # kernel/workqueue.c wq_cpu_intensive_report: %ps of a module's function
            "workqueue: ib_cache_event_task [ib_core] hogged CPU for >10000us 4 times, "
            "consider switching to WQ_UNBOUND",
            "workqueue: vmstat_update hogged CPU for >10000us 8 times, consider switching to "
            "WQ_UNBOUND",
        ],
        [
            "workqueue: amdgpu_dm_irq_work_func [amdgpu] hogged CPU for >10000us 4 times, "
            "consider switching to WQ_UNBOUND",
        ],
    ),
}


def _record(line: str, n: int = 0, ts: int | None = None) -> KernelRecord:
    head, sep, _ = line.partition(": ")
    user = sep and "[" in head and head.endswith("]") and " " not in head
    return KernelRecord(line, 3, 3 if user else 0, n, ts, "-")


def _tags(line: str) -> set[str]:
    return {h.tag for h in match_record(_record(line))}


@pytest.mark.parametrize("tag", sorted(SWEEP_CORE_EXAMPLES))
def test_the_source_wording_matches_and_other_lines_do_not(tag: str) -> None:
    positives, negatives = SWEEP_CORE_EXAMPLES[tag]
    for line in positives:
        assert tag in _tags(line), line
    for line in negatives:
        assert tag not in _tags(line), line


def _primary(*lines: str, stamped: bool = True) -> str | None:
    recs = [_record(m, n, (9000 + n) * 10**6 if stamped else None) for n, m in enumerate(lines)]
    p = classify(Timeline.from_records(recs)).primary
    return p.tag if p is not None else None


THROTTLE = "CPU0: Core temperature above threshold, cpu clock throttled (total events = 1)"
MCELOG_THERMAL = (
    MCE + "Machine check events logged",
    "mcelog[672]: Hardware event. This is not a software error.",
    "mcelog[672]: MCE 0",
    "mcelog[672]: CPU 1 THERMAL EVENT TSC 5aafdf91021",
    "mcelog[672]: Processor 1 heated above trip temperature. Throttling enabled.",
)


@pytest.mark.parametrize("stamped", [True, False])
def test_a_machine_check_record_of_a_thermal_event_is_the_throttling(stamped: bool) -> None:
    """Kernels before 5.5 log the thermal interrupt through the MCE log: the record whose
    only content is the thermal event is the (routine) throttling, not an mce failure."""
    assert _primary(THROTTLE, *MCELOG_THERMAL, stamped=stamped) == "thermal_throttle"
    assert _primary(*MCELOG_THERMAL, stamped=stamped) == "thermal_throttle"
    assert _tags(MCELOG_THERMAL[-1]) == {"thermal_throttle"}
    assert all(h.signature.routine for h in match_record(_record(MCELOG_THERMAL[-1])))


def test_a_real_mcelog_record_beside_a_throttle_still_leads() -> None:
    real = (
        MCE + "Machine check events logged",
        "mcelog[672]: Hardware event. This is not a software error.",
        "mcelog[672]: CPU 3 BANK 5 TSC 5aafdf91021",
    )
    assert _primary(THROTTLE, *real) == "mce"
    assert _primary(*real, stamped=False) == "mce"


RECORD_AT_BOOT = (
    MCE + "Machine check events logged",
    MCE + "CPU 10: Machine Check: 0 Bank 5: bea0000000000108",
    MCE + "TSC 0 ADDR 1ffff8fd156d6 MISC d012000100000000 SYND 4d000000 IPID 500b000000000",
    MCE + "PROCESSOR 2:800f11 TIME 1664118033 SOCKET 0 APIC 5 microcode 8001138",
)


def test_a_polled_context_corrupt_record_is_the_boot_before_without_stamps() -> None:
    """A journal's short format has no stamps: the polled uncorrected, context-corrupt
    record (no MCIP) tells that the banks kept it across a reset."""
    assert _primary(*RECORD_AT_BOOT, stamped=False) == "mce_logged_at_boot"


def test_a_live_or_corrected_machine_check_without_stamps_stays_mce() -> None:
    live = (MCE + "CPU 3: Machine Check Exception: 5 Bank 4: b200000000070f0f",)
    corrected = (MCE + "CPU 0: Machine Check: 0 Bank 6: 9c2040000000011b", RECORD_AT_BOOT[2])
    assert _primary(*live, stamped=False) == "mce"
    assert _primary(*corrected, stamped=False) == "mce"


def test_the_workqueue_hog_hint_is_routine_and_never_leads_a_failure() -> None:
    hog = _tags(SWEEP_CORE_EXAMPLES["workqueue_hog"][0][0])
    assert hog == {"workqueue_hog"}
    (hit,) = match_record(_record(SWEEP_CORE_EXAMPLES["workqueue_hog"][0][0]))
    assert hit.signature.routine
    lockup = "watchdog: BUG: soft lockup - CPU#1 stuck for 23s! [kworker/1:2:77]"
    assert _primary(SWEEP_CORE_EXAMPLES["workqueue_hog"][0][0], lockup) == "soft_lockup"


def test_a_log_of_nothing_but_hog_hints_has_no_culprit() -> None:
    hog = SWEEP_CORE_EXAMPLES["workqueue_hog"][0]
    assert _primary(*hog) is None
