"""What a command returns: text for people, one JSON object for programs (`--json`); and the one
rule for what reaches the terminal (`terminal_safe`)."""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from typing import Any, Final, TextIO

_UNSAFE: Final = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""Characters a terminal acts on or that reorder what follows: C0 controls but tab and newline, DEL,
C1 controls (0x9b is a one-byte CSI), and the bidirectional marks, embeddings and overrides."""

_UNSAFE_IN_JSON: Final = re.compile("[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
"""What `json.dumps(ensure_ascii=False)` leaves raw of the above (it escapes C0 itself)."""


def terminal_safe(text: str) -> str:
    """`text` with every character of _UNSAFE shown as an escape (`\\x1b`, `\\u202e`): page text,
    page-tool descriptions and results, and client names reach the terminal through the provider,
    and an ESC sequence in them would clear the screen or forge lines."""
    return _UNSAFE.sub(_escape, text)


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


@dataclass
class Result:
    """A command's outcome. `text` is printed as is; with `--json`, `data` is printed as one JSON
    object. `exit_code` is the process exit status; `printed` means the command already wrote it."""

    text: str
    data: Any = None
    exit_code: int = 0
    printed: bool = False


def emit(result: Result, as_json: bool, stream: TextIO | None = None) -> None:
    """Write `result` to `stream` (default stdout): JSON (`ensure_ascii=False`, 2-space indent) or
    text, either way without raw terminal controls (`terminal_safe`)."""
    out = stream or sys.stdout
    if as_json:  # C1 and bidi controls as \\u escapes: the same JSON, safe on a terminal
        text = json.dumps(result.data, indent=2, ensure_ascii=False)
        out.write(_UNSAFE_IN_JSON.sub(lambda m: f"\\u{ord(m.group()):04x}", text) + "\n")
    elif result.text:
        out.write(terminal_safe(result.text.rstrip("\n")) + "\n")
    out.flush()
