"""Writing a file whole: to a temporary file beside it, then a rename, so that no reader — and no interrupted
command — ever leaves half a file behind. Every layer that writes a file a user reads uses this."""

from __future__ import annotations

from pathlib import Path


def write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    tmp.replace(path)
