"""sd_notify(3) through systemd-python; a no-op when not started by systemd."""

from __future__ import annotations

import os
from collections.abc import Callable


def notifier() -> Callable[[str], None]:
    """A function sending one notify state ("READY=1", "WATCHDOG=1", "STATUS=...")."""
    if not os.environ.get("NOTIFY_SOCKET"):
        return lambda _state: None
    from systemd import daemon  # only the service needs libsystemd loaded

    def send(state: str) -> None:
        daemon.notify(state)

    return send
