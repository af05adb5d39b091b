"""A stand-in for a model service on 127.0.0.1: records what an MCP client offers the model and
answers with scripted tool calls, so a real client (Codex, fast-agent …) can be run headless and
checked by what its model saw.

It speaks the three wire formats the clients use: the OpenAI Responses API with SSE streaming
(`POST …/responses`, Codex's `wire_api = "responses"`), Chat Completions (`POST
…/chat/completions`, streamed or not) and the Gemini API (`POST
/v1beta/models/<model>:streamGenerateContent?alt=sse`, `:generateContent`, `:countTokens`; Gemini
CLI with `GOOGLE_GEMINI_BASE_URL`). Every POST is recorded (`StandInModel.requests`: path and
JSON body; headers are not kept, so a client's key never lands in a test log). Each answer is the
next step of the script: a `ToolStep` calls the offered tool whose name ends with the step's tool
name (clients prefix MCP tools: `mcp__webctx__current`, `webctx__current`, `webctx-current` …), a
`TextStep` ends the turn. A step's arguments may be a function of the tool results so far (the
`location` of the id `current` returned), read from the request the client sent.
"""

from __future__ import annotations

import contextlib
import http.server
import json
import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

Arguments = dict[str, Any] | Callable[[list[str]], dict[str, Any] | None]
"""A tool call's arguments, or a function of the tool results so far (oldest first, as text) that
returns them, or None to skip the step."""


@dataclass(frozen=True)
class ToolStep:
    """Call the offered tool named `tool` (or ending with `_tool`, `-tool`, `.tool`) with
    `arguments`; when no offered tool matches, or `arguments` returns None, the step is skipped."""

    tool: str
    arguments: Arguments = field(default_factory=dict)


@dataclass(frozen=True)
class TextStep:
    """End the turn with this assistant text."""

    text: str


Step = ToolStep | TextStep


@dataclass
class Recorded:
    """One request the client sent: its path and JSON body (None when the body was not JSON)."""

    path: str
    body: dict[str, Any] | None


class StandInModel:
    """The script and the record, shared by the server's request threads. `start()` again (a
    second client run) starts the script from its first step while keeping the record."""

    def __init__(self, script: list[Step]) -> None:
        self.script = script
        self.requests: list[Recorded] = []
        self.runs: list[int] = []
        """Index in `requests` where each run (each `start()`) began."""
        self._lock = threading.Lock()
        self._next = 0

    def start(self) -> None:
        """Begin a new run: the next model request gets the script's first step."""
        with self._lock:
            self._next = 0
            self.runs.append(len(self.requests))

    def run_requests(self, run: int) -> list[Recorded]:
        """The model requests (POSTs to a model endpoint) of run `run` (0-based), in order."""
        with self._lock:
            start = self.runs[run]
            end = self.runs[run + 1] if run + 1 < len(self.runs) else len(self.requests)
            return [r for r in self.requests[start:end] if is_model_request(r.path, r.body)]

    def answer(self, path: str, body: dict[str, Any] | None) -> tuple[str, list[str]]:
        """Record the request; return the step to take as (the offered tool's name, `namespace.name`
        for a namespaced one, or "" for text; [arguments JSON] or [the final text]). Past the
        script's end it answers with text."""
        with self._lock:
            self.requests.append(Recorded(path, body))
            if body is None or not is_model_request(path, body):
                return "", []
            offered = offered_tool_names(body)
            if not offered:
                # A side request without tools (opencode's title for the session): answered, and
                # the script stays where it is for the agent's own turn.
                return "", ["stand-in"]
            results = tool_results(body)
            while self._next < len(self.script):
                step = self.script[self._next]
                self._next += 1
                if isinstance(step, TextStep):
                    return "", [step.text]
                name = match_tool(step.tool, offered)
                if name is None:
                    continue
                arguments = step.arguments(results) if callable(step.arguments) else step.arguments
                if arguments is None:
                    continue
                return name, [json.dumps(arguments)]
            return "", ["done"]


def is_model_request(path: str, body: dict[str, Any] | None) -> bool:
    """Whether a POST asks the model for a turn: an OpenAI-style body names its `model`; a Gemini
    API request names it in the path (`…/models/<model>:streamGenerateContent`, `:generateContent`;
    not `:countTokens`)."""
    if body is None:
        return False
    return "model" in body or _gemini_method(path) in ("streamGenerateContent", "generateContent")


