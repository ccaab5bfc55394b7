#!/usr/bin/env bash
# Runs every test claimboard has; `npm test` runs this. The steps (the README's "Tests" section
# says what each proves and how long it takes):
#
#   CLI bundle            dist/, which every step that runs the CLI loads (scripts/build-cli.mjs)
#   next build            the production build, in the background from the start: the serve
#                         tests and the end-to-end tests need it
#   type check and lint   meanwhile: tsc --noEmit and eslint on one TypeScript program
#                         (scripts/check-types-and-lint.mjs)
#   conformance vectors   conformance/vectors through the real CLI and the real filesystem
#                         (a minute of real waits for arrivals: in the background from the start)
#   ferry channels        channels the real ferry wrote (conformance/ferry): ferry's verdict (in
#                         the background from the start)
#   serve tests           vitest's serve project: the real `claimboard serve` under a simulated
#                         fleet: the soak and its faults (SIGSTOP, inotify watches run out, a
#                         burst, SIGTERM), bin/web, a hub of three channels (in the background
#                         once the build is done)
#   package               packed, installed into an empty folder, used from there (in the
#                         background once the build is done)
#   unit tests            vitest's unit and isolated projects (vitest.config.ts), four files at
#                         once (in the background from the start)
#   end-to-end tests      Playwright driving Debian's Chromium against the production build,
#                         three workers at once, after the unit tests
#
# `scripts/test.sh --shared` runs only the steps that need the workshop checkout beside the repo
# (../shared: its vectors, its ferry channels, fresh channels from its real ferry, the unit tests
# that also ask the real ferry); a plain run skips them, saying so, when ../shared is absent.
#
# Works on a fresh clone of a Debian 12 / Node 20 machine: installs node_modules when they are
# missing or older than package-lock.json, and Debian's chromium and syncthing when missing.
# No test is run twice: a test that fails once has failed.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"
SHARED_ONLY=0
[ "${1:-}" = --shared ] && SHARED_ONLY=1

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

apt_install() {
  local bin="$1" pkg="$2" why="$3"
  command -v "$bin" >/dev/null 2>&1 && return 0
  if [ "$(id -u)" -eq 0 ]; then
    # Two test runs on one new machine both find the package missing: the lock lets one
    # install it while the other waits, then finds it there.
    (
      flock 9
      command -v "$bin" >/dev/null 2>&1 && exit 0
      header "setup: installing Debian's $pkg ($why)"
      apt-get update
      DEBIAN_FRONTEND=noninteractive apt-get install -y "$pkg"
    ) 9>"${TMPDIR:-/tmp}/claimboard-apt.lock"
  else
    warn "$pkg is missing and this is not root: $why will fail. Install it with: sudo apt-get install -y $pkg"
  fi
}
if [ "$SHARED_ONLY" = 0 ]; then
  apt_install /usr/bin/chromium chromium "the end-to-end tests"
  apt_install syncthing syncthing "the two-instance sync test"
fi

# ---- steps -----------------------------------------------------------------------------

passed=()
failed=()
skipped=()
T_START=$SECONDS

# step <name> <command...>: runs one step, records the outcome and its time, never exits the script.
step() {
  local name="$1"
  shift
  header "$name: $*"
  local t0=$SECONDS rc=0
  "$@" || rc=$?
  record "$name" "$rc" "$((SECONDS - t0))"
}
record() {
  if [ "$2" -eq 0 ]; then
    passed+=("$1 ($3 s)")
    printf -- '--- %s: passed (%s s)\n' "$1" "$3"
  else
    failed+=("$1 ($3 s)")
    printf -- '--- %s: FAILED (exit %s, %s s)\n' "$1" "$2" "$3"
  fi
}

