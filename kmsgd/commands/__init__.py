"""The cores of the commands, without click: `lastboot` (`kmsgd last-boot`, `kmsgd boots`),
`analyze` (`kmsgd analyze`) and `install_units` (`kmsgd install-units`). Each takes plain
values by keyword and returns what the command prints; kmsgd/cli.py is the click edge over
them (options, exit statuses, stdout).

May import: kmsgd.judge, kmsgd.report, kmsgd.logparse, kmsgd.catalogue, kmsgd.ring,
kmsgd.record (install_units: the sysctl file it installs), kmsgd.config, kmsgd.outputs,
kmsgd.text, kmsgd.errors, kmsgd.types.
"""
