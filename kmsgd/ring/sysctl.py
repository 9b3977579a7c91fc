"""The `sysctl` record: what kmsgd found or did to the forensic sysctls at start.

`kmsgd sysctl apply` (kmsgd/record/sysctl_set.py) reads each key back from the kernel before and
after writing it; with the service setting them in a step of its own, the recorder records
what it found (old is new). Values are the kernel's text (`kernel.printk` is tab-separated).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class SysctlSetting:
    """One key: the value wanted, the value before and after, and why it is not as wanted."""

    key: str  # "kernel.panic"
    desired: str | None
    old: str | None  # None: could not be read
    new: str | None
    error: str | None = None  # a `record.sysctl_set.Failure` word ("missing", "read_only", ...)

    def to_payload(self) -> dict[str, str | None]:
        return {
            "key": self.key,
            "desired": self.desired,
            "old": self.old,
            "new": self.new,
            "error": self.error,
        }


@dataclass(frozen=True, slots=True)
class SysctlRecord:
    settings: tuple[SysctlSetting, ...] = ()

    def to_payload(self) -> dict[str, Any]:
        return {"changes": [s.to_payload() for s in self.settings]}

    @classmethod
    def from_payload(cls, data: Mapping[str, Any]) -> SysctlRecord:
        """The record's settings; a row without a key (another writer's, damage) is left out."""
        rows = data.get("changes")
        return cls(
            tuple(
                SysctlSetting(
                    row["key"],
                    _text(row.get("desired")),
                    _text(row.get("old")),
                    _text(row.get("new")),
                    _text(row.get("error")),
                )
                for row in (rows if isinstance(rows, list) else ())
                if isinstance(row, Mapping) and isinstance(row.get("key"), str)
            )
        )


def _text(value: object) -> str | None:
    return None if value is None else str(value)
