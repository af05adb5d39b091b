#!/usr/bin/env bash
# Run every check webctx has: setup (with test extras), lint, types (for this OS, macOS and Windows),
# the import layering (scripts/layering.py), the generated wire constants (scripts/gen_wire.py), the extension's tests, the zombie case under a non-reaping PID 1, pytest.
# Every step runs even when an earlier one fails; the summary names the failed ones and the exit
# status is non-zero if any failed. Extra arguments go to pytest:
#
#   ./scripts/test.sh                    everything
#   ./scripts/test.sh tests/unit -q      only the unit tests, quietly
set -uo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! bash scripts/setup.sh --with-tests; then
  echo "test.sh: setup failed; nothing was tested." >&2
  exit 1
fi

failed=()
check() {
  local name="$1"
  shift
  printf '\n==> %s: %s\n' "$name" "$*"
  if "$@"; then
    printf -- '--> %s: ok\n' "$name"
  else
    printf -- '--> %s: FAILED (exit %s)\n' "$name" "$?"
    failed+=("$name")
  fi
}

check ruff .venv/bin/ruff check native_host tests scripts bench
check mypy .venv/bin/mypy
# The macOS and Windows code paths, type-checked here: guards are `sys.platform` checks,
# which mypy evaluates for the platform it is told, so a POSIX-only call outside one fails here.
# A cache per platform keeps each run incremental.
check mypy-darwin .venv/bin/mypy --platform darwin --cache-dir .mypy_cache/darwin native_host
check mypy-win32 .venv/bin/mypy --platform win32 --cache-dir .mypy_cache/win32 native_host
check layering .venv/bin/python scripts/layering.py
# The extension's wire constants (extension/wire.js, content/wire.js, the polyfill's block) are
# generated from native_host/protocol/: stale ones fail here, naming the fix.
check gen-wire .venv/bin/python scripts/gen_wire.py --check
check tsc npx --no-install tsc -p tsconfig.json
check node-test node --test extension/test/
# A stale descriptor under a PID 1 that does not reap (a container's): the SIGKILLed native host
# stays a zombie, which must count as dead (protocol/processes.py). pytest runs as PID 1 of
# a new PID namespace, so the orphans it inherits are never reaped. Needs root (unshare --pid).
if [[ $# -eq 0 ]] && unshare --pid --fork --mount-proc true >/dev/null 2>&1; then
  check no-reaper unshare --pid --fork --mount-proc .venv/bin/pytest -q -p no:cacheprovider \
    tests/e2e/test_transitions.py -k sigkilled
else
  printf '\n==> no-reaper: skipped (needs root for unshare --pid, and no pytest arguments)\n'
fi
check pytest .venv/bin/pytest "$@"

echo
if [[ ${#failed[@]} -eq 0 ]]; then
  echo "test.sh: all checks passed (ruff, mypy, mypy-darwin, mypy-win32, layering, gen-wire, tsc, node --test, no-reaper, pytest)."
  exit 0
fi
echo "test.sh: FAILED: ${failed[*]}" >&2
exit 1
