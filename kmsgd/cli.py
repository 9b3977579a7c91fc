"""The command line. The only module that knows click, prints, or chooses exit statuses.

Exit status: 0 success, 1 a check failed (`check`, `sysctl check`), 2 bad input or usage (one
line on stderr, never a traceback), 3 nothing to judge (`last-boot`: no ended boot in the ring).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from kmsgd import __version__
from kmsgd.config import DEFAULT_CONFIG, Config, read
from kmsgd.errors import BadInput, KmsgdError, NothingToJudge
from kmsgd.ring.frame import to_entry
from kmsgd.ring.lines import json_line, text_line
from kmsgd.ring.reader import RingReader, pick_boot
from kmsgd.text.escape import escape
from kmsgd.types import FLEET_FORMATS, LAST_BOOT_FORMATS, LISTING_FORMATS, REPORT_FORMATS, Format

if TYPE_CHECKING:
    from kmsgd.commands.said import Said

F = TypeVar("F", bound=Callable[..., Any])
RING_HELP = f"ring file (default: ring in the config file, {Config().ring})"
NOTHING_TO_JUDGE = 3  # exit status: no ended boot in the ring (not a usage error)
ROOT = click.Path(path_type=Path)  # a root directory option (--proc, --root): a Path
_FROM_CONFIG = "\0config"  # `--textfile` without a value: the path from the config file


def die(message: str, hint: str = "", status: int = 2) -> NoReturn:
    """One line on stderr: a file name or a value from the input in the message shows its
    control characters escaped (a newline in it included), as every report does."""
    click.echo(escape(f"kmsgd: {message}" + (f" ({hint})" if hint else "")), err=True)
    sys.exit(status)


class _Group(click.Group):
    """Turns KmsgdError (and stray OS errors) into one line and exit status 2."""

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except NothingToJudge as err:
            die(str(err), err.hint, NOTHING_TO_JUDGE)
        except KmsgdError as err:
            die(str(err), err.hint)
        except BrokenPipeError:
            # `kmsgd dump | head`: the reader has what it wanted; say nothing.
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(0)
        except OSError as err:
            die(f"{err.filename or ''}: {err.strerror or err}".lstrip(": "))


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kmsgd")
def main() -> None:
    """Freeze forensics: record the kernel log and sensors durably, explain how a boot ended."""


def format_option(formats: Sequence[Format], **kwargs: Any) -> Callable[[F], F]:
    """`--format`, one of `formats` (the command's), given to the command as a Format."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice([f.value for f in formats]),
        default=Format.TEXT.value,
        callback=lambda _ctx, _param, value: Format(value),
        **kwargs,
    )


def proc_option(f: F) -> F:
    return click.option(
        "--proc", "proc_root", default=None, type=ROOT, metavar="DIR", help="procfs root (/proc)"
    )(f)


def plot_option(f: F) -> F:
    return click.option(
        "--plot",
        default=None,
        metavar="FILE.svg|.png",
        help="also save the timeline of the last minutes (needs matplotlib: kmsgd[plot])",
    )(f)


def ring_option(f: F) -> F:
    return click.option("--ring", default=None, metavar="PATH", help=RING_HELP)(f)


def config_option(f: F) -> F:
    return click.option(
        "--config",
        "config_file",
        default=None,
        metavar="FILE",
        help=f"settings file (default {DEFAULT_CONFIG})",
    )(f)


def settings(config_file: str | None, **overrides: Any) -> Config:
    """The same settings `kmsgd run` uses; a bad line in the file is a warning here (`kmsgd
    check` fails on it), never a reason to refuse a post-mortem."""
    got = read(config_file or DEFAULT_CONFIG, overrides)
    for problem in got.problems:
        click.echo(escape(f"kmsgd: warning: {got.path}: {problem.message}"), err=True)
    return got.config


@main.command(
    context_settings={"ignore_unknown_options": True, "help_option_names": []},
    add_help_option=False,
)
@click.argument("args", nargs=-1, type=click.UNPROCESSED)
def run(args: tuple[str, ...]) -> None:
    """Record /dev/kmsg (and sensors) into the ring until SIGTERM or Ctrl-C.

    Options: kmsgd run --help. (`kmsgd run` itself starts without click: kmsgd.runcmd.)
    """
    from kmsgd.runcmd import main as run_main

    sys.exit(run_main(list(args)))


def _open(cfg: Config) -> RingReader:
    return RingReader(cfg.ring)


@main.command()
@ring_option
@format_option(LISTING_FORMATS)
@proc_option
@config_option
def boots(ring: str | None, fmt: Format, proc_root: Path | None, config_file: str | None) -> None:
    """List the boots the ring holds, oldest first, each with how it ended."""
    from kmsgd.commands import lastboot

    cfg = settings(config_file, ring=ring, proc_root=proc_root)
    said = lastboot.boots(
        ring=cfg.ring,
        fmt=fmt,
        state_dir=cfg.state_dir,
        current_boot_id=_current_boot(cfg.proc_root),
        rtc_local=lastboot.rtc_local(cfg.etc_root),
    )
    _say(said)


