#!/usr/bin/env python3
"""Print native_host's package layering, and fail on an import that crosses it the wrong way.

    .venv/bin/python scripts/layering.py [--root DIR]

Reads every `native_host/**/*.py` under DIR (default: this repository) with `ast`, so it sees
imports inside functions and under `if TYPE_CHECKING:` too (a type-only import is still a
dependency a reader must follow), plus `importlib.import_module(NAME)` where NAME is a string
literal or a module-level string constant of that file. Prints, for each package (`protocol`,
`provider`, `provider.profiles`, …) and each top-level module (`__init__`, `__main__`, `errors`,
`paths`), which of the others it imports. Then checks the rules (STYLE.md "Layout"):

    provider/  uses protocol/, never host/, stdio/, cli/, install/, conformance/, demo/
    host/      uses protocol/, never provider/, stdio/, cli/, install/, conformance/, demo/
    stdio/     uses host/ and protocol/, never provider/, cli/, install/, conformance/, demo/
    protocol/  imports nothing of native_host but itself and the top-level errors, paths, __init__
    provider/port/  (the native messaging port) never imports provider/http/ (the MCP endpoint)

A rule for a package covers its subpackages on both sides (`provider.profiles` is `provider`).
Exit status 0 when every rule holds; 1 with one line per forbidden import, `file:line: …`, on
stdout. Standard library only: it runs before `setup.sh` has made a venv.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

PACKAGE: Final = "native_host"

PEERS_OF_THE_DESKTOP: Final = frozenset({"cli", "install", "conformance", "demo"})
"""The desktop-side packages that sit on top: neither the provider, the host library nor the stdio
server may import them."""

FORBIDDEN: Final[dict[str, frozenset[str]]] = {
    "provider": frozenset({"host", "stdio"}) | PEERS_OF_THE_DESKTOP,
    "host": frozenset({"provider", "stdio"}) | PEERS_OF_THE_DESKTOP,
    "stdio": frozenset({"provider"}) | PEERS_OF_THE_DESKTOP,
}
"""Importing family → the families it must not import (STYLE.md "Layout": `provider/` and `host/`
both use `protocol/`, never each other; `stdio/` uses `host/` and `protocol/`)."""

FORBIDDEN_INSIDE: Final[dict[str, frozenset[str]]] = {
    "provider.port": frozenset({"provider.http"}),
}
"""Within one family: importing subpackage → the subpackages it must not import. The native port
is the lower side of the provider: the HTTP endpoint uses its `Requester`, never the other way
(native_host/provider/__init__.py)."""


def within(group: str, package: str) -> bool:
    """`provider.port` and `provider.port.x` are within `provider.port`; `provider.portal` is not."""
    return group == package or group.startswith(package + ".")


PROTOCOL_MAY_IMPORT: Final = frozenset({"protocol", "errors", "paths", "__init__"})
"""`protocol/` is what both sides share, so it imports none of them (STYLE.md "Layout")."""


@dataclass(frozen=True)
class Import:
    """One import of a native_host module by a native_host file.

    `source`/`target` are groups: the dotted package path below native_host (`provider.profiles`)
    or, for a top-level module, its name (`errors`, `__init__`). `module` is the imported module
    (`native_host.provider.http.endpoint`, not the name taken from it). `line` is 1-based."""

    file: Path
    line: int
    source: str
    target: str
    module: str


def family(group: str) -> str:
    """`provider.profiles` → `provider`: rules are written per top-level package."""
    return group.split(".", 1)[0]


def is_forbidden(source: str, target: str) -> str | None:
    """The rule `source` importing `target` breaks, as a sentence; None when it is allowed."""
    src, dst = family(source), family(target)
    if src == dst:
        for inner, banned in FORBIDDEN_INSIDE.items():
            hit = next((b for b in sorted(banned) if within(target, b)), None)
            if within(source, inner) and hit is not None:
                return f"{inner.replace('.', '/')}/ must not import {hit.replace('.', '/')}/"
        return None
    if src == "protocol" and dst not in PROTOCOL_MAY_IMPORT:
        return "protocol/ imports nothing but protocol/ and the top-level errors, paths, __init__"
    if dst in FORBIDDEN.get(src, frozenset()):
        return f"{src}/ must not import {dst}/"
    return None


def module_name(path: Path, package_root: Path) -> str:
    """`…/native_host/provider/app.py` → `native_host.provider.app`; an `__init__.py` names its package."""
    parts = path.relative_to(package_root.parent).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def group_of(module: str, packages: frozenset[str]) -> str:
    """The group a native_host module belongs to: its package below native_host, or for a
    top-level module its own name (`native_host` itself is `__init__`)."""
    if module == PACKAGE:
        return "__init__"
    inner = module.removeprefix(PACKAGE + ".")
    if module in packages:
        return inner
    head, _, tail = inner.rpartition(".")
    return head if head else tail


def resolve(base: str, modules: frozenset[str]) -> str | None:
    """The longest prefix of the dotted `base` that is a module or package in the tree; None
    when `base` is outside native_host."""
    parts = base.split(".")
    if parts[0] != PACKAGE:
        return None
    for end in range(len(parts), 0, -1):
        candidate = ".".join(parts[:end])
        if candidate in modules:
            return candidate
    return None


def string_constants(tree: ast.Module) -> dict[str, str]:
    """Module-level `NAME = "..."` and `NAME: Final = "..."`, for `import_module(NAME)`."""
    found: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            target, value = node.target, node.value
        else:
            continue
        if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and isinstance(value.value, str):
            found[target.id] = value.value
    return found


def imported_names(tree: ast.Module, this_module: str, is_package: bool) -> Iterator[tuple[int, str]]:
    """(line, dotted name) for every import anywhere in `tree`. `from A import b` yields `A.b`
    (resolve() falls back to `A` when `b` is not a module); relative imports are made absolute."""
    constants = string_constants(tree)
    this_package = this_module if is_package else this_module.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                anchor = this_package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, node.module] if node.module else anchor)
            else:
                base = node.module or ""
            for alias in node.names:
                yield node.lineno, f"{base}.{alias.name}" if alias.name != "*" else base
        elif isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", None)
            if name != "import_module":
                continue
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                yield node.lineno, arg.value
            elif isinstance(arg, ast.Name) and arg.id in constants:
                yield node.lineno, constants[arg.id]


def scan(root: Path) -> tuple[list[Import], set[str]]:
    """(every import between native_host modules under `root`, in file and line order; every group)."""
    package_root = root / PACKAGE
    files = sorted(p for p in package_root.rglob("*.py") if "__pycache__" not in p.parts)
    if not files:
        raise SystemExit(f"layering.py: no {PACKAGE}/**/*.py under {root}")
    modules = frozenset(module_name(p, package_root) for p in files)
    packages = frozenset(module_name(p, package_root) for p in files if p.name == "__init__.py")
    found: list[Import] = []
    for path in files:
        this = module_name(path, package_root)
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        source = group_of(this, packages)
        for line, name in imported_names(tree, this, path.name == "__init__.py"):
            target_module = resolve(name, modules)
            if target_module is None:
                continue
            target = group_of(target_module, packages)
            imp = Import(path.relative_to(root), line, source, target, target_module)
            if imp not in found:  # `from m import a, b` is one import of m
                found.append(imp)
    return found, {group_of(module_name(p, package_root), packages) for p in files}


def group_order(groups: set[str]) -> list[str]:
    """Packages first (as STYLE.md lists them where it does, then alphabetically), then the
    top-level modules."""
    preferred = ["protocol", "provider", "provider.port", "provider.http", "provider.profiles",
                 "provider.platform", "host", "stdio",
                 "cli", "install", "conformance", "demo", "__init__", "__main__", "errors", "paths"]
    rank = {name: i for i, name in enumerate(preferred)}
    return sorted(groups, key=lambda g: (rank.get(g, len(preferred)), g))


def report(imports: list[Import], groups: set[str]) -> tuple[list[str], list[str]]:
    """(the layering table's lines, one line per forbidden import)."""
    uses: dict[str, set[str]] = {g: set() for g in groups}
    broken: list[str] = []
    for imp in imports:
        if imp.target != imp.source:
            uses[imp.source].add(imp.target)
        rule = is_forbidden(imp.source, imp.target)
        if rule is not None:
            broken.append(f"{imp.file.as_posix()}:{imp.line}: {imp.source} imports {imp.module} ({rule})")
    width = max(len(g) for g in groups)
    table = [f"  {g:<{width}}  → {', '.join(group_order(uses[g])) or '(nothing of native_host)'}"
             for g in group_order(groups)]
    return table, broken


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0] if __doc__ else None)
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parent.parent,
                        help="the repository root holding native_host/ (default: this repository)")
    args = parser.parse_args(argv)
    imports, groups = scan(args.root)
    table, broken = report(imports, groups)
    print(f"{PACKAGE} layering (each group → the groups it imports):")
    print("\n".join(table))
    if broken:
        print(f"\n{len(broken)} forbidden import(s):")
        print("\n".join(broken))
        return 1
    print("\nlayering ok: provider/ and host/ use protocol/, never each other; stdio/ never provider/;"
          " provider/port/ never provider/http/.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
