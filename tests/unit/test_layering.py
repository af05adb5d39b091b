"""scripts/layering.py: the import arrows between native_host's packages run one way (STYLE.md "Layout").

The script's logic is checked on a small tree written into tmp_path, with one forbidden import of
every kind it must see (top level, inside a function, relative, under TYPE_CHECKING, through
`importlib.import_module`), then it runs on the real tree.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "layering.py"

def run(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(SCRIPT), "--root", str(root)],
        capture_output=True, text=True, timeout=60, check=False,
    )


def write_tree(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / "native_host" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


CLEAN_TREE = {
    "__init__.py": '"""pkg."""\n__version__ = "0"\n',
    "__main__.py": "from native_host.provider import app\n",
    "errors.py": "class WebctxError(Exception): ...\n",
    "paths.py": "import os\n",
    "protocol/__init__.py": "",
    "protocol/base.py": "from native_host import errors, __version__\nfrom native_host.paths import os\n",
    "provider/__init__.py": "",
    "provider/app.py": "from native_host.protocol.base import errors\nfrom .profiles import handoff\n",
    "provider/profiles/__init__.py": "",
    "provider/profiles/handoff.py": "from .. import app\nfrom native_host.protocol import base\n",
    "provider/platform/__init__.py": "",
    "host/__init__.py": "",
    "host/client.py": "import native_host.protocol.base\nimport json\n",
    "stdio/__init__.py": "",
    "stdio/server.py": "from native_host.host import client\nfrom native_host.protocol import base\n",
    "cli/__init__.py": "",
    "cli/main.py": "from native_host.provider import app\nfrom native_host.stdio import server\n"
    "from native_host.host.client import json\n",
}


def test_a_tree_that_keeps_the_rules_passes_and_its_table_lists_every_arrow(tmp_path: Path) -> None:
    write_tree(tmp_path, CLEAN_TREE)
    result = run(tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    table = {
        line.split("→")[0].strip(): line.split("→")[1].strip()
        for line in result.stdout.splitlines()
        if "→" in line and line.startswith("  ")
    }
    assert table == {
        "protocol": "__init__, errors, paths",
        "provider": "protocol, provider.profiles",
        "provider.profiles": "protocol, provider",
        "provider.platform": "(nothing of native_host)",
        "host": "protocol",
        "stdio": "protocol, host",
        "cli": "provider, host, stdio",
        "__init__": "(nothing of native_host)",
        "__main__": "provider",
        "errors": "(nothing of native_host)",
        "paths": "(nothing of native_host)",
    }


def test_every_kind_of_forbidden_import_is_named_with_its_file_and_line(tmp_path: Path) -> None:
    write_tree(tmp_path, {
        **CLEAN_TREE,
        # inside a function
        "protocol/bad.py": "def f():\n    from native_host.host import client\n",
        # relative, two levels up
        "provider/profiles/bad.py": "from ...stdio import server\n",
        # under TYPE_CHECKING: still a dependency
        "host/bad.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from native_host.provider.app import X\n",
        # importlib with a module-level constant
        "stdio/bad.py": 'import importlib\nMOD = "native_host.provider.app"\n'
        "def load():\n    return importlib.import_module(MOD)\n",
        # `import a.b` and `from pkg import module`
        "provider/bad.py": "import native_host.cli.main\nfrom native_host.install import x\n",
        "install/__init__.py": "",
        "protocol/also_bad.py": "from native_host import __main__\n",
    })
    result = run(tmp_path)
    assert result.returncode == 1
    broken = sorted(line for line in result.stdout.splitlines() if line.startswith("native_host/"))
    only_protocol = "protocol/ imports nothing but protocol/ and the top-level errors, paths, __init__"
    assert broken == [
        "native_host/host/bad.py:3: host imports native_host.provider.app (host/ must not import provider/)",
        f"native_host/protocol/also_bad.py:1: protocol imports native_host.__main__ ({only_protocol})",
        f"native_host/protocol/bad.py:2: protocol imports native_host.host.client ({only_protocol})",
        "native_host/provider/bad.py:1: provider imports native_host.cli.main"
        " (provider/ must not import cli/)",
        "native_host/provider/bad.py:2: provider imports native_host.install"
        " (provider/ must not import install/)",
        "native_host/provider/profiles/bad.py:1: provider.profiles imports native_host.stdio.server"
        " (provider/ must not import stdio/)",
        "native_host/stdio/bad.py:4: stdio imports native_host.provider.app"
        " (stdio/ must not import provider/)",
    ]
    assert "7 forbidden import(s):" in result.stdout


def test_the_native_port_side_never_imports_the_http_side(tmp_path: Path) -> None:
    """provider/port/ importing provider/http/ (directly, relatively or from a sub-module) is named;
    the reverse, and a neighbour whose name only starts alike, pass."""
    write_tree(tmp_path, {
        **CLEAN_TREE,
        "provider/port/__init__.py": "",
        "provider/port/bridge.py": "from native_host.provider.http.endpoint import McpEndpoint\n",
        "provider/port/deep/__init__.py": "",
        "provider/port/deep/x.py": "from ...http import security\n",
        "provider/http/__init__.py": "",
        "provider/http/endpoint.py": "from native_host.provider.port.bridge import Requester\n",
        "provider/http/security.py": "",
        "provider/portal/__init__.py": "from native_host.provider.http import endpoint\n",
    })
    result = run(tmp_path)
    assert result.returncode == 1, result.stdout
    broken = sorted(line for line in result.stdout.splitlines() if line.startswith("native_host/"))
    assert broken == [
        "native_host/provider/port/bridge.py:1: provider.port imports native_host.provider.http.endpoint"
        " (provider/port/ must not import provider/http/)",
        "native_host/provider/port/deep/x.py:1: provider.port.deep imports native_host.provider.http.security"
        " (provider/port/ must not import provider/http/)",
    ]


def test_the_real_tree_keeps_the_layering() -> None:
    """native_host itself breaks no rule: the script exits 0 and prints every group."""
    result = run(REPO)
    for group in ("protocol", "provider", "provider.port", "provider.http", "provider.profiles",
                  "provider.platform", "host", "stdio", "cli", "install", "conformance", "demo",
                  "__init__", "__main__", "errors", "paths"):
        assert f"\n  {group} " in result.stdout, f"{group} missing from the table:\n{result.stdout}"
    broken = [line for line in result.stdout.splitlines() if line.startswith("native_host/")]
    assert not broken, result.stdout
    assert result.returncode == 0, result.stdout + result.stderr
