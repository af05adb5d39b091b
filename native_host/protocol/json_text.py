"""The one text rule for JSON on the native port, both ways: UTF-8, and lone UTF-16 surrogates
become U+FFFD (design.md §2 "Text is always valid Unicode"; design.md §4 frames).

```
browser → host   decode_frame(body)     UTF-8 JSON object with a string `type`; "\\ud800" → U+FFFD
host → browser   encode_json(message)   compact UTF-8 JSON; a lone surrogate in a string → U+FFFD
```

Standard library only (plus `native_host.errors`): the first `hello` is answered by
provider/port/early_hello.py before pydantic and asyncio load, and it must answer by the same rule as
provider/port/framing.py, which every later frame goes through.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final, cast

from native_host.errors import FrameError

ESCAPED_SURROGATE: Final = re.compile(rb"\\u[dD][89a-fA-F]")
"""A `\\uD800` to `\\uDFFF` escape in a frame's bytes: only then can `json.loads` make a lone surrogate
(raw surrogates are invalid UTF-8 and fail decoding first)."""

SURROGATE: Final = re.compile("[\ud800-\udfff]")
"""One UTF-16 surrogate code point in a Python str (paired ones never occur: `json.loads` joins
a valid pair into one code point)."""


def replace_lone_surrogates(value: Any) -> Any:
    """Return `value` with every lone UTF-16 surrogate in its strings (keys included) replaced by
    U+FFFD, walking dicts and lists recursively (design.md §2 "Text is always valid Unicode").
    Raises RecursionError on a value nested deeper than Python's recursion limit."""
    if isinstance(value, str):
        return SURROGATE.sub("\ufffd", value)
    if isinstance(value, list):
        return [replace_lone_surrogates(item) for item in value]
    if isinstance(value, dict):
        return {replace_lone_surrogates(key): replace_lone_surrogates(item) for key, item in value.items()}
    return value


def decode_frame(payload: bytes) -> dict[str, Any]:
    """Parse one frame body: UTF-8 JSON holding an object with a string `type`.

    Lone surrogates (`"\\ud800"` escapes) become U+FFFD. Raises FrameError for invalid UTF-8,
    invalid JSON, a non-object, or a missing/non-string `type`; the message names the fault and
    the size in bytes, never the content.
    """
    try:
        text = payload.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FrameError(f"Dropped a {len(payload)}-byte frame: invalid UTF-8 at byte {exc.start}.") from None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError) as exc:  # RecursionError: nested deeper than Python allows
        msg = f"Dropped a {len(payload)}-byte frame: invalid JSON ({type(exc).__name__})."
        raise FrameError(msg) from None
    if not isinstance(value, dict):
        kind = type(value).__name__
        raise FrameError(f"Dropped a {len(payload)}-byte frame: a JSON {kind}, not an object.")
    if not isinstance(value.get("type"), str):
        raise FrameError(f"Dropped a {len(payload)}-byte frame: no string `type`.")
    if ESCAPED_SURROGATE.search(payload):
        try:
            return cast(dict[str, Any], replace_lone_surrogates(value))
        except RecursionError:
            raise FrameError(f"Dropped a {len(payload)}-byte frame: nested too deeply.") from None
    return value


def encode_json(message: dict[str, Any]) -> bytes:
    """The compact UTF-8 JSON of `message`; lone surrogates in its strings become U+FFFD (never a
    `\\ud800` escape: the browser's `JSON.parse` would make it a lone surrogate again)."""
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return SURROGATE.sub("\ufffd", text).encode("utf-8")
