"""The report: what a post-mortem says, and where it goes.

`model` builds the frozen report from a verdict; `render` and `render_ring` turn it into text,
Markdown or JSON; `redact` replaces what identifies a machine or a person; `fingerprint` names
a failure stably; `export` and `publish` save reports, send the journal entry and update the
node_exporter textfile.

May import: kmsgd.judge, kmsgd.catalogue, kmsgd.logparse, kmsgd.ring, kmsgd.outputs,
kmsgd.text, kmsgd.errors, kmsgd.types, and kmsgd.fleet.entry_format (the entry's format).
"""
