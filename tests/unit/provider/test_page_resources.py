"""The page on demand (design.md §2): each Page's text and screenshot as MCP resources.

Through a real `python -m native_host` (tests/support/host_process.py) that this test drives as
the worker would — it pushes trees and answers `page.read` — with real SDK clients over HTTP with
the token, in both MCP eras: `resources/list` (order, budget, only our instance), `resources/read`
of text (the truncation line, `_meta`) and screenshots (blob, `_meta`), every error, a link of
another instance (`gone`), `resources/list_changed` once per change, and the activity entries."""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any, Literal

import anyio
import pytest
from mcp import Client, types
from mcp.shared.exceptions import MCPError
from mcp_types.jsonrpc import INTERNAL_ERROR, INVALID_PARAMS

from native_host.errors import DeadlineExceeded, ExtensionError, ProviderUnavailable
from native_host.protocol.native import PAGE_SCREENSHOT_DEADLINE_MS
from native_host.protocol.resources import (
    READ_ERROR_FIXES,
    REASON_WORDS,
    RESOURCE_NOT_FOUND,
    TEXT_MAX_BYTES,
    format_page_uri,
)
from native_host.protocol.tools import ACTIVITY_RESOURCE_URI
from native_host.provider.activity import ActivityLog
from native_host.provider.http.error_bodies import MAX_MESSAGE_CHARS
from native_host.provider.page_resources import MAX_LISTED, PageResources
from tests.support.host_process import WAIT_S, Host, log_text, mcp_client, ready_descriptor, wait_until
from tests.support.page_worker import read_answered
from tests.support.requester import FakeRequester
from tests.support.waiting import until

Mode = Literal["legacy", "auto"]
MODES: list[Mode] = ["legacy", "auto"]
OTHER = "AAAAAAAAAAAAAAAAAAAAAA"
"""Another instance (a restarted provider)."""
MARKDOWN = "# Tidal locking\n\nThe Moon always shows the same face. Secret body text 4711.\n"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\0" * 64).decode()


def links(instance: str, page_id: str, *kinds: str) -> list[dict[str, Any]]:
    """A Page's `content`: the resource_links the worker's tree.js puts there."""
    mime = {"text": "text/markdown", "screenshot": "image/png"}
    return [
        {"type": "resource_link", "uri": format_page_uri(instance, page_id, kind),  # type: ignore[arg-type]
         "name": f"Page {page_id}", "mimeType": mime[kind]}
        for kind in kinds
    ]


def page(page_id: str, content: list[dict[str, Any]], **states: Any) -> dict[str, Any]:
    return {"id": page_id, "role": "Page", "subrole": "tab", "title": f"Title of {page_id}",
            "url": f"https://example.org/{page_id}", "content": content, **states}


def tree(windows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"id": "app", "role": "Application", "title": "Chromium", "children": windows}


def ordered_tree(instance: str) -> dict[str, Any]:
    """tab-1 hidden, tab-2 focused, tab-3 visible (with a link of another instance), tab-4 without
    links; win-2 minimized (tab-5 hidden with it); win-3's tab-6 visible."""
    return tree([
        {"id": "win-1", "role": "Window", "focused": True, "children": [
            page("tab-1", links(instance, "tab-1", "text"), visible=False),
            page("tab-2", links(instance, "tab-2", "text", "screenshot"), focused=True),
            page("tab-3", links(OTHER, "tab-3", "text") + links(instance, "tab-3", "text")),
            page("tab-4", []),
        ]},
        {"id": "win-2", "role": "Window", "visible": False, "children": [
            page("tab-5", links(instance, "tab-5", "text")),
        ]},
        {"id": "win-3", "role": "Window", "children": [page("tab-6", links(instance, "tab-6", "text"))]},
    ])


async def started(spawn: Callable[[], Any]) -> tuple[Host, str, dict[str, Any]]:
    """A host that said hello (its instance) and published its descriptor, with `ordered_tree` pushed."""
    host: Host = await spawn()
    instance = (await host.hello())["instance"]
    descriptor = await ready_descriptor(host)
    await push(host, ordered_tree(instance))
    return host, instance, descriptor


async def push(host: Host, root: dict[str, Any]) -> None:
    await host.send({"type": "tree", "complete": True, "root": root, "windowFocused": True})


