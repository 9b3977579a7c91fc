"""Text that leaves kmsgd: what every renderer does to strings that came from outside.

`escape` shows control characters the way util-linux `dmesg` does (`\\x1b`), so a kernel line,
a host name or a journal field cannot drive the reader's terminal (OSC 52, titles, CSI, BS).

May import: the standard library only. Every stage that renders (ring, report, fleet) may
import this package.
"""
