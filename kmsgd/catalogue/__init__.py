"""The signature catalogue: every known kernel-log signature, one module per family.

`base` is the shape of an entry; `gpu`, `gpu_other`, `gpu_more`, `gpu_firmware`, `gpu_intel`,
`gpu_faults`, `gpu_nvother`, `gpu_nvother2`, `probe`, `xid`, `kernel`, `hardware`,
`lifecycle`, `net`, `nmi` hold the entries, and `indirect` the other lines of reports whose
event line a cut may lose; `reset` decodes the AMD reset-reason register; `table` is the
ordered catalogue and the matcher over text. Data, mostly: adding a signature is adding an
entry.

May import: kmsgd.ring (the kernel record type), kmsgd.errors, kmsgd.types.
"""
