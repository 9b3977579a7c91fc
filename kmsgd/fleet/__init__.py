"""The fleet: post-mortems of many boxes, read from the journal files a collector's
`systemd-journal-remote` writes, grouped into clusters with what their boxes share.

Data flows one way, left to right:

    entry_format (the journal entry's fields, the contract with the report side)
      -> source (journal files -> PostMortem values; the only module here that uses systemd)
      -> attributes (what a boot ran on: kernel, command-line parameters, GPUs, firmware, BIOS)
      -> cluster (boxes, clusters) -> shared (what a cluster's boxes share, ranked)
      -> render_answer (text, Markdown, JSON `kmsgd.fleet/1`)

May import: the standard library, `systemd.journal` (in `source` only), `kmsgd.types`,
`kmsgd.errors` and `kmsgd.text` (the output sanitizer); never the recorder, the ring or the
classifier. The report side imports `kmsgd.fleet.entry_format` (standard library only) to write
entries in this format.
"""
