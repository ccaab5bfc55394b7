#!/usr/bin/env bash
# Installs claimboard as a user would and uses it outside the repo: packs this
# checkout (`npm pack`), installs the tarball into an empty temp folder (`npm i ./claimboard-*.tgz`),
# then, from there only:
#   - `claimboard --version` prints package.json's version;
#   - `claimboard state <copy of conformance vector 11> --json` reads g1 as gave_up in Needs
#     attention, g2 closed, g3 claimed (the vector's expect.json), and the same with
#     CLAIMBOARD_VERIFIER=sodium (sodium-native, a native dependency outside the bundle, loads);
#   - `claimboard serve <that copy>` answers /api/board with g1 in the attention lane, its index
#     verified with sodium-native;
#   - `claimboard ack <copy> g1 --key ops.key` writes claimboard.channel.json (the folder's first
#     act names its channel), tasks/g1/ack.ops.json and ledger.ops.jsonl,
#     after which `state` reads g1 closed (an acknowledged give-up is closed) and the
#     running server's board moves g1 out of attention.
#
# `npm pack --ignore-scripts`: the dashboard was just built by the "next build" step of
# scripts/test.sh (prepack would build it again); the CLI bundle is built here from clean.
# The install takes packages from npm's cache when it has them (--prefer-offline).
# CLAIMBOARD_PACKAGE_KEEP=1 keeps the temp folder.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT="$(pwd)"
fail() { echo "package: FAILED: $*" >&2; exit 1; }

[ -f .next/BUILD_ID ] || fail "no dashboard build (.next/BUILD_ID): run npm run build first"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/claimboard-package.XXXXXX")"
SERVER_PID=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  if [ "${CLAIMBOARD_PACKAGE_KEEP:-}" = 1 ]; then echo "package: kept $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# The package is packed from a folder of its own: its CLI bundle built from nothing there, the
# rest of what package.json's `files` lists copied from this checkout. The checkout's own dist/
# stays as it is for the tests running meanwhile.
STAGE="$WORK/stage"
mkdir "$STAGE"
node scripts/build-cli.mjs --clean --out "$STAGE/dist"
tar -C "$ROOT" --exclude=./.next/cache --exclude='./.next/trace*' --exclude=./.next/diagnostics --exclude=./.next/types --exclude=./.next/dev \
  -cf - ./package.json ./bin/claimboard.mjs ./.next ./public ./next.config.mjs ./docs ./deploy ./README.md | tar -C "$STAGE" -xf -
(cd "$STAGE" && npm pack --ignore-scripts --silent --pack-destination "$WORK" >/dev/null)
TGZ="$(ls "$WORK"/claimboard-*.tgz)"
echo "package: $(basename "$TGZ"), $(du -k "$TGZ" | cut -f1) KiB"

mkdir "$WORK/app"
cd "$WORK/app"
echo '{"name":"claimboard-user","private":true}' >package.json
t0=$SECONDS
# Install scripts are skipped: the only one that does work is better-sqlite3's compile from
# source (1-2 min, already done and tested by this checkout's own `npm ci`); its binary is taken
# from this checkout when the versions match (same machine, same Node), else compiled here.
npm i --prefer-offline --no-audit --no-fund --loglevel=error --ignore-scripts "$TGZ" >/dev/null
SQLITE_VERSION="$(node -p "require('$ROOT/node_modules/better-sqlite3/package.json').version")"
if [ "$(node -p "require('./node_modules/better-sqlite3/package.json').version")" = "$SQLITE_VERSION" ] &&
  [ -f "$ROOT/node_modules/better-sqlite3/build/Release/better_sqlite3.node" ]; then
  mkdir -p node_modules/better-sqlite3/build/Release
  cp "$ROOT/node_modules/better-sqlite3/build/Release/better_sqlite3.node" node_modules/better-sqlite3/build/Release/
  echo "package: better-sqlite3 $SQLITE_VERSION's binary taken from this checkout"
else
  npm rebuild better-sqlite3 --loglevel=error >/dev/null
  echo "package: better-sqlite3 compiled for the install"
