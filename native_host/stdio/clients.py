"""DATA: MCP client → how it is told to launch `webctx mcp`, and where that file lives (issues #8, 14).

Sources (checked 2026-11): Claude Desktop, "Connect to local MCP servers" (modelcontextprotocol.io
quickstart, `claude_desktop_config.json`); Claude Code, "Connect Claude Code to tools via MCP"
(`.mcp.json`, `claude mcp add`); Cursor, "Model Context Protocol" docs (`mcp.json`); VS Code, "Use
MCP servers in VS Code" (`.vscode/mcp.json`, top-level key `servers`, `type: "stdio"`). Checked
2026-12-01 (issue 14): Gemini CLI, "MCP servers with the Gemini CLI" (geminicli.com/docs/tools/
mcp-server: `mcpServers` in `~/.gemini/settings.json` or `.gemini/settings.json`; `gemini mcp add
[options] <name> <commandOrUrl> [args...]`, `-s user`, default scope project) and google-gemini/
gemini-cli PR 26457 (untrusted folder: every MCP server disabled); Codex, "Model Context
Protocol" (developers.openai.com/codex/mcp: `[mcp_servers.<name>]` with `command`, `args` in
`~/.codex/config.toml`, or `.codex/config.toml` in a trusted project; `codex mcp add <name> --
<command>`). One reader (`config_snippet`) serves every row; a new client is a new row.
"""

from __future__ import annotations

import json
import shlex
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal

SERVER_KEY: Final = "webctx"
"""The name the server is registered under in every client's configuration."""


@dataclass(frozen=True)
class ClientConfig:
    """One MCP client: the top-level key of its configuration, whether entries carry
    `"type": "stdio"`, where the file lives per OS (`linux`, `macos`, `windows`; human-readable
    paths), the file's format (`json`, or `toml` for Codex), and the client's own command that
    writes the entry (`add`: the words before the server's command; empty when it has none)."""

    name: str
    title: str
    top_key: str
    typed: bool
    where: dict[str, str]
    file_format: Literal["json", "toml"] = "json"
    add: tuple[str, ...] = ()


CLIENTS: Final = (
    ClientConfig(
        "claude-desktop", "Claude Desktop", "mcpServers", typed=False,
        where={
            "macos": "~/Library/Application Support/Claude/claude_desktop_config.json",
            "windows": r"%APPDATA%\Claude\claude_desktop_config.json",
            "linux": "~/.config/Claude/claude_desktop_config.json (unofficial Linux builds)",
        },
    ),
    ClientConfig(
        "claude-code", "Claude Code", "mcpServers", typed=True,
        where=dict.fromkeys(("linux", "macos", "windows"), ".mcp.json in the project folder"),
        add=("claude", "mcp", "add", "--scope", "user", SERVER_KEY, "--"),
    ),
    ClientConfig(
        "cursor", "Cursor", "mcpServers", typed=False,
        where={
            "linux": "~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project)",
            "macos": "~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project)",
            "windows": r"%USERPROFILE%\.cursor\mcp.json (all projects) or .cursor\mcp.json (one project)",
        },
    ),
    ClientConfig(
        "vscode", "VS Code", "servers", typed=True,
        where={
            "linux": ".vscode/mcp.json in the workspace, or ~/.config/Code/User/mcp.json",
            "macos": ".vscode/mcp.json in the workspace, or ~/Library/Application Support/Code/User/mcp.json",
            "windows": r".vscode\mcp.json in the workspace, or %APPDATA%\Code\User\mcp.json",
        },
    ),
    ClientConfig(
        "gemini", "Gemini CLI", "mcpServers", typed=False,
        where={
            "linux": "~/.gemini/settings.json (all folders) or .gemini/settings.json (one project)",
            "macos": "~/.gemini/settings.json (all folders) or .gemini/settings.json (one project)",
            "windows": (
                r"%USERPROFILE%\.gemini\settings.json (all folders) or .gemini\settings.json (one project)"
            ),
        },
        add=("gemini", "mcp", "add", "--scope", "user", SERVER_KEY),
    ),
    ClientConfig(
        "codex", "Codex", "mcp_servers", typed=False,
        where={
            "linux": "~/.codex/config.toml (or .codex/config.toml in a trusted project)",
            "macos": "~/.codex/config.toml (or .codex/config.toml in a trusted project)",
            "windows": r"%USERPROFILE%\.codex\config.toml (or .codex\config.toml in a trusted project)",
        },
        file_format="toml",
        add=("codex", "mcp", "add", SERVER_KEY, "--"),
    ),
)

