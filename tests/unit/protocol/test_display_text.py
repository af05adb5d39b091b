"""protocol/display_text.py: page strings and client names as the native host shows or offers them,
and its two users: a client's declared name (client_info.name_of) and page tools' MCP entries."""

from __future__ import annotations

import pytest

from native_host.protocol.client_info import ClientName, name_of
from native_host.protocol.display_text import display_block, display_line
from native_host.provider.page_tools import mcp_tool
from tests.unit.provider.test_page_tools import page_tool

HOSTILE = "a\x1b[2Jb\x00c\x07d\u202ee\u200bf\U000e0041g\x9bh"


BIDI = ["\u200e", "\u200f", "\u202a", "\u202b", "\u202c", "\u202d", "\u202e", "\u2066", "\u2069", "\u061c"]


@pytest.mark.parametrize("mark", BIDI)
def test_every_bidi_control_is_removed(mark: str) -> None:
    assert display_line(f"x{mark}y") == "xy"


def test_a_line_loses_controls_invisible_and_tag_characters_and_breaks_become_spaces() -> None:
    assert display_line(HOSTILE) == "a[2Jbcdefgh"
    breaks = "one\ntwo\u2028three\u2029four\x85five\r\nsix\tseven"
    assert display_line(breaks) == "one two three four five six seven"
    assert display_line("שלום — Hello 😀") == "שלום — Hello 😀"


def test_a_block_keeps_its_lines_and_loses_the_rest() -> None:
    assert display_block("line 1\r\nline\u202e 2\u2028line\x1b 3\tend") == "line 1\nline 2\nline 3 end"


def test_a_client_name_with_esc_newline_and_rlo_is_recorded_clean() -> None:
    got = name_of({"name": "Evil\x1b[2J\nClaude\u202e\u2028Code\u200b", "version": "1\x07.0"})
    assert got == ClientName("Evil[2J Claude Code", "1.0")
    assert name_of({"name": "\x1b\u202e\u200b"}) is None  # nothing left: not a name


def test_a_page_tools_description_and_title_reach_clients_without_controls() -> None:
    fields = {"description": f"Pay.\n{HOSTILE}", "title": "T\u202eitle\x00", "pageTitle": "Sh\x1bop\u2028x"}
    tool = mcp_tool(page_tool(**fields))
    assert tool.title == "Title"
    assert tool.description is not None
    assert tool.description.endswith("] Pay.\na[2Jbcdefgh")
    assert tool.description.startswith("[Page tool of “Shop x” (https://shop.example);")


def test_letters_and_symbols_that_draw_nothing_are_removed_as_the_extension_does() -> None:
    blanks = "\u034f\u115f\u1160\u17b4\u17b5\u180e\u2800\u3164\uffa0"
    assert display_line(f"Shop{blanks}\u2800\u2800 now") == "Shop now"
    assert display_block(f"a{blanks}\nb") == "a\nb"
