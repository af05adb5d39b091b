"""`webctx conformance` as a program: the table, --json, --strict, the exit status, finding the
descriptor (the CLI runs in a subprocess; the provider serves from this test's loop)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from native_host.cli.main import main
from tests.conformance.provider import Flaws, serve

WEBCTX = Path(sys.executable).with_name("webctx")


async def webctx(*args: str, providers: Path) -> tuple[int, str, str]:
    env = {**os.environ, "CONTEXT_PROVIDERS_DIR": str(providers)}
    proc = await asyncio.create_subprocess_exec(
        str(WEBCTX), *args, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, env=env
    )
    async with asyncio.timeout(60):
        out, err = await proc.communicate()
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


@pytest.mark.rule("security.origin_403")
async def test_the_table_names_every_rule_and_a_fail_exits_1(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    async with serve(folder, Flaws(accept_origin=True)):
        code, out, _ = await webctx("conformance", "--pid", str(os.getpid()), providers=folder)
    assert code == 1
    assert "  FAIL  security.origin_403" in out and "[Concepts: Security; design.md §1]" in out
    assert "  pass  security.bearer_401" in out
    assert "  skip  descriptor.bundle_id" in out
    assert out.rstrip().endswith("the provider does NOT conform.")
    assert "conformance-test-token" not in out


@pytest.mark.rule("current.default_states")
async def test_json_report_and_strict_turns_a_warning_into_exit_1(tmp_path: Path) -> None:
    folder = tmp_path / "providers"
    flaws = Flaws(tree=lambda root: root["children"][0].update(selected=False))
    async with serve(folder, flaws) as provider:
        path = str(provider.descriptor_path)
        code, out, _ = await webctx("conformance", "--descriptor", path, "--json", providers=folder)
        strict_code, strict_out, _ = await webctx(
            "conformance",
            "--descriptor",
            path,
            "--json",
            "--strict",
            "--budget-ms",
            "10000",
            providers=folder,
        )
    data = json.loads(out)
    assert code == 0 and data["ok"] is True and data["strict"] is False
    assert data["descriptor"] == path and data["provider"].startswith("Test Editor 1.0")
    by_rule = {r["rule"]: r for r in data["results"]}
    assert by_rule["current.default_states"]["status"] == "warn"
    assert by_rule["current.default_states"]["source"] == "Concepts: States; design.md §2"
    assert strict_code == 1 and json.loads(strict_out)["ok"] is False


@pytest.mark.rule("descriptor.fields")
def test_no_descriptor_is_one_sentence_and_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["conformance"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("webctx: No descriptor in ") and "--descriptor FILE" in err


@pytest.mark.rule("descriptor.fields")
def test_a_garbage_descriptor_file_is_a_report_not_a_crash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    garbage = tmp_path / "garbage.json"
    garbage.write_bytes(b"\xff{not json")
    garbage.chmod(0o600)
    assert main(["conformance", "--descriptor", str(garbage), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    by_rule = {r["rule"]: r for r in data["results"]}
    assert by_rule["descriptor.fields"]["status"] == "fail"
    assert by_rule["descriptor.mode_0600"]["status"] == "pass"
    assert by_rule["current.answers"]["status"] == "skip"
