#!/usr/bin/env bash
# Set up webctx in this checkout (Linux or macOS). Safe to run again: each step is skipped when done.
#
#   ./scripts/setup.sh               a Chromium-family browser, .venv (Python >= 3.11), `pip install -e .`
#   ./scripts/setup.sh --with-tests  the same with the test extras (`-e ".[test]"`), `npm ci`, and
#                                    Firefox ESR and Xvfb (apt-get, Linux) for the Firefox and X11 tests
#   ./scripts/setup.sh --find-browser  print the browser `webctx demo` would start, install nothing
#
# Then: .venv/bin/webctx demo
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."

with_tests=0
find_only=0
for arg in "$@"; do
  case "$arg" in
    --with-tests) with_tests=1 ;;
    --find-browser) find_only=1 ;;
    -h | --help)
      sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'
      exit 0
      ;;
    *)
      echo "setup.sh: unknown option $arg (try --help)" >&2
      exit 2
      ;;
  esac
done

step() { printf '==> %s\n' "$*"; }
fail() {
  printf 'setup.sh: %s\n' "$*" >&2
  exit 1
}

# Run a command with its output in a log file; show the log's tail only if it fails.
quietly() {
  local log
  log="$(mktemp)"
  if "$@" >"$log" 2>&1; then
    rm -f "$log"
  else
    local status=$?
    printf 'setup.sh: this failed (exit %s): %s\n' "$status" "$*" >&2
    tail -n 40 "$log" >&2
    rm -f "$log"
    exit "$status"
  fi
}

# sha256sum on Linux, shasum on macOS.
sha256() {
  if command -v sha256sum >/dev/null 2>&1; then sha256sum "$@"; else shasum -a 256 "$@"; fi
}

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=macos ;;
  *) fail "this script sets up Linux and macOS. Elsewhere, install webctx from a package (docs/internals/native-host.md, Install)." ;;
esac

# 0. Python >= 3.11: webctx needs it, and the browser lookup below is webctx's own table.
python_ok() { "$1" -c 'import sys; sys.exit(sys.version_info < (3, 11))' >/dev/null 2>&1; }
python=""
if [[ -x .venv/bin/python ]] && python_ok .venv/bin/python; then
  python=.venv/bin/python
else
  for candidate in python3 python3.13 python3.12 python3.11; do
    if command -v "$candidate" >/dev/null 2>&1 && python_ok "$candidate"; then
      python="$(command -v "$candidate")"
      break
    fi
  done
fi
if [[ -z "$python" ]]; then
  [[ "$os" == macos ]] && fail "webctx needs Python 3.11 or newer. Run: brew install python@3.12 (or use the installer from python.org)"
  fail "webctx needs Python 3.11 or newer. Run: sudo apt-get install python3 python3-venv"
fi

# The browser `webctx demo` would start: the same table, in the same order, as the demo
# (native_host/install/programs.py, stdlib only, so it runs before anything is installed).
find_browser() {
  PYTHONPATH=. "$python" -m native_host.install.programs --os "$os"
}

# 1. A Chromium-family browser (webctx demo and the browser tests start one).
if browser="$(find_browser)"; then
  step "browser: $browser"
elif [[ "$find_only" -eq 1 || "$os" == macos ]]; then
  [[ "$os" == macos ]] &&
    fail "no Chromium-family browser found (looked for Google Chrome, Chromium, Chrome for Testing, Microsoft Edge and Brave in /Applications and ~/Applications). Install Google Chrome from https://www.google.com/chrome/ (or: brew install --cask chromium), then run this again."
  fail "no Chromium-family browser found. Install one (sudo apt-get install chromium), then run this again."
else
  sudo_cmd=()
  if [[ "$(id -u)" -ne 0 ]]; then
    command -v sudo >/dev/null 2>&1 ||
      fail "no Chromium-family browser found, and I cannot install one without root. Run: sudo apt-get install chromium"
    sudo_cmd=(sudo)
  fi
  command -v apt-get >/dev/null 2>&1 ||
    fail "no Chromium-family browser found and no apt-get here. Install Chromium or Google Chrome, then run this again."
  step "installing chromium with apt-get (a minute or so)"
  quietly "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update
  quietly "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  browser="$(find_browser)" || fail "apt-get installed chromium but no browser was found; check the output above."
  step "browser: $browser"
fi
[[ "$find_only" -eq 1 ]] && exit 0

# 1b. Browsers and tools only the tests use: Firefox ESR (the Firefox build of the extension is
# tested in it). Best effort: without it those tests are skipped, and say why.
if [[ "$with_tests" -eq 1 && "$os" == linux ]] && ! command -v firefox-esr >/dev/null 2>&1 && ! command -v firefox >/dev/null 2>&1; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    step "installing firefox-esr with apt-get (for the Firefox tests)"
    quietly env DEBIAN_FRONTEND=noninteractive apt-get update
    quietly env DEBIAN_FRONTEND=noninteractive apt-get install -y firefox-esr
  else
    step "firefox: not installed; the Firefox tests will be skipped (sudo apt-get install firefox-esr)"
  fi
fi

