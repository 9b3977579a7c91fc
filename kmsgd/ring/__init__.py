"""The ring file: the format both programs share.

A preallocated file of checksummed frames holding many boots (`layout`), the byte layout of one
frame (`frame`), the single writer (`writer`) and lock-free readers (`reader`), and the record
types a frame holds (`records`: kernel records, boot, heartbeat, loss and stop records;
`samples` and `events`: sensor payloads; `pstore`: an imported panic dump). The recorder writes
these types, the judge reads them; neither needs the other.

May import: kmsgd.errors, kmsgd.types, kmsgd.text (the output sanitizer). Nothing above the
ring.
"""
