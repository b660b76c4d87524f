"""A package whose names load their modules when first asked for (PEP 562).

`zero_tui.store` and `zero_tui.agent` export names this way, so that importing one light
module of theirs does not load the rest (the picker's first frame, a CLI command).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_names(
    package: str, homes: Mapping[str, str], namespace: dict[str, Any]
) -> Callable[[str], object]:
    """The package's `__getattr__`: a name imported from its module in `homes`, then kept in
    the package's `namespace`, so that the next lookup is a plain one."""

    def __getattr__(name: str) -> object:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(home), name)
        namespace[name] = value
        return value

    return __getattr__
