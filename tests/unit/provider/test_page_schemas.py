"""page_schemas.py: a page's inputSchema never makes the host fetch or read anything, and checking
arguments never stalls the event loop (docs/internals/native-host.md "Page tools").

The host-process tests at the end are the ones the issue asks for: a real `python -m native_host`
gets the hostile schema in `tools.changed` and the tool is called over MCP with the real token.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import os
import re
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import pytest
from mcp import types

from native_host.protocol.native import PageTool
from native_host.provider import page_schemas
from native_host.provider.page_schemas import CHECK_BUDGET_S, MAX_SCHEMA_BYTES, check_input, compile_schema
from native_host.provider.page_tools import PageToolTable
from native_host.provider.profiles.follower_tools import FollowerTools
from tests.support.counting_server import CountingServer
from tests.support.host_process import Host, mcp_client, ready_descriptor
from tests.support.requester import FakeRequester
from tests.support.waiting import until

T = TypeVar("T")

EVIL = "^(a+)+$"
"""Exponential in Python's `re` on "a"*N + "!" (0.6 s at N=24, 8.9 s at N=28 on main)."""
EVIL_LOOKAHEAD = "^(?=a)(a|a)*$"
"""Not RE2 (lookahead), and exponential in the `regex` module too: the fallback's time budget."""
MAX_LAG_S = 0.1
"""A call adds under 100 ms of loop delay."""


def hostile_schemas(server: CountingServer, file_uri: str) -> dict[str, dict[str, Any]]:
    """Every known way to make jsonschema fetch: each refers to `server` (or to
    `file_uri`) from the schema of argument `q`."""

    def one(q: dict[str, Any], **top: Any) -> dict[str, Any]:
        return {**top, "type": "object", "properties": {"q": q}}

    return {
        "http": one({"$ref": f"{server.url}/admin/reboot?x=1"}),
        "https": one({"$ref": f"https://127.0.0.1:{server.port}/admin/reboot?x=1"}),
        "file": one({"$ref": file_uri}),
        "$id + relative $ref": one({"$ref": "other.json"}, **{"$id": f"{server.url}/schemas/root.json"}),
        "$dynamicRef": one({"$dynamicRef": f"{server.url}/dynamic#meta"}),
        "draft-07 $ref": one(
            {"$ref": f"{server.url}/draft7"}, **{"$schema": "http://json-schema.org/draft-07/schema#"}
        ),
        "behind a pointer": one({"$ref": "#/x-hidden"}, **{"x-hidden": {"$ref": f"{server.url}/hidden"}}),
    }


@pytest.fixture
def server() -> Any:
    with CountingServer() as counting:
        yield counting


@pytest.fixture
def file_uri(tmp_path: Path) -> str:
    """A schema file only an integer passes: a host that reads it would enforce it."""
    path = tmp_path / "local-schema.json"
    path.write_text('{"type": "integer"}')
    return path.as_uri()


# ---- item 1: nothing is fetched or read ----------------------------------------------------------


def test_no_ref_variant_is_fetched_or_read_and_each_is_refused_naming_the_ref(
    server: CountingServer, file_uri: str
) -> None:
    for variant, schema in hostile_schemas(server, file_uri).items():
        compiled = compile_schema(schema)
        assert compiled.refusal is not None, variant
        problem = check_input(compiled, {"q": "text"})
        assert problem is not None and "never fetches" in problem and "$defs" in problem, variant
        ref = next(v for k, v in _refs(schema) if not v.startswith("#"))
        assert f"`{ref}`" in problem, variant
    endless = compile_schema({"type": "object", "properties": {"q": {"$ref": "file:///dev/zero"}}})
    assert endless.refusal is not None and "file:///dev/zero" in endless.refusal
    assert server.connections == 0 and server.paths == []


