"""Defaults and the optional TOML config file (/etc/kmsgd/kmsgd.toml). The only place paths live.

Every command reads the same file. `read` never refuses a file: a forensic recorder records
anyway, with the valid settings and defaults for the rest, and hands back each problem (an
unknown key with the closest valid name, a wrong type, a key outside the [kmsgd] table) for the
caller to log; `kmsgd check` fails on them. `load` is the strict form: the first problem raises.
"""

from __future__ import annotations

import dataclasses
import difflib
import os
import re
import stat
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from kmsgd.errors import BadInput

DEFAULT_CONFIG = "/etc/kmsgd/kmsgd.toml"
STATE_DIR = "/var/lib/kmsgd"
# Debian's and Ubuntu's prometheus-node-exporter reads this directory (its
# /etc/default/prometheus-node-exporter: --collector.textfile.directory); upstream's tarball
# has no default, and many hand-made setups use /var/lib/node_exporter/textfile_collector.
TEXTFILE_DIR = "/var/lib/prometheus/node-exporter"
RECORDER_TEXTFILE = "kmsgd.prom"  # written by `kmsgd run` alone: kmsgd_up, ring figures
REPORT_TEXTFILE = "kmsgd-last-boot.prom"  # written by the boot-time report alone
# node_exporter's own configuration, where `kmsgd check` looks for its textfile directory.
NODE_EXPORTER_DEFAULTS = ("etc/default/prometheus-node-exporter",)


@dataclass(frozen=True, slots=True)
class IncidentConfig:
    """The [incident] table: incident mode's actions, each switchable, and its bounds
    (docs/operator-guide.md, *Incidents*; kmsgd/record/incident_mode.py)."""

    enabled: bool = True  # false: no trigger is even looked for
    rate_limit_s: float = 600.0  # one incident per trigger class this often
    max_s: float = 1800.0  # an incident that keeps being extended ends after this
    max_bytes: int = 8 << 20  # incident records plus boosted samples, per incident
    durable: bool = True  # every record durable at once ...
    durable_s: float = 300.0  # ... until this long after the last trigger (the incident's end)
    boost: bool = True  # GPU sensors and memory/PSI faster ...
    boost_s: float = 120.0  # ... for this long after the last trigger
    gpu_hz: float = 10.0  # every sensor of every GPU, a record per read
    memory_hz: float = 2.0
    procs_snapshot: bool = True  # D-state tasks with stacks, top RAM and GPU memory holders
    procs_at_s: tuple[float, ...] = (0.0, 30.0, 120.0)  # after the start
    gpu_snapshot: bool = True  # links, AER, runtime PM, gpu_metrics, fences, NVML state
    gpus_at_s: tuple[float, ...] = (0.0, 10.0, 120.0)
    sysrq_w: bool = True  # blocked tasks' stacks into the kernel log, once per incident
    sysrq_l: bool = False  # every CPU's backtrace (loud: off unless asked)
    devcoredump: bool = True  # look for GPU crash dumps at once
    capture_timeout_s: float = 5.0  # a snapshot still reading after this is recorded as blocked
    # the recorder's own symptoms
    psi_full_pct: float = 20.0  # /proc/pressure/memory full avg10 at or above
    mem_available_pct: float = 2.0  # MemAvailable below this share of MemTotal
    stall_s: float = 2.0  # a sensor read blocked this long
    heartbeat_late_s: float = 2.0  # the recorder's own heartbeat this late


@dataclass(frozen=True, slots=True)
class RingConfig:
    """The [ring] table: how the recorder writes the ring file (docs/ring-format.md)."""

    # Every commit starts on this boundary, so a torn write never touches a sector holding an
    # acknowledged frame: 512, or 4096 for a disk with 4 KiB physical sectors (or a file
    # system that writes a dirty block back whole). The ring's header records it for readers.
    align: int = 512


