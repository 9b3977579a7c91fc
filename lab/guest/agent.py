"""The lab's hands inside the guest: runs shell commands sent by the host over virtio-serial.

One JSON object per line each way, on a dedicated port so kernel console lines can never
interleave with results (the serial console ttyS0 stays a pure log). Standard library only:
it runs on the guest's Debian python3 before kmsgd is installed.

  host → guest  {"op": "ping"} | {"op": "sh", "id": N, "cmd": "...", "timeout": S}
                | {"op": "spawn", "id": N, "cmd": "..."}
  guest → host  {"op": "hello", "boot_id": ..., "wall": ..., "uptime": ...}
                | {"id": N, "rc": ..., "out": ..., "err": ..., "wall": ...}
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import subprocess
import threading
import time
from typing import Any

PORT = "/dev/virtio-ports/kmsgd.lab.agent"
_write_lock = threading.Lock()


def send(fd: int, obj: dict[str, Any]) -> None:
    data = (json.dumps(obj) + "\n").encode()
    with _write_lock:
        while data:
            n = os.write(fd, data)
            data = data[n:]


def hello() -> dict[str, Any]:
    with open("/proc/sys/kernel/random/boot_id") as f:
        boot_id = f.read().strip().replace("-", "")
    with open("/proc/uptime") as f:
        uptime = float(f.read().split()[0])
    return {"op": "hello", "boot_id": boot_id, "wall": time.time(), "uptime": uptime}


def run_sh(fd: int, req: dict[str, Any]) -> None:
    reply: dict[str, Any] = {"id": req.get("id")}
    try:
        if req["op"] == "spawn":
            proc = subprocess.Popen(
                ["/bin/sh", "-c", req["cmd"]],
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                start_new_session=True,
            )
            reply.update(rc=0, pid=proc.pid, out="", err="")
        else:
            done = subprocess.run(
                ["/bin/sh", "-c", req["cmd"]],
                stdin=subprocess.DEVNULL,
                capture_output=True,
                timeout=float(req.get("timeout", 60)),
                check=False,
            )
            reply.update(
                rc=done.returncode,
                out=done.stdout.decode(errors="replace"),
                err=done.stderr.decode(errors="replace"),
            )
    except subprocess.TimeoutExpired:
        reply.update(rc=-1, out="", err=f"timed out after {req.get('timeout')} s")
    except Exception as e:  # the host must always get an answer, whatever went wrong
        reply.update(rc=-2, out="", err=f"{type(e).__name__}: {e}")
    reply["wall"] = time.time()
    send(fd, reply)


def lock_memory() -> None:
    # Keep the agent's pages resident so it still answers while the memory hog thrashes.
    with contextlib.suppress(Exception):
        ctypes.CDLL(None, use_errno=True).mlockall(1)  # MCL_CURRENT


def main() -> None:
    while not os.path.exists(PORT):
        time.sleep(0.2)
    fd = os.open(PORT, os.O_RDWR)
    lock_memory()
    send(fd, hello())
    buf = b""
    while True:
        chunk = os.read(fd, 65536)
        if not chunk:
            time.sleep(0.1)  # host side not connected yet
            continue
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                req = json.loads(line)
            except ValueError:
                continue
            if req.get("op") == "ping":
                send(fd, hello())
            elif req.get("op") in ("sh", "spawn"):
                threading.Thread(target=run_sh, args=(fd, req), daemon=True).start()


if __name__ == "__main__":
    main()
