"""The page-resource URI rule (native_host/protocol/resources.py; issue 16, SPEC §2 "The page on
demand"): one shape, no normalisation, and the truncation line's wording."""

from __future__ import annotations

import pytest

from native_host.protocol.resources import (
    SCREENSHOT,
    TEXT,
    PageUri,
    format_page_uri,
    format_size,
    parse_page_uri,
    truncation_notice,
)

INSTANCE = "k3f9x2AbCdEfGhIjKlMn_-"


def test_format_and_parse_round_trip() -> None:
    for page_id in ("tab-3", "f1-tab-3"):
        for kind in (TEXT, SCREENSHOT):
            uri = format_page_uri(INSTANCE, page_id, kind)
            assert uri == f"webctx://{INSTANCE}/{page_id}/{kind}"
            assert parse_page_uri(uri) == PageUri(INSTANCE, page_id, kind)


@pytest.mark.parametrize("uri", [
    "webctx://activity", "webctx://current", f"webctx://{INSTANCE}/tab-3", f"webctx://{INSTANCE}/tab-3/html",
    f"webctx://{INSTANCE}/tab-3/text/", f"WEBCTX://{INSTANCE}/tab-3/text", f"webctx://{INSTANCE}/tab%2D3/text",
    f"webctx://{INSTANCE}//text", f"webctx://{INSTANCE}/{'a' * 129}/text", f"https://{INSTANCE}/tab-3/text",
    f"webctx://{INSTANCE}/tab-3/text\n", None, 3,
])
def test_anything_else_is_not_a_page_resource(uri: object) -> None:
    assert parse_page_uri(uri) is None


def test_format_refuses_parts_outside_the_rule() -> None:
    with pytest.raises(ValueError):
        format_page_uri(INSTANCE, "tab/3", TEXT)
    with pytest.raises(ValueError):
        format_page_uri("", "tab-3", TEXT)


def test_sizes_and_the_truncation_line() -> None:
    assert [format_size(n) for n in (1, 900, 1024, 5000, 262_144, 1_258_291, 4 << 20)] == [
        "1 byte", "900 bytes", "1 KiB", "4.9 KiB", "256 KiB", "1.2 MiB", "4 MiB"]
    assert truncation_notice(262_144, 1_258_291) == (
        "> webctx: truncated to the first 256 KiB of 1.2 MiB of this page's text.\n\n")
