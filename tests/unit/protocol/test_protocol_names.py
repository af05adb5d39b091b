"""The native-port message types: every frame model's `type` is one of NATIVE_MESSAGE_TYPES, and
the extension's copy (extension/wire.js, written by scripts/gen_wire.py from native_host/protocol/)
is fresh (STYLE.md "Message types"; docs/internals/protocol.md)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import typing
from types import ModuleType

from native_host.paths import REPO_ROOT
from native_host.protocol import native as wire

GEN_WIRE = REPO_ROOT / "scripts" / "gen_wire.py"


def gen_wire() -> ModuleType:
    """scripts/gen_wire.py, imported (it is a script, not a package module)."""
    spec = importlib.util.spec_from_file_location("webctx_scripts_gen_wire", GEN_WIRE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)
    return module


def test_the_generated_wire_files_are_fresh() -> None:
    """What scripts/test.sh's gen-wire check runs, so a plain pytest run catches a stale file too."""
    assert gen_wire().stale() == [], (
        "the extension's wire constants are stale: run python scripts/gen_wire.py"
    )


def test_the_check_names_the_stale_file_and_the_fix(tmp_path: typing.Any) -> None:
    """`--check` on a changed file exits 1 with a message ending in the fix."""
    module = gen_wire()
    target = tmp_path / "wire.js"
    target.write_text("// hand-edited\n", encoding="utf-8")
    module.WIRE_JS = target
    module.REPO = tmp_path
    module.CONTENT_WIRE_JS = tmp_path / "content_wire.js"
    module.CONTENT_WIRE_JS.write_text(module.content_wire_js(module.constants()), encoding="utf-8")
    module.POLYFILL_JS = tmp_path / "polyfill.js"
    module.POLYFILL_JS.write_text(
        (REPO_ROOT / "extension" / "main_world" / "polyfill.js").read_text("utf-8"), "utf-8"
    )
    assert module.stale() == ["wire.js"]


def test_the_check_command_passes_here() -> None:
    """The command scripts/test.sh runs exits 0 on this checkout; its failure message ends in FIX."""
    done = subprocess.run(
        [sys.executable, str(GEN_WIRE), "--check"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert gen_wire().FIX == "run python scripts/gen_wire.py"


def test_every_frame_model_type_is_a_native_message_type() -> None:
    models = (
        wire.Hello,
        wire.CurrentRequest,
        wire.LocationRequest,
        wire.PingRequest,
        wire.ToolCallRequest,
        wire.ToolCancelRequest,
        wire.ToolsChanged,
        wire.ResultFrame,
        wire.ErrorFrame,
        wire.ChunkFrame,
    )
    models += (wire.ProviderReady, wire.TreePush, wire.ActivityEvent, wire.PageReadRequest)
    literals = {typing.get_args(model.model_fields["type"].annotation)[0] for model in models}
    assert literals == set(wire.NATIVE_MESSAGE_TYPES)
