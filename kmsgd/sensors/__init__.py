"""Telemetry sources: hwmon, amdgpu, NVML, memory and PSI, inventory, udev, devcoredumps.

Sources know nothing of the ring: the recorder hands `Sampler.start` an `Emit` callback and
receives plain JSON-able payloads (shapes in `payloads`). Every reader takes its sysfs/procfs
root as a parameter so tests run on fake trees.
"""