def select_boot(reader: RingReader, boot: str | None) -> str:
    """A boot id from `--boot`: an id (or unique prefix, dashes allowed) or 0, -1, -2, ..."""
    rows = reader.boots()
    if not rows:
        raise BadInput(f"{reader.path}: the ring holds no records yet")
    ids = [r.boot_id for r in rows]
    return ids[pick_boot(ids, boot or "0", None)]


@main.command()
@ring_option
@click.option("--boot", default=None, metavar="ID|-N", help="boot id or offset (0 = last)")
@format_option(LISTING_FORMATS)
@config_option
def dump(ring: str | None, boot: str | None, fmt: Format, config_file: str | None) -> None:
    """Print the records of one boot."""
    with _open(settings(config_file, ring=ring)) as reader:
        boot_id = select_boot(reader, boot)
        for f in reader.frames_of(boot_id):
            entry = to_entry(f)
            line = json_line if fmt is Format.JSON else text_line
            click.echo(line(entry, f.payload))  # the numbers as the ring holds them


@main.command()
@click.argument("sources", metavar="FILE|DIR|-...", nargs=-1, required=True)
@format_option(REPORT_FORMATS)
@click.option("--redact", is_flag=True, help="replace hostnames, addresses, serials, users")
@plot_option
@config_option
def analyze(
    sources: tuple[str, ...], fmt: Format, redact: bool, plot: str | None, config_file: str | None
) -> None:
    """Explain pasted kernel logs (dmesg, journalctl, syslog, pstore, /dev/kmsg) and the
    bundles tickets carry (.gz/.xz/.zst/.bz2, sosreport tarballs, nvidia-bug-report.log,
    *.journal files, pstore and other directories)."""
    from kmsgd.commands.analyze import analyze_paths, input_limits

    cfg = settings(config_file)  # only the input bounds change a pasted log's analysis
    color = fmt is Format.TEXT and sys.stdout.isatty()
    out = analyze_paths(
        list(sources),
        stdin=sys.stdin.buffer,
        fmt=fmt,
        redact=redact,
        color=color,
        plot=plot or "",
        limits=input_limits(cfg),
    )
    click.echo(out, nl=not out.endswith("\n"))


@main.command("sysctl")
@click.argument("action", type=click.Choice(["check", "apply"]))
@proc_option
@click.option(
    "--root", "fs_root", default=None, type=ROOT, metavar="DIR", help="root of /etc/sysctl.d (/)"
)
@config_option
def sysctl_cmd(
    action: str, proc_root: Path | None, fs_root: Path | None, config_file: str | None
) -> None:
    """Compare the forensic sysctls with what kmsgd wants (check), or set them (apply)."""
    from kmsgd.record import sysctl_conf, sysctl_set

    cfg = settings(config_file, proc_root=proc_root, fs_root=fs_root)
    want = sysctl_conf.resolve_desired(cfg.fs_root)
    if action == "check":
        lines, status = sysctl_set.check_report(sysctl_set.check(cfg.proc_root, want))
    else:
        lines, status = sysctl_set.apply_report(sysctl_set.apply(cfg.proc_root, want))
    click.echo("\n".join(escape(line) for line in lines))  # values read from /proc/sys
    sys.exit(status)


@main.command("check")
@format_option(LISTING_FORMATS)
@config_option
def check_cmd(fmt: Format, config_file: str | None) -> None:
    """Is this machine set up to leave a post-mortem? One line per check, OK/WARN/FAIL and the
    fix. Exit status 0 when nothing failed (warnings allowed), 1 otherwise."""
    from kmsgd.check.findings import exit_status, render_json, render_text
    from kmsgd.check.run import run_checks

    findings = run_checks(read(config_file or DEFAULT_CONFIG, {}))
    # sysfs and DMI strings are the vendor's: shown escaped like every report
    text = render_json(findings) if fmt is Format.JSON else escape(render_text(findings), keep="\n")
    click.echo(text, nl=False)
    sys.exit(exit_status(findings))


@main.command("install-units")
@click.option("--root", default="/", type=ROOT, metavar="DIR", help="install under this root")
@click.option("--exe", default=None, metavar="PATH", help="kmsgd executable for ExecStart=")
@click.option("--enable", is_flag=True, help="enable and start the units (live systemd only)")
def install_units_cmd(root: Path, exe: str | None, enable: bool) -> None:
    """Install the systemd units and the sysctl file (for pip installs; the .deb has them)."""
    from kmsgd.commands.install_units import install_units

    for said in install_units(root=root, exe=exe, enable=enable):
        _say(said)


