"""Writing a file whole: to a temporary file beside it, then a rename, so that no reader — and no interrupted
command — ever leaves half a file behind. Every layer that writes a file a user reads uses this. And strict JSON:
what every `--json` prints, with no NaN or Infinity (which JavaScript's JSON.parse and jq refuse): a number that
is not finite is null."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)


def finite(data: Any) -> Any:
    """The document with every float that is not finite (an unbounded interval's end, a NaN) made None."""
    if isinstance(data, float):
        return data if math.isfinite(data) else None
    if isinstance(data, dict):
        return {k: finite(v) for k, v in data.items()}
    if isinstance(data, (list, tuple)):
        return [finite(v) for v in data]
    return data


def strict_json(data: Any, indent: int = 1) -> str:
    """JSON that a strict parser reads: not-finite numbers as null (json.dumps refuses any left)."""
    return json.dumps(finite(data), indent=indent, allow_nan=False)
