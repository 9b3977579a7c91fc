"""`kmsgd run`, parsed with argparse: the daemon runs for months on locked memory, so its
import graph holds no click (nor any post-mortem code). `kmsgd.__main__` sends `run` here
before anything imports click; `kmsgd.cli` hands `run` over here too.

Exit status: 0 after a clean stop, 2 for bad input or usage (one line on stderr).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from kmsgd.config import DEFAULT_CONFIG, Config, Settings, parse_size, read
from kmsgd.errors import KmsgdError


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:
        sys.stderr.write(f"kmsgd run: {message} (see kmsgd run --help)\n")
        sys.exit(2)


def parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="kmsgd run",
        description="Record /dev/kmsg (and sensors) into the ring until SIGTERM or Ctrl-C.",
    )
    p.add_argument("--ring", metavar="PATH", help=f"ring file (default {Config().ring})")
    p.add_argument("--kmsg", metavar="PATH", help="kernel log device (/dev/kmsg)")
    p.add_argument("--sys", dest="sys_root", type=Path, metavar="DIR", help="sysfs root (/sys)")
    p.add_argument("--proc", dest="proc_root", type=Path, metavar="DIR", help="procfs root (/proc)")
    p.add_argument("--config", metavar="FILE", help=f"settings file ({DEFAULT_CONFIG})")
    p.add_argument("--no-sysctl", action="store_true", help="do not set the forensic sysctls")
    p.add_argument("--ring-size", metavar="SIZE", help="size of a new ring (64M)")
    p.add_argument(
        "--heartbeat",
        dest="heartbeat_s",
        type=float,
        metavar="SECONDS",
        help="seconds between heartbeats, the bound on the time of death (1.0)",
    )
    p.add_argument("--no-mlock", action="store_true", help="do not lock memory (tests)")
    p.add_argument(
        "--log-level",
        default="info",
        choices=["debug", "info", "warning"],
        help="least severe log message written (info)",
    )
    return p


def report_settings(settings: Settings, log: Any) -> None:
    """A bad setting never stops recording: each is logged at error priority (the recorder
    runs with the default for it; `kmsgd check` fails until it is fixed)."""
    for problem in settings.problems:
        log.error(
            "config_problem",
            file=settings.path,
            key=problem.key,
            problem=problem.message,
            did_you_mean=problem.suggestion or "",
        )


def main(argv: list[str]) -> int:
    args = parser().parse_args(argv)
    try:
        from kmsgd.record import log, notify
        from kmsgd.record.recorder import Recorder

        overrides: dict[str, Any] = {
            "ring": args.ring,
            "kmsg": args.kmsg,
            "sys_root": args.sys_root,
            "proc_root": args.proc_root,
            "ring_size": parse_size(args.ring_size) if args.ring_size else None,
            "heartbeat_s": args.heartbeat_s,
            "apply_sysctl": False if args.no_sysctl else None,
            "lock_memory": False if args.no_mlock else None,
        }
        settings = read(args.config or DEFAULT_CONFIG, overrides)
        logger = log.configure(args.log_level)
        report_settings(settings, logger)
        return Recorder(settings.config, logger, notify.notifier()).run()
    except KmsgdError as err:
        hint = f" ({err.hint})" if err.hint else ""
        sys.stderr.write(f"kmsgd: {err}{hint}\n")
    except OSError as err:
        where = f"{err.filename}: " if err.filename else ""
        sys.stderr.write(f"kmsgd: {where}{err.strerror or err}\n")
    return 2
