"""The docs name the tree as it is (files move, docs follow).

- docs/internals/native-host.md's module table has one row per `native_host/**/*.py` module (`__init__.py`
  aside: its docstring is the package's own row), and every path it names exists;
- docs/internals/extension.md names every file of the service worker, the content scripts and the main
  world, and every `extension/….js` path it names exists;
- every `native_host/…` path and `native_host.x.y` name in the docs and README.md resolves
  (bench/README.md is left out: it quotes past rounds as they were written);
- every relative link in docs/ (docs/internals/ included) names a file that exists.

A module added, moved or split fails here until the docs say where it went.
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
NATIVE_HOST = REPO / "native_host"
EXTENSION = REPO / "extension"
NATIVE_HOST_DOC = REPO / "docs" / "internals" / "native-host.md"
EXTENSION_DOC = REPO / "docs" / "internals" / "extension.md"
CHECKED_DOCS = (*sorted((REPO / "docs").rglob("*.md")), REPO / "README.md", REPO / "manifests" / "README.md")
"""The documents whose `native_host` references must resolve: docs/ with docs/internals/."""

MODULE_TABLE_HEADER = "| module | concern |"
"""The header row of docs/internals/native-host.md's module table."""

EXTENSION_WORLDS = ("service_worker", "content", "main_world")
"""The extension folders whose every `.js` file docs/internals/extension.md names (subfolders included)."""

CODE_SPAN = re.compile(r"`([^`]+)`")


def rel(path: Path) -> str:
    return path.relative_to(REPO).as_posix()


def module_table(text: str) -> list[tuple[str, str]]:
    """(first cell, second cell) of every body row of the table under MODULE_TABLE_HEADER."""
    lines = text.splitlines()
    start = lines.index(MODULE_TABLE_HEADER)
    rows = []
    for line in lines[start + 2:]:  # skip the header and the |---| line
        if not line.startswith("|"):
            break
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        assert len(cells) == 2, f"docs/internals/native-host.md: a module row has two cells: {line!r}"
        rows.append((cells[0], cells[1]))
    return rows


def table_paths() -> list[str]:
    """Every path the module table's first column names, relative to native_host/, in order."""
    return [path for cell, _ in module_table(NATIVE_HOST_DOC.read_text(encoding="utf-8"))
            for path in CODE_SPAN.findall(cell)]


def native_host_modules() -> set[str]:
    return {p.relative_to(NATIVE_HOST).as_posix() for p in NATIVE_HOST.rglob("*.py")
            if p.name != "__init__.py" and "__pycache__" not in p.parts}


def test_every_native_host_module_has_a_row_in_the_module_table() -> None:
    missing = sorted(native_host_modules() - set(table_paths()))
    assert not missing, f"docs/internals/native-host.md's module table lacks a row for {missing}"


def test_every_path_in_the_module_table_exists() -> None:
    gone = [path for path in table_paths()
            if not ((NATIVE_HOST / path).is_dir() if path.endswith("/") else (NATIVE_HOST / path).is_file())]
    assert not gone, f"{rel(NATIVE_HOST_DOC)}'s module table names {gone}, which are not under native_host/"


def test_the_module_table_has_one_row_per_module_each_with_its_role() -> None:
    for cell, role in module_table(NATIVE_HOST_DOC.read_text(encoding="utf-8")):
        paths = CODE_SPAN.findall(cell)
        if cell.startswith("**"):  # a package's heading row: its folder, or "top level"
            assert all(path.endswith("/") for path in paths), cell
            continue
        assert len(paths) == 1, f"one module per row: {cell!r}"
        assert role, f"{cell}: the row says what the module is for"
    modules = [path for path in table_paths() if not path.endswith("/")]
    twice = sorted({path for path in modules if modules.count(path) > 1})
    assert not twice, f"docs/internals/native-host.md's module table has more than one row for {twice}"


def test_every_package_path_in_native_host_md_exists() -> None:
    """The prose too: `provider/app.py`, `stdio/` … are relative to native_host/."""
    text = NATIVE_HOST_DOC.read_text(encoding="utf-8")
    packages = "|".join(p.name for p in NATIVE_HOST.iterdir() if (p / "__init__.py").is_file())
    pattern = re.compile(rf"(?<![\w/.-])((?:{packages})/[\w/]*?(?:\.py)?)(?![\w/.])")
    gone = sorted({m for m in pattern.findall(text) if not (NATIVE_HOST / m).exists()})
    assert not gone, f"docs/internals/native-host.md names {gone}, which are not under native_host/"


def test_extension_md_names_every_file_of_each_world() -> None:
    spans = [span for line in EXTENSION_DOC.read_text(encoding="utf-8").splitlines()
             for span in CODE_SPAN.findall(line)]  # per line: a ``` fence would pair spans wrongly
    names = {span.rsplit("/", 1)[-1] for span in spans if span.endswith(".js")}
    missing = sorted(rel(p) for world in EXTENSION_WORLDS for p in (EXTENSION / world).rglob("*.js")
                     if p.name not in names)
    assert not missing, f"docs/internals/extension.md does not name {missing}"


