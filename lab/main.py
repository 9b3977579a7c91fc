"""`lab/run [SCENARIO...]`: build or reuse the guest image, install this checkout's kmsgd, run
the scenarios one QEMU at a time, print per-scenario timings and `N passed, N failed`."""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time

from lab.checks import Status
from lab.image import cache_root, ensure_image
from lab.payload import REPO, install
from lab.runner import Outcome, run_one, table
from lab.util import LabError, log

TOOLS = {
    "qemu-system-x86_64": "qemu-system-x86",
    "qemu-img": "qemu-utils",
    "mmdebstrap": "mmdebstrap",
    "mkfs.ext4": "e2fsprogs",
}


def ensure_tools() -> None:
    """Install the host tools from Debian's packages when missing (root only)."""
    missing = sorted({pkg for tool, pkg in TOOLS.items() if shutil.which(tool) is None})
    if not missing:
        return
    if os.geteuid() != 0:
        raise LabError(f"missing host packages: apt-get install {' '.join(missing)}")
    log(f"installing {' '.join(missing)}")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], check=True, env=env, timeout=600)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", *missing],
        check=True,
        env=env,
        timeout=1200,
        stdout=subprocess.DEVNULL,
    )


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="lab/run", description=__doc__)
    ap.add_argument("scenarios", nargs="*", help="names to run (default: all)")
    ap.add_argument("--list", action="store_true", help="list the scenarios and exit")
    ap.add_argument("--rebuild", action="store_true", help="rebuild the cached image")
    ap.add_argument("--keep", action="store_true", help="keep artefacts of passing scenarios")
    ap.add_argument(
        "--freeze-seconds", type=float, default=float(os.environ.get("KMSGD_LAB_FREEZE_S", "180"))
    )
    args = ap.parse_args(argv)
    scenarios = table(args.freeze_seconds)
    if args.list:
        for sc in scenarios:
            print(f"{sc.name:10} {sc.summary}")
        return 0
    unknown = set(args.scenarios) - {sc.name for sc in scenarios}
    if unknown:
        print(
            f"lab/run: unknown scenario(s): {' '.join(sorted(unknown))} (see --list)",
            file=sys.stderr,
        )
        return 2
    chosen = [sc for sc in scenarios if not args.scenarios or sc.name in args.scenarios]
    root = REPO / "build" / "lab-artifacts"
    root.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    try:
        ensure_tools()
        t = time.monotonic()
        image = ensure_image(rebuild=args.rebuild)
        image_s = time.monotonic() - t
        log(f"image {image.root.parent.name} in {cache_root()} ({image_s:.0f} s)")
        inst = install(image, root / "_install")
    except LabError as e:
        print(f"lab/run: {e}", file=sys.stderr)
        return 1
    log(f"install boot took {inst.seconds:.0f} s")
    outcomes: list[Outcome] = []
    for sc in chosen:
        log(f"--- {sc.name}: {sc.summary}")
        out = run_one(sc, image, inst, root, keep=args.keep)
        outcomes.append(out)
        for c in out.checks:
            log(f"  {c.status.value:4} {c.name}: {c.detail}")
        if out.error:
            log(f"  ERROR {out.error}")
        log(f"{sc.name}: {'PASS' if out.passed else 'FAIL'} in {out.seconds:.0f} s")
    total = time.monotonic() - started
    print(f"\n{'scenario':10} {'result':6} {'seconds':>7}  skipped checks")
    print(f"{'(image)':10} {'':6} {image_s:7.0f}")
    print(f"{'(install)':10} {'':6} {inst.seconds:7.0f}  kmsgd installed via {inst.how}")
    for out in outcomes:
        skipped = [c.name for c in out.checks if c.status is Status.SKIP]
        print(
            f"{out.name:10} {'pass' if out.passed else 'FAIL':6} {out.seconds:7.0f}  "
            f"{', '.join(skipped)}"
        )
    summary = {
        "total_s": round(total, 1),
        "image": image.manifest,
        "installed_via": inst.how,
        "kmsgd_commands": sorted(inst.commands),
        "scenarios": [
            {
                "name": o.name,
                "passed": o.passed,
                "seconds": round(o.seconds, 1),
                "error": o.error,
                "checks": [
                    {"name": c.name, "status": c.status.value, "detail": c.detail} for c in o.checks
                ],
            }
            for o in outcomes
        ],
    }
    (root / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    passed = sum(o.passed for o in outcomes)
    failed = len(outcomes) - passed
    print(f"total {total:.0f} s; summary in {root / 'summary.json'}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1
