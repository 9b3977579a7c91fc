"""Golden digests: one sha256 per report kmsgd makes for the corpus and the played boots.

A refactor proves that no report changed by recomputing them (tests/golden/test_golden.py);
a change meant to change reports regenerates them (tests/golden/README.md). Reports are built
in-process: `analyze` as its command builds them for every tests/corpus case, and `last-boot`
and `boots` through the real command line (click's runner) on the rings the seed stories of
tests/seeds.py leave.
"""

from __future__ import annotations

import contextlib
import hashlib
import re
import sys
import tempfile
import uuid
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING
from unittest import mock

if TYPE_CHECKING:
    from click.testing import Result
    from scenario import Machine

TESTS = Path(__file__).resolve().parent.parent
if str(TESTS) not in sys.path:  # `python -m tests.golden`: the suite's helpers import by name
    sys.path.insert(0, str(TESTS))

DIGESTS = Path(__file__).with_name("digests.txt")
ANALYZE_FORMATS = ("text", "md", "json", "html")
LASTBOOT_FORMATS = ("text", "md", "json", "html", "export")
# `last-boot --format export` stamps the entry with the time it was made, and `boots --format
# json` says where in the file each boot starts, which depends on how the committer thread
# grouped the records into commits: those two fields are replaced, nothing else
_REALTIME = re.compile(rb"^__REALTIME_TIMESTAMP=\d+$", re.M)
_OFFSET = re.compile(rb'"first_offset": \d+')


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def corpus_reports() -> Iterator[tuple[str, bytes]]:
    """`kmsgd analyze` of every corpus case, as `kmsgd analyze - < log.txt` builds it: each
    format, and the text with --redact; a refused input's one line instead of a report."""
    from kmsgd.commands.analyze import analyze_inputs
    from kmsgd.errors import BadInput
    from kmsgd.report.render import render_clean
    from tests.corpus.score import cases

    for case in cases():
        name = f"corpus/{case.name}"
        with open(case / "log.txt", "rb") as f:
            try:
                report, redactor = analyze_inputs(["-"], stdin=f)
            except BadInput as err:
                yield f"{name}/refused", f"{err} ({err.hint})".encode()
                continue
        assert report.source is not None
        report = replace(report, source=replace(report.source, name=case.name))
        for fmt in ANALYZE_FORMATS:
            yield f"{name}/analyze.{fmt}", render_clean(report, fmt).encode()
        redacted = render_clean(report, "text", redactor=redactor)
        yield f"{name}/analyze.text.redact", redacted.encode()


def _seed_rings(root: Path) -> Iterator[tuple[str, Machine]]:
    import seeds

    # in lockstep: incident mode on the wound clock, so the same story leaves the same ring
    yield "seed-000", seeds.play_000(root / "000", lockstep=True)
    yield "seed-003", seeds.play_003(root / "003", lockstep=True)
    yield "seed-004", seeds.play_004(root / "004", lockstep=True)


@contextlib.contextmanager
def _numbered_boot_ids() -> Iterator[None]:
    """The seed stories draw boot ids at random: here they are numbered in the order drawn."""
    counter = iter(range(1, 1 << 30))
    with mock.patch("uuid.uuid4", lambda: uuid.UUID(int=next(counter))):
        yield


def boot_reports() -> Iterator[tuple[str, bytes]]:
    """`kmsgd last-boot` of every ended boot of each seed's ring, in every format (and text
    with --redact), and `kmsgd boots` in text and JSON."""
    from click.testing import CliRunner

    from kmsgd.cli import main

    with tempfile.TemporaryDirectory(prefix="kmsgd-golden-") as tmp, _numbered_boot_ids():
        root = Path(tmp)
        for name, m in _seed_rings(root):
            state = m.root / "state"
            state.mkdir(mode=0o750)
            conf = m.root / "kmsgd.toml"
            conf.write_text(f'[kmsgd]\nstate_dir = "{state}"\netc_root = "{m.etc}"\n')
            proc = m.root / f"proc{len(m.boots) - 1}"
            common = ["--ring", str(m.ring), "--proc", str(proc), "--config", str(conf)]
            runner = CliRunner()
            for fmt in ("text", "json"):
                got = runner.invoke(main, ["boots", "--format", fmt, *common])
                yield f"boots/{name}/boots.{fmt}", _result(got)
            for n, b in enumerate(m.boots[:-1]):
                for fmt in LASTBOOT_FORMATS:
                    args = ["last-boot", "--boot", b.boot_id, "--format", fmt, "--no-journal"]
                    got = runner.invoke(main, [*args, *common])
                    yield f"boots/{name}/boot{n}/last-boot.{fmt}", _result(got)
                args = ["last-boot", "--boot", b.boot_id, "--redact", "--no-journal"]
                got = runner.invoke(main, [*args, *common])
                yield f"boots/{name}/boot{n}/last-boot.text.redact", _result(got)


def _result(got: Result) -> bytes:
    """What a user sees of one command: its exit status, stdout and stderr."""
    if got.exception is not None and not isinstance(got.exception, SystemExit):
        raise got.exception
    out = _REALTIME.sub(b"__REALTIME_TIMESTAMP=0", got.stdout_bytes)
    out = _OFFSET.sub(b'"first_offset": 0', out)
    return b"exit %d\n" % got.exit_code + out + b"\0" + (got.stderr_bytes or b"")


def compute(*, corpus: bool = True, boots: bool = True) -> dict[str, str]:
    """Every report's digest, by name."""
    found: dict[str, str] = {}
    parts = ([corpus_reports()] if corpus else []) + ([boot_reports()] if boots else [])
    for part in parts:
        for name, data in part:
            assert name not in found, name
            found[name] = digest(data)
    return found


def read() -> dict[str, str]:
    """The committed digests."""
    got: dict[str, str] = {}
    for line in DIGESTS.read_text().splitlines():
        sha, name = line.split(None, 1)
        got[name] = sha
    return got


def write(found: dict[str, str]) -> None:
    DIGESTS.write_text("".join(f"{found[n]}  {n}\n" for n in sorted(found)))


def changed(want: dict[str, str], got: dict[str, str]) -> list[str]:
    """A line per report that differs, is new or is gone."""
    lines = [f"changed: {n}" for n in sorted(want.keys() & got.keys()) if want[n] != got[n]]
    lines += [f"new: {n}" for n in sorted(got.keys() - want.keys())]
    lines += [f"gone: {n}" for n in sorted(want.keys() - got.keys())]
    return lines
