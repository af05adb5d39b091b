"""`webctx mcp --print-config CLIENT`: each client's snippet parses as that client reads its file
(JSON, TOML, YAML) and carries the keys the client needs headless and interactive; the settings
were read from each client's own schema (native_host/stdio/clients.py says where)."""

from __future__ import annotations

import json
import shlex
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml

from native_host.cli.main import main
from native_host.stdio import clients as mcp_clients
from native_host.stdio.clients import CLIENT_NAMES, add_command, config_snippet, config_text, where_text

WEBCTX = Path(sys.executable).with_name("webctx")
COMMAND = ["/opt/webctx/bin/webctx", "mcp"]
FALLBACK = ["/usr/bin/python3", "-m", "native_host.cli.main", "mcp"]


def parsed(client: str, text: str) -> dict[str, Any]:
    """`text` read as client `client` reads its file."""
    file_format = mcp_clients.client_config(client).file_format
    if file_format == "toml":
        return tomllib.loads(text)
    if file_format == "yaml":
        value = yaml.safe_load(text)
        assert isinstance(value, dict)
        return value
    value = json.loads(text)
    assert isinstance(value, dict)
    return value


def entry_of(client: str, snippet: dict[str, Any]) -> dict[str, Any]:
    inner: Any = snippet
    for key in mcp_clients.client_config(client).top_key:
        inner = inner[key]
    assert list(inner) == ["webctx"]
    entry: dict[str, Any] = inner["webctx"]
    return entry


def test_every_client_has_a_snippet_a_file_per_os_and_a_tested_version_where_it_needs_settings() -> None:
    assert CLIENT_NAMES == (
        "claude-desktop", "claude-code", "cursor", "vscode", "gemini", "codex", "copilot", "opencode",
        "fast-agent",
    )
    for client in mcp_clients.CLIENTS:
        assert set(client.where) == {"linux", "macos", "windows"}
        assert all(setting.why.strip() for setting in client.settings)
        if client.settings:
            assert client.tested, f"{client.name}: settings without the version they were read from"


@pytest.mark.parametrize("client", CLIENT_NAMES)
def test_print_config_prints_exactly_the_snippet_with_this_installations_command(
    client: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["mcp", "--print-config", client]) == 0
    captured = capsys.readouterr()
    snippet = parsed(client, captured.out)
    assert snippet == config_snippet(client)
    entry = entry_of(client, snippet)
    argv = entry["command"] if isinstance(entry["command"], list) else [entry["command"], *entry["args"]]
    assert argv == [str(WEBCTX), "mcp"] and Path(argv[0]).is_absolute()
    assert "configuration" in captured.err
    add = add_command(client)
    if add is not None:
        assert captured.err.splitlines()[-1] == f"or run: {shlex.join(add)}"


def test_codex_waits_for_the_bridge_passes_it_the_providers_folder_and_runs_its_tools_headless() -> None:
    text = config_text("codex", COMMAND)
    entry = tomllib.loads(text)["mcp_servers"]["webctx"]
    assert entry == {
        "command": COMMAND[0], "args": ["mcp"],
        "required": True,  # codex exec waits for it before the first model request
        "startup_timeout_sec": 30,
        "env_vars": ["XDG_RUNTIME_DIR", "CONTEXT_PROVIDERS_DIR"],  # Codex passes only HOME, PATH …
        "default_tools_approval_mode": "approve",  # one of auto | prompt | approve
    }
    # each setting says what it trusts, as a TOML comment right above it
    lines = text.splitlines()
    for key in ("required", "startup_timeout_sec", "env_vars", "default_tools_approval_mode"):
        above = lines[next(i for i, line in enumerate(lines) if line.startswith(f"{key} =")) - 1]
        assert above.startswith("# ") and "Trusts" in above, (key, above)


def test_the_codex_snippet_keeps_a_windows_path_and_quotes_as_toml() -> None:
    command = [r"C:\Users\Ada Lovelace\webctx\Scripts\webctx.exe", "mcp", 'say "hi"']
    entry = tomllib.loads(config_text("codex", command))["mcp_servers"]["webctx"]
    assert entry["command"] == command[0] and entry["args"] == command[1:]


def test_claude_code_loads_webctx_tools_into_the_first_prompt_and_its_add_json_carries_that() -> None:
    entry = entry_of("claude-code", json.loads(config_text("claude-code", COMMAND)))
    assert entry == {"type": "stdio", "command": COMMAND[0], "args": ["mcp"], "alwaysLoad": True}
    add = add_command("claude-code", COMMAND)
    assert add is not None and add[:6] == ["claude", "mcp", "add-json", "--scope", "user", "webctx"]
    assert json.loads(add[6]) == entry
    assert "ToolSearch" in where_text("claude-code", COMMAND)


def test_gemini_trusts_the_server_and_says_what_headless_gemini_needs_besides() -> None:
    entry = entry_of("gemini", json.loads(config_text("gemini", COMMAND)))
    assert entry == {"command": COMMAND[0], "args": ["mcp"], "trust": True}
    said = where_text("gemini", COMMAND)
    assert "trustedFolders.json" in said and "GEMINI_CLI_TRUST_WORKSPACE=true" in said
    assert "selectedType" in said and "GEMINI_API_KEY" in said
    # gemini mcp add [options] <name> <commandOrUrl> [args...]; user scope, trusted like the file
    assert add_command("gemini", COMMAND) == ["gemini", "mcp", "add", "--scope", "user", "--trust", "webctx",
                                              *COMMAND]
    # the `python -m` fallback: its `-m` must not be read as one of gemini's options
    assert add_command("gemini", FALLBACK) == [
        "gemini", "mcp", "add", "--scope", "user", "--trust", "webctx", "--", *FALLBACK
    ]


def test_copilot_opencode_and_fast_agent_get_their_own_shapes() -> None:
    copilot = entry_of("copilot", json.loads(config_text("copilot", COMMAND)))
    assert copilot == {"type": "local", "command": COMMAND[0], "args": ["mcp"], "tools": ["*"]}
    opencode_file = json.loads(config_text("opencode", COMMAND))
    assert opencode_file["$schema"] == "https://opencode.ai/config.json"
    assert entry_of("opencode", opencode_file) == {
        "type": "local", "command": COMMAND, "enabled": True,
        "timeout": 60_000,  # ms per MCP request; opencode's 5 s default is shorter than Allow/Deny
    }
    fast_agent = yaml.safe_load(config_text("fast-agent", [r"C:\Program Files\webctx.exe", "mcp"]))
    assert fast_agent == {"mcp": {"servers": {"webctx": {"command": r"C:\Program Files\webctx.exe",
                                                         "args": ["mcp"]}}}}


def test_clients_without_settings_keep_the_plain_entry() -> None:
    entry = {"command": COMMAND[0], "args": ["mcp"]}
    assert config_snippet("claude-desktop", COMMAND) == {"mcpServers": {"webctx": entry}}
    assert config_snippet("cursor", COMMAND) == {"mcpServers": {"webctx": entry}}
    assert config_snippet("vscode", COMMAND) == {"servers": {"webctx": {"type": "stdio", **entry}}}
    assert add_command("cursor", COMMAND) is None and add_command("codex", COMMAND) is None