def _gemini_method(path: str) -> str:
    # `/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse` → `streamGenerateContent`
    tail = path.split("?", 1)[0].rsplit("/", 1)[-1]
    return tail.rpartition(":")[2] if ":" in tail else ""


def offered_tools(body: dict[str, Any]) -> list[tuple[str | None, str]]:
    """The tools a model request offers, as (namespace or None, name), in the three wire formats
    (Responses: `{"type": "function", "name"}`, or inside `{"type": "namespace", "name", "tools"}`
    (Codex puts each MCP server's tools in one); Chat Completions: `{"type": "function",
    "function": {"name"}}`; Gemini: `{"functionDeclarations": [{"name"}, …]}`)."""
    found: list[tuple[str | None, str]] = []
    for tool in body.get("tools") or []:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("functionDeclarations"), list):
            declared = tool["functionDeclarations"]
            found += [(None, str(t["name"])) for t in declared if isinstance(t, dict) and "name" in t]
        elif isinstance(tool.get("function"), dict) and "name" in tool["function"]:
            found.append((None, str(tool["function"]["name"])))
        elif isinstance(tool.get("tools"), list):
            namespace = str(tool.get("name", ""))
            found += [
                (namespace, str(t["name"])) for t in tool["tools"] if isinstance(t, dict) and "name" in t
            ]
        elif "name" in tool:
            found.append((None, str(tool["name"])))
    return found


def offered_tool_names(body: dict[str, Any]) -> list[str]:
    """`offered_tools` as names, a namespaced one as `namespace.name` (e.g. `mcp__webctx.current`)."""
    return [name if namespace is None else f"{namespace}.{name}" for namespace, name in offered_tools(body)]


def match_tool(wanted: str, offered: list[str]) -> str | None:
    """The offered name that is `wanted` or ends with it after a separator (`_`, `-`, `.`, `/`)."""
    pattern = re.compile(rf"(^|[_\-./]){re.escape(wanted)}$")
    return next((name for name in offered if pattern.search(name)), None)


def tool_results(body: dict[str, Any]) -> list[str]:
    """The tool results the request carries back to the model, oldest first, as text
    (Responses: `function_call_output` items; Chat Completions: `role: tool` messages; Gemini:
    `functionResponse` parts, their `response`'s `output` when it has one)."""
    results: list[str] = []
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "function_call_output":
            results.append(_text_of(item.get("output")))
    for message in body.get("messages") or []:
        if isinstance(message, dict) and message.get("role") == "tool":
            results.append(_text_of(message.get("content")))
    for turn in body.get("contents") or []:
        for part in (turn.get("parts") or []) if isinstance(turn, dict) else []:
            if isinstance(part, dict) and isinstance(part.get("functionResponse"), dict):
                response = part["functionResponse"].get("response")
                if isinstance(response, dict) and set(response) == {"output"}:
                    response = response["output"]
                results.append(_text_of(response))
    return results


def _text_of(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list):  # content parts
        return "".join(
            str(part.get("text", "")) if isinstance(part, dict) else str(part) for part in value
        )
    return json.dumps(value)


class _Handler(http.server.BaseHTTPRequestHandler):
    model: StandInModel
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_GET(self) -> None:
        # `/models` and the like: an empty list, so a client does not wait on it.
        self.model.answer(self.path, None)
        self._send_json({"object": "list", "data": [], "models": []})

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw)
        except ValueError:
            body = None
        if not isinstance(body, dict):
            body = None
        tool, payload = self.model.answer(self.path, body)
        stream = bool(body and body.get("stream"))
        gemini = _gemini_method(self.path)
        if gemini == "countTokens":
            self._send_json({"totalTokens": 1})
        elif gemini == "streamGenerateContent":
            self._send_sse([gemini_answer(tool, payload[0] if payload else "done")], named=False, done=False)
        elif gemini == "generateContent":
            self._send_json(gemini_answer(tool, payload[0] if payload else "done"))
        elif self.path.rstrip("/").endswith("/responses"):
            self._send_sse(responses_events(tool, payload[0] if payload else "done"))
        elif self.path.rstrip("/").endswith("/chat/completions"):
            if stream:
                self._send_sse(chat_chunks(tool, payload[0] if payload else "done"), named=False)
            else:
                self._send_json(chat_completion(tool, payload[0] if payload else "done"))
        else:
            self._send_json({})

    def _send_json(self, value: Any) -> None:
        data = json.dumps(value).encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _send_sse(self, events: list[dict[str, Any]], *, named: bool = True, done: bool = True) -> None:
        # named: Responses events (`event:` lines); done: Chat Completions' closing `[DONE]`
        lines = []
        for event in events:
            if named:
                lines.append(f"event: {event['type']}\n")
            lines.append(f"data: {json.dumps(event)}\n\n")
        if not named and done:
            lines.append("data: [DONE]\n\n")
        data = "".join(lines).encode()
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)


