"""The signature catalogue: every known kernel-log signature, one module per family.

`base` is the shape of an entry and `tags` the vocabulary; `core_sweep`, `core_wording`, `eeh`,
`firmware`, `fs_words`, `gpu`, `gpu_amd`, `gpu_amd_reset`, `gpu_faults`, `gpu_firmware`,
`gpu_intel`, `gpu_more`, `gpu_nvother`, `gpu_nvother2`, `gpu_other`, `gpu_wording`, `hardware`,
`io_sweep`, `iommu_sweep`, `kernel`, `kernel_cut`, `lifecycle`, `lustre`, `net`, `net_sweep`, `nmi`,
`platform`, `probe`, `storage_eh`, `storage_hba`, `storage_md`, `storage_net`, `sweep_virt`,
`sweep_virt2`, `sys_more`,
`virt`, `xid` hold
the entries (one family or one source sweep each), and `indirect` the other lines of reports whose
event line a cut may lose; `reset` decodes the AMD reset-reason register; `table` is the ordered
catalogue and the matcher over text. Data, mostly: adding a signature is adding an entry.

May import: kmsgd.ring (the kernel record type), kmsgd.errors, kmsgd.types.
"""
