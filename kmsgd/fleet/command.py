"""`kmsgd fleet` without click: read, cluster, render. The CLI adds options and exit codes."""

from __future__ import annotations

from kmsgd.errors import BadInput
from kmsgd.fleet import cluster, source
from kmsgd.fleet.render_answer import render
from kmsgd.fleet.window import window
from kmsgd.types import FLEET_FORMATS, Format


def fleet_report(
    *,
    journal_dir: str,
    since: str | None = None,
    until: str | None = None,
    fmt: Format = Format.TEXT,
) -> str:
    """The rendered answer for the post-mortems in `journal_dir` within [since, until).

    Raises BadInput for unusable input: a missing directory, one without journal files, or
    one whose every file is unreadable. An empty window is an answer, not an error.
    """
    if fmt not in FLEET_FORMATS:
        raise BadInput(f"unknown format {fmt!r}", hint=f"use one of {', '.join(FLEET_FORMATS)}")
    win = window(since, until)
    scan = source.read(journal_dir, win.since_us, win.until_us)
    if scan.skipped and len(scan.skipped) == scan.files and not scan.post_mortems:
        path, why = scan.skipped[0]
        raise BadInput(
            f"{journal_dir}: no readable journal file ({len(scan.skipped)} tried; {path}: {why})",
            hint="check the files with journalctl --file=FILE --verify",
        )
    return render(cluster.fleet(scan, win), fmt)