CLIENT_NAMES: Final = tuple(client.name for client in CLIENTS)


def bridge_command() -> list[str]:
    """The absolute command that starts `webctx mcp` with this exact installation: the `webctx`
    script beside the interpreter when there is one, else `<python> -m native_host.cli.main`."""
    folder = Path(sys.executable).parent
    script = folder / ("webctx.exe" if sys.platform == "win32" else "webctx")
    if script.is_file():
        return [str(script), "mcp"]
    return [sys.executable, "-m", "native_host.cli.main", "mcp"]


def current_os() -> str:
    """`linux`, `macos` or `windows` (the keys of `ClientConfig.where`)."""
    return "macos" if sys.platform == "darwin" else "windows" if sys.platform == "win32" else "linux"


def client_config(name: str) -> ClientConfig:
    """The row for client `name` (one of CLIENT_NAMES); raises KeyError otherwise."""
    for client in CLIENTS:
        if client.name == name:
            return client
    raise KeyError(name)


def config_snippet(name: str, command: list[str] | None = None) -> dict[str, Any]:
    """The JSON object to merge into client `name`'s configuration file, e.g. for Claude Desktop
    `{"mcpServers": {"webctx": {"command": "/…/webctx", "args": ["mcp"]}}}`. `command` defaults to
    `bridge_command()`. Raises KeyError for an unknown client."""
    client = client_config(name)
    argv = command or bridge_command()
    entry: dict[str, Any] = {"type": "stdio"} if client.typed else {}
    entry.update(command=argv[0], args=argv[1:])
    return {client.top_key: {SERVER_KEY: entry}}


def config_text(name: str, command: list[str] | None = None) -> str:
    """`config_snippet` as the exact text to paste: 2-space indented JSON, or for Codex the TOML
    table `[mcp_servers.webctx]` with `command` and `args`; a trailing newline either way."""
    snippet = config_snippet(name, command)
    if client_config(name).file_format == "toml":
        return _toml_text(snippet)
    return json.dumps(snippet, indent=2) + "\n"


def add_command(name: str, command: list[str] | None = None) -> list[str] | None:
    """The client's own command that registers `webctx mcp` (e.g. `codex mcp add webctx --
    /…/webctx mcp`), or None for a client without one. An argument starting with `-` (the
    `python -m …` fallback of `bridge_command`) gets a `--` before the server's command, so the
    client does not read it as its own option. Raises KeyError for an unknown client."""
    client = client_config(name)
    if not client.add:
        return None
    argv = command or bridge_command()
    needs_separator = "--" not in client.add and any(arg.startswith("-") for arg in argv[1:])
    return [*client.add, *(["--"] if needs_separator else []), *argv]


def where_text(name: str, command: list[str] | None = None) -> str:
    """What `--print-config` says on stderr: where the snippet goes on this OS and, when the
    client has one, its own command that writes it instead (quoted for a POSIX shell)."""
    client = client_config(name)
    text = f"Add this to the {client.title} configuration: {client.where[current_os()]}"
    add = add_command(name, command)
    if add is not None:
        text += f"\nor run: {shlex.join(add)}"
    return text


def _toml_text(snippet: dict[str, Any]) -> str:
    # One table of strings and string arrays. A JSON string is a valid TOML basic string (the
    # same escapes: \" \\ \n \uXXXX), so json.dumps quotes each value; a Windows path stays one.
    [(top, servers)] = snippet.items()
    lines: list[str] = []
    for server, entry in servers.items():
        lines.append(f"[{top}.{server}]")
        for key, value in entry.items():
            if isinstance(value, list):
                rendered = "[" + ", ".join(json.dumps(item) for item in value) + "]"
            else:
                rendered = json.dumps(value)
            lines.append(f"{key} = {rendered}")
    return "\n".join(lines) + "\n"
