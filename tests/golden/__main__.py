"""`python -m tests.golden`: say which reports differ from tests/golden/digests.txt (exit 1
if any); `--update` writes the digests of the reports as they are now."""

from __future__ import annotations

import sys

from tests.golden import DIGESTS, changed, compute, read, write


def main(argv: list[str]) -> int:
    if argv not in ([], ["--update"]):
        print("usage: python -m tests.golden [--update]", file=sys.stderr)
        return 2
    found = compute()
    if argv == ["--update"]:
        write(found)
        print(f"{DIGESTS}: {len(found)} reports")
        return 0
    diff = changed(read(), found)
    print("\n".join(diff) if diff else f"all {len(found)} reports unchanged")
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