def test_every_extension_path_in_extension_md_exists() -> None:
    text = EXTENSION_DOC.read_text(encoding="utf-8")
    folders = "|".join(p.name for p in EXTENSION.iterdir() if p.is_dir())
    in_a_folder = rf"(?:extension/)?(?:{folders})/[\w/.]*?\.js"  # `service_worker/main.js` too
    pattern = re.compile(rf"(?<![\w/.-])({in_a_folder}|extension/[\w.]+\.js)\b")
    gone = sorted({m for m in pattern.findall(text)
                   if not (EXTENSION / m.removeprefix("extension/")).is_file()})
    assert not gone, f"docs/internals/extension.md names {gone}, which do not exist"


@functools.cache
def module_names(path: Path) -> frozenset[str]:
    """The names a module defines or imports at any level (a doc may name a method's class)."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            names.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
    return frozenset(names)


def resolves(dotted: str) -> bool:
    """`native_host.a.b.c`: the longest prefix that is a module or package, then (at most) one name
    that module defines or imports."""
    parts = dotted.split(".")
    for end in range(len(parts), 0, -1):
        base = REPO.joinpath(*parts[:end])
        module = base / "__init__.py" if base.is_dir() else base.with_suffix(".py")
        if module.is_file():
            rest = parts[end:]
            return not rest or (len(rest) <= 2 and rest[0] in module_names(module))
    return False


def test_every_native_host_reference_in_the_docs_resolves() -> None:
    path_ref = re.compile(r"(?<![\w/.-])(native_host/[\w/]*?(?:\.py|\.html|/))(?![\w/.])")
    dotted_ref = re.compile(r"(?<![\w/.-])(native_host(?:\.[A-Za-z_]\w*)+)")
    unresolved = []
    for doc in CHECKED_DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            unresolved += [f"{rel(doc)}:{number}: {m}" for m in path_ref.findall(line)
                           if not (REPO / m).exists()]
            unresolved += [f"{rel(doc)}:{number}: {m}" for m in dotted_ref.findall(line)
                           if not m.endswith((".json", ".log")) and not resolves(m)]
    assert not unresolved, "references to what no longer exists:\n" + "\n".join(unresolved)


def test_every_test_bench_and_script_path_in_the_docs_exists() -> None:
    """The docs' `tests/…`, `bench/…` and `scripts/…` paths, and bench/README.md's scripts (the
    "how to run" parts; the rest of that file is history, quoted as it was)."""
    repo_ref = re.compile(r"(?<![\w/.-])((?:tests|bench|scripts)/[\w/.-]*?\.(?:py|sh|html|js))\b")
    bench_script = re.compile(r"(?<![\w/.-])(bench/\w+\.py)\b")
    found = [(doc, repo_ref) for doc in CHECKED_DOCS] + [(REPO / "bench" / "README.md", bench_script)]
    gone = sorted({f"{rel(doc)}: {m}" for doc, pattern in found
                   for m in pattern.findall(doc.read_text(encoding="utf-8")) if not (REPO / m).is_file()})
    assert not gone, f"the docs name files that do not exist: {gone}"


def test_every_package_docstring_names_its_modules() -> None:
    """A package's `__init__.py` docstring says what it holds (STYLE.md: one concern per module):
    each module by name (`session`, `session.py`), or by a family wildcard (`doctor_*`)."""
    unnamed = []
    for init in sorted(NATIVE_HOST.rglob("__init__.py")):
        docstring = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        words = set(re.findall(r"\w+", docstring))
        families = re.findall(r"(\w+_)\*", docstring)
        unnamed += [rel(module) for module in sorted(init.parent.glob("*.py"))
                    if module.name != "__init__.py" and module.stem not in words
                    and not module.stem.startswith(tuple(families))]
        unnamed += [f"{rel(sub)}/" for sub in sorted(init.parent.iterdir())
                    if (sub / "__init__.py").is_file() and sub.name not in words]
    assert not unnamed, f"the package docstring (its __init__.py) does not name {unnamed}"


def test_every_relative_link_in_the_docs_names_a_file_that_exists() -> None:
    """docs/ and docs/internals/ link each other by relative paths; a page moved or renamed fails
    here until the links follow. Links inside code spans are examples, not links."""
    link = re.compile(r"\]\(([^)\s]+)\)")
    gone = []
    for doc in CHECKED_DOCS:
        for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
            prose = CODE_SPAN.sub("", line)
            gone += [f"{rel(doc)}:{number}: {target}" for target in link.findall(prose)
                     if "://" not in target and target.split("#", 1)[0]
                     and not (doc.parent / target.split("#", 1)[0]).exists()]
    assert not gone, "links to files that do not exist:\n" + "\n".join(gone)
