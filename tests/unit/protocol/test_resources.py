"""The page-resource URI rule (native_host/protocol/resources.py; design.md §2 "The page on
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
    without_background_links,
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


def _page(page_id: str, *, background: bool) -> dict[str, object]:
    page: dict[str, object] = {"id": page_id, "role": "Page", "subrole": "tab", "title": "T"}
    if background:
        page["visible"] = False
    page["content"] = [{
        "type": "resource_link", "uri": format_page_uri(INSTANCE, page_id, TEXT), "name": "T",
        "mimeType": "text/markdown",
    }]
    return page


def test_current_keeps_links_on_foreground_pages_only_and_changes_nothing_in_place() -> None:
    """`current` itself stays small: a link on each of 100 background
    tabs made it 86 % bigger (bench/README.md); resources/list reads the whole tree instead."""
    front, back = _page("tab-1", background=False), _page("tab-2", background=True)
    other = {"id": "win-2", "role": "Window", "children": [_page("tab-3", background=False)]}
    root = {"id": "app", "role": "Application", "children": [
        {"id": "win-1", "role": "Window", "children": [front, back]}, other,
    ]}
    shown = without_background_links(root)
    pages = shown["children"][0]["children"]
    assert pages[0] is front and "content" in front
    assert "content" not in pages[1] and pages[1]["visible"] is False and pages[1]["id"] == "tab-2"
    assert "content" in back, "the pushed tree is shared: never changed in place"
    assert shown["children"][1] is other
    # Nothing to take out: the same object (builtin_tools encodes a pushed tree once).
    assert without_background_links(shown) is shown
    bare = {"id": "app", "role": "Application"}
    assert without_background_links(bare) is bare
    # A background Page's own text block (not a page-resource link) is not ours to remove.
    page = {"id": "tab-9", "role": "Page", "visible": False, "content": [{"type": "text", "text": "x"}]}
    window = {"id": "win-1", "role": "Window", "children": [page]}
    tree = {"id": "app", "role": "Application", "children": [window]}
    assert without_background_links(tree) is tree
