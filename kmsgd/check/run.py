"""All checks in order, each isolated: one that raises becomes a WARN naming the error, and
the others still run (a self-check must not die on the odd machine it is meant to diagnose)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from kmsgd.check import host, service
from kmsgd.check.findings import Finding, warn
from kmsgd.config import Settings


def run_checks(
    settings: Settings,
    *,
    now_us: int | None = None,
    nvml_loader: Callable[[], Any] | None = None,
) -> list[Finding]:
    """Configuration first, then kmsgd, then the machine. `nvml_loader` replaces
    pynvml.nvmlInit (tests)."""
    cfg = settings.config
    steps: list[tuple[str, Callable[[], Finding | list[Finding]]]] = [
        ("config", partial(service.config_findings, settings)),
        ("recorder", partial(service.recorder_findings, cfg, now_us)),
        ("sandbox", partial(service.sandbox_findings, cfg)),
        ("room", partial(service.room_finding, cfg)),
        ("sysctls", partial(host.sysctl_finding, cfg)),
        ("pstore", partial(host.pstore_finding, cfg)),
        ("systemd-pstore", partial(host.systemd_pstore_finding, cfg)),
        ("journal", partial(host.journal_finding, cfg)),
        ("textfile", partial(host.textfile_finding, cfg)),
        ("nvml", partial(host.nvidia_finding, cfg, nvml_loader)),
        ("sensors", partial(host.sensor_findings, cfg, nvml_loader)),
    ]
    found: list[Finding] = []
    for name, step in steps:
        try:
            got = step()
        except Exception as err:  # isolate the unit: its error is the finding
            got = warn(name, f"could not check: {err!r}", "report this as a kmsgd bug")
        found += got if isinstance(got, list) else [got]
    return found
