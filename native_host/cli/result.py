"""What a command returns: text for people, one JSON object for programs (`--json`)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import Any, TextIO


@dataclass
class Result:
    """A command's outcome. `text` is printed as is; with `--json`, `data` is printed as one JSON
    object. `exit_code` is the process exit status; `printed` means the command already wrote it."""

    text: str
    data: Any = None
    exit_code: int = 0
    printed: bool = False


def emit(result: Result, as_json: bool, stream: TextIO | None = None) -> None:
    """Write `result` to `stream` (default stdout): JSON (`ensure_ascii=False`, 2-space indent) or text."""
    out = stream or sys.stdout
    if as_json:
        out.write(json.dumps(result.data, indent=2, ensure_ascii=False) + "\n")
    elif result.text:
        out.write(result.text.rstrip("\n") + "\n")
    out.flush()
