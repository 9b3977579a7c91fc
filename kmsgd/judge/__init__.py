"""The post-mortem's reasoning: from one boot's records to a verdict.

`bootview` reads one boot of a ring in bounded memory; `timeline` keeps its kernel lines and the
signatures found in them; `liveness` answers when the boot died; `rules` and `classify` judge
kernel lines (shared with `kmsgd analyze`), `ring_rules` adds what only the ring knows;
`telemetry` and `changes` summarise sensors and inventory; `pstore_owner` (which boot wrote a
pstore dump) and `shutdown` (the journal kmsgd.logparse.systemd_journal reads) are the other
witnesses. Pure where it can be: no
rendering, no writing.

May import: kmsgd.ring, kmsgd.catalogue, kmsgd.logparse, kmsgd.errors, kmsgd.types.
"""