RING_ALIGNS = (512, 4096)


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting; the TOML file uses the same names in a [kmsgd] table."""

    ring: str = f"{STATE_DIR}/ring"
    ring_size: int = 64 << 20  # bytes, for a new ring; an existing ring keeps its size
    state_dir: str = STATE_DIR  # saved GPU crash dumps, imported pstore digests
    report_dir: str = f"{STATE_DIR}/reports"  # the boot-time report's <boot_id>.json/.md
    reports_keep: int = 50  # boots whose reports are kept in report_dir
    kmsg: str = "/dev/kmsg"
    sys_root: Path = Path("/sys")
    proc_root: Path = Path("/proc")
    etc_root: Path = Path("/etc")
    fs_root: Path = Path("/")  # root of /etc/sysctl.d and /var/lib/systemd/pstore (a test tree)
    heartbeat_s: float = 1.0
    flush_s: float = 1.0  # longest a non-urgent record waits before it is durable
    urgent_level: int = 4  # kernel records at this level or worse are synced at once
    max_pending_bytes: int = 32 << 20  # kept in memory while the disk refuses writes
    # the kmsg pump's buffer between the device and the daemon (kmsgd/record/kmsgpump.py)
    kmsg_buffer_bytes: int = 32 << 20
    header_every_s: float = 10.0  # how often the head hint in the ring header is refreshed
    apply_sysctl: bool = True
    sensors: bool = True
    power_hz: float = 10.0
    sample_hz: float = 1.0
    top_processes_s: float = 5.0
    # `kmsgd analyze`: how much one input (a bundle, a compressed log) may unpack
    archive_max_members: int = 10_000  # tar members, over every archive of the input
    archive_max_depth: int = 4  # compressed layers and archives inside one another
    input_max_bytes: int = 256 << 20  # bytes decompressed or unpacked from one input
    # `kmsgd fleet` on a collector: where systemd-journal-remote writes the boxes' journals
    fleet_journal_dir: str = "/var/log/journal/remote"
    lock_memory: bool = True
    incident: IncidentConfig = IncidentConfig()  # the [incident] table
    ring_layout: RingConfig = RingConfig()  # the [ring] table
    # node_exporter's textfile directory: the recorder writes kmsgd.prom, the boot-time report
    # kmsgd-last-boot.prom ("" turns both off)
    textfile_dir: str = TEXTFILE_DIR

    @property
    def recorder_textfile(self) -> str:
        return f"{self.textfile_dir}/{RECORDER_TEXTFILE}" if self.textfile_dir else ""

    @property
    def report_textfile(self) -> str:
        return f"{self.textfile_dir}/{REPORT_TEXTFILE}" if self.textfile_dir else ""


# The range (inclusive) of every number in the file, so that nothing read can stop or starve
# recording: nan and inf compare false with every bound and are refused with them; a heartbeat
# of 1e-300 s or 1e300 samples a second would flood the ring, and a size over a disk or a
# count over memory cannot be meant. docs/operator-guide.md (*Settings*) lists them.
KiB, GiB = 1 << 10, 1 << 30
RANGES: dict[str, tuple[float, float]] = {
    "ring_size": (64 * KiB, 1 << 40),
    "reports_keep": (1, 100_000),
    "heartbeat_s": (0.01, 3600.0),
    "flush_s": (0.001, 60.0),
    "urgent_level": (0, 7),  # a syslog level
    "max_pending_bytes": (64 * KiB, 16 * GiB),
    "kmsg_buffer_bytes": (64 * KiB, 4 * GiB),
    "header_every_s": (0.1, 86400.0),
    "power_hz": (0.001, 100.0),
    "sample_hz": (0.001, 100.0),
    "top_processes_s": (0.1, 86400.0),
    "archive_max_members": (1, 10_000_000),
    "archive_max_depth": (1, 32),
    "input_max_bytes": (1 << 20, 1 << 40),
}
INCIDENT_RANGES: dict[str, tuple[float, float]] = {
    "rate_limit_s": (0.0, 7 * 86400.0),  # 0: no rate limit
    "max_s": (1.0, 86400.0),
    "max_bytes": (4 * KiB, 16 * GiB),
    "durable_s": (0.0, 86400.0),  # 0: durable only while triggers come
    "boost_s": (0.0, 86400.0),
    "gpu_hz": (0.001, 100.0),
    "memory_hz": (0.001, 100.0),
    "procs_at_s": (0.0, 86400.0),  # each entry
    "gpus_at_s": (0.0, 86400.0),
    "capture_timeout_s": (0.01, 600.0),
    "psi_full_pct": (0.01, 100.0),
    "mem_available_pct": (0.01, 100.0),
    "stall_s": (0.01, 3600.0),
    "heartbeat_late_s": (0.01, 3600.0),
}


def out_of_range(where: str, value: Any, bounds: tuple[float, float]) -> str | None:
    """The problem with a number (or each number of a list) outside `bounds`, else None."""
    low, high = bounds
    values = value if isinstance(value, tuple) else (value,)
    if all(low <= v <= high for v in values):  # false for nan and for inf past a bound
        return None
    return f"{where}: must be between {low:g} and {high:g}, got {value!r}; the default stays"


@dataclass(frozen=True, slots=True)
class Problem:
    """One thing wrong in the file; its setting keeps the default (or the command-line value)."""

    key: str  # as written, dotted when outside [kmsgd] ("ringsize", "kmsgd.x.y", "ringsize")
    message: str  # one line, naming the fix
    suggestion: str | None = None  # the closest valid name, for a typo


@dataclass(frozen=True, slots=True)
class Settings:
    config: Config
    path: str | None  # the file read; None when there was none
    problems: tuple[Problem, ...] = ()


_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]?)i?B?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """'64M', '16MiB', '1048576' → bytes."""
    m = _SIZE.match(text)
    if not m:
        raise BadInput(f"not a size: {text!r} (use e.g. 64M)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2).upper()]


def closest(name: str) -> str | None:
    """The valid setting a typo most likely meant (difflib), or None."""
    names = [f.name for f in dataclasses.fields(Config)]
    got = difflib.get_close_matches(name, names, n=1, cutoff=0.6)
    if not got:  # "ringsize" vs "ring_size": compare without the underscores too
        bare = {n.replace("_", ""): n for n in names}
        got = [bare[g] for g in difflib.get_close_matches(name.replace("_", ""), bare, n=1)]
    return got[0] if got else None


def read(path: str | None, overrides: Mapping[str, object]) -> Settings:
    """Defaults, then the valid settings of the file's [kmsgd] table (when a file is given or the
    default exists), then command-line overrides (None values ignored). Never fails on the
    file's content; raises BadInput only when an explicitly named file does not exist."""
    problems: list[Problem] = []
    table: dict[str, Any] = {}
    used: str | None = None
    if path is not None:
        doc: dict[str, Any] = {}
        try:
            with _open_regular(path) as f:
                doc = tomllib.load(f)
            used = path
        except FileNotFoundError:
            if path != DEFAULT_CONFIG:
                raise BadInput(f"{path}: no such config file") from None
        except BadInput as err:  # not a regular file
            if path != DEFAULT_CONFIG:
                raise
            used = path
            problems.append(Problem("", f"{err}; every setting at its default"))
        except RecursionError:  # tomllib recurses per nested array or inline table
            used = path
            problems.append(
                Problem("", f"{path}: unreadable, nested too deep; every setting at its default")
            )
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
            used = path
            problems.append(
                Problem("", f"{path}: unreadable, every setting at its default ({err})")
            )
        table = _table(doc, problems)
        if "incident" in doc:
            table["incident"] = incident_table(doc["incident"], problems)
        if isinstance(doc.get("ring"), dict):
            table["ring_layout"] = ring_table(doc["ring"], problems)
    values: dict[str, Any] = {}
    for key, value in table.items():
        checked = _check(key, value, problems)
        if checked is not None:
            values[key] = checked
    for key, value in overrides.items():
        if value is None:
            continue
        bad = out_of_range(key, value, RANGES[key]) if key in RANGES else None
        if bad is not None:  # the command line is not a file to record anyway: refused
            raise BadInput(bad.removesuffix("; the default stays"))
        values[key] = value
    return Settings(Config(**values), used, tuple(problems))


