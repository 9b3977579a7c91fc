"""The recorder: the long-running daemon behind `kmsgd run`.

Follows /dev/kmsg (`kmsg`), stamps records and hands them to the group-commit thread
(`committer`) that alone waits on the disk; sets the forensic sysctls (`sysctl_set`), imports
pstore dumps at start (`pstore_scan`), captures what a hang leaves (`incident_mode`), and does
what the host asks of a service (`hostenv`, `notify`, `procfs`, `log`). It runs for months on
locked memory, so it carries no post-mortem code.

May import: kmsgd.ring, kmsgd.sensors, kmsgd.config, kmsgd.outputs, kmsgd.errors, kmsgd.types.
Never kmsgd.judge, kmsgd.report, kmsgd.logparse, kmsgd.catalogue, or click.
"""
