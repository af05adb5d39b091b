"""The rules the extension implements too, against the one file of cases both sides read
(extension/test/wire_cases.json; the JS side: extension/test/wire_cases.test.js): version
negotiation (protocol/version.py), the UTF-8 measure of text (protocol/json_text.py), the id and
tool-name patterns, and the page-resource URI (protocol/resources.py)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from native_host.paths import REPO_ROOT
from native_host.protocol.base import ID_PATTERN
from native_host.protocol.extension_rules import WEBMCP_TOOL_NAME_PATTERN
from native_host.protocol.json_text import encode_json, replace_lone_surrogates
from native_host.protocol.native import PAGE_TOOL_NAME_PATTERN
from native_host.protocol.resources import RESOURCE_URI_PREFIX, PageUri, format_page_uri, parse_page_uri
from native_host.protocol.version import version_mismatch

CASES: dict[str, Any] = json.loads((REPO_ROOT / "extension" / "test" / "wire_cases.json").read_text("utf-8"))


def ids(cases: list[dict[str, Any]], key: str) -> list[str]:
    """pytest ids: each case's `key`, shown as JSON (control characters visible)."""
    return [json.dumps(case[key], ensure_ascii=True)[:60] for case in cases]


@pytest.mark.parametrize(
    "case", [c for c in CASES["versions"] if c.get("only") != "js"], ids=lambda c: str(c["why"])
)
def test_version_negotiation(case: dict[str, Any]) -> None:
    """The same verdict and words as the worker's versionMismatch (service_worker/native_port.js)."""
    found = version_mismatch(
        case["extension"]["protocol"],
        case["extension"]["version"],
        host_protocol=case["host"]["protocol"],
        host_version=case["host"]["version"],
    )
    if case["mismatch"] is None:
        assert found is None
    else:
        assert found is not None
        assert (found.update, found.message) == (case["mismatch"]["update"], case["mismatch"]["message"])


def json_string_bytes(text: str) -> int:
    """The UTF-8 size of `text` as a JSON string, quotes included, as the native port writes it."""
    return len(encode_json({"": text})) - len(b'{"":}')


@pytest.mark.parametrize("case", CASES["utf8"], ids=ids(CASES["utf8"], "text"))
def test_utf8_measure_and_cut(case: dict[str, Any]) -> None:
    """The byte count is the one json_text gives (a lone surrogate is the 3 bytes of U+FFFD); the
    cut is the longest prefix, on a code-point boundary, of at most `maxBytes` bytes (the bound the
    host takes from `page.read` `maxBytes`), as content/utf8_cap.js cuts."""
    text: str = case["text"]
    assert len(replace_lone_surrogates(text).encode("utf-8")) == case["bytes"]
    if "jsonBytes" in case:
        assert json_string_bytes(text) == case["jsonBytes"]
    if "cut" in case:
        cut: str = case["cut"]
        assert text.startswith(cut)
        assert len(cut.encode("utf-8")) <= case["maxBytes"]
        rest = text[len(cut) :]
        assert not rest or len((cut + rest[0]).encode("utf-8")) > case["maxBytes"]


@pytest.mark.parametrize("case", CASES["patterns"], ids=ids(CASES["patterns"], "text"))
def test_id_and_tool_name_patterns(case: dict[str, Any]) -> None:
    text: str = case["text"]
    assert (ID_PATTERN.fullmatch(text) is not None) == case["id"]
    assert (WEBMCP_TOOL_NAME_PATTERN.fullmatch(text) is not None) == case["webmcpName"]
    assert (PAGE_TOOL_NAME_PATTERN.fullmatch(text) is not None) == case["exposedName"]


@pytest.mark.parametrize("case", CASES["pageUris"], ids=ids(CASES["pageUris"], "uri"))
def test_page_resource_uri(case: dict[str, Any]) -> None:
    """parse_page_uri takes exactly the URIs the extension's links have; format_page_uri writes them."""
    parts = case["parts"]
    if parts is None:
        assert parse_page_uri(case["uri"]) is None
        return
    assert parse_page_uri(case["uri"]) == PageUri(parts["instance"], parts["pageId"], parts["kind"])
    assert format_page_uri(parts["instance"], parts["pageId"], parts["kind"]) == case["uri"]
    assert case["uri"].startswith(RESOURCE_URI_PREFIX)
