"""`kmsgd check`: is this machine set up to leave a post-mortem? One finding per question
(configuration, recorder and ring, sysctls, pstore, journal, node_exporter, NVIDIA, sensors,
room), each OK, WARN or FAIL with the fix. Every reader takes its roots from the settings
(sys_root, proc_root, fs_root), so tests run it on fake trees.

May import: kmsgd.config, kmsgd.ring, kmsgd.record (the sysctl logic, procfs), kmsgd.sensors
(discovery, the NVIDIA probe), kmsgd.errors, kmsgd.types. Never click, the judge or the report.
"""
