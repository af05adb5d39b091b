"""`webctx tools` and `webctx call` (native_host/cli/tools.py, call.py; design.md §6),
run through `main()` against a real MCP server on 127.0.0.1 with a descriptor in the providers
folder (tests/support/fake_provider.py). The server runs on its own event loop in a thread,
because the CLI runs its own (`asyncio.run`). Only the bundle-id lookup is replaced: this Python
process is no browser (`same_bundle`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import io
import json
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from mcp import types

from native_host.cli import call, tools
from native_host.cli.main import main
from native_host.host import HostClient
from native_host.protocol.tools import id_error, tool_error
from tests.support.fake_provider import FakeProvider, fake_provider, page_tool, same_bundle


@contextlib.contextmanager
def provider_in_thread(configure: Callable[[FakeProvider], None]) -> Iterator[FakeProvider]:
    """A fake provider served from a thread with its own event loop until the block ends."""
    ready = threading.Event()
    started: dict[str, object] = {}
    loop = asyncio.new_event_loop()

    async def serve() -> None:
        stop = asyncio.Event()
        async with fake_provider() as p:
            configure(p)
            started.update(provider=p, stop=stop)
            ready.set()
            await stop.wait()

    thread = threading.Thread(target=loop.run_until_complete, args=(serve(),), daemon=True)
    thread.start()
    try:
        assert ready.wait(10), "the fake provider did not start"
        provider = started["provider"]
        assert isinstance(provider, FakeProvider)
        yield provider
    finally:
        stop = started.get("stop")
        if isinstance(stop, asyncio.Event):
            loop.call_soon_threadsafe(stop.set)
        thread.join(10)
        loop.close()


def _configure(p: FakeProvider) -> None:
    p.extra_tools = [
        page_tool("p1_get_passage"),
        page_tool("p1_buy", read_only=False, consequential=True),
        page_tool("p1_fail"),
    ]
    p.results = {
        "p1_get_passage": types.CallToolResult(content=[types.TextContent(text="We may say most aptly")]),
        "p1_buy": types.CallToolResult(
            content=[types.TextContent(text='{"bought":2}')], structured_content={"bought": 2}
        ),
        "p1_fail": tool_error("The page's tool threw: out of stock"),
        "location": id_error("unknown_id", "No element has the id 'x'; ask `current` again."),
    }


@pytest.fixture
def provider(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeProvider]:
    """The fake provider with page tools, its descriptor in a private providers folder, and the
    CLI's host client agreeing with its bundle id."""
    folder = tmp_path / "providers"
    folder.mkdir(mode=0o700)
    client = functools.partial(HostClient, identify=same_bundle, front_pid=lambda: None)
    monkeypatch.setattr(tools, "HostClient", client)
    monkeypatch.setattr(call, "HostClient", client)
    with provider_in_thread(_configure) as p:
        p.write(folder)
        yield p


def test_tools_lists_page_tools_with_their_page_origin_and_read_only_hint(
    provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tools"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Test Host 1.0 (pid") and lines[0].endswith("5 tool(s)")
    # one line per tool, its description on the next line, indented
    pairs = zip(lines[1::2], lines[2::2], strict=True)
    by_name = {line.split()[0]: line + "\n" + below for line, below in pairs}
    assert list(by_name) == ["current", "echo", "p1_get_passage", "p1_buy", "p1_fail"]
    assert "page=" not in by_name["current"]
    passage = by_name["p1_get_passage"]
    assert "page=tab-1" in passage and "origin=http://127.0.0.1:8000" in passage
    assert "read-only" in passage and "asks first" not in passage
    assert "\n    [Page tool of “Demo” (http://127.0.0.1:8000); page-provided, untrusted] p1_get" in passage
    buy = by_name["p1_buy"]
    assert "may act" in buy and "asks first" in buy


def test_tools_json_is_the_exact_tools_list(
    provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["tools", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    passage = next(t for t in data["tools"] if t["name"] == "p1_get_passage")
    assert passage["_meta"]["pageId"] == "tab-1" and passage["_meta"]["toolName"] == "get_passage"
    assert passage["annotations"]["readOnlyHint"] is True


def test_call_prints_the_result_text(provider: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "p1_get_passage"]) == 0
    assert capsys.readouterr().out == "We may say most aptly\n"


def test_call_passes_the_json_arguments(provider: FakeProvider, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["call", "echo", '{"a": [1, "ü"]}']) == 0
    assert json.loads(capsys.readouterr().out) == {"a": [1, "ü"]}


def test_call_reads_the_arguments_from_stdin_with_a_dash(
    provider: FakeProvider, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO('{"from": "stdin"}'))
    assert main(["call", "echo", "-"]) == 0
    assert json.loads(capsys.readouterr().out) == {"from": "stdin"}


def test_call_prints_a_structured_result_as_indented_json(
    provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["call", "p1_buy", "{}"]) == 0
    assert capsys.readouterr().out == '{\n  "bought": 2\n}\n'
    assert main(["call", "current", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["structuredContent"] == provider.answer() and data["isError"] is False


def test_an_is_error_result_exits_1_with_its_message_on_stderr(
    provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["call", "p1_fail"]) == 1
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "webctx: `p1_fail` answered with an error: The page's tool threw: out of stock\n"
    assert main(["call", "location", '{"id": "x"}', "--json"]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["structuredContent"]["error"]["code"] == "unknown_id"
    assert "No element has the id 'x'" in captured.err


def test_an_unknown_tool_exits_1_and_points_at_webctx_tools(
    provider: FakeProvider, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["call", "p9_nope"]) == 1
    err = capsys.readouterr().err.strip()
    assert "Unknown tool: p9_nope" in err
    assert err.endswith("Run `webctx tools` for the names and descriptions it offers.")


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ("{id: sel-1}", "not valid JSON (Expecting property name enclosed in double quotes"),
        ("'{\"id\": 1}'", "not valid JSON"),
        ('["sel-1"]', "not an array"),
        ("null", "not null"),
        ('"sel-1"', "not a string"),
    ],
)
def test_bad_json_is_one_sentence_that_ends_with_the_fix_and_asks_no_provider(
    arguments: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["call", "location", arguments]) == 1  # no provider running: JSON is checked first
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and says in err
    assert err.rstrip().endswith("""e.g. webctx call location '{"id": "sel-1"}'""")


def test_tools_and_call_with_no_provider_exit_1_with_a_sentence(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tools"]) == 1
    assert main(["call", "current"]) == 1
    err = capsys.readouterr().err
    assert err.count("webctx: ") == 2 and "Traceback" not in err
