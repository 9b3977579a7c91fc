"""`--redact` benchmark: each redaction pattern on 64 KiB adversarial lines, beside `grep -c`.

The lines are those of tests/report/test_redact_adversarial.py (`a.a.a.…`, `aaaa@`, digit
runs, `::::`, and each class's own trigger repeated): a pattern that backtracks takes seconds
to minutes on one of them, a linear one milliseconds. For each line the bench prints the
slowest pattern, its time, the whole `Redactor.redact`, and `grep -cE` with a pattern of the
same shape over the same file (the cost of reading it once with a DFA). Goal
(docs/performance.md): every pattern within a small multiple of the whole redaction's share,
and no line over 1 s for the whole redaction.

    python -m bench.redact_bench
    python -m bench.redact_bench --kib 256    # longer lines: a linear pattern takes 4x
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from kmsgd.report.redact import _FQDN, _LEARN, CLASSES, Redactor

UNITS = {
    "a.a.a": "a.",
    "aaaa@": "a",
    "a@a@": "a@",
    "digits": "1",
    "1.1.1": "1.",
    "::::": ":",
    "a=a=": "a=",
    "remote-": "remote-",
    "hostname=": "hostname=",
    "\\x1b": "\\x1b",
    "ssh-ed25519 AAAA": "ssh-ed25519 AAAA",
    "iqn.2004-03.": "iqn.2004-03.",
    "a.b@": "a.b@",
    "Serial: ": "Serial: ",
    "a.example.com.": "a.example.com.",
    "for user ": "for user ",
}
# The e-mail pattern an earlier kmsgd had: `\b` lets a match start at every label of
# `a.a.a.…`, and each start runs to the end of the line: quadratic.
OLD_EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
# a grep -E pattern of a similar shape: a label, then a run (the floor: one DFA pass)
GREP = r"[[:alnum:].+-]+@[[:alnum:]-]+(\.[[:alnum:]-]+)+"


def _best(f: object, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        f()  # type: ignore[operator]
        best = min(best, time.perf_counter() - t)
    return best


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="bench.redact_bench")
    ap.add_argument("--kib", type=int, default=64)
    args = ap.parse_args(argv)
    n = args.kib * 1024
    patterns = [(c.kind, c.pattern) for c in CLASSES] + [("learn", _LEARN), ("fqdn", _FQDN)]
    grep = shutil.which("grep")
    print(f"{args.kib} KiB lines; times are the best of 3, in ms")
    print(f"{'line':18} {'slowest pattern':14} {'ms':>7} {'redact':>8} {'grep -cE':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for name, unit in UNITS.items():
            line = unit * (n // len(unit))
            times = [(_best(lambda p=p, s=line: list(p.finditer(s))), kind) for kind, p in patterns]
            slow_t, slow_kind = max(times)
            whole = _best(lambda s=line: Redactor().redact(s))
            g = float("nan")
            if grep:
                path = Path(tmp) / "line"
                path.write_text(line + "\n")
                cmd = [grep, "-cE", GREP, str(path)]
                g = _best(lambda c=cmd: subprocess.run(c, capture_output=True, check=False))
            print(
                f"{name:18} {slow_kind:14} {slow_t * 1e3:7.1f} {whole * 1e3:8.1f} {g * 1e3:9.1f}",
                flush=True,
            )
    email = next(c.pattern for c in CLASSES if c.kind == "email")
    print("e-mail pattern on a.a.a, before (\\b start) and now, ms:")
    for kib in (4, 8, 16):
        line = "a." * (kib * 512)
        old = _best(lambda s=line: list(OLD_EMAIL.finditer(s)), 1)
        new = _best(lambda s=line: list(email.finditer(s)))
        print(f"  {kib:3} KiB  before {old * 1e3:8.1f}  now {new * 1e3:6.2f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