def _refs(node: Any) -> list[tuple[str, str]]:
    found: list[tuple[str, str]] = []
    if isinstance(node, dict):
        for key, value in node.items():
            if key in ("$ref", "$dynamicRef") and isinstance(value, str):
                found.append((key, value))
            found += _refs(value)
    return found


@pytest.mark.parametrize(
    ("schema", "good", "bad"),
    [
        (  # a JSON pointer into $defs
            {
                "type": "object",
                "$defs": {"n": {"type": "integer"}},
                "properties": {"q": {"$ref": "#/$defs/n"}},
            },
            {"q": 1},
            {"q": "x"},
        ),
        (  # $id-based: an embedded resource by its URI and by its anchor
            {
                "$id": "https://shop.example/schemas/order",
                "type": "object",
                "$defs": {"n": {"$id": "n.json", "$anchor": "num", "type": "integer"}},
                "properties": {
                    "q": {"$ref": "n.json#num"},
                    "r": {"$ref": "https://shop.example/schemas/n.json"},
                },
            },
            {"q": 1, "r": 2},
            {"q": 1, "r": "x"},
        ),
        (  # recursion through "#" and a $dynamicRef to the schema's own $dynamicAnchor
            {
                "$dynamicAnchor": "node",
                "type": "object",
                "properties": {
                    "q": {"type": "integer"},
                    "kids": {"type": "array", "items": {"$dynamicRef": "#node"}},
                },
            },
            {"q": 1, "kids": [{"q": 2, "kids": []}]},
            {"q": 1, "kids": [{"q": "x"}]},
        ),
        (  # draft-07 definitions
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "definitions": {"n": {"type": "integer"}},
                "type": "object",
                "properties": {"q": {"$ref": "#/definitions/n"}},
            },
            {"q": 1},
            {"q": "x"},
        ),
    ],
)
def test_refs_inside_the_schema_still_work(schema: dict[str, Any], good: Any, bad: Any) -> None:
    compiled = compile_schema(schema)
    assert compiled.refusal is None and compiled.validator is not None
    assert check_input(compiled, good) is None
    problem = check_input(compiled, bad)
    assert problem is not None and problem.startswith("Invalid arguments")


# ---- item 3: no regex, no schema stalls the loop -------------------------------------------------


async def with_loop_lag(work: Awaitable[T]) -> tuple[T, float]:
    """Run `work` beside a probe task that sleeps 5 ms in a loop; return the result and the largest
    overshoot of one sleep (s): how long the loop was blocked."""
    loop = asyncio.get_running_loop()
    lags: list[float] = []
    running = True

    async def probe() -> None:
        while running:
            start = loop.time()
            await asyncio.sleep(0.005)
            lags.append(loop.time() - start - 0.005)

    task = asyncio.create_task(probe())
    await asyncio.sleep(0.03)  # probe before and after the work: the probe's timing is the measurement
    result = await work
    await asyncio.sleep(0.03)
    running = False
    await task
    return result, max(lags)


def tool(schema: dict[str, Any]) -> PageTool:
    return PageTool.model_validate(
        {
            "name": "p1_find",
            "toolName": "find",
            "pageId": "tab-1",
            "description": "Find.",
            "pageTitle": "Shop",
            "origin": "https://shop.example",
            "url": "https://shop.example/",
            "inputSchema": schema,
        }
    )


def text(result: types.CallToolResult | None) -> str:
    assert result is not None
    return "".join(block.text for block in result.content if isinstance(block, types.TextContent))