@pytest.mark.parametrize("mode", MODES)
async def test_list_is_our_instances_links_focused_then_visible_then_the_rest_at_most_200(
    spawn: Callable[[], Any], mode: Mode
) -> None:
    host, instance, descriptor = await started(spawn)
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, mode) as client:
        capabilities = client.server_capabilities.model_dump(by_alias=True, exclude_none=True)
        assert capabilities["resources"]["listChanged"] is True
        resources = (await client.list_resources()).resources
        expected = [("tab-2", "text"), ("tab-2", "screenshot"), ("tab-3", "text"), ("tab-6", "text"),
                    ("tab-1", "text"), ("tab-5", "text")]
        assert [r.uri for r in resources] == [format_page_uri(instance, p, k) for p, k in expected]  # type: ignore[arg-type]
        text, shot = resources[0], resources[1]
        assert (text.name, text.title, text.mime_type) == ("Page tab-2", "Title of tab-2", "text/markdown")
        assert shot.mime_type == "image/png"
        assert text.description and "Markdown" in text.description and "Title of tab-2" in text.description
        assert shot.description and "Screenshot" in shot.description
        assert host.current_requests == 0  # answered from the pushed tree: no round trip
        # 150 pages of two links each: the list stops at 200, the focused page's first.
        many = [page(f"tab-{n}", links(instance, f"tab-{n}", "text", "screenshot")) for n in range(10, 160)]
        many[100]["focused"] = True
        await push(host, tree([{"id": "win-1", "role": "Window", "focused": True, "children": many}]))
        await wait_until_listed(client, lambda rs: len(rs) == MAX_LISTED)
        resources = (await client.list_resources()).resources
        assert resources[0].uri == format_page_uri(instance, "tab-110", "text")
        assert len({r.uri for r in resources}) == MAX_LISTED
        # The activity resource is still readable, and still unlisted.
        assert ACTIVITY_RESOURCE_URI not in {r.uri for r in resources}
        activity = await client.read_resource(ACTIVITY_RESOURCE_URI)
        [contents] = activity.contents
        assert isinstance(contents, types.TextResourceContents) and "entries" in json.loads(contents.text)


async def wait_until_listed(client: Client, ok: Callable[[list[types.Resource]], bool]) -> None:
    """Poll `resources/list` until `ok` holds (a push reaches the host asynchronously)."""
    async def listed() -> list[types.Resource]:
        return (await client.list_resources()).resources

    await until(listed, check=ok, timeout_s=WAIT_S, interval_s=0.05, message="the listed resources")


@pytest.mark.parametrize("mode", MODES)
async def test_read_text_truncated_line_meta_and_an_activity_entry_without_content(
    spawn: Callable[[], Any], mode: Mode
) -> None:
    host, instance, descriptor = await started(spawn)
    uri = format_page_uri(instance, "tab-2", "text")
    info = types.Implementation(name="Claude Code", version="2.1.0")
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, mode, client_info=info) as client:
        result, frame = await read_answered(client, host, uri, {"type": "result", "result": {
            "kind": "text", "markdown": MARKDOWN, "truncated": True, "bytes": 1_258_291,
            "source": "readability", "title": "Tidal locking", "url": "https://example.org/tab-2"}})
        assert {k: frame[k] for k in ("pageId", "kind", "maxBytes")} == {
            "pageId": "tab-2", "kind": "text", "maxBytes": TEXT_MAX_BYTES}
        assert isinstance(result, types.ReadResourceResult)
        [contents] = result.contents
        assert isinstance(contents, types.TextResourceContents)
        assert (contents.uri, contents.mime_type) == (uri, "text/markdown")
        assert contents.text == (
            "> webctx: truncated to the first 256 KiB of 1.2 MiB of this page's text.\n\n" + MARKDOWN)
        assert contents.meta == {"truncated": True, "bytes": 1_258_291, "source": "readability"}
        # Not truncated: the text as it came, no first line.
        result, _ = await read_answered(client, host, uri, {"type": "result", "result": {
            "kind": "text", "markdown": MARKDOWN, "truncated": False, "bytes": len(MARKDOWN),
            "source": "visible-text", "title": "Tidal locking", "url": "https://example.org/tab-2"}})
        assert isinstance(result, types.ReadResourceResult)
        [contents] = result.contents
        assert isinstance(contents, types.TextResourceContents) and contents.text == MARKDOWN
        assert contents.meta == {"truncated": False, "bytes": len(MARKDOWN), "source": "visible-text"}
    await wait_until(lambda: len(host.activity) == 2, what="two activity events")
    entry = host.activity[0]["entry"]
    assert entry["tool"] == "resources/read" and entry["ok"] is True
    assert entry["client"] == {"name": "Claude Code", "version": "2.1.0"}
    assert entry["elements"] == [{"kind": "page", "id": "tab-2", "page": "tab-2", "title": "Tidal locking"},
                                 {"kind": "text", "id": "tab-2", "page": "tab-2"}]  # what of it was read
    assert "4711" not in json.dumps(host.activity) + log_text()


