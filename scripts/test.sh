#!/usr/bin/env bash
# Runs every test claimboard has, in order: type check, lint (eslint), unit tests (vitest), the
# conformance vectors (conformance/vectors) through the real CLI, the production build, and the
# end-to-end tests (Playwright driving Debian's Chromium). `npm test` runs this. When the shared
# contract checkout sits beside the repo (../shared), its vectors are checked too, as an extra step.
#
# Works on a fresh clone of a Debian 12 / Node 20 machine: installs node_modules when they
# are missing or older than package-lock.json, and Debian's chromium and syncthing when missing.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"

export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1
export NEXT_TELEMETRY_DISABLED=1

header() { printf '\n==> %s\n' "$*"; }
warn() { printf 'WARNING: %s\n' "$*" >&2; }

# ---- setup -----------------------------------------------------------------------------

# node_modules/.package-lock.json is npm's record of the last install, rewritten by every
# `npm ci` / `npm install` just after package-lock.json; the node_modules directory's own
# mtime is not (adding a package under an existing scope leaves it untouched).
if [ ! -d node_modules ] || [ ! -f node_modules/.package-lock.json ] ||
  [ package-lock.json -nt node_modules/.package-lock.json ]; then
  header "setup: npm ci (node_modules missing or older than package-lock.json)"
  npm ci
else
  header "setup: node_modules up to date"
fi

if [ ! -x /usr/bin/chromium ]; then
  if [ "$(id -u)" -eq 0 ]; then
    header "setup: installing Debian's chromium for Playwright"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  else
    warn "/usr/bin/chromium is missing and this is not root: the end-to-end step will fail." \
      "Install it with: sudo apt-get install -y chromium"
  fi
fi

if ! command -v syncthing >/dev/null 2>&1; then
  if [ "$(id -u)" -eq 0 ]; then
    header "setup: installing Debian's syncthing for the two-instance sync test"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y syncthing
  else
    warn "syncthing is missing and this is not root: lib/sync/syncthing.test.ts will fail." \
      "Install it with: sudo apt-get install -y syncthing"
  fi
fi

# ---- steps -----------------------------------------------------------------------------

passed=()
failed=()
skipped=()

# step <name> <command...>: runs one step, records the outcome, never exits the script.
step() {
  local name="$1"
  shift
  header "$name: $*"
  local t0=$SECONDS
  if "$@"; then
    passed+=("$name")
    printf -- '--- %s: passed (%ss)\n' "$name" "$((SECONDS - t0))"
  else
    local rc=$?
    failed+=("$name")
    printf -- '--- %s: FAILED (exit %s, %ss)\n' "$name" "$rc" "$((SECONDS - t0))"
  fi
}

# Fresh channels from the real ferry take 3-4 minutes of real heartbeat waits: written in the
# background meanwhile (scripts/fresh-ferry.sh says plainly when the binary is not beside the repo).
FRESH_LOG="$(mktemp)"
bash scripts/fresh-ferry.sh >"$FRESH_LOG" 2>&1 &
FRESH_PID=$!

# Playwright's closing lists of failed and flaky tests are repeated in the summary below (the
# output above them is long and CI may show only the end of it).
E2E_LOG="$(mktemp)"
e2e_step() { npx playwright test 2>&1 | tee -a "$E2E_LOG"; return "${PIPESTATUS[0]}"; }

step "type check" npx tsc --noEmit -p .

step "lint" npx eslint . --max-warnings 0

# The tests that start the real `claimboard serve` need the production build: they run after it.
SERVE_TESTS=(lib/testing/soak/soak.test.ts lib/faults/sigstop.test.ts lib/faults/inotify.test.ts lib/faults/burst.test.ts lib/faults/sigterm.test.ts bin/web.test.ts)
# scripts/run-vitest.mjs names the failed tests at the end and runs a failed file once more alone
# (FLAKY: failed, then passed; the names are repeated in the summary below).
VITEST_LOG="$(mktemp)"
vitest_step() { node scripts/run-vitest.mjs "$@" 2>&1 | tee -a "$VITEST_LOG"; return "${PIPESTATUS[0]}"; }
step "unit tests" vitest_step $(printf -- '--exclude %s ' "${SERVE_TESTS[@]}")

step "conformance vectors" node scripts/check-vectors.mjs . conformance/vectors

