"""tests/support/stand_in_model.py, the model the real-client e2e tests talk to: it must find a
client's tools in both wire formats (Codex's namespaces included), answer in the shape each client
parses, and keep its script for the agent's turn when a client asks something on the side."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from tests.support.stand_in_model import TextStep, ToolStep, offered_tool_names, stand_in_model, tool_results


def post(url: str, body: dict[str, Any]) -> str:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        text: str = answer.read().decode()
        return text


CODEX_TOOLS = [
    {"type": "function", "name": "exec_command"},
    {"type": "namespace", "name": "mcp__webctx", "tools": [
        {"type": "function", "name": "current"}, {"type": "function", "name": "p1_get_heading"}]},
]


def test_codex_namespaced_tools_are_found_and_called_with_their_namespace() -> None:
    assert offered_tool_names({"tools": CODEX_TOOLS}) == [
        "exec_command", "mcp__webctx.current", "mcp__webctx.p1_get_heading"
    ]
    with stand_in_model([ToolStep("current"), ToolStep("location"), TextStep("bye")]) as (model, url):
        model.start()
        events = post(f"{url}/responses", {"model": "m", "stream": True, "tools": CODEX_TOOLS, "input": []})
        [done] = [json.loads(line[6:]) for line in events.splitlines()
                  if line.startswith("data: ") and "output_item.done" in line]
        assert done["item"] | {"id": "", "call_id": ""} == {
            "type": "function_call", "id": "", "call_id": "", "name": "current", "namespace": "mcp__webctx",
            "arguments": "{}", "status": "completed",
        }
        # `location` is not offered: skipped; the turn ends with the text
        events = post(f"{url}/responses", {"model": "m", "stream": True, "tools": CODEX_TOOLS, "input": [
            {"type": "function_call_output", "call_id": "c", "output": "result one"}]})
        assert '"text": "bye"' in events
        assert tool_results(model.run_requests(0)[-1].body or {}) == ["result one"]


def test_a_chat_completions_side_request_without_tools_keeps_the_script() -> None:
    tools = [{"type": "function", "function": {"name": "webctx_current"}}]
    with stand_in_model([ToolStep("current"), TextStep("bye")]) as (model, url):
        model.start()
        title = json.loads(post(f"{url}/chat/completions", {"model": "m", "messages": []}))
        assert title["choices"][0]["message"]["content"] == "stand-in"
        turn = {"model": "m", "stream": True, "tools": tools, "messages": []}
        chunks = post(f"{url}/chat/completions", turn)
        assert '"name": "webctx_current"' in chunks and chunks.rstrip().endswith("data: [DONE]")
        assert len(model.run_requests(0)) == 2