@pytest.mark.parametrize("mode", MODES)
async def test_read_screenshot_is_a_blob_with_meta(spawn: Callable[[], Any], mode: Mode) -> None:
    host, instance, descriptor = await started(spawn)
    uri = format_page_uri(instance, "tab-2", "screenshot")
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, mode) as client:
        result, frame = await read_answered(client, host, uri, {"type": "result", "result": {
            "kind": "screenshot", "mimeType": "image/jpeg", "data": PNG, "width": 1600, "height": 900,
            "devicePixelRatio": 2, "scale": 0.5}})
    assert {k: frame[k] for k in ("pageId", "kind")} == {"pageId": "tab-2", "kind": "screenshot"}
    assert "maxBytes" not in frame
    assert isinstance(result, types.ReadResourceResult)
    [contents] = result.contents
    assert isinstance(contents, types.BlobResourceContents)
    assert (contents.uri, contents.mime_type, contents.blob) == (uri, "image/jpeg", PNG)
    assert contents.meta == {"devicePixelRatio": 2.0, "width": 1600, "height": 900, "scale": 0.5}
    await wait_until(lambda: len(host.activity) == 1, what="the activity event")
    assert host.activity[0]["entry"]["elements"][0]["title"] == "Title of tab-2"  # from the tree
    assert host.activity[0]["entry"]["elements"][1] == {"kind": "screenshot", "id": "tab-2", "page": "tab-2"}


ERRORS = [
    ("unknown_page", RESOURCE_NOT_FOUND, "unknown: "),
    ("page_gone", RESOURCE_NOT_FOUND, "gone: "),
    ("not_shared", INVALID_PARAMS, "not_shared: "),
    ("switched_off", INVALID_PARAMS, "switched_off: "),
    ("not_capturable", INVALID_PARAMS, "not_capturable: "),
    ("read_failed", INTERNAL_ERROR, "read_failed: "),
]


@pytest.mark.parametrize("mode", MODES)
async def test_each_error_names_its_reason_and_ends_with_the_fix(
    spawn: Callable[[], Any], mode: Mode
) -> None:
    host, instance, descriptor = await started(spawn)
    uri = format_page_uri(instance, "tab-2", "screenshot")
    async with asyncio.timeout(WAIT_S * 2), mcp_client(descriptor, mode) as client:
        for code, number, word in ERRORS:
            error, _ = await read_answered(client, host, uri, {"type": "error", "error": {
                "code": code, "message": f"The worker says {code}"}})
            assert isinstance(error, MCPError), code
            assert error.code == number, code
            assert error.message.startswith(word + f"The worker says {code}. "), error.message
            assert error.message.endswith("."), error.message
        # A result of the wrong shape (or kind) is read_failed.
        error, _ = await read_answered(client, host, uri, {"type": "result", "result": {"kind": "text"}})
        assert isinstance(error, MCPError) and error.code == INTERNAL_ERROR
        assert error.message.startswith("read_failed: ")
        # Another instance's link (a restarted provider): gone, the worker is not asked.
        with pytest.raises(MCPError) as gone:
            await client.read_resource(format_page_uri(OTHER, "tab-2", "text"))
        assert gone.value.code == RESOURCE_NOT_FOUND and gone.value.message.startswith("gone: ")
        # Not a page resource at all: invalid params, the worker is not asked.
        for bad in (f"webctx://{instance}/tab-2/html", f"webctx://{instance}/tab 2/text", "https://example.org/"):
            with pytest.raises(MCPError) as invalid:
                await client.read_resource(bad)
            assert invalid.value.code == INVALID_PARAMS and invalid.value.message.startswith("invalid: ")
    assert host.frames.empty()
    await wait_until(lambda: len(host.activity) == len(ERRORS) + 2, what="an activity event per page read")
    assert all(event["entry"]["ok"] is False for event in host.activity)