_counter = iter(range(1, 1 << 30))


def responses_events(tool: str, payload: str) -> list[dict[str, Any]]:
    """One Responses-API turn as SSE events: a function call of `tool` with arguments `payload`
    (JSON text), or, when `tool` is "", an assistant message with text `payload`."""
    n = next(_counter)
    response_id = f"resp_{n}"
    if tool:
        namespace, _, name = tool.rpartition(".")
        item: dict[str, Any] = {
            "type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": name,
            "arguments": payload, "status": "completed",
        }
        if namespace:
            item["namespace"] = namespace
    else:
        item = {
            "type": "message", "id": f"msg_{n}", "role": "assistant", "status": "completed",
            "content": [{"type": "output_text", "text": payload, "annotations": []}],
        }
    usage = {"input_tokens": 1, "input_tokens_details": None, "output_tokens": 1,
             "output_tokens_details": None, "total_tokens": 2}
    return [
        {"type": "response.created", "response": {"id": response_id}},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.output_item.done", "output_index": 0, "item": item},
        {"type": "response.completed", "response": {"id": response_id, "usage": usage}},
    ]


def _chat_message(tool: str, payload: str, n: int) -> dict[str, Any]:
    if tool:
        return {"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{n}", "type": "function", "function": {"name": tool, "arguments": payload}}
        ]}
    return {"role": "assistant", "content": payload}


def chat_completion(tool: str, payload: str) -> dict[str, Any]:
    """One Chat Completions answer (not streamed): a tool call or a final text."""
    n = next(_counter)
    return {
        "id": f"chatcmpl-{n}", "object": "chat.completion", "created": 0, "model": "stand-in",
        "choices": [{"index": 0, "message": _chat_message(tool, payload, n),
                     "finish_reason": "tool_calls" if tool else "stop"}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def chat_chunks(tool: str, payload: str) -> list[dict[str, Any]]:
    """The same answer as streamed Chat Completions chunks."""
    n = next(_counter)
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 0, "model": "stand-in"}
    if tool:
        delta: dict[str, Any] = {"role": "assistant", "content": None, "tool_calls": [
            {"index": 0, "id": f"call_{n}", "type": "function",
             "function": {"name": tool, "arguments": payload}}
        ]}
    else:
        delta = {"role": "assistant", "content": payload}
    return [
        {**base, "choices": [{"index": 0, "delta": delta, "finish_reason": None}]},
        {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if tool else "stop"}],
         "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}},
    ]


def gemini_answer(tool: str, payload: str) -> dict[str, Any]:
    """One Gemini API answer (a `GenerateContentResponse`, also each SSE chunk of
    `:streamGenerateContent`): a `functionCall` of `tool` with `payload`'s JSON as its `args`, or a
    final text."""
    part: dict[str, Any] = (
        {"functionCall": {"name": tool, "args": json.loads(payload)}} if tool else {"text": payload}
    )
    return {
        "candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP", "index": 0}],
        "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
        "modelVersion": "stand-in",
    }


@contextlib.contextmanager
def stand_in_model(script: list[Step]) -> Iterator[tuple[StandInModel, str]]:
    """Serve a StandInModel with `script` on 127.0.0.1 at a free port; yield it and its base URL
    (`http://127.0.0.1:<port>/v1`). Shut down when the block ends."""
    model = StandInModel(script)
    handler = type("StandInHandler", (_Handler,), {"model": model})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="stand-in-model", daemon=True)
    thread.start()
    try:
        yield model, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