# The shared contract's own vectors, when its checkout sits beside this repo: an extra check
# (they may be newer than the copy in conformance/vectors), never the only one.
if [ -d ../shared/vectors ]; then
  step "shared conformance vectors" node scripts/check-vectors.mjs . ../shared/vectors
else
  header "shared conformance vectors"
  echo "skipped: no shared contract checkout beside this repo ($(dirname "$ROOT")/shared/vectors" \
    "is absent); the repo's own copy, conformance/vectors, was checked above."
  skipped+=("shared conformance vectors (../shared/vectors not beside this repo)")
fi

# Channels the real ferry wrote (conformance/ferry): ferry's verdict and a person's reading.
step "ferry channels" node scripts/check-ferry.mjs .
if [ -d ../shared/ferryman/channels/alpha ]; then
  step "shared ferry channels" node scripts/check-ferry.mjs . ../shared/ferryman/channels/alpha ../shared/ferryman/channels/beta
else
  header "shared ferry channels"
  echo "skipped: no ../shared/ferryman/channels beside this repo; conformance/ferry was checked above."
  skipped+=("shared ferry channels (../shared/ferryman not beside this repo)")
fi

step "next build" npm run build --silent

if [[ " ${failed[*]-} " == *" next build "* ]]; then
  header "end-to-end tests"
  warn "not run: they need the production build, which failed."
  failed+=("end-to-end tests (not run)")
else
  # The soak, short, and the faults on a running server (SIGSTOP, inotify watches run out, a burst of 10,029 files, SIGTERM with tabs open).
  step "soak and serve faults" vitest_step "${SERVE_TESTS[@]}"
  step "end-to-end tests" e2e_step
  # Packed and installed into an empty folder, used from there (scripts/check-package.sh).
  step "package" bash scripts/check-package.sh
fi

header "fresh ferry channels: scripts/fresh-ferry.sh (started in the background at the beginning)"
fresh_rc=0
wait "$FRESH_PID" || fresh_rc=$?
cat "$FRESH_LOG"
rm -f "$FRESH_LOG"
case "$fresh_rc" in
  0) passed+=("fresh ferry channels") ;;
  3) skipped+=("fresh ferry channels (no real ferry beside this repo)") ;;
  *) failed+=("fresh ferry channels") ;;
esac

# ---- summary ---------------------------------------------------------------------------

# CLAIMBOARD_SUMMARY_FILE: the summary is also appended there (.ci/run repeats it at its end).
summary() {
  for s in "${passed[@]}"; do printf '  passed   %s\n' "$s"; done
  for s in "${failed[@]}"; do printf '  FAILED   %s\n' "$s"; done
  for s in "${skipped[@]}"; do printf '  skipped  %s\n' "$s"; done
  grep -E '^  (FAILED |FLAKY  ) ' "$VITEST_LOG" | sed 's/^  /  vitest: /' || true
  # "  2 failed" / "  1 flaky" / "  1 interrupted" and the indented test names under each (colour codes stripped first).
  sed 's/\x1b\[[0-9;]*m//g' "$E2E_LOG" | awk '/^  [0-9]+ (failed|flaky|interrupted)$/ { kind = $2; next } kind != "" && /^    / { sub(/^ +/, ""); sub(/ ─.*$/, ""); printf "  e2e %s: %s\n", kind, $0; next } { kind = "" }' || true
  # Why each failed: the first lines of its error under the reporter's "  1) <test>" heading, up
  # to the code frame or stack (CI shows only the log's ends, where the summary is).
  sed 's/\x1b\[[0-9;]*m//g' "$E2E_LOG" | awk '
    /^  [0-9]+\) / { n = 0; on = 1; sub(/ ─.*$/, ""); printf "  e2e why %s\n", substr($0, 3); next }
    on && (/^ +at / || /^ +[0-9]+ \|/ || /^ *> / || /^ +attachment #/ || n >= 12) { on = 0; next }
    on && /[^ ]/ { sub(/^ +/, ""); printf "      %s\n", substr($0, 1, 300); n++ }' || true
  printf '%d passed, %d failed\n' "${#passed[@]}" "${#failed[@]}"
}
header "summary"
if [ -n "${CLAIMBOARD_SUMMARY_FILE:-}" ]; then summary | tee -a "$CLAIMBOARD_SUMMARY_FILE"; else summary; fi
rm -f "$VITEST_LOG" "$E2E_LOG"

[ "${#failed[@]}" -eq 0 ]
