"""`webctx mcp` shares the MCP tool definitions with the provider through protocol/tools.py, and
imports nothing from provider/ (STYLE.md "Layout": stdio/ uses host/ and protocol/)."""

from __future__ import annotations

import ast
from pathlib import Path

import native_host.stdio
from native_host.protocol.tools import CURRENT_TOOL
from native_host.stdio.server import FALLBACK_TOOLS

STDIO_DIR = Path(native_host.stdio.__file__).parent


def test_the_fallback_tool_list_is_the_shared_current_definition() -> None:
    assert FALLBACK_TOOLS == (CURRENT_TOOL,)


def test_stdio_imports_nothing_from_the_provider_package() -> None:
    found = []
    for path in sorted(STDIO_DIR.glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            if isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            found += [f"{path.name}: {name}" for name in names if name.startswith("native_host.provider")]
    assert found == []
