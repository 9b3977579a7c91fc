"""One QEMU guest: started with -kernel/-initrd under TCG, driven through QMP and the agent port.

ttyS0 is the kernel and systemd console, appended to `console.log` across every boot of a
scenario (kept as the artefact on failure). Commands and results travel on a separate
virtio-serial port, so results are never mixed with console lines and need no disk to come back.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lab.image import Image
from lab.qmp import Qmp
from lab.util import LabError, log

# pstore: Debian builds ramoops as a module; reserve 1 MiB at 512 MiB (half of a 1 GiB guest),
# which survives QEMU's in-process reset because a reset does not clear guest RAM.
PSTORE_APPEND = (
    "memmap=1M$0x20000000 ramoops.mem_address=0x20000000 ramoops.mem_size=0x100000 "
    "ramoops.record_size=0x20000 ramoops.ecc=1"
)
BASE_APPEND = "console=ttyS0,115200 root=/dev/vda rw panic=1 net.ifnames=0 " + PSTORE_APPEND


@dataclass(frozen=True, slots=True)
class Reply:
    """What a guest command did; `wall` is the guest's clock when it finished."""

    rc: int
    out: str
    err: str
    wall: float


@dataclass(frozen=True, slots=True)
class Hello:
    boot_id: str
    wall: float
    uptime: float
    host_wall: float  # host clock when the hello arrived


