"""README.md stays short, opens with the newcomer's two commands, and its Layout is generated.

The Layout section comes from scripts/layout.py (each package's `__init__.py` docstring, ROLES for
the other folders), so a package that changes what it is, or a new folder, shows here as a
failure until the README is regenerated. The Troubleshooting section has its own test
(tests/unit/install/test_doctor.py).
"""

from __future__ import annotations

import importlib.util
import re
import sys
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
MAX_README_BYTES = 15_000
"""A README a newcomer reads, under 15 KB; the history lives in bench/README.md."""


def load_layout() -> ModuleType:
    spec = importlib.util.spec_from_file_location("webctx_scripts_layout", REPO / "scripts" / "layout.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses and the like look their module up here
    spec.loader.exec_module(module)
    return module


layout = load_layout()


def test_the_readme_layout_section_is_what_scripts_layout_generates() -> None:
    section = layout.readme_section(README.read_text(encoding="utf-8"))
    assert section is not None, "README.md lacks the Layout markers of scripts/layout.py"
    assert section == layout.layout_block(REPO), (
        "README.md's Layout is stale; regenerate it: .venv/bin/python scripts/layout.py --write-readme"
    )


def test_the_readme_is_under_15_kb() -> None:
    size = len(README.read_bytes())
    assert size < MAX_README_BYTES, f"README.md is {size} bytes; history and detail go to bench/ and docs/"


def test_the_readme_opens_with_the_two_commands_a_newcomer_runs() -> None:
    text = README.read_text(encoding="utf-8")
    first_block = text.split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [line.split("#", 1)[0].strip() for line in first_block.splitlines()]
    assert commands == ["./scripts/setup.sh && .venv/bin/webctx demo", "./scripts/test.sh"]
    assert text.index("```sh") < text.index("\n## "), "the commands come before any section"
    assert "MCP tools: current, location" in text.split("\n## ", 1)[0], "the demo's sample output follows"


def test_every_relative_link_in_the_readme_names_a_file_that_exists() -> None:
    text = README.read_text(encoding="utf-8")
    targets = [t.split("#", 1)[0] for t in re.findall(r"\]\(([^)\s]+)\)", text)]
    local = [t for t in targets if t and "://" not in t]
    assert local, "the README links to docs/ and bench/"
    missing = [t for t in local if not (REPO / t).exists()]
    assert not missing, f"README.md links to missing files: {missing}"


def test_the_performance_history_the_readme_left_is_in_bench_readme() -> None:
    bench = (REPO / "bench" / "README.md").read_text(encoding="utf-8")
    assert "## Where the targets stand, and how they got there (moved from the README)" in bench
    assert "[bench/README.md](bench/README.md)" in README.read_text(encoding="utf-8")


# scripts/layout.py's rules, on a small tree


def make_tree(root: Path, packages: dict[str, str], folders: tuple[str, ...] = ()) -> Path:
    """Write a repository under `root / "repo"` (conftest's `home/` is beside it); return it."""
    repo = root / "repo"
    for name, docstring in packages.items():
        folder = repo / "native_host" / name if name else repo / "native_host"
        folder.mkdir(parents=True, exist_ok=True)
        text = f'"""{docstring}"""\n' if docstring else "X = 1\n"
        (folder / "__init__.py").write_text(text, encoding="utf-8")
    for name in folders:
        (repo / name).mkdir(parents=True, exist_ok=True)
    return repo


def test_a_packages_role_is_its_docstrings_first_sentence(tmp_path: Path) -> None:
    repo = make_tree(tmp_path, {
        "": "The package. More about it.",
        "protocol": "Shared rules (design.md §1.2 `window`): the version.\n\nNot this.",
        "host": "The reference desktop host: " + "long " * 30 + "words. Second.",
        "zeta": "`z`: a short head, then " + "many " * 30 + "words.",
        "provider/profiles": "Profiles\nspanning two lines. Second sentence.",
        "provider": "The provider.",
    }, folders=("docs", "node_modules", ".hidden", "x.egg-info"))
    lines = layout.layout_block(repo).splitlines()
    assert lines[0] == lines[-1] == "```"
    rows = [" ".join(line.split()) for line in lines[1:-1]]
    assert rows[:5] == [
        "native_host/ The package",
        "protocol/ Shared rules (design.md §1.2 `window`): the version",
        "provider/ The provider",
        "profiles/ Profiles spanning two lines",
        "host/ The reference desktop host",  # over 100 characters: the head before its colon
    ]
    assert rows[5].startswith("zeta/ `z`: a short head, then many")  # a head under 20 characters stays whole
    assert rows[-1] == f"docs/ {layout.ROLES['docs']}"
    assert not any(name in "\n".join(rows) for name in ("node_modules", ".hidden", "egg-info"))


def test_a_folder_without_a_role_is_an_error_naming_it(tmp_path: Path) -> None:
    repo = make_tree(tmp_path, {"": "The package.", "quiet": ""})
    with pytest.raises(layout.LayoutError, match=r"native_host/quiet/__init__.py has no docstring"):
        layout.layout_block(repo)
    make_tree(tmp_path, {"quiet": "Quiet."}, folders=("newfolder",))
    with pytest.raises(layout.LayoutError, match=r"newfolder/ has no role: add it to ROLES"):
        layout.layout_block(repo)


def test_a_folder_holding_only_a_pycache_is_not_shown(tmp_path: Path) -> None:
    """A package moved away leaves `__pycache__` behind in a checkout that ran the tests before."""
    repo = make_tree(tmp_path, {"": "The package.", "kept": "Kept."})
    (repo / "native_host" / "moved" / "__pycache__").mkdir(parents=True)
    rows = [" ".join(line.split()) for line in layout.layout_block(repo).splitlines()[1:-1]]
    assert rows == ["native_host/ The package", "kept/ Kept"]


def test_write_readme_replaces_only_the_text_between_the_markers(tmp_path: Path) -> None:
    repo = make_tree(tmp_path, {"": "The package."})
    readme = repo / "README.md"
    readme.write_text(f"# x\n\n{layout.README_START}\nold\n{layout.README_END}\n\nafter\n", encoding="utf-8")
    assert layout.write_readme(readme, repo) is True
    text = readme.read_text(encoding="utf-8")
    assert text.startswith(f"# x\n\n{layout.README_START}\n```\nnative_host/")
    assert text.endswith(f"```\n{layout.README_END}\n\nafter\n")
    assert layout.write_readme(readme, repo) is False
    readme.write_text("no markers\n", encoding="utf-8")
    with pytest.raises(ValueError, match="lacks the markers"):
        layout.write_readme(readme, repo)