def _open_regular(path: str) -> BinaryIO:
    """The file, opened with O_NONBLOCK so that a FIFO is refused (BadInput) instead of
    waited on forever (fifo(7)); a device or directory is refused the same way, except
    /dev/null (`--config /dev/null`: every setting at its default)."""
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC | os.O_NONBLOCK)
    st = os.fstat(fd)
    null = stat.S_ISCHR(st.st_mode) and st.st_rdev == os.stat(os.devnull).st_rdev
    if not stat.S_ISREG(st.st_mode) and not null:
        os.close(fd)
        raise BadInput(f"{path}: not a regular file (a config file must be one)")
    os.set_blocking(fd, True)
    return os.fdopen(fd, "rb")


def load(path: str | None, overrides: Mapping[str, object]) -> Config:
    """`read`, strict: the first problem in the file raises BadInput."""
    settings = read(path, overrides)
    if settings.problems:
        raise BadInput(settings.problems[0].message)
    return settings.config


def _table(doc: dict[str, Any], problems: list[Problem]) -> dict[str, Any]:
    """The [kmsgd] table; every key outside it is a problem (it would be ignored silently)."""
    for key, value in doc.items():
        if key in ("kmsgd", "incident") or (key == "ring" and isinstance(value, dict)):
            continue
        if isinstance(value, dict):
            problems.append(Problem(key, f"[{key}]: not a kmsgd table, ignored (use [kmsgd])"))
            continue
        hint = closest(key)
        fix = f"; move it into [kmsgd] as {hint}" if hint else ""
        problems.append(Problem(key, f"{key}: above the [kmsgd] table, ignored{fix}", hint))
    table = doc.get("kmsgd", {})
    if not isinstance(table, dict):
        problems.append(Problem("kmsgd", "kmsgd: must be a table ([kmsgd]), ignored"))
        return {}
    return table


