#!/usr/bin/env bash
# With the real ferry beside this repo (../shared/ferryman/bin/ferry), writes fresh channels with
# its make-channels.sh (3-4 min of real heartbeat waits) and holds claimboard to ferry's verdict on
# them (scripts/check-ferry.mjs), with the person's reading of the committed runs of the same
# script (conformance/ferry/{alpha,beta,gamma}/truth.json). Without the binary it says so and
# exits 3 (skipped): the committed channels (conformance/ferry) are checked by the other steps.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
KIT=../shared/ferryman
if [ ! -x "$KIT/bin/ferry" ] || [ ! -f "$KIT/make-channels.sh" ]; then
  echo "fresh ferry channels: skipped: no real ferry beside this repo ($KIT/bin/ferry); the committed channels in conformance/ferry were checked"
  exit 3
fi
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
bash "$KIT/make-channels.sh" "$OUT" >"$OUT.log" 2>&1 || { tail -20 "$OUT.log"; exit 1; }
for n in alpha beta gamma; do
  mkdir -p "$OUT/cases/$n"
  cp -a "$OUT/channels/$n" "$OUT/cases/$n/channel"
  cp "$OUT/channels/$n.tasks.txt" "$OUT/cases/$n/tasks.txt"
  cp conformance/ferry/$n/truth.json "$OUT/cases/$n/truth.json"
done
echo "--ferryman-state @hub-state" >"$OUT/cases/gamma/args.txt"
mkdir -p "$OUT/cases/gamma/hub-state/fleet"
cp -a "$OUT/machines/hub/state/fleet/agents" "$OUT/cases/gamma/hub-state/fleet/agents"
rm -f "$OUT.log"
node scripts/check-ferry.mjs . "$OUT/cases/alpha" "$OUT/cases/beta" "$OUT/cases/gamma"
