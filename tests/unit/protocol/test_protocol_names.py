"""The native-port message types are the same in extension/protocol.js and native_host/protocol/native.py
(STYLE.md "Message types"; docs/internals/protocol.md)."""

from __future__ import annotations

import re
import typing

import pytest

from native_host.paths import REPO_ROOT
from native_host.protocol import native as wire

PROTOCOL_JS = REPO_ROOT / "extension" / "protocol.js"
EXPORT = re.compile(r"export\s+const\s+NATIVE_MESSAGE_TYPES\s*=\s*(?:Object\.freeze\()?\[(?P<items>[^\]]*)\]")
ITEM = re.compile(r"""["']([^"']+)["']""")


def js_native_message_types() -> list[str]:
    if not PROTOCOL_JS.is_file():
        pytest.skip(f"{PROTOCOL_JS} does not exist yet (the extension is written separately)")
    match = EXPORT.search(PROTOCOL_JS.read_text(encoding="utf-8"))
    assert match, "extension/protocol.js must `export const NATIVE_MESSAGE_TYPES = [...]`"
    return ITEM.findall(match.group("items"))


def test_extension_and_host_name_the_same_native_message_types() -> None:
    assert sorted(js_native_message_types()) == sorted(wire.NATIVE_MESSAGE_TYPES)


def test_every_frame_model_type_is_a_native_message_type() -> None:
    models = (
        wire.Hello,
        wire.CurrentRequest,
        wire.LocationRequest,
        wire.PingRequest,
        wire.ToolCallRequest,
        wire.ToolCancelRequest,
        wire.ToolsChanged,
        wire.ResultFrame,
        wire.ErrorFrame,
        wire.ChunkFrame,
    )
    models += (wire.ProviderReady, wire.TreePush, wire.ActivityEvent, wire.PageReadRequest)
    literals = {typing.get_args(model.model_fields["type"].annotation)[0] for model in models}
    assert literals == set(wire.NATIVE_MESSAGE_TYPES)
