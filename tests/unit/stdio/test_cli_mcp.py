"""`webctx mcp`: the documented Codex step on a clean HOME, and the real stdio process with no provider
Each client's snippet: test_client_configs.py."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

from native_host.stdio.clients import server_entry
from native_host.stdio.server import SERVER_INSTRUCTIONS

WEBCTX = Path(sys.executable).with_name("webctx")
REPO = Path(__file__).resolve().parents[3]


def test_the_readme_codex_steps_on_a_clean_home_write_the_file_codex_reads(tmp_path: Path) -> None:
    """A fresh HOME, the step docs/clients.md gives for Codex, run by a
    shell; the file written is TOML Codex reads (tomllib), beside a setting the user already had,
    and the command in it starts a bridge that answers `initialize`."""
    home = tmp_path / "clean-home"
    home.mkdir()
    (home / ".codex").mkdir()
    (home / ".codex" / "config.toml").write_text('model = "gpt-5-codex"\n')  # what a user may have
    steps = (REPO / "docs" / "clients.md").read_text(encoding="utf-8")
    step = next(line for line in steps.splitlines() if "--print-config codex >>" in line)
    shell = step.strip().strip("`").replace(".venv/bin/webctx", str(WEBCTX))
    subprocess.run(["bash", "-c", shell], check=True, env={**os.environ, "HOME": str(home)}, timeout=60)
    config = tomllib.loads((home / ".codex" / "config.toml").read_text(encoding="utf-8"))
    assert config["model"] == "gpt-5-codex"
    server = config["mcp_servers"]["webctx"]
    assert server == server_entry("codex")  # exactly the printed entry, settings included
    assert server["command"] == str(WEBCTX) and server["args"] == ["mcp"]
    initialize = _frame(1, "initialize", {"protocolVersion": "2025-11-25", "capabilities": {},
                                          "clientInfo": {"name": "codex-like", "version": "1"}})
    done = subprocess.run(
        [server["command"], *server["args"]], input=initialize, capture_output=True, timeout=30,
        env={**os.environ, "HOME": str(home)},
    )
    assert done.returncode == 0, done.stderr.decode()
    [answer] = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert answer["result"]["serverInfo"]["name"]


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
    assert by_id[1]["result"]["instructions"] == SERVER_INSTRUCTIONS  # the same at every start
    assert [t["name"] for t in by_id[2]["result"]["tools"]] == ["current"]
    assert by_id[3]["result"]["isError"] is True
    why = by_id[3]["result"]["content"][0]["text"]  # a client can show why, in one line
    assert why.startswith("webctx cannot reach a browser: ") and "\n" not in why
    assert f"Looked in {os.environ['CONTEXT_PROVIDERS_DIR']}, from CONTEXT_PROVIDERS_DIR." in why
    assert by_id[4]["result"]["resources"][0]["uri"] == "webctx://current"
    assert time.monotonic() - started < 20
    log_file = Path(os.environ["XDG_STATE_HOME"]) / "webctx" / "log" / "mcp.log"
    assert "webctx mcp starting" in log_file.read_text()