fi
echo "package: installed in $((SECONDS - t0)) s into $WORK/app"
CB="$WORK/app/node_modules/.bin/claimboard"
[ -x "$CB" ] || fail "no node_modules/.bin/claimboard after install"

want_version="$(node -p "require('$ROOT/package.json').version")"
got_version="$("$CB" --version)"
[ "$got_version" = "$want_version" ] || fail "--version printed '$got_version', want '$want_version'"
echo "package: claimboard --version -> $got_version"

CH="$WORK/channel"
cp -r "$ROOT/conformance/vectors/11-give-up-ack-reopen/channel" "$CH"
mkdir "$WORK/keys"
node -e "process.stdout.write(require('$ROOT/conformance/vectors/keys.json').ops.seed + '\n')" >"$WORK/keys/ops.key"
chmod 600 "$WORK/keys/ops.key"

# lanes <json-file>: "g1=gave_up/attention g2=... " from a `state --json` answer.
states() { node -e '
  const s = JSON.parse(require("fs").readFileSync(0, "utf8"));
  console.log(s.orders.map((o) => `${o.order_id}=${o.state}/${o.lane}`).sort().join(" "));'; }

got="$("$CB" state "$CH" --json | states)"
[ "$got" = "g1=gave_up/attention g2=closed/done g3=claimed/running" ] || fail "state read: $got"
echo "package: state -> $got"
# sodium-native (native, outside the bundle) must load from the install: CLAIMBOARD_VERIFIER=sodium
# makes a load failure an error instead of the silent fallback to node:crypto.
got="$(CLAIMBOARD_VERIFIER=sodium "$CB" state "$CH" --json | states)" || fail "state with CLAIMBOARD_VERIFIER=sodium failed"
[ "$got" = "g1=gave_up/attention g2=closed/done g3=claimed/running" ] || fail "state read with sodium-native: $got"
echo "package: state with CLAIMBOARD_VERIFIER=sodium -> the same"

PORT="$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')"
CLAIMBOARD_VERIFIER=sodium timeout 180 "$CB" serve "$CH" --port "$PORT" --db "$WORK/index.sqlite" >"$WORK/serve.log" 2>&1 &
SERVER_PID=$!

# attention <id>: waits (up to 60 s) until the served board's attention lane does (yes) or
# does not (no) hold order <id>.
board_attention() {
  local want="$1" id="$2"
  for _ in $(seq 1 120); do
    if body="$(curl -sf "http://127.0.0.1:$PORT/api/board")"; then
      has="$(printf '%s' "$body" | node -e '
        const b = JSON.parse(require("fs").readFileSync(0, "utf8"));
        if (b.progress?.phase !== "ready") { console.log("wait"); process.exit(); }
        const a = b.lanes.find((l) => l.lane === "attention");
        console.log(a.cards.some((c) => c.order_id === process.argv[1]) ? "yes" : "no");' "$id")"
      [ "$has" = "$want" ] && return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || { cat "$WORK/serve.log"; fail "serve exited"; }
    sleep 0.5
  done
  cat "$WORK/serve.log"
  fail "the served board's attention lane: g1 present=$want never held"
}
board_attention yes g1
echo "package: serve -> /api/board has g1 in Needs attention"
grep -q 'signatures verified (sodium-native)' "$WORK/serve.log" || { cat "$WORK/serve.log"; fail "serve's index did not verify with sodium-native"; }
echo "package: serve -> the index verified with sodium-native (its worker threads and the web server load it the same way)"

out="$("$CB" ack "$CH" g1 --key "$WORK/keys/ops.key" --note "seen at 3am" 2>/dev/null)"
# The first act on the folder names its channel too (claimboard.channel.json).
[ "$out" = "$(printf 'claimboard.channel.json\ntasks/g1/ack.ops.json\nledger.ops.jsonl')" ] || fail "ack printed: $out"
got="$("$CB" state "$CH" --json | states)"
[ "$got" = "g1=closed/done g2=closed/done g3=claimed/running" ] || fail "state after ack: $got"
echo "package: ack g1 -> state $got"
board_attention no g1
echo "package: serve -> the board moved g1 out of Needs attention"
echo "package: passed"
