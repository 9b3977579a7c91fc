"""Defaults and the optional TOML config file (/etc/kmsgd/kmsgd.toml). The only place paths live."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass
from typing import Any

from kmsgd.errors import BadInput

DEFAULT_CONFIG = "/etc/kmsgd/kmsgd.toml"
STATE_DIR = "/var/lib/kmsgd"


@dataclass(frozen=True, slots=True)
class Config:
    """Every setting of `kmsgd run`; the TOML file uses the same names in a [kmsgd] table."""

    ring: str = f"{STATE_DIR}/ring"
    ring_size: int = 64 << 20  # bytes, for a new ring; an existing ring keeps its size
    state_dir: str = STATE_DIR  # reports, saved GPU crash dumps
    kmsg: str = "/dev/kmsg"
    sys_root: str = "/sys"
    proc_root: str = "/proc"
    etc_root: str = "/etc"
    fs_root: str = "/"  # root of /etc/sysctl.d and /var/lib/systemd/pstore (a test tree)
    heartbeat_s: float = 1.0
    flush_s: float = 1.0  # longest a non-urgent record waits before it is durable
    urgent_level: int = 4  # kernel records at this level or worse are synced at once
    max_pending_bytes: int = 32 << 20  # kept in memory while the disk refuses writes
    header_every_s: float = 10.0  # how often the head hint in the ring header is refreshed
    apply_sysctl: bool = True
    sensors: bool = True
    power_hz: float = 10.0
    sample_hz: float = 1.0
    top_processes_s: float = 5.0
    # `kmsgd fleet` on a collector: where systemd-journal-remote writes the boxes' journals
    fleet_journal_dir: str = "/var/log/journal/remote"
    lock_memory: bool = True
    # node_exporter textfile with kmsgd_up and ring figures ("" disables it)
    textfile: str = "/var/lib/node_exporter/textfile_collector/kmsgd.prom"


_SIZE = re.compile(r"^\s*(\d+)\s*([KMG]?)i?B?\s*$", re.IGNORECASE)


def parse_size(text: str) -> int:
    """'64M', '16MiB', '1048576' → bytes."""
    m = _SIZE.match(text)
    if not m:
        raise BadInput(f"not a size: {text!r} (use e.g. 64M)")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30}[m.group(2).upper()]


def load(path: str | None, overrides: dict[str, Any]) -> Config:
    """Defaults, then the file's [kmsgd] table (when a file is given or the default exists),
    then command-line overrides (None values ignored)."""
    values: dict[str, Any] = {}
    if path is not None:
        try:
            with open(path, "rb") as f:
                doc = tomllib.load(f)
        except FileNotFoundError:
            if path != DEFAULT_CONFIG:
                raise BadInput(f"{path}: no such config file") from None
            doc = {}
        except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as err:
            raise BadInput(f"{path}: unreadable config ({err})") from None
        table = doc.get("kmsgd", {})
        if not isinstance(table, dict):
            raise BadInput(f"{path}: [kmsgd] must be a table")
        values.update(table)
    values.update({k: v for k, v in overrides.items() if v is not None})
    names = {f.name: f for f in dataclasses.fields(Config)}
    unknown = sorted(set(values) - set(names))
    if unknown:
        raise BadInput(f"unknown setting(s): {', '.join(unknown)}")
    if isinstance(values.get("ring_size"), str):
        values["ring_size"] = parse_size(values["ring_size"])
    for key, value in values.items():
        want = type(getattr(Config(), key))
        if want is float and isinstance(value, int) and not isinstance(value, bool):
            values[key] = float(value)
        elif not isinstance(value, want) or (want is int and isinstance(value, bool)):
            raise BadInput(f"setting {key}: expected {want.__name__}, got {value!r}")
    return Config(**values)