@pytest.mark.parametrize("mode", MODES)
async def test_an_error_with_a_long_worker_message_still_names_its_reason(
    spawn: Callable[[], Any], mode: Mode
) -> None:
    """The worker's sentences run to ~150 characters (page_read.js) and the fixes to ~170: the
    whole message stays within error_bodies.MAX_MESSAGE_CHARS, or a 2026-07-28 client (its
    errors come back as HTTP 4xx bodies) gets ShortErrorBodies' "Invalid request: …" instead of
    the reason word (found by tests/e2e/test_page_resources.py: a background tab's screenshot)."""
    host, instance, descriptor = await started(spawn)
    uri = format_page_uri(instance, "tab-2", "screenshot")
    async with asyncio.timeout(WAIT_S * 2), mcp_client(descriptor, mode) as client:
        for code, number, word in ERRORS:
            long = "The page is not the active tab of its window, and this sentence goes on. " * 4
            error, _ = await read_answered(client, host, uri, {"type": "error", "error": {
                "code": code, "message": long}})
            assert isinstance(error, MCPError), code
            assert error.code == number and error.message.startswith(word + "The page is not"), error.message
            assert len(error.message) <= MAX_MESSAGE_CHARS, error.message
            # Cut on a word boundary, marked once, then the one fix (not cut, said once).
            said, fix = error.message.split("… ", 1)
            assert said.split()[-1] in {w.strip(",.") for w in long.split()}, error.message
            assert fix == READ_ERROR_FIXES[word.rstrip(": ")], error.message


async def test_each_fix_is_said_once_after_the_workers_own_sentences(spawn: Callable[[], Any]) -> None:
    """The worker's refusal sentences (page_read.js) say what happened; the provider adds exactly
    one fix (READ_ERROR_FIXES), and a link of another instance is not said to be a closed tab."""
    host, instance, descriptor = await started(spawn)
    uri = format_page_uri(instance, "tab-2", "screenshot")
    said = {
        "switched_off": "Screenshots are switched off in webctx's options (Settings, \"Screenshots\").",
        "not_capturable": "The page is not the active tab of its window, and only what is on screen can "
        "be captured.",
        "page_gone": "The tab was closed.",
        "not_shared": "The browser does not let extensions read this page.",
    }
    async with asyncio.timeout(WAIT_S * 2), mcp_client(descriptor, MODES[0]) as client:
        for code, sentence in said.items():
            error, _ = await read_answered(client, host, uri, {"type": "error", "error": {
                "code": code, "message": sentence}})
            assert isinstance(error, MCPError), code
            word = REASON_WORDS[code]
            assert error.message == f"{word}: {sentence} {READ_ERROR_FIXES[word]}", error.message
            for phrase in ("options", "switch it on", "tab was closed", "switch tabs", "choose"):
                assert error.message.lower().count(phrase) <= 1, error.message
        with pytest.raises(MCPError) as other:
            await client.read_resource(format_page_uri(OTHER, "tab-2", "text"))
        assert "another webctx instance" in other.value.message and "closed" not in other.value.message


@asynccontextmanager
async def listening(descriptor: dict[str, Any], mode: Mode) -> AsyncIterator[asyncio.Queue[str]]:
    """A client of era `mode` and a queue that gets "resources" per resources/list_changed and
    "tools" per tools/list_changed (handshake era: the message handler on the GET stream;
    2026-07-28: a subscriptions/listen stream asking for both)."""
    changes: asyncio.Queue[str] = asyncio.Queue()

    async def on_message(message: Any) -> None:
        if isinstance(message, types.ResourceListChangedNotification):
            changes.put_nowait("resources")
        elif isinstance(message, types.ToolListChangedNotification):
            changes.put_nowait("tools")

    # 2026-07-28: the listen stream's events reach a message handler too; count them once.
    handler = on_message if mode == "legacy" else None
    async with mcp_client(descriptor, mode, message_handler=handler) as client:
        if mode == "legacy":
            yield changes
            return
        async with (
            client.listen(resources_list_changed=True, tools_list_changed=True) as subscription,
            anyio.create_task_group() as tg,
        ):
            async def pump() -> None:
                async for event in subscription:
                    kind = type(event).__name__
                    changes.put_nowait("resources" if kind == "ResourcesListChanged" else "tools")

            tg.start_soon(pump)
            yield changes
            tg.cancel_scope.cancel()


async def count_for(changes: asyncio.Queue[str], seconds: float) -> int:
    """How many "resources" arrive within `seconds` (the queue is drained)."""
    await asyncio.sleep(seconds)
    found = 0
    while not changes.empty():
        found += changes.get_nowait() == "resources"
    return found