# A step run in the background, its output kept until it is waited for (then printed whole).
declare -A BG_PID BG_LOG BG_T0
step_bg() {
  local name="$1"
  shift
  BG_LOG[$name]="$(mktemp)"
  BG_T0[$name]=$SECONDS
  # The step's own time is kept when it ends (it may be waited for much later).
  (
    rc=0
    "$@" || rc=$?
    echo "$((SECONDS - BG_T0[$name]))" >"${BG_LOG[$name]}.took"
    exit "$rc"
  ) >"${BG_LOG[$name]}" 2>&1 &
  BG_PID[$name]=$!
  printf '\n==> %s: %s (in the background)\n' "$name" "$*"
}
wait_bg() {
  local name="$1" rc=0
  wait "${BG_PID[$name]}" || rc=$?
  local took
  took="$(cat "${BG_LOG[$name]}.took" 2>/dev/null || echo "$((SECONDS - BG_T0[$name]))")"
  header "$name (started in the background; took $took s)"
  cat "${BG_LOG[$name]}"
  rm -f "${BG_LOG[$name]}" "${BG_LOG[$name]}.took"
  if [ "$name" = "fresh ferry channels" ] && [ "$rc" -eq 3 ]; then
    skipped+=("fresh ferry channels (no real ferry beside this repo)")
    return
  fi
  record "$name" "$rc" "$took"
}
skip() {
  header "$1"
  echo "skipped: $2"
  skipped+=("$1 ($2)")
}

# Playwright's closing lists of failed tests are repeated in the summary below (the output
# above them is long and CI may show only the end of it).
E2E_LOG="$(mktemp)"
VITEST_LOG="$(mktemp)"
e2e_step() { npx playwright test 2>&1 | tee -a "$E2E_LOG"; return "${PIPESTATUS[0]}"; }
# scripts/run-vitest.mjs names the failed tests and the ten slowest files at the end.
vitest_step() { node scripts/run-vitest.mjs "$@" 2>&1 | tee -a "$VITEST_LOG"; return "${PIPESTATUS[0]}"; }

# vitest.config.ts names the projects: `unit` and `isolated` need nothing built; `serve` (the tests
# that start the real `claimboard serve`) needs the production build; `ferry` needs the real
# ferry's worker (test/support/ferry-kit.ts), only with ../shared.

shared_steps() {
  if [ -d ../shared/vectors ]; then
    step "shared conformance vectors" node scripts/check-vectors.mjs . ../shared/vectors
  else
    skip "shared conformance vectors" "../shared/vectors is not beside this repo; conformance/vectors is the repo's own copy"
  fi
  if [ -x ../shared/ferryman/bin/ferry ]; then
    # The unit tests that can also ask the real ferry for its verdict (test/support/ferry-kit.ts).
    step "unit tests with the real ferry" env CLAIMBOARD_FERRY_KIT="$(cd ../shared/ferryman && pwd)" node scripts/run-vitest.mjs lib/actions/ferry-acts.test.ts lib/reaper/reap.test.ts lib/reaper/reap-ferry.test.ts
  else
    skip "unit tests with the real ferry" "../shared/ferryman/bin/ferry is not beside this repo"
  fi
  if [ -d ../shared/ferryman/channels/alpha ]; then
    step "shared ferry channels" node scripts/check-ferry.mjs . ../shared/ferryman/channels/alpha ../shared/ferryman/channels/beta
  else
    skip "shared ferry channels" "../shared/ferryman is not beside this repo; conformance/ferry is the repo's own copy"
  fi
}

if [ "$SHARED_ONLY" = 1 ]; then
  # Fresh channels from the real ferry take 3-4 minutes of real heartbeat waits: written meanwhile.
  step_bg "fresh ferry channels" bash scripts/fresh-ferry.sh
  shared_steps
  wait_bg "fresh ferry channels"
