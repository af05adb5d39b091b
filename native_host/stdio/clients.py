"""DATA: MCP client → how it is told to launch `webctx mcp`, and where that file lives (issue #8).

Sources (checked 2026-11): Claude Desktop, "Connect to local MCP servers" (modelcontextprotocol.io
quickstart, `claude_desktop_config.json`); Claude Code, "Connect Claude Code to tools via MCP"
(`.mcp.json`, `claude mcp add`); Cursor, "Model Context Protocol" docs (`mcp.json`); VS Code, "Use
MCP servers in VS Code" (`.vscode/mcp.json`, top-level key `servers`, `type: "stdio"`). One
reader (`config_snippet`) serves every row; a new client is a new row.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

SERVER_KEY: Final = "webctx"
"""The name the server is registered under in every client's configuration."""


@dataclass(frozen=True)
class ClientConfig:
    """One MCP client: the top-level key of its JSON, whether entries carry `"type": "stdio"`,
    and where the file lives per OS (`linux`, `macos`, `windows`; human-readable paths)."""

    name: str
    title: str
    top_key: str
    typed: bool
    where: dict[str, str]


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
        where=dict.fromkeys(
            ("linux", "macos", "windows"),
            ".mcp.json in the project folder (or: claude mcp add --scope user webctx -- <command> mcp)",
        ),
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
    """`config_snippet` as the exact text to paste (2-space indented JSON, trailing newline)."""
    return json.dumps(config_snippet(name, command), indent=2) + "\n"