@main.command("last-boot")
@ring_option
@click.option("--boot", default=None, metavar="ID|-N", help="default: the boot before this one")
@format_option(
    LAST_BOOT_FORMATS,
    help="export: the post-mortem journal entry in journal export format (systemd-journal-remote)",
)
@click.option("--redact", is_flag=True, help="replace hostnames, addresses, serials, users")
@plot_option
@click.option("--journal/--no-journal", default=True, help="ask the systemd journal too")
@click.option("--journal-dir", default=None, metavar="DIR", help="read journal files from DIR")
@proc_option
@click.option(
    "--save", is_flag=True, help="save <boot_id>.json/.md in report_dir (the config file's)"
)
@click.option("--save-dir", default=None, metavar="DIR", help="save <boot_id>.json/.md here")
@click.option(
    "--keep", default=None, type=int, help=f"reports kept (default {Config().reports_keep})"
)
@click.option(
    "--textfile",
    default=None,
    is_flag=False,
    flag_value=_FROM_CONFIG,
    metavar="PATH",
    help="write the node_exporter textfile (no PATH: kmsgd-last-boot.prom in textfile_dir)",
)
@config_option
def last_boot(
    ring: str | None,
    boot: str | None,
    fmt: Format,
    redact: bool,
    journal: bool,
    journal_dir: str | None,
    proc_root: Path | None,
    save: bool,
    save_dir: str | None,
    keep: int | None,
    textfile: str | None,
    plot: str | None,
    config_file: str | None,
) -> None:
    """How the previous boot (or --boot) ended, with the evidence: the post-mortem.

    Exit status 3 when the ring holds no ended boot to judge (the first boot after installing);
    with --save or --save-dir (the boot-time service) that is said on stdout and exits 0.
    """
    from kmsgd.commands import lastboot
    from kmsgd.record.procfs import read_machine_id

    if fmt is Format.EXPORT and redact:
        raise BadInput(
            "--redact does not apply to --format export",
            hint="the entry goes to your own collector, filed under the box's real host name",
        )
    if redact and (save or save_dir is not None):
        raise BadInput(
            "--redact does not apply to --save or --save-dir",
            hint="the saved reports are the box's own record; run last-boot --boot ID --redact "
            "for the copy a ticket gets",
        )
    if keep is not None and keep < 1:
        raise BadInput(f"--keep {keep}: must be at least 1 (the report just written is kept)")
    cfg = settings(config_file, ring=ring, proc_root=proc_root, reports_keep=keep)
    options = lastboot.Options(
        _current_boot(cfg.proc_root),
        read_machine_id(cfg.etc_root),
        journal,
        journal_dir,
        rtc_local=lastboot.rtc_local(cfg.etc_root),
        series=fmt is Format.HTML or plot is not None,
    )
    said = lastboot.last_boot(
        ring=cfg.ring,
        boot=boot,
        fmt=fmt,
        options=options,
        redact=redact,
        color=fmt is Format.TEXT and sys.stdout.isatty(),
        plot=plot or "",
        save_dir=cfg.report_dir if save and save_dir is None else save_dir,
        keep=cfg.reports_keep,
        textfile=(cfg.report_textfile or None) if textfile == _FROM_CONFIG else textfile,
    )
    _say(said)


@main.command()
@click.option(
    "--journal-dir",
    default=None,
    metavar="DIR",
    help=f"the collector's journal files (default: {Config().fleet_journal_dir})",
)
@click.option("--since", default=None, metavar="TIME", help="default: 30 days before --until")
@click.option("--until", default=None, metavar="TIME", help="default: now")
@format_option(FLEET_FORMATS)
@config_option
def fleet(
    journal_dir: str | None,
    since: str | None,
    until: str | None,
    fmt: Format,
    config_file: str | None,
) -> None:
    """Post-mortems of many boxes (systemd-journal-remote's files): which boxes died the same
    way, and what they share that the fleet's other boots do not (docs/fleet.md).

    TIME: 2025-11-01, '2025-11-01 12:00', -7d, '12h ago', yesterday, @EPOCH.
    """
    from kmsgd.fleet.command import fleet_report

    cfg = settings(config_file)
    out = fleet_report(
        journal_dir=journal_dir or cfg.fleet_journal_dir, since=since, until=until, fmt=fmt
    )
    click.echo(out, nl=not out.endswith("\n"))


def _say(said: Said) -> None:
    """A command core's answer: its stderr lines, then its stdout as it is."""
    for line in said.err:
        click.echo(line, err=True)
    if isinstance(said.out, bytes):
        sys.stdout.buffer.write(said.out)
        sys.stdout.buffer.flush()
    else:
        click.echo(said.out, nl=False)


def _current_boot(proc_root: Path) -> str | None:
    from kmsgd.record.procfs import read_boot_id

    try:
        return read_boot_id(proc_root)
    except KmsgdError:
        return None


if __name__ == "__main__":
    main()