@pytest.mark.parametrize("mode", MODES)
async def test_list_changed_is_sent_once_per_change_of_the_listed_uris(
    spawn: Callable[[], Any], mode: Mode
) -> None:
    host, instance, descriptor = await started(spawn)
    closed = ordered_tree(instance)
    closed["children"][2]["children"] = []  # tab-6 closed
    async with asyncio.timeout(WAIT_S * 2), listening(descriptor, mode) as changes:
        # The notification stream opens in the background: change the list until one arrives.
        flip = False
        while changes.empty():
            flip = not flip
            await push(host, closed if flip else ordered_tree(instance))
            await asyncio.sleep(0.2)
        await push(host, ordered_tree(instance))
        await count_for(changes, 0.5)
        # The same links with other titles, focus and order of windows: no notification.
        same = ordered_tree(instance)
        same["children"][0]["children"][1]["title"] = "Another title"
        same["children"].reverse()
        await push(host, same)
        assert await count_for(changes, 0.5) == 0
        # A tab closes: exactly one.
        await push(host, closed)
        assert await count_for(changes, 0.7) == 1
        # A tab opens, then another one at once: one or two (coalesced), never more.
        await push(host, ordered_tree(instance))
        opened = ordered_tree(instance)
        opened["children"][2]["children"].append(page("tab-7", links(instance, "tab-7", "text")))
        await push(host, opened)
        assert 1 <= await count_for(changes, 0.7) <= 2


# -- without a process: what a real worker cannot be made to do on demand -------------------------


async def test_no_answer_in_time_and_no_extension_are_errors_with_their_words() -> None:
    instance = "Zm9vYmFyYmF6cXV4cXV1eA"
    requester = FakeRequester({"page.read": DeadlineExceeded("late")})
    resources = PageResources(
        requester, instance=instance, activity=ActivityLog(), on_list_changed=lambda: None
    )
    params = types.ReadResourceRequestParams(uri=format_page_uri(instance, "tab-2", "screenshot"))
    with pytest.raises(MCPError) as late:
        await resources.read_resource(object(), params)
    assert late.value.message.startswith("timeout: the browser did not read the page within 10 s.")
    assert requester.requests[0].deadline_ms == PAGE_SCREENSHOT_DEADLINE_MS == 10_000
    requester.answers["page.read"] = ProviderUnavailable("closed")
    params = types.ReadResourceRequestParams(uri=format_page_uri(instance, "tab-2", "text"))
    with pytest.raises(MCPError) as closed:
        await resources.read_resource(object(), params)
    assert closed.value.message.startswith("unavailable: ")
    assert requester.requests[1].deadline_ms == 10_000


async def test_an_extension_without_page_read_says_to_update_it() -> None:
    instance = "Zm9vYmFyYmF6cXV4cXV1eA"
    old = ExtensionError("Unknown message type page.read.", code="unknown_type")  # an older worker
    resources = PageResources(
        FakeRequester({"page.read": old}), instance=instance, activity=ActivityLog(),
        on_list_changed=lambda: None,
    )
    params = types.ReadResourceRequestParams(uri=format_page_uri(instance, "tab-2", "text"))
    with pytest.raises(MCPError) as error:
        await resources.read_resource(object(), params)
    assert error.value.code == INTERNAL_ERROR
    assert error.value.message.startswith(
        "read_failed: Unknown message type page.read. Update the webctx extension")


HOSTILE_TITLE = "Shop \u202eevil\u202c \u2028line2\u200b\x1b[2J"
"""A page's `<title>Shop &#x202E;evil&#x202C; &#x2028;line2…</title>`: a bidi override that
reverses what follows, a line separator that forges a second line, invisible and control characters."""


@pytest.mark.parametrize("mode", MODES)
async def test_listed_names_titles_and_descriptions_carry_no_bidi_control_or_break_of_the_page(
    spawn: Callable[[], Any], mode: Mode
) -> None:
    host, instance, descriptor = await started(spawn)
    hostile = page("tab-7", links(instance, "tab-7", "text"), focused=True, title=HOSTILE_TITLE)
    hostile["content"][0]["name"] = HOSTILE_TITLE  # the worker names a link after its page
    await push(host, tree([{"id": "win-1", "role": "Window", "focused": True, "children": [hostile]}]))
    uri = format_page_uri(instance, "tab-7", "text")
    async with asyncio.timeout(WAIT_S), mcp_client(descriptor, mode) as client:
        await wait_until_listed(client, lambda rs: [r.uri for r in rs] == [uri])
        [listed] = (await client.list_resources()).resources
        assert (listed.name, listed.title) == ("Shop evil  line2[2J", "Shop evil  line2[2J")
        assert listed.description and "“Shop evil  line2[2J”" in listed.description
        # The title a read answers with is what the activity entry of a later read shows.
        await read_answered(client, host, uri, {"type": "result", "result": {
            "kind": "text", "markdown": MARKDOWN, "truncated": False, "bytes": len(MARKDOWN),
            "source": "readability", "title": "Read \u202eevil\u2029", "url": "https://example.org/tab-7"}})
    await wait_until(lambda: len(host.activity) == 1, what="one activity event")
    assert host.activity[0]["entry"]["elements"][0]["title"] == "Read evil"