@pytest.mark.parametrize(
    ("schema", "arguments", "expected"),
    [
        (
            {"type": "object", "properties": {"q": {"type": "string", "pattern": EVIL}}},
            {"q": "a" * 40 + "!"},
            "does not match",
        ),
        (
            {"type": "object", "properties": {"q": {"type": "string", "pattern": EVIL}}},
            {"q": "a" * 10_000 + "!"},
            "Invalid arguments: field `q`",
        ),
        (  # patternProperties keys, as additionalProperties matches them
            {"type": "object", "patternProperties": {EVIL: {}}, "additionalProperties": False},
            {"a" * 40 + "!": 1},
            "do" + "es not match any of the regexes",
        ),
        (  # and as unevaluatedProperties does (jsonschema's _utils)
            {"type": "object", "patternProperties": {EVIL: {}}, "unevaluatedProperties": False},
            {"a" * 40 + "!": 1},
            "Unevaluated properties are not allowed",
        ),
        (  # not RE2: `regex` with the budget left, then an isError naming the pattern
            {"type": "object", "properties": {"q": {"type": "string", "pattern": EVIL_LOOKAHEAD}}},
            {"q": "a" * 40 + "!"},
            f"the pattern `{EVIL_LOOKAHEAD}` ran out of it",
        ),
        (
            {"type": "object", "patternProperties": {EVIL_LOOKAHEAD: {}}, "unevaluatedProperties": False},
            {"a" * 40 + "!": 1},
            f"the pattern `{EVIL_LOOKAHEAD}` ran out of it",
        ),
        (  # 2^40 keyword calls through a $ref chain
            {
                "type": "object",
                "$defs": {
                    **{
                        f"a{i}": {"allOf": [{"$ref": f"#/$defs/a{i + 1}"}, {"$ref": f"#/$defs/a{i + 1}"}]}
                        for i in range(40)
                    },
                    "a40": {"type": "string"},
                },
                "properties": {"q": {"$ref": "#/$defs/a0"}},
            },
            {"q": 1},
            f"within {CHECK_BUDGET_S * 1000:g} ms",
        ),
    ],
)
async def test_a_hostile_schema_answers_without_stalling_the_loop(
    schema: dict[str, Any], arguments: dict[str, Any], expected: str
) -> None:
    table = PageToolTable(FakeRequester(default={"ok": True, "text": "called"}), 1000)
    await table.update([tool(schema)])
    extras: list[str] = []
    for _ in range(3):  # a stall our code causes shows every time; a busy machine's noise does not
        started = time.monotonic()
        result, lag = await with_loop_lag(table.call("p1_find", arguments))
        # "extra" delay: the same probe over an idle stretch as long, on this (maybe busy) machine
        _, idle_lag = await with_loop_lag(asyncio.sleep(time.monotonic() - started))
        assert result is not None and result.is_error and expected in text(result)
        extras.append(f"{lag * 1000:.0f} ms (idle {idle_lag * 1000:.0f})")
        if lag - idle_lag < MAX_LAG_S:
            break
    else:
        pytest.fail(f"the loop stalled in each of 3 calls: {extras}")
    assert table.requester.requests == []  # type: ignore[attr-defined]


def test_unique_items_is_linear_and_keeps_json_equality() -> None:
    """jsonschema compares every pair of objects (3,000 took 9.6 s, one uninterruptible keyword)."""
    compiled = compile_schema({"type": "object", "properties": {"q": {"type": "array", "uniqueItems": True}}})
    started = time.thread_time()
    assert check_input(compiled, {"q": [{"a": i} for i in range(3000)]}) is None
    assert time.thread_time() - started < 1.0
    huge = check_input(compiled, {"q": [{"a": i} for i in range(300_000)]})
    assert huge is not None and f"within {CHECK_BUDGET_S * 1000:g} ms" in huge
    for same in ([1, 1.0], [{"a": 1, "b": [2]}, {"b": [2.0], "a": 1}]):
        assert check_input(compiled, {"q": same}) is not None, same
    for different in ([True, 1], [[1], [True]], [None, False], ["1", 1]):
        assert check_input(compiled, {"q": different}) is None, different


