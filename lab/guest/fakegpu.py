"""A fake sysfs root with two amdgpu cards for the PSU-trip scenario (the guest has no sensors).

`fakegpu.py make ROOT` builds ROOT with class/hwmon and class/drm for two cards modelled on real
amdgpu trees (power in µW), every other top-level /sys entry a link to the real one.
`fakegpu.py set ROOT WATTS` writes both cards' power in place (fixed width, no truncation, so a
reader holding the file open never sees it empty) and prints the guest's wall clock.
"""

import os
import sys
import time

CARDS = (("0000:03:00.0", "card0", "hwmon0"), ("0000:04:00.0", "card1", "hwmon1"))
WIDTH = 10


def make(root: str) -> None:
    os.makedirs(root, exist_ok=True)
    for name in os.listdir("/sys"):
        if name not in ("class", "devices", "bus"):
            link = os.path.join(root, name)
            if not os.path.lexists(link):
                os.symlink(os.path.join("/sys", name), link)
    for name in os.listdir("/sys/class"):
        if name not in ("hwmon", "drm"):
            os.makedirs(os.path.join(root, "class"), exist_ok=True)
            link = os.path.join(root, "class", name)
            if not os.path.lexists(link):
                os.symlink(os.path.join("/sys/class", name), link)
    os.makedirs(os.path.join(root, "bus/pci/drivers/amdgpu"), exist_ok=True)
    for addr, card, hwmon in CARDS:
        dev = os.path.join(root, "devices/pci0000:00", addr)
        hw = os.path.join(dev, "hwmon", hwmon)
        os.makedirs(hw, exist_ok=True)
        os.makedirs(os.path.join(dev, "drm", card), exist_ok=True)
        files = {
            os.path.join(dev, "uevent"): f"DRIVER=amdgpu\nPCI_ID=1002:7551\nPCI_SLOT_NAME={addr}\n",
            os.path.join(dev, "vendor"): "0x1002\n",
            os.path.join(dev, "device"): "0x7551\n",
            os.path.join(dev, "gpu_busy_percent"): "0\n",
            os.path.join(dev, "mem_info_vram_used"): "268435456\n",
            os.path.join(dev, "mem_info_vram_total"): "34342961152\n",
            os.path.join(hw, "name"): "amdgpu\n",
            os.path.join(hw, "power1_label"): "PPT\n",
            os.path.join(hw, "power1_average"): f"{12_000_000:0{WIDTH}d}\n",
            os.path.join(hw, "power1_cap"): f"{300_000_000:0{WIDTH}d}\n",
            os.path.join(hw, "temp1_label"): "edge\n",
            os.path.join(hw, "temp1_input"): "38000\n",
            os.path.join(hw, "temp2_label"): "junction\n",
            os.path.join(hw, "temp2_input"): "41000\n",
        }
        for path, text in files.items():
            with open(path, "w") as f:
                f.write(text)
        for link, target in (
            (os.path.join(dev, "driver"), os.path.join(root, "bus/pci/drivers/amdgpu")),
            (os.path.join(hw, "device"), dev),
            (os.path.join(dev, "drm", card, "device"), dev),
        ):
            if not os.path.lexists(link):
                os.symlink(target, link)
        drm = os.path.join(dev, "drm", card)
        for cls, name, target in (("hwmon", hwmon, hw), ("drm", card, drm)):
            os.makedirs(os.path.join(root, "class", cls), exist_ok=True)
            link = os.path.join(root, "class", cls, name)
            if not os.path.lexists(link):
                os.symlink(target, link)


def set_power(root: str, watts: float) -> None:
    data = f"{int(watts * 1_000_000):0{WIDTH}d}\n".encode()
    for _, _, hwmon in CARDS:
        fd = os.open(os.path.join(root, "class/hwmon", hwmon, "power1_average"), os.O_WRONLY)
        try:
            os.pwrite(fd, data, 0)
        finally:
            os.close(fd)
    print(f"{time.time():.6f}")


if __name__ == "__main__":
    if sys.argv[1] == "make":
        make(sys.argv[2])
    else:
        set_power(sys.argv[2], float(sys.argv[3]))
