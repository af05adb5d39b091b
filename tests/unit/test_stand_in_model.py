"""tests/support/stand_in_model.py, the model the real-client e2e tests talk to: it must find a
client's tools in each wire format (Responses with Codex's namespaces, Chat Completions, the Gemini
API), answer in the shape each client parses, and keep its script for the agent's turn when a
client asks something on the side."""

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


GEMINI_TOOLS = [{"functionDeclarations": [{"name": "read_mcp_resource"}, {"name": "mcp_webctx_current"}]}]


def test_gemini_api_turns_are_found_answered_as_sse_and_their_function_responses_read() -> None:
    assert offered_tool_names({"tools": GEMINI_TOOLS}) == ["read_mcp_resource", "mcp_webctx_current"]
    resource = {"uri": "webctx://x/tab-1/text"}
    script = [ToolStep("current"), ToolStep("read_mcp_resource", resource), TextStep("bye")]
    with stand_in_model(script) as (model, url):
        base = url.removesuffix("/v1") + "/v1beta/models/gemini-2.5-flash"
        model.start()
        # a side request (`:countTokens`) is answered and is no turn of the run
        assert json.loads(post(f"{base}:countTokens", {"contents": []})) == {"totalTokens": 1}
        events = post(f"{base}:streamGenerateContent?alt=sse", {"contents": [], "tools": GEMINI_TOOLS})
        [chunk] = [json.loads(line[6:]) for line in events.splitlines() if line.startswith("data: ")]
        assert "[DONE]" not in events
        assert chunk["candidates"][0]["content"] == {
            "role": "model", "parts": [{"functionCall": {"name": "mcp_webctx_current", "args": {}}}]
        }
        turn = {"tools": GEMINI_TOOLS, "contents": [
            {"role": "model", "parts": [{"functionCall": {"name": "mcp_webctx_current", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {
                "name": "mcp_webctx_current", "response": {"output": "result one"}}}]},
        ]}
        answer = json.loads(post(f"{base}:generateContent", turn))  # not streamed: the same shape
        assert answer["candidates"][0]["content"]["parts"] == [
            {"functionCall": {"name": "read_mcp_resource", "args": resource}}
        ]
        assert [r.path.rsplit(":", 1)[1] for r in model.run_requests(0)] == [
            "streamGenerateContent?alt=sse", "generateContent"
        ]
        assert tool_results(model.run_requests(0)[-1].body or {}) == ["result one"]