def test_ecma_patterns_rE2_cannot_run_still_work_through_regex() -> None:
    schema = {
        "type": "object",
        "properties": {"pw": {"type": "string", "pattern": "^(?=.*[A-Z])(?=.*\\d).{8,}$"}},
    }
    compiled = compile_schema(schema)
    assert check_input(compiled, {"pw": "Secret123"}) is None
    assert check_input(compiled, {"pw": "secret123"}) is not None
    assert (
        check_input({"type": "object", "properties": {"q": {"pattern": "^a$"}}}, {"q": "a\ud800"}) is not None
    )


def test_rE2_does_not_print_the_page_s_pattern(capfd: pytest.CaptureFixture[str]) -> None:
    compile_schema({"type": "object", "properties": {"q": {"pattern": "(?=secret-pattern)"}}})
    assert "secret-pattern" not in capfd.readouterr().err


def test_oversized_and_absurdly_nested_schemas() -> None:
    huge = {
        "type": "object",
        "properties": {f"p{i}": {"type": "string"} for i in range(MAX_SCHEMA_BYTES // 20)},
    }
    problem = check_input(huge, {})
    assert problem is not None and "larger than webctx checks" in problem
    deep: dict[str, Any] = {"type": "object"}
    for _ in range(1500):  # under 64 KiB, over the recursion limit
        deep = {"type": "object", "properties": {"a": deep}}
    assert check_input(deep, {"a": {}}) is None  # not a usable schema: not enforced, as before


def test_a_schema_of_many_refs_compiles_within_its_budget() -> None:
    """2,480 `$ref`s to an embedded `$id` in 64 KiB: referencing crawls the schema once, not on
    every lookup (43 s before the registry was crawled up front)."""
    schema = {
        "$id": "https://shop.example/r",
        "$defs": {"x": {"$id": "x.json", "type": "integer"}},
        "type": "object",
        "properties": {f"p{i}": {"$ref": "x.json"} for i in range(2480)},
    }
    started = time.thread_time()  # the budget's clock: CPU seconds, not the machine's load
    compiled = compile_schema(schema)
    assert compiled.refusal is None and time.thread_time() - started < page_schemas.COMPILE_BUDGET_S
    assert check_input(compiled, {"p1": 1, "p2": 2}) is None
    assert check_input(compiled, {"p1": "x"}) is not None


def test_every_regex_jsonschema_runs_goes_through_the_router() -> None:
    """jsonschema's keyword modules use `re` only as `re.search(…)` (routed); an upgrade that
    adds another use must be looked at (page_schemas.py docstring)."""
    for name in page_schemas.ROUTED_MODULES:
        module = importlib.import_module(name)
        uses = re.findall(r"\bre\.(\w+)", inspect.getsource(module))
        assert set(uses) <= {"search"}, (name, uses)
        assert module.re is page_schemas._ROUTER
    # outside a check, the router is `re` itself: other jsonschema users are unchanged
    assert isinstance(importlib.import_module("jsonschema._keywords").re.search("a", "a"), re.Match)


async def test_a_followers_page_tools_take_the_same_path(server: CountingServer, file_uri: str) -> None:
    """Another profile's tools (FollowerTools, one PageToolTable per follower) are checked alike."""
    follower = FakeRequester(default={"ok": True, "text": "called"})
    tools = FollowerTools()
    schemas = hostile_schemas(server, file_uri)
    wire = [page_tool_wire(f"p1_tool{i}", schema) for i, schema in enumerate(schemas.values())]
    wire.append(page_tool_wire("p1_find", {"type": "object", "properties": {"q": {"pattern": EVIL}}}))
    await tools.update(1, "f1-", follower, wire)
    for i in range(len(schemas)):
        assert "never fetches" in text(await tools.call(f"p1f1_tool{i}", {"q": "text"}))
    result, lag = await with_loop_lag(tools.call("p1f1_find", {"q": "a" * 40 + "!"}))
    assert "does not match" in text(result) and lag < 1.0
    assert server.connections == 0 and follower.requests == []


# ---- through a real host process ----------------------------------------------------------------


def page_tool_wire(name: str, schema: dict[str, Any]) -> dict[str, Any]:
    """A `tools.changed` entry in wire shape (docs/internals/protocol.md "Page tools")."""
    return {
        "name": name,
        "toolName": name.split("_", 1)[1],
        "pageId": "tab-1",
        "description": "A hostile page's tool.",
        "pageTitle": "Hostile",
        "origin": "http://127.0.0.1",
        "url": "http://127.0.0.1/hostile.html",
        "inputSchema": schema,
    }


@pytest.fixture
def short_deadline(monkeypatch: pytest.MonkeyPatch) -> None:
    """A tool call that wrongly reaches the page fails in 5 s, not 60."""
    monkeypatch.setenv("WEBCTX_PAGE_TOOL_DEADLINE_MS", "5000")


@pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes")
async def test_the_host_fetches_nothing_for_a_hostile_schema(
    spawn: Callable[[], Any], server: CountingServer, file_uri: str, short_deadline: None
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    schemas = hostile_schemas(server, file_uri)
    names = {variant: f"p1_tool{i}" for i, variant in enumerate(schemas)}
    await host.send(
        {"type": "tools.changed", "tools": [page_tool_wire(names[v], s) for v, s in schemas.items()]}
    )
    async with asyncio.timeout(60), mcp_client(descriptor, "auto") as client:
        for variant, name in names.items():
            for _ in range(3):
                listed = {t.name for t in (await client.list_tools()).tools}
                if name in listed:
                    break
                await asyncio.sleep(0.1)
            result = await client.call_tool(name, {"q": "text"})
            assert result.is_error, variant
            assert "never fetches" in text(result), (variant, text(result))
    assert server.connections == 0, server.paths
    assert host.frames.empty()  # no tools.call reached the "page"
    assert host.process.returncode is None


@pytest.mark.skipif(os.name != "posix", reason="drives the host over POSIX pipes")
async def test_the_host_answers_a_pathological_pattern_at_once(
    spawn: Callable[[], Any], short_deadline: None
) -> None:
    host: Host = await spawn()
    await host.hello()
    descriptor = await ready_descriptor(host)
    schema = {"type": "object", "properties": {"q": {"type": "string", "pattern": EVIL}}}
    await host.send({"type": "tools.changed", "tools": [page_tool_wire("p1_find", schema)]})
    async with mcp_client(descriptor, "auto") as client:
        async def names() -> set[str]:
            return {t.name for t in (await client.list_tools()).tools}

        await until(names, check=lambda listed: "p1_find" in listed, timeout_s=15, message="p1_find listed")
        started = time.monotonic()
        async with asyncio.timeout(5):  # on main this call runs for hours: the test fails here
            result, listed = await asyncio.gather(
                client.call_tool("p1_find", {"q": "a" * 40 + "!"}), client.list_tools()
            )
        elapsed = time.monotonic() - started
    assert result.is_error and "does not match" in text(result)
    assert "p1_find" in {t.name for t in listed.tools}
    assert elapsed < 2.0, elapsed
    assert host.frames.empty()


def test_arguments_too_deep_to_check_are_refused_not_passed_unchecked() -> None:
    """A client nesting arguments past the recursion jsonschema can follow used to get them to the
    page unchecked ("not checked"); now they are an isError, and an unexpected failure of the
    check fails closed (a fresh user's attack)."""
    compiled = compile_schema({"type": "object", "properties": {"a": {"$ref": "#"}}, "required": []})

    def nested(depth: int, leaf: Any) -> Any:
        value = leaf
        for _ in range(depth):
            value = {"a": value}
        return value

    assert check_input(compiled, nested(40, {})) is None
    shallow = check_input(compiled, nested(40, 7))
    assert shallow is not None and shallow.startswith("Invalid arguments")
    for depth in (170, 5_000):
        deep = check_input(compiled, nested(depth, 7))
        assert deep is not None and "deeper than" in deep, depth