else
  # Both cores are kept busy from the start: only the serve and end-to-end tests need the build,
  # so everything else runs beside it at once (the vectors and the ferry channels mostly wait,
  # the type check and lint use one core, the unit tests fill what the others leave). The
  # end-to-end tests run last, alone with what is left of the serve tests and the package.
  # The CLI bundle (dist/) first, once: each start of the CLI that finds it missing builds it
  # (in a fresh clone the vectors' and the ferry channels' first calls built it side by side,
  # ~20 CPU-s of esbuild).
  step "CLI bundle" node scripts/build-cli.mjs
  step_bg "next build" npm run build --silent
  step_bg "conformance vectors" node scripts/check-vectors.mjs . conformance/vectors
  step_bg "ferry channels" node scripts/check-ferry.mjs .
  step_bg "unit tests" vitest_step --project unit --project isolated
  step "type check and lint" node scripts/check-types-and-lint.mjs
  wait_bg "next build"
  built=1
  [[ " ${failed[*]-} " == *" next build ("* ]] && built=0
  # The serve tests and the package spend most of their time waiting (a fleet's pace, timers,
  # npm): beside the rest of the unit tests and then the end-to-end tests.
  if [ "$built" = 1 ]; then
    # --no-cache: vitest's results cache is the unit run's (two runs writing it at once could leave it unreadable).
    step_bg "serve tests" vitest_step --project serve --no-cache
    step_bg "package" bash scripts/check-package.sh
  fi
  wait_bg "unit tests"
  wait_bg "conformance vectors"
  wait_bg "ferry channels"
  if [ "$built" = 0 ]; then
    skip "serve tests, end-to-end tests, package" "they need the production build, which failed"
    failed+=("serve tests, end-to-end tests, package (not run: no build)")
  else
    step "end-to-end tests" e2e_step
    wait_bg "serve tests"
    wait_bg "package"
  fi
  if [ -d ../shared ]; then
    header "steps with ../shared"
    echo "../shared is beside this repo: its checks run too (scripts/test.sh --shared runs them alone)"
    step_bg "fresh ferry channels" bash scripts/fresh-ferry.sh
    shared_steps
    wait_bg "fresh ferry channels"
  else
    skip "steps with ../shared" "no ../shared beside this repo (the repo's own vectors and ferry channels were checked above)"
  fi
fi

# ---- summary ---------------------------------------------------------------------------

# CLAIMBOARD_SUMMARY_FILE: the summary is also appended there (.ci/run repeats it at its end).
summary() {
  for s in "${passed[@]}"; do printf '  passed   %s\n' "$s"; done
  for s in "${failed[@]}"; do printf '  FAILED   %s\n' "$s"; done
  for s in "${skipped[@]}"; do printf '  skipped  %s\n' "$s"; done
  grep -E '^  FAILED  ' "$VITEST_LOG" | sed 's/^  FAILED  /  vitest FAILED: /' || true
  # "  2 failed" / "  1 interrupted" and the indented test names under each (colour codes stripped first).
  sed 's/\x1b\[[0-9;]*m//g' "$E2E_LOG" | awk '/^  [0-9]+ (failed|flaky|interrupted)$/ { kind = $2; next } kind != "" && /^    / { sub(/^ +/, ""); sub(/ ─.*$/, ""); printf "  e2e %s: %s\n", kind, $0; next } { kind = "" }' || true
  # Why each failed: the first lines of its error under the reporter's "  1) <test>" heading, up
  # to the code frame or stack (CI shows only the log's ends, where the summary is).
  sed 's/\x1b\[[0-9;]*m//g' "$E2E_LOG" | awk '
    /^  [0-9]+\) / { n = 0; on = 1; sub(/ ─.*$/, ""); printf "  e2e why %s\n", substr($0, 3); next }
    on && (/^ +at / || /^ +[0-9]+ \|/ || /^ *> / || /^ +attachment #/ || n >= 12) { on = 0; next }
    on && /[^ ]/ { sub(/^ +/, ""); printf "      %s\n", substr($0, 1, 300); n++ }' || true
  printf '  all steps: %s s\n' "$((SECONDS - T_START))"
  printf '%d passed, %d failed\n' "${#passed[@]}" "${#failed[@]}"
}
header "summary"
if [ -n "${CLAIMBOARD_SUMMARY_FILE:-}" ]; then summary | tee -a "$CLAIMBOARD_SUMMARY_FILE"; else summary; fi
rm -f "$VITEST_LOG" "$E2E_LOG"

[ "${#failed[@]}" -eq 0 ]
