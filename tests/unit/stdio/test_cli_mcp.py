"""`webctx mcp`: the configuration snippets, and the real stdio process with no provider (issue #8)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from native_host.cli.main import main
from native_host.stdio import clients as mcp_clients
from native_host.stdio.clients import CLIENT_NAMES, config_snippet
from native_host.stdio.server import NO_PROVIDER_MESSAGE

WEBCTX = Path(sys.executable).with_name("webctx")


def test_the_four_documented_clients_have_snippets() -> None:
    assert CLIENT_NAMES == ("claude-desktop", "claude-code", "cursor", "vscode")
    command = ["/opt/webctx/bin/webctx", "mcp"]
    entry = {"command": "/opt/webctx/bin/webctx", "args": ["mcp"]}
    assert config_snippet("claude-desktop", command) == {"mcpServers": {"webctx": entry}}
    assert config_snippet("cursor", command) == {"mcpServers": {"webctx": entry}}
    assert config_snippet("claude-code", command) == {"mcpServers": {"webctx": {"type": "stdio", **entry}}}
    assert config_snippet("vscode", command) == {"servers": {"webctx": {"type": "stdio", **entry}}}
    for client in mcp_clients.CLIENTS:
        assert set(client.where) == {"linux", "macos", "windows"}


@pytest.mark.parametrize("client", CLIENT_NAMES)
def test_print_config_prints_exactly_the_json_with_this_installations_command(
    client: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", "--print-config", client]) == 0
    captured = capsys.readouterr()
    snippet = json.loads(captured.out)
    [entry] = next(iter(snippet.values())).values()
    assert Path(entry["command"]).is_absolute()
    assert entry["command"] == str(WEBCTX) and entry["args"] == ["mcp"]
    assert "configuration" in captured.err


def _frame(message_id: int | None, method: str, params: dict[str, Any] | None = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
    if message_id is not None:
        message["id"] = message_id
    if params is not None:
        message["params"] = params
    return (json.dumps(message) + "\n").encode()


def test_the_stdio_server_writes_only_mcp_frames_and_answers_without_a_provider(tmp_path: Path) -> None:
    """No provider running: every call gets the clear isError, every stdout line is a JSON-RPC
    message, logs go to mcp.log, and stdin EOF ends the process with status 0."""
    frames = b"".join([
        _frame(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                 "clientInfo": {"name": "probe", "version": "1"}}),
        _frame(None, "notifications/initialized"),
        _frame(2, "tools/list"),
        _frame(3, "tools/call", {"name": "current", "arguments": {}}),
        _frame(4, "resources/list"),
    ])
    started = time.monotonic()
    with subprocess.Popen(
        [str(WEBCTX), "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        env=dict(os.environ),
    ) as process:
        assert process.stdin is not None and process.stdout is not None and process.stderr is not None
        try:
            process.stdin.write(frames)
            process.stdin.flush()
            lines = []
            while len(lines) < 4:  # one answer per request; a hang is caught by pytest-timeout
                lines.append(process.stdout.readline())
            process.stdin.close()  # EOF: the bridge exits
            process.wait(timeout=15)
            rest, errors = process.stdout.read(), process.stderr.read()
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 0, errors.decode()
    messages = [json.loads(line) for line in [*lines, *rest.splitlines()] if line.strip()]
    assert all(m.get("jsonrpc") == "2.0" for m in messages)
    by_id = {m["id"]: m for m in messages if "id" in m}
    assert by_id[1]["result"]["capabilities"]["tools"] == {"listChanged": True}
    instructions = by_id[1]["result"]["instructions"]  # issue 14: the client can show why, in one line
    assert instructions.startswith("webctx cannot reach a browser: ") and "\n" not in instructions
    assert f"Looked in {os.environ['CONTEXT_PROVIDERS_DIR']}, from CONTEXT_PROVIDERS_DIR." in instructions
    assert [t["name"] for t in by_id[2]["result"]["tools"]] == ["current"]
    assert by_id[3]["result"]["isError"] is True
    assert by_id[3]["result"]["content"][0]["text"] == NO_PROVIDER_MESSAGE
    assert by_id[4]["result"]["resources"][0]["uri"] == "webctx://current"
    assert time.monotonic() - started < 20
    log_file = Path(os.environ["XDG_STATE_HOME"]) / "webctx" / "log" / "mcp.log"
    assert "webctx mcp starting" in log_file.read_text()
