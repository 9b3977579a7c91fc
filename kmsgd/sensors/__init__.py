"""Telemetry sources: hwmon, amdgpu, NVML, memory and PSI, inventory, udev, devcoredumps.

Sources know nothing of the ring's file: the recorder hands `Sampler.start` an `Emit` callback
and receives typed payloads (the ring's record types, `kmsgd.ring.samples` and
`kmsgd.ring.events`). Every reader takes its sysfs/procfs root as a `pathlib.Path` parameter
so tests run on fake trees.

May import: kmsgd.ring (record types), kmsgd.errors, kmsgd.types.
"""
