"""The `kmsgd` command: `run` goes to the click-free daemon entry, the rest to kmsgd.cli."""

from __future__ import annotations

import sys


def main() -> None:
    if sys.argv[1:2] == ["run"]:
        from kmsgd.runcmd import main as run_main

        sys.exit(run_main(sys.argv[2:]))
    from kmsgd.cli import main as cli_main

    cli_main()


if __name__ == "__main__":
    main()