class Vm:
    """A running QEMU. Use as a context manager: QEMU is always killed on the way out."""

    def __init__(
        self,
        image: Image,
        disk: Path,
        workdir: Path,
        *,
        payload: Path | None = None,
        memory_mb: int = 1024,
        smp: int = 2,
    ) -> None:
        self.image, self.disk, self.workdir, self.payload = image, disk, workdir, payload
        self.memory_mb, self.smp = memory_mb, smp
        self.console = workdir / "console.log"
        self.proc: subprocess.Popen[bytes] | None = None
        self.qmp: Qmp | None = None
        self._agent: socket.socket | None = None
        self._buf = b""
        self._next_id = 0
        self.boot_id: str | None = None

    def argv(self) -> list[str]:
        w = self.workdir
        drives = [
            # cache=writeback: a guest flush (fdatasync) reaches the host file, while what the
            # guest never flushed dies with its page cache on reset, as on real hardware.
            "-drive",
            f"file={self.disk},if=virtio,format=qcow2,cache=writeback",
        ]
        if self.payload is not None:
            drives += ["-drive", f"file={self.payload},if=virtio,format=raw,readonly=on"]
        return [
            "qemu-system-x86_64", "-machine", "q35,accel=tcg", "-cpu", "max",
            "-smp", str(self.smp), "-m", str(self.memory_mb),
            "-nodefaults", "-no-user-config", "-display", "none", "-nic", "none",
            "-rtc", "base=utc,clock=host",
            "-kernel", str(self.image.kernel), "-initrd", str(self.image.initrd),
            "-append", BASE_APPEND,
            *drives,
            "-chardev", f"file,id=con0,path={self.console},append=on", "-serial", "chardev:con0",
            "-chardev", f"socket,id=agent0,path={w / 'agent.sock'},server=on,wait=off",
            "-device", "virtio-serial-pci",
            "-device", "virtserialport,chardev=agent0,name=kmsgd.lab.agent",
            "-qmp", f"unix:{w / 'qmp.sock'},server=on,wait=off",
        ]  # fmt: skip

    def start(self) -> None:
        """Start QEMU (a cold boot) and connect to QMP and the agent port."""
        for name in ("qmp.sock", "agent.sock"):
            (self.workdir / name).unlink(missing_ok=True)
        qlog = (self.workdir / "qemu.log").open("ab")
        self.proc = subprocess.Popen(
            self.argv(), stdout=qlog, stderr=qlog, stdin=subprocess.DEVNULL
        )
        qlog.close()
        self.qmp = Qmp(self.workdir / "qmp.sock", timeout=30)
        self._agent = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._agent.connect(str(self.workdir / "agent.sock"))
        self._buf = b""

    def __enter__(self) -> Vm:
        return self

    def __exit__(self, *exc: object) -> None:
        self.kill()

    def kill(self) -> None:
        if self.qmp is not None:
            self.qmp.close()
            self.qmp = None
        if self._agent is not None:
            self._agent.close()
            self._agent = None
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        self.proc = None

    # --- the agent channel ---------------------------------------------------------------

    def _send(self, obj: dict[str, Any]) -> None:
        if self._agent is None:
            raise LabError("agent channel is not connected (QEMU not started)")
        self._agent.sendall(json.dumps(obj).encode() + b"\n")

    def _recv(self, timeout: float) -> dict[str, Any] | None:
        """The next agent message, or None when `timeout` passes first."""
        assert self._agent is not None
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            self._agent.settimeout(left)
            try:
                chunk = self._agent.recv(1 << 20)
            except TimeoutError:
                return None
            if not chunk:
                raise LabError("agent channel closed: QEMU exited")
            self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        try:
            msg: dict[str, Any] = json.loads(line)
        except ValueError:
            return {}
        return msg

    def wait_boot(self, *, timeout: float = 180) -> Hello:
        """Wait until the agent of a boot other than the last one seen says hello."""
        deadline = time.monotonic() + timeout
        started = time.monotonic()
        while time.monotonic() < deadline:
            self._send({"op": "ping"})
            end = time.monotonic() + 3
            while (msg := self._recv(max(0.0, end - time.monotonic()))) is not None:
                if msg.get("op") == "hello" and msg["boot_id"] != self.boot_id:
                    self.boot_id = msg["boot_id"]
                    took = time.monotonic() - started
                    log(f"guest up (boot {self.boot_id[:8]}) after {took:.0f} s")
                    return Hello(msg["boot_id"], msg["wall"], msg["uptime"], time.time())
            if self.proc is not None and self.proc.poll() is not None:
                status = self.proc.returncode
                raise LabError(f"QEMU exited (status {status}) before the guest came up")
        raise LabError(f"guest did not come up within {timeout:.0f} s")

    def sh(self, cmd: str, *, timeout: float = 60, check: bool = True) -> Reply:
        """Run `cmd` with /bin/sh in the guest and wait for it (bounded by `timeout`)."""
        self._next_id += 1
        rid = self._next_id
        self._send({"op": "sh", "id": rid, "cmd": cmd, "timeout": timeout})
        deadline = time.monotonic() + timeout + 15
        while (left := deadline - time.monotonic()) > 0:
            msg = self._recv(left)
            if msg is not None and msg.get("id") == rid:
                reply = Reply(int(msg["rc"]), msg["out"], msg["err"], float(msg["wall"]))
                if check and reply.rc != 0:
                    why = reply.err[-1500:]
                    raise LabError(f"guest command failed (rc {reply.rc}): {cmd}\n{why}")
                return reply
        raise LabError(f"guest command got no answer within {timeout:.0f} s: {cmd}")

    def spawn(self, cmd: str) -> None:
        """Start `cmd` in the guest in the background (its own session) without waiting."""
        self._next_id += 1
        self._send({"op": "spawn", "id": self._next_id, "cmd": cmd})

    def clock_offset(self, *, timeout: float = 30) -> float:
        """Guest wall clock minus host wall clock, in seconds, from one ping round trip.

        A ping is answered by the agent itself (no fork), so this works in a starving guest.
        """
        before = time.time()
        self._send({"op": "ping"})
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            msg = self._recv(left)
            if msg and msg.get("op") == "hello" and msg["boot_id"] == self.boot_id:
                return float(msg["wall"]) - (before + time.time()) / 2
        raise LabError(f"guest agent did not answer a ping within {timeout:.0f} s")

    # --- the machine -----------------------------------------------------------------------

    def q(self) -> Qmp:
        if self.qmp is None:
            raise LabError("QMP is not connected (QEMU not started)")
        return self.qmp

    def wait_exit(self, *, timeout: float) -> int:
        """Wait for QEMU to exit by itself (guest power-off)."""
        if self.proc is None:
            raise LabError("QEMU is not running")
        try:
            status = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired as e:
            raise LabError(f"guest did not power off within {timeout:.0f} s") from e
        self.kill()
        return status
