"""Block-level crash consistency of the ring on a real ext4, the way CrashMonkey and xfstests
test file systems: device-mapper `log-writes` (a module in Debian's kernel) records every block
write under a second `kmsgd run` whose ring lies on that file system, then the log is replayed
onto a scratch device up to every flush/FUA entry (and some points and reorderings in between),
each state mounted (journal recovery) and its ring read with kmsgd's reader.

Everything runs in the guest (lab/guest/logwrites.py, copied in by the payload disk); this
module starts it and turns its figures into checks. docs/crash-lab.md, *Block-level crash
states*, says what a state is and what is acknowledged.
"""

from __future__ import annotations

import json
import os
from typing import Any

from lab.checks import Check, ok
from lab.ends import reset_now
from lab.model import Ctx, Results

GUEST = "python3 /mnt/payload/lab/logwrites.py"
DIR = "/dev/shm/lw"  # tmpfs: the data, log and scratch devices are loop files in RAM
LINES = 60  # warning lines written while recording: ~20 s, ~100 flushes under TCG
MIN_STATES = 50  # fewer means the workload or the log went wrong, not that the ring is fine


def _json(out: str) -> dict[str, Any]:
    lines = out.strip().splitlines()
    value = json.loads(lines[-1]) if lines else None
    return value if isinstance(value, dict) else {}


def end_blockcrash(ctx: Ctx) -> None:
    seed = int(os.environ.get("KMSGD_LAB_BLOCKCRASH_SEED", "1"))
    facts: dict[str, Any] = {"seed": seed}
    ctx.facts["blockcrash"] = facts
    for step, arg, timeout in (("record", LINES, 240), ("check", 1, 300)):
        reply = ctx.vm.sh(f"{GUEST} {step} {DIR} {seed} {arg}", timeout=timeout, check=False)
        if reply.rc != 0:
            facts["error"] = f"{step}: exit {reply.rc}: {reply.err.strip()[-800:]}"
            break
        facts[step] = _json(reply.out)
    reset_now(ctx)  # the guest's devices are scratch; boot 2 only ends the scenario


def expect_blockcrash(res: Results) -> list[Check]:
    b = res.facts.get("blockcrash") or {}
    rec, chk = b.get("record") or {}, b.get("check") or {}
    if not chk:
        return [ok("block-level crash states", False, b.get("error") or "no figures")]
    control = chk.get("control") or {}
    return [
        ok(
            "log holds flushes",
            chk["flushes"] > 0 and rec.get("write_cache") == "write back",
            f"{chk['entries']} entries: {chk['flushes']} flush, {chk['fua']} FUA; "
            f"device write cache {rec.get('write_cache')!r}; log device {rec.get('dm_status')}",
        ),
        ok(
            "every line recorded",
            chk["lines_in_ring"] == chk["lines_written"] and chk["final_ring_ok"],
            f"{chk['lines_in_ring']} of {chk['lines_written']} warning lines in the final ring "
            f"({chk['frames']} frames)",
        ),
        ok(
            "acknowledgements marked",
            chk["acks"] >= 5,
            f"{chk['acks']} `ack:` marks from the recorder's durable serial; "
            f"up to {chk['most_required']} frames required in a state",
        ),
        ok(
            "harness can fail",
            any("missing" in p for p in control.get("problems") or []),
            f"the `ready` state with every ack required: {control.get('problems')}",
        ),
        ok(
            "block-level crash states",
            chk["violations"] == 0 and chk["states"] >= MIN_STATES,
            f"{chk['states']} states checked {chk['kinds']}, {chk['violations']} violations "
            f"{chk['first_violations'][:2] or ''}; frames returned "
            f"{chk['frames_returned'][0]}-{chk['frames_returned'][1]}; record "
            f"{rec.get('seconds')} s (kmsgd ready after {rec.get('ready_s')} s), check "
            f"{chk['seconds']} s {chk.get('spent_s')}; seed {b.get('seed')}",
        ),
    ]