# 1c. Xvfb for the X11 `location` test (tests/e2e/test_x11.py starts it itself; skipped without it).
if [[ "$with_tests" -eq 1 && "$os" == linux ]] && ! command -v Xvfb >/dev/null 2>&1; then
  if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
    step "installing xvfb with apt-get (for the X11 location test)"
    quietly env DEBIAN_FRONTEND=noninteractive apt-get update
    quietly env DEBIAN_FRONTEND=noninteractive apt-get install -y xvfb
  elif command -v sudo >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
    step "installing xvfb with sudo apt-get (for the X11 location test)"
    quietly sudo env DEBIAN_FRONTEND=noninteractive apt-get update
    quietly sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y xvfb
  else
    step "xvfb: not installed and cannot install it here; the X11 location test will be skipped"
  fi
fi

# 2. A virtual environment with Python >= 3.11 (the one found in step 0).
if [[ "$python" == .venv/bin/python ]]; then
  step "python: .venv ($(.venv/bin/python -c 'import platform; print(platform.python_version())'))"
else
  step "creating .venv with $python"
  rm -rf .venv
  if ! "$python" -m venv .venv; then
    [[ "$os" == linux ]] && fail "could not create .venv. On Debian/Ubuntu run: sudo apt-get install python3-venv"
    fail "could not create .venv with $python."
  fi
fi

# 3. webctx itself, editable (skipped when pyproject.toml has not changed since the last install).
extras=""
[[ "$with_tests" -eq 1 ]] && extras="[test]"
stamp=".venv/.webctx-installed"
want="$(sha256 <pyproject.toml | cut -d' ' -f1) $extras"
have="$(cat "$stamp" 2>/dev/null || true)"
# An install with the test extras also serves a plain setup.
if [[ ("$have" == "$want" || "$have" == "$want[test]") ]] && .venv/bin/python -c 'import native_host' 2>/dev/null; then
  step "webctx: already installed in .venv${extras:+ (with test extras)}"
else
  step "installing webctx into .venv (pip install -e \".$extras\")"
  quietly .venv/bin/python -m pip install --quiet --disable-pip-version-check -e ".$extras"
  echo "$want" >"$stamp"
fi

# 4. Node test tooling (package.json's devDependencies): TypeScript and the Chrome types (the
# extension's type checks), the MCP TypeScript SDK (tests/e2e/test_ts_client.py's client), and the
# real MCP client Codex, pinned (tests/e2e/test_real_clients.py), with its Linux binary from the npm
# registry (an optional dependency of the package; nothing is fetched from elsewhere).
# --include=dev: installed even where NODE_ENV=production would leave devDependencies out.
# --prefer-offline: the lock pins every tarball by its hash, so npm's cache is used without asking
# the registry; an offline machine with a warm cache installs in seconds (without it npm retries the
# registry for minutes first), one with an empty cache fails here with npm's EAI_AGAIN.
npm_flags=(--no-audit --no-fund --include=dev --prefer-offline)
if [[ "$with_tests" -eq 1 && -f package.json ]]; then
  command -v npm >/dev/null 2>&1 || fail "the tests need Node.js 20+ and npm. Run: sudo apt-get install nodejs npm"
  node_stamp="node_modules/.webctx-installed"
  lock="package-lock.json"
  [[ -f "$lock" ]] || lock="package.json"
  want_node="$(sha256 "$lock" | cut -d' ' -f1)"
  if [[ -f "$node_stamp" && "$(cat "$node_stamp")" == "$want_node" ]]; then
    step "node modules: up to date"
  elif [[ -f package-lock.json ]]; then
    step "installing node modules (npm ci)"
    quietly npm ci "${npm_flags[@]}"
    echo "$want_node" >"$node_stamp"
  else
    step "installing node modules (npm install; there is no package-lock.json)"
    quietly npm install "${npm_flags[@]}"
    echo "$want_node" >"$node_stamp"
  fi
fi

# 5. opencode and Gemini CLI, the second and third real MCP clients of
# tests/e2e/test_real_clients.py, pinned, outside package.json: each lists a binary package per
# platform (opencode its build, Gemini CLI node-pty's), and `npm ci` refuses a lock that lacks any of
# them (a registry mirror may carry only some); `npm install --no-save` into .clients/ takes only
# this machine's, from the npm registry. One install for both: a second `npm install --no-save`
# would remove the first's package as extraneous.
clients_versions="opencode-ai@1.18.33 @google/gemini-cli@0.61.0"
if [[ "$with_tests" -eq 1 && -f package.json ]]; then
  if [[ -x .clients/node_modules/.bin/opencode && -x .clients/node_modules/.bin/gemini &&
    "$(cat .clients/.versions 2>/dev/null)" == "$clients_versions" ]]; then
    step "MCP clients ($clients_versions): already in .clients"
  else
    step "installing $clients_versions into .clients (npm install --no-save)"
    mkdir -p .clients
    # shellcheck disable=SC2086 # the list is words on purpose
    quietly npm install --prefix .clients --no-save --no-package-lock "${npm_flags[@]}" $clients_versions
    echo "$clients_versions" >.clients/.versions
  fi
fi

step "done. Try: .venv/bin/webctx demo"
