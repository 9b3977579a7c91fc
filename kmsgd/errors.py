"""The few exceptions kmsgd raises on purpose. The CLI turns each into one line and exit 2
(NothingToJudge: exit 3)."""

from __future__ import annotations


class KmsgdError(Exception):
    """A failure the user can act on; `str(err)` is the whole message, `hint` what to do."""

    def __init__(self, message: str, *, hint: str = "") -> None:
        super().__init__(message)
        self.hint = hint


class BadInput(KmsgdError):
    """Input that cannot be used at all: an empty or binary log, an unknown option value."""


class NothingToJudge(BadInput):
    """No ended boot to judge: an empty ring, or one that holds only the running boot (the
    first boot after installing). Not a usage error: `kmsgd last-boot` exits 3."""


class RingCorrupt(KmsgdError):
    """A file that is not a kmsgd ring, or whose header cannot be trusted."""

    def __init__(self, path: str, offset: int, why: str, *, replaceable: bool = True) -> None:
        super().__init__(f"{path}: not a usable kmsgd ring ({why} at byte {offset})")
        self.path = path
        self.offset = offset
        self.why = f"{why} at byte {offset}"
        # False where the path itself is wrong (a symlink, a device): never moved aside.
        self.replaceable = replaceable


class RingBusy(KmsgdError):
    """Another `kmsgd run` holds the ring's write lock."""


class SourceUnavailable(KmsgdError):
    """A required source (/dev/kmsg, the proc root) is missing or not readable."""
