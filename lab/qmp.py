"""A small QMP client (QEMU Machine Protocol over a unix socket): commands and events, each
wait bounded by a timeout. Standard library only."""

from __future__ import annotations

import json
import socket
import time
from pathlib import Path
from typing import Any

from lab.util import LabError


class Qmp:
    """One QMP session. Events seen while waiting for replies are kept in `events`."""

    def __init__(self, path: Path, *, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while True:
            try:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self._sock.connect(str(path))
                break
            except OSError as e:
                self._sock.close()
                if time.monotonic() > deadline:
                    raise LabError(f"QMP socket {path} did not open within {timeout:.0f} s") from e
                time.sleep(0.1)
        self._buf = b""
        self.events: list[dict[str, Any]] = []
        self._read(timeout)  # greeting
        self.execute("qmp_capabilities")

    def close(self) -> None:
        self._sock.close()

    def _read(self, timeout: float) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise LabError(f"QMP: no message within {timeout:.0f} s")
            self._sock.settimeout(left)
            try:
                chunk = self._sock.recv(65536)
            except TimeoutError:
                continue
            if not chunk:
                raise LabError("QMP: QEMU closed the connection")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        msg: dict[str, Any] = json.loads(line)
        return msg

    def execute(self, command: str, *, timeout: float = 30.0, **arguments: Any) -> Any:
        """Run one QMP command and return its `return` value; QMP errors raise LabError."""
        req: dict[str, Any] = {"execute": command}
        if arguments:
            req["arguments"] = arguments
        self._sock.sendall(json.dumps(req).encode() + b"\n")
        deadline = time.monotonic() + timeout
        while True:
            msg = self._read(max(0.1, deadline - time.monotonic()))
            if "event" in msg:
                self.events.append(msg)
            elif "error" in msg:
                raise LabError(f"QMP {command}: {msg['error'].get('desc', msg['error'])}")
            elif "return" in msg:
                return msg["return"]

    def wait_event(self, names: set[str], *, timeout: float) -> dict[str, Any]:
        """The first event (already seen or new) whose name is in `names`; it is consumed."""
        deadline = time.monotonic() + timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev["event"] in names:
                    return self.events.pop(i)
            left = deadline - time.monotonic()
            if left <= 0:
                raise LabError(f"QMP: none of {sorted(names)} within {timeout:.0f} s")
            msg = self._read(left)
            if "event" in msg:
                self.events.append(msg)
