"""How the native host shows a string someone else wrote: a page's title or tool description, an
MCP client's self-declared name. One rule for every place it is shown or offered (the MCP
`tools/list` of page tools, the activity log behind "Who read it" and `webctx activity`); the
extension's pages apply the same rule (`extension/service_worker/display_text.js`).

Removed: C0 and C1 controls (ESC would drive a terminal, NUL and BEL confuse clients), the bidi
marks, embeddings, overrides and isolates (U+202E shows a fake name and reverses the real one),
zero-width and invisible format characters, and tag characters (U+E0000-E007F, invisible text).
Line and paragraph breaks (CR, LF, U+0085, U+2028, U+2029, tabs) become one space in a line of
text (`display_line`); a block of text keeps its line feeds (`display_block`).
"""

from __future__ import annotations

import re
from typing import Final

HIDDEN: Final = re.compile(
    "[\x00-\x1f\x7f-\x9f\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e"
    "\u2060-\u206f\u2800\u3164\ufeff\uffa0\U000e0000-\U000e007f]"
)
"""Characters never shown: C0 (tab and line feed included: callers turn breaks into spaces or line
feeds first), DEL, C1, bidi controls (U+061C, U+200E/F, U+202A-202E, U+2066-2069), zero-width and
invisible format characters (U+200B-200D, U+2060-2065, U+206A-206F, U+FEFF, U+180E), letters and
symbols that draw nothing (U+034F, Hangul fillers U+115F/U+1160/U+3164/U+FFA0, U+17B4/U+17B5,
U+2800 braille blank; the same set as extension/service_worker/display_text.js), tags."""

BREAKS: Final = re.compile("[\t\n\v\f\r\x85\u2028\u2029]+")
"""A run of line or paragraph breaks (tabs too): one space in a line."""

_LINE_BREAK: Final = re.compile("\r\n|[\r\x85\u2028\u2029]")
"""A line break other than a line feed: a line feed in a block."""


def display_line(text: str) -> str:
    """`text` as one line: each run of BREAKS one space, every HIDDEN character removed."""
    return HIDDEN.sub("", BREAKS.sub(" ", text))


def display_block(text: str) -> str:
    """`text` as lines: CR LF, CR, U+0085, U+2028 and U+2029 become a line feed, a tab a space;
    every other HIDDEN character is removed, line feeds kept."""
    lines = _LINE_BREAK.sub("\n", text).replace("\t", " ").split("\n")
    return "\n".join(HIDDEN.sub("", line) for line in lines)
