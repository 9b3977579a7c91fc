"""kmsgd: freeze forensics for Linux GPU boxes."""

__version__ = "0.1.0"
