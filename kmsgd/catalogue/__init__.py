"""The signature catalogue: every known kernel-log signature, one module per family.

`base` is the shape of an entry; `gpu`, `xid`, `kernel`, `hardware`, `lifecycle` hold the
entries; `reset` decodes the AMD reset-reason register; `table` is the ordered catalogue and
the matcher over text. Data, mostly: adding a signature is adding an entry.

May import: kmsgd.ring (the kernel record type), kmsgd.errors, kmsgd.types.
"""