def incident_table(table: Any, problems: list[Problem]) -> IncidentConfig:
    """The [incident] table's valid settings over the defaults; each bad one is a problem."""
    if not isinstance(table, dict):
        problems.append(Problem("incident", "incident: must be a table ([incident]), ignored"))
        return IncidentConfig()
    default = IncidentConfig()
    names = {f.name for f in dataclasses.fields(IncidentConfig)}
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = f"incident.{key}"
        if key not in names:
            got = difflib.get_close_matches(key, sorted(names), n=1)
            did = f"; did you mean {got[0]}?" if got else ""
            problems.append(Problem(where, f"{where}: no such setting, ignored{did}"))
            continue
        want = getattr(default, key)
        if isinstance(want, tuple):
            ok = isinstance(value, list) and all(
                isinstance(v, int | float) and not isinstance(v, bool) for v in value
            )
            value = tuple(float(v) for v in value) if ok else None
        elif isinstance(want, float) and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if value is None or type(value) is not type(want):
            problems.append(
                Problem(where, f"{where}: expected {type(want).__name__}; default stays")
            )
            continue
        bounds = INCIDENT_RANGES.get(key)
        bad = out_of_range(where, value, bounds) if bounds is not None else None
        if bad is not None:
            problems.append(Problem(where, bad))
            continue
        values[key] = value
    return dataclasses.replace(default, **values)


def ring_table(table: dict[str, Any], problems: list[Problem]) -> RingConfig:
    """The [ring] table's valid settings over the defaults; each bad one is a problem."""
    values: dict[str, Any] = {}
    for key, value in table.items():
        where = f"ring.{key}"
        if key != "align":
            problems.append(Problem(where, f"{where}: no such setting, ignored"))
        elif type(value) is not int or value not in RING_ALIGNS:
            problems.append(Problem(where, f"{where}: 512 or 4096, got {value!r}; default stays"))
        else:
            values[key] = value
    return RingConfig(**values)


def _check(key: str, value: Any, problems: list[Problem]) -> Any:
    """The value to use for `key`, or None (the default stays) with a problem added."""
    if (key, type(value)) in (("incident", IncidentConfig), ("ring_layout", RingConfig)):
        return value
    fields = {f.name for f in dataclasses.fields(Config)}
    if key not in fields:
        if isinstance(value, dict):
            problems.append(Problem(f"kmsgd.{key}", f"[kmsgd.{key}]: no such table, ignored"))
            return None
        hint = closest(key)
        did = f"; did you mean {hint}?" if hint else ""
        problems.append(Problem(key, f"{key}: no such setting, ignored{did}", hint))
        return None
    want = type(getattr(Config(), key))
    if key == "ring_size" and isinstance(value, str):
        try:
            value = parse_size(value)
        except BadInput as err:
            problems.append(Problem(key, f"{key}: {err}; the default stays"))
            return None
    if want is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if issubclass(want, Path):  # a root directory: a string in the file, a Path from here on
        if not isinstance(value, str):
            problems.append(Problem(key, f"{key}: expected str, got {value!r}; the default stays"))
            return None
        return Path(value)
    if not isinstance(value, want) or (want is int and isinstance(value, bool)):
        problems.append(
            Problem(key, f"{key}: expected {want.__name__}, got {value!r}; the default stays")
        )
        return None
    bad = out_of_range(key, value, RANGES[key]) if key in RANGES else None
    if bad is not None:
        problems.append(Problem(key, bad))
        return None
    return value
