"""`python -m bench [NAME...]`: run the named benchmarks (default: all that exist)."""

from __future__ import annotations

import importlib
import sys

ALL = ["recorder_bench", "telemetry_bench", "analyze_bench", "fleet_bench", "redact_bench"]


def main(argv: list[str]) -> int:
    names = argv or ALL
    for name in names:
        try:
            mod = importlib.import_module(f"bench.{name}")
        except ModuleNotFoundError as err:
            print(f"bench: skipping {name}: {err}", file=sys.stderr)
            continue
        print(f"== {name} ==", flush=True)
        mod.main([])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
