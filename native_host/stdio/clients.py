"""DATA: MCP client → how it is told to launch `webctx mcp`, what else it needs to use it headless and
interactive, and where that file lives.

Each row was read from the client's own configuration schema, in the package named by `tested`
(the key, its type and what it means; never a guessed key): Claude Code (`alwaysLoad` on a stdio
entry: its tools are never deferred behind ToolSearch, and startup waits for the server, at most
5 s); Codex (`startup_timeout_sec`, `env_vars`, `default_tools_approval_mode` = `auto | prompt |
approve` on `[mcp_servers.<name>]`; a stdio server gets only HOME, LOGNAME, PATH, SHELL, USER,
LANG, LC_ALL, TERM, TMPDIR, TZ unless `env_vars` names more); Gemini CLI (`trust` on an
`mcpServers` entry; a folder is trusted by `~/.gemini/trustedFolders.json` or
`GEMINI_CLI_TRUST_WORKSPACE=true`; `security.auth.selectedType`); opencode (`mcp.<name>` with
`type: "local"`, `command` as one array, `timeout` in ms per MCP request, default 5000). Two rows
come from the client's documentation instead, their packages shipping no readable schema: GitHub
Copilot CLI ("Add MCP servers for GitHub Copilot CLI": `~/.copilot/mcp-config.json`, `type:
"local"`, `tools`, only PATH inherited) and fast-agent ("MCP servers": `mcp.servers.<name>` in
`fastagent.config.yaml`, stdio by default). Codex, opencode and Gemini CLI are run with these
snippets by tests/e2e/test_real_clients.py. One reader (`config_snippet`) serves every row; a new client is a
new row.
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

PROVIDER_ENV: Final = ("XDG_RUNTIME_DIR", "CONTEXT_PROVIDERS_DIR")
"""What the bridge reads to find the browser's providers folder (`paths.providers_dir`), for a
client that passes an MCP server only a fixed list of variables."""


@dataclass(frozen=True)
class Setting:
    """One key on the server's entry beyond the command: `key`, `value` (JSON-like), and `why`:
    what it does and what it trusts, written as a comment where the format has them (TOML, YAML)
    and on stderr otherwise."""

    key: str
    value: Any
    why: str


@dataclass(frozen=True)
class ClientConfig:
    """One MCP client: `top_key` (the path of keys down to the servers table, e.g. `("mcp",
    "servers")`), `entry_type` (the entry's `"type"`, or None for none), `command_style`
    (`split`: `command` + `args`; `array`: `command` is the whole argv), where the file lives per
    OS (`linux`, `macos`, `windows`; human-readable paths), the file's format, the client's own
    command that writes the entry (`add`: the words before the server's command; empty when it
    has none, or when it cannot carry `settings`), `settings` on the entry, `notes` (what else
    the client asks of the user, said on stderr), `preamble` (keys beside the servers table,
    e.g. opencode's `$schema`), and the client version the row was checked against (`tested`)."""

    name: str
    title: str
    top_key: tuple[str, ...]
    where: dict[str, str]
    entry_type: str | None = None
    command_style: Literal["split", "array"] = "split"
    file_format: Literal["json", "toml", "yaml"] = "json"
    add: tuple[str, ...] = ()
    settings: tuple[Setting, ...] = ()
    notes: tuple[str, ...] = ()
    preamble: tuple[tuple[str, Any], ...] = ()
    tested: str = ""


def _both(path: str, windows: str) -> dict[str, str]:
    return {"linux": path, "macos": path, "windows": windows}


CLIENTS: Final = (
    ClientConfig(
        "claude-desktop", "Claude Desktop", ("mcpServers",),
        where={
            "macos": "~/Library/Application Support/Claude/claude_desktop_config.json",
            "windows": r"%APPDATA%\Claude\claude_desktop_config.json",
            "linux": "~/.config/Claude/claude_desktop_config.json (unofficial Linux builds)",
        },
        notes=("Restart Claude Desktop after editing its file.",),
    ),
    ClientConfig(
        "claude-code", "Claude Code", ("mcpServers",), entry_type="stdio",
        where=dict.fromkeys(("linux", "macos", "windows"), ".mcp.json in the project folder"),
        add=("claude", "mcp", "add-json", "--scope", "user", SERVER_KEY),
        settings=(Setting(
            "alwaysLoad", True,
            "webctx's tools are in the model's first prompt instead of deferred behind ToolSearch "
            "(the model would see only their names until it searched); Claude Code then waits for "
            "the bridge at start, at most 5 s. Trusts nothing: each call still asks as usual.",
        ),),
        notes=("A project's .mcp.json server waits for your approval in Claude Code; "
               "`claude mcp add-json --scope user` does not.",),
        tested="Claude Code 2.1.328",
    ),
    ClientConfig(
        "cursor", "Cursor", ("mcpServers",),
        where=_both(
            "~/.cursor/mcp.json (all projects) or .cursor/mcp.json (one project)",
            r"%USERPROFILE%\.cursor\mcp.json (all projects) or .cursor\mcp.json (one project)",
        ),
    ),
    ClientConfig(
        "vscode", "VS Code", ("servers",), entry_type="stdio",
        where={
            "linux": ".vscode/mcp.json in the workspace, or ~/.config/Code/User/mcp.json",
            "macos": ".vscode/mcp.json in the workspace, or ~/Library/Application Support/Code/User/mcp.json",
            "windows": r".vscode\mcp.json in the workspace, or %APPDATA%\Code\User\mcp.json",
        },
    ),
    ClientConfig(
        "gemini", "Gemini CLI", ("mcpServers",),
        where=_both(
            "~/.gemini/settings.json (all folders) or .gemini/settings.json (one project)",
            r"%USERPROFILE%\.gemini\settings.json (all folders) or .gemini\settings.json (one project)",
        ),
        add=("gemini", "mcp", "add", "--scope", "user", "--trust", SERVER_KEY),
        settings=(Setting(
            "trust", True,
            "Gemini CLI calls webctx's tools without asking each time: they read what the browser "
            "shows, and a page tool that acts is still confirmed in the browser (Allow/Deny).",
        ),),
        notes=(
            "Gemini CLI starts no MCP server in a folder you have not trusted, and headless "
            "`gemini -p` exits there: trust the folder once in `gemini` (or add it to "
            '~/.gemini/trustedFolders.json as {"/the/folder": "TRUST_FOLDER"}, or set '
            "GEMINI_CLI_TRUST_WORKSPACE=true for one run); a trusted folder may run its own "
            ".gemini settings and MCP servers.",
            "`gemini -p` also needs an auth method: sign in once in `gemini`, or set "
            'GEMINI_API_KEY and "security": {"auth": {"selectedType": "gemini-api-key"}} in '
            "settings.json.",
        ),
        tested="Gemini CLI 0.61.0",
    ),
    ClientConfig(
        "codex", "Codex", ("mcp_servers",),
        where=_both(
            "~/.codex/config.toml (or .codex/config.toml in a trusted project)",
            r"%USERPROFILE%\.codex\config.toml (or .codex\config.toml in a trusted project)",
        ),
        file_format="toml",
        settings=(
            Setting(
                "required", True,
                "`codex exec` waits for a required server before its first model request; an "
                "optional one gets about a second, and a bridge still starting is left out of the "
                "turn. If webctx cannot start at all, `codex exec` stops with the error instead. "
                "Trusts nothing.",
            ),
            Setting(
                "startup_timeout_sec", 30,
                "A fresh bridge needs about a second to list its tools, more on a loaded machine; "
                "Codex's own wait is shorter. Trusts nothing.",
            ),
            Setting(
                "env_vars", list(PROVIDER_ENV),
                "Codex gives an MCP server only HOME, PATH and a few more; the bridge finds the "
                "browser through these. Trusts the bridge with these two values, nothing else.",
            ),
            Setting(
                "default_tools_approval_mode", "approve",
                "Runs webctx's tools without a Codex prompt (`codex exec` cannot ask, and refuses "
                "them otherwise). Trusts webctx's tools and the pages' tools it passes on; a "
                "consequential page tool is still confirmed in the browser (Allow/Deny).",
            ),
        ),
        notes=("A project's .codex/config.toml counts only in a trusted project.",),
        tested="Codex 0.169.0",
    ),
    ClientConfig(
        "copilot", "GitHub Copilot CLI", ("mcpServers",), entry_type="local",
        where=_both("~/.copilot/mcp-config.json", r"%USERPROFILE%\.copilot\mcp-config.json"),
        settings=(Setting(
            "tools", ["*"],
            "Every webctx tool is offered, page tools included (their names change with the "
            "page). Copilot still asks before a call unless you allow it.",
        ),),
        notes=("Copilot passes an MCP server only PATH from your environment: if you set "
               "CONTEXT_PROVIDERS_DIR, add it to the entry's \"env\" too.",),
        tested="GitHub Copilot CLI 1.0.102",
    ),
    ClientConfig(
        "opencode", "opencode", ("mcp",), entry_type="local", command_style="array",
        where=_both(
            "~/.config/opencode/opencode.json (all projects) or opencode.json in the project",
            r"%USERPROFILE%\.config\opencode\opencode.json (all projects) or opencode.json in the project",
        ),
        settings=(
            Setting("enabled", True, "Started with opencode. Trusts nothing."),
            Setting(
                "timeout", 60_000,
                "Milliseconds opencode waits for each MCP request (its default is 5 s): a bridge "
                "starting on a loaded machine, and a page tool waiting for the user's Allow/Deny "
                "in the browser (up to 59 s), need longer. Trusts nothing.",
            ),
        ),
        preamble=(("$schema", "https://opencode.ai/config.json"),),
        tested="opencode 1.18.33",
    ),
    ClientConfig(
        "fast-agent", "fast-agent", ("mcp", "servers"),
        where=dict.fromkeys(("linux", "macos", "windows"), "fastagent.config.yaml in the agent's folder"),
        file_format="yaml",
        notes=("Name the server in your agent: servers=[\"webctx\"], or `fast-agent go --servers webctx`.",),
        tested="fast-agent 0.10.48",
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


def server_entry(name: str, command: list[str] | None = None) -> dict[str, Any]:
    """Client `name`'s entry for `webctx mcp`: its type, the command (`command` defaults to
    `bridge_command()`) and its settings, e.g. for Codex `{"command": "/…/webctx", "args":
    ["mcp"], "startup_timeout_sec": 30, …}`. Raises KeyError for an unknown client."""
    client = client_config(name)
    argv = command or bridge_command()
    entry: dict[str, Any] = {} if client.entry_type is None else {"type": client.entry_type}
    if client.command_style == "array":
        entry["command"] = list(argv)
    else:
        entry.update(command=argv[0], args=argv[1:])
    for setting in client.settings:
        entry[setting.key] = setting.value
    return entry


def config_snippet(name: str, command: list[str] | None = None) -> dict[str, Any]:
    """The object to merge into client `name`'s configuration file, e.g. for Claude Desktop
    `{"mcpServers": {"webctx": {"command": "/…/webctx", "args": ["mcp"]}}}`. Raises KeyError for
    an unknown client."""
    client = client_config(name)
    snippet: dict[str, Any] = dict(client.preamble)
    inner = snippet
    for key in client.top_key:
        inner = inner.setdefault(key, {})
    inner[SERVER_KEY] = server_entry(name, command)
    return snippet


def config_text(name: str, command: list[str] | None = None) -> str:
    """`config_snippet` as the exact text to paste: 2-space indented JSON, or TOML (Codex) or YAML
    (fast-agent) with each setting's `why` as a comment above it; a trailing newline always."""
    client = client_config(name)
    if client.file_format == "toml":
        return _toml_text(client, server_entry(name, command))
    if client.file_format == "yaml":
        return _yaml_text(client, server_entry(name, command))
    return json.dumps(config_snippet(name, command), indent=2) + "\n"


def add_command(name: str, command: list[str] | None = None) -> list[str] | None:
    """The client's own command that registers `webctx mcp` (e.g. `gemini mcp add --scope user
    --trust webctx /…/webctx mcp`; Claude Code's `add-json` takes the entry as JSON), or None for
    a client without one. An argument starting with `-` (the `python -m …` fallback of
    `bridge_command`) gets a `--` before the server's command, so the client does not read it as
    its own option. Raises KeyError for an unknown client."""
    client = client_config(name)
    if not client.add:
        return None
    if client.add[2] == "add-json":
        return [*client.add, json.dumps(server_entry(name, command), separators=(",", ":"))]
    argv = command or bridge_command()
    needs_separator = "--" not in client.add and any(arg.startswith("-") for arg in argv[1:])
    return [*client.add, *(["--"] if needs_separator else []), *argv]


def where_text(name: str, command: list[str] | None = None) -> str:
    """What `--print-config` says on stderr: where the snippet goes on this OS, what each setting
    does when the format cannot carry a comment (JSON), what else the client asks of the user,
    and, when the client has one, its own command that writes the entry instead (quoted for a
    POSIX shell, last)."""
    client = client_config(name)
    lines = [f"Add this to the {client.title} configuration: {client.where[current_os()]}"]
    if client.file_format == "json":
        lines += [f"{setting.key}: {setting.why}" for setting in client.settings]
    lines += list(client.notes)
    add = add_command(name, command)
    if add is not None:
        lines.append(f"or run: {shlex.join(add)}")
    return "\n".join(lines)


def _toml_text(client: ClientConfig, entry: dict[str, Any]) -> str:
    # One table of strings, numbers and string arrays. A JSON string is a valid TOML basic string
    # (the same escapes: \" \\ \n \uXXXX), so json.dumps quotes each value; a Windows path stays one.
    why = {setting.key: setting.why for setting in client.settings}
    lines = [f"[{'.'.join(client.top_key)}.{SERVER_KEY}]"]
    for key, value in entry.items():
        if key in why:
            lines.append(f"# {why[key]}")
        lines.append(f"{key} = {json.dumps(value)}")
    return "\n".join(lines) + "\n"


def _yaml_text(client: ClientConfig, entry: dict[str, Any]) -> str:
    # Block mappings down to the entry, each value in JSON's flow style: a JSON string is a YAML
    # double-quoted scalar and a JSON array a flow sequence, so a Windows path or a quote survives.
    why = {setting.key: setting.why for setting in client.settings}
    lines = []
    for depth, key in enumerate((*client.top_key, SERVER_KEY)):
        lines.append(f"{'  ' * depth}{key}:")
    indent = "  " * (len(client.top_key) + 1)
    for key, value in entry.items():
        if key in why:
            lines.append(f"{indent}# {why[key]}")
        lines.append(f"{indent}{key}: {json.dumps(value)}")
    return "\n".join(lines) + "\n"
