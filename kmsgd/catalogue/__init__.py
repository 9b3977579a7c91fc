"""The signature catalogue: every known kernel-log signature, one module per family.

`base` is the shape of an entry and `tags` the vocabulary; the other modules hold the entries
(one family or one source sweep each; `table` imports them, in the order they are matched), and
`indirect` the other lines of reports whose event line a cut may lose; `reset` decodes the AMD
reset-reason register; `table` is the ordered catalogue and the matcher over text. Data, mostly:
adding a signature is adding an entry.

May import: kmsgd.ring (the kernel record type), kmsgd.errors, kmsgd.types.
"""
