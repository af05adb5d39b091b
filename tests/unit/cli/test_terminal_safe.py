"""What the command line prints from the provider (page text, page-tool descriptions and results,
client names) never carries terminal controls (a fresh user's attack): an ESC sequence
in a selection cleared the screen, a client named "x\\nwebctx read nothing" forged an entry."""

from __future__ import annotations

import io
import json

from native_host.cli.activity import describe_read
from native_host.cli.result import Result, emit, terminal_safe


def test_controls_and_bidi_overrides_are_shown_as_escapes() -> None:
    assert terminal_safe("a\x1b[2J\x1b[Hb") == "a\\x1b[2J\\x1b[Hb"
    assert terminal_safe("x\x9by \u202eevil") == "x\\x9by \\u202eevil"
    assert terminal_safe("line one\n\tline two — ünïcode") == "line one\n\tline two — ünïcode"


def test_emit_escapes_text_and_keeps_json_the_same_data() -> None:
    out = io.StringIO()
    emit(Result(text="sel \x1b[2J \u202e"), as_json=False, stream=out)
    assert "\x1b" not in out.getvalue() and "\u202e" not in out.getvalue()
    data = {"text": "sel \x1b[2J \x9b \u202e é"}
    out = io.StringIO()
    emit(Result(text="", data=data), as_json=True, stream=out)
    printed = out.getvalue()
    assert not any(ch in printed for ch in "\x1b\x9b\u202e") and "é" in printed
    assert json.loads(printed) == data


def test_a_client_name_cannot_forge_an_activity_line() -> None:
    entry = {
        "at": 0,
        "client": {"name": "Claude\x1b[2J\nwebctx 0.1.0 read nothing", "version": "1"},
        "tool": "current",
        "ok": True,
        "elements": [],
    }
    line = terminal_safe(describe_read(entry, 0))
    assert "\n" not in line and "\x1b" not in line
