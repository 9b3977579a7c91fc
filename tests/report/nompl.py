"""An install without the plot extra, played: importing matplotlib fails."""

from __future__ import annotations

import builtins
import sys
from typing import Any

import pytest


def hide_matplotlib(monkeypatch: pytest.MonkeyPatch) -> None:
    """As on an install without the plot extra: importing matplotlib fails."""
    real = builtins.__import__

    def imp(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError(f"No module named {name!r}")
        return real(name, *args, **kwargs)

    for mod in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, mod)
    monkeypatch.setattr(builtins, "__import__", imp)
