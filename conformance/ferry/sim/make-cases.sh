#!/usr/bin/env bash
# Writes, with the real `ferry` binary, the channels of the cases conformance/ferry/rt-twice,
# rt-nobody, rt-loop, rt-retire-overwrite, rt-interrupt-overwrite, rt-two-ops, rt-human-loop,
# rt-kill-restart and rt-steer-overwrite. Nothing here writes a channel file itself: every file
# under OUT/<case>/channel is written by `ferry` (0.4.1).
#
# Usage: FERRY=/path/to/ferry make-cases.sh OUT [case...]
#   Without FERRY (or with one that is not executable) it says so and exits 3 (skipped).
#
# Each case is its own small fleet under OUT/<case>/: machines as folders (their own
# FERRYMAN_STATE_DIR and HOME), the channel symlinked into each workspace in place of Syncthing,
# and `fake-engine` (beside this script) standing in for the AI engine. Beside each channel,
# tasks.txt is `ferry channel tasks` as the hub sees it. Takes about 4 minutes.
set -euo pipefail
SIM=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=${1:?usage: FERRY=/path/to/ferry make-cases.sh OUT [case...]}; shift
if [ -z "${FERRY:-}" ] || [ ! -x "$FERRY" ]; then
  echo "make-cases: skipped: no ferry binary (set FERRY=/path/to/ferry)"
  exit 3
fi
FERRY=$(cd "$(dirname "$FERRY")" && pwd)/$(basename "$FERRY")
mkdir -p "$OUT"; OUT=$(cd "$OUT" && pwd)
BIN=$OUT/.bin; mkdir -p "$BIN"; cp "$SIM/fake-engine" "$BIN/fake-engine"; chmod +x "$BIN/fake-engine"
PASSWORD=correct-horse-battery-staple
EMAIL=ops@example.invalid

# The case being written: ROOT (its folder), M (its machines), CH (its channel).
start() { ROOT=$OUT/$1; rm -rf "$ROOT"; M=$ROOT/machines; CH=$ROOT/channel; mkdir -p "$M" "$CH" "$ROOT/tmp"; LOG=$ROOT/log; : >"$LOG"; P=$1; }
fenv() { echo env -i PATH="$BIN:/usr/bin:/bin" HOME="$M/$1/home" FERRYMAN_STATE_DIR="$M/$1/state" TMPDIR="$ROOT/tmp" FERRYMAN_OPERATOR_PASSWORD="$PASSWORD" RUST_BACKTRACE=0; }
on() { local m=$1; shift; echo "+ [$m] ferry $*" >>"$LOG"; $(fenv "$m") "$FERRY" "$@" >>"$LOG" 2>&1; }
ws() { echo "$M/$1/$P"; }
join() { # machine agent role review
  local w; w=$(ws "$1")
  mkdir -p "$w/.ferryman" "$M/$1/home" "$M/$1/state"
  ln -sfn "$CH" "$w/.ferryman/ferryman"
  on "$1" enable --workspace "$w" --project "$P" --agent "$2" --role "$3" --email "$EMAIL" --command fake-engine --review "$4" --no-syncthing
}
# One worker pass in the background; `finish` waits for it.
bg_run() { echo "+ [$1] ferry agent run --once &" >>"$LOG"; ( exec $(fenv "$1") "$FERRY" agent run --workspace "$(ws "$1")" --once >>"$LOG" 2>&1 ) & BG=$!; }
finish() { wait "$BG" || true; }
# One worker pass killed with SIGKILL after $2 seconds: a worker that died mid-run.
die_mid_run() {
  local m=$1 secs=$2 pid engine
  echo "+ [$m] ferry agent run --once (SIGKILL after ${secs}s)" >>"$LOG"
  ( exec $(fenv "$m") "$FERRY" agent run --workspace "$(ws "$m")" --once >>"$LOG" 2>&1 ) &
  pid=$!; sleep "$secs"
  engine=$(cat "$ROOT/tmp/engine.$m.pid" 2>/dev/null || true)
  kill -9 "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true
  [ -n "$engine" ] && kill -9 "$engine" 2>/dev/null || true
  rm -f "$ROOT/tmp/engine.$m.pid"; sleep 1
}
verdict() { $(fenv hub) "$FERRY" channel tasks --workspace "$(ws hub)" >"$ROOT/tasks.txt" 2>>"$LOG" || true; echo "$P: $(grep -c '^  [^ ]' "$ROOT/tasks.txt") orders"; }

# Work done twice after a retire: `ferry channel retire` on the hub releases wisp's claim while
# wisp's run goes on on its own machine; wisp's result lands, then nebra claims the order (ferry
# reads it Open: no unreleased claim) and does it again.
case_twice() {
  start rt-twice
  join hub orchestrator orchestrator off; join wisp wisp worker off; join nebra nebra worker off
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id w-twice --task 'Port the tray to gtk4 [sleep-on-wisp:20]'
  bg_run wisp; sleep 6
  on hub channel retire --comms "$M/hub" --agent wisp
  finish
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id w-fine --task 'Answer the soak report'
  on nebra agent run --workspace "$(ws nebra)" --once
  verdict
}

# Addressed to a name nobody has (a typo), beside one reserved for a worker not online yet.
case_nobody() {
  start rt-nobody
  join hub orchestrator orchestrator off; join nebra nebra worker off
  on hub channel expect --workspace "$(ws hub)" --name kite --role worker
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id n-typo --to nebar --task 'Reply to the licence question'
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id n-reserved --to kite --task 'Set up the new build box'
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id n-ok --to nebra --task 'Triage the open issues'
  on nebra agent run --workspace "$(ws nebra)" --once
  verdict
}

# A review loop: fang's automatic reviewer sends every revision of n-loop back with the same
# reason and nebra resubmits; n-once is sent back once, and waits for nebra's next start.
case_loop() {
  start rt-loop
  join hub orchestrator orchestrator off; join nebra nebra worker off; join fang fang worker auto
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id l-loop --task 'Document the config migration [reject]' --requires-review
  for _ in 1 2 3; do
    on nebra agent run --workspace "$(ws nebra)" --once
    on fang agent review --workspace "$(ws fang)" --once
  done
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id l-once --task 'Document the sync protocol [reject]' --requires-review
  on nebra agent run --workspace "$(ws nebra)" --once
  on fang agent review --workspace "$(ws fang)" --once
  verdict
}

# A retirement the folder forgot: wisp claims r-forgot and dies; the hub retires wisp
# (release.orchestrator.json names wisp); kite claims it and dies; the hub retires kite, and
# release.orchestrator.json now names kite: only the orchestrator's ledger still says wisp is retired.
case_retire_overwrite() {
  start rt-retire-overwrite
  join hub orchestrator orchestrator off; join wisp wisp worker off; join kite kite worker off; join nebra nebra worker off
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id r-forgot --task 'Port the tray to gtk4 [sleep-on-wisp:600] [sleep-on-kite:600]'
  die_mid_run wisp 4
  on hub channel retire --comms "$M/hub" --agent wisp
  die_mid_run kite 4
  on hub channel retire --comms "$M/hub" --agent kite
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id r-fine --task 'Answer the soak report'
  on nebra agent run --workspace "$(ws nebra)" --once
  verdict
}

# An interrupt nobody will see: ops kills i-over (addressed to fang); fang acknowledges it and
# deletes its claim; ops then pauses it, which overwrites interrupt.ops.json; fang's next pass
# takes its acknowledgement of the kill for the pause and does the work. i-killed is killed once
# and left: fang will run it again at its next start.
case_interrupt_overwrite() {
  start rt-interrupt-overwrite
  join hub orchestrator orchestrator off; join fang fang worker off
  on hub operator create --workspace "$(ws hub)" --name ops
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id i-over --to fang --task 'Bump every dependency' --requires-review
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order i-over --action kill --note 'Not now.'
  on fang agent run --workspace "$(ws fang)" --once
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order i-over --action pause --note 'Hold until the freeze is over.'
  on fang agent run --workspace "$(ws fang)" --once
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id i-killed --to fang --task 'Delete the legacy bridge'
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order i-killed --action kill --note 'Not wanted after all.'
  on fang agent run --workspace "$(ws fang)" --once
  verdict
}

# Two operators on the same orders: lead pauses o-pause-steer and ops steers it, fang's pass
# takes the pause (its claim deleted) and stops before the steer; ops and lead both steer
# o-steer-both before kite's pass (ferry folds only the last steer's note into the prompt); ops sends
# o-review-pair back and lead accepts the next revision.
case_two_ops() {
  start rt-two-ops
  join hub orchestrator orchestrator off; join fang fang worker off; join kite kite worker off; join nebra nebra worker off
  on hub operator create --workspace "$(ws hub)" --name ops
  on hub operator create --workspace "$(ws hub)" --name lead
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id o-pause-steer --to fang --task 'Rotate the signing keys'
  on hub channel interrupt --workspace "$(ws hub)" --agent lead --order o-pause-steer --action pause --note 'Hold until the freeze ends.'
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order o-pause-steer --action steer --note 'Rotate the staging keys first.'
  on fang agent run --workspace "$(ws fang)" --once
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id o-steer-both --to kite --task 'Write the upgrade guide' --requires-review
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order o-steer-both --action steer --note 'Cover the rollback too.'
  on hub channel interrupt --workspace "$(ws hub)" --agent lead --order o-steer-both --action steer --note 'Keep it under two pages.'
  on kite agent run --workspace "$(ws kite)" --once
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id o-review-pair --to nebra --task 'Tidy the CI matrix' --requires-review
  on nebra agent run --workspace "$(ws nebra)" --once
  on hub channel review --workspace "$(ws hub)" --reviewer ops --notes 'Drop the Node 18 jobs.' o-review-pair
  on nebra agent run --workspace "$(ws nebra)" --once
  on hub channel review --workspace "$(ws hub)" --reviewer lead --accept o-review-pair
  verdict
}

# A review loop with a person's review in the middle: fang's automatic reviewer sends h-after back
# at revision 1, ops (a person) at 2 with another reason, fang again at 3, 4 and 5; h-mid is sent
# back by fang at 1 and 2 and by ops at 3; h-third, issued with h-mid, by fang at 1, 2 and 3 (its
# task has no [reject] marker, yet fake-engine found one in fang's review prompt).
case_human_loop() {
  start rt-human-loop
  join hub orchestrator orchestrator off; join nebra nebra worker off; join fang fang worker auto
  on hub operator create --workspace "$(ws hub)" --name ops
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id h-after --task 'Document the config migration [reject]' --requires-review
  on nebra agent run --workspace "$(ws nebra)" --once
  on fang agent review --workspace "$(ws fang)" --once
  on nebra agent run --workspace "$(ws nebra)" --once
  on hub channel review --workspace "$(ws hub)" --reviewer ops --notes 'Split it into a guide and a reference.' h-after
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id h-mid --task 'Document the cache flags [reject]' --requires-review
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id h-third --task 'Document the log levels' --requires-review
  on nebra agent run --workspace "$(ws nebra)" --once
  on fang agent review --workspace "$(ws fang)" --once
  on nebra agent run --workspace "$(ws nebra)" --once
  on fang agent review --workspace "$(ws fang)" --once
  on nebra agent run --workspace "$(ws nebra)" --once
  on hub channel review --workspace "$(ws hub)" --reviewer ops --notes 'Name each flag in a table.' h-mid
  on fang agent review --workspace "$(ws fang)" --once
  verdict
}

# Kill, then the worker starts again: k-restart (addressed to wisp) is killed before wisp runs;
# wisp acknowledges and drops its claim, and its next pass claims it again and does the work.
# k-steer (addressed to nebra) is killed, nebra acknowledges, then ops steers it ("go ahead"),
# which overwrites the kill: nebra's acknowledgement stands for the steer. k-open is open,
# killed, and wisp's pass acknowledges and drops its claim.
case_kill_restart() {
  start rt-kill-restart
  join hub orchestrator orchestrator off; join wisp wisp worker off; join nebra nebra worker off
  on hub operator create --workspace "$(ws hub)" --name ops
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id k-restart --to wisp --task 'Migrate the billing tables'
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order k-restart --action kill --note 'Not this sprint.'
  on wisp agent run --workspace "$(ws wisp)" --once
  on wisp agent run --workspace "$(ws wisp)" --once
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id k-steer --to nebra --task 'Backfill the audit log'
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order k-steer --action kill --note 'Wait for the new schema.'
  on nebra agent run --workspace "$(ws nebra)" --once
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order k-steer --action steer --note 'The schema is in: go ahead, on schema v3.'
  on hub channel order --workspace "$(ws hub)" --agent orchestrator --id k-open --task 'Reindex the search cluster'
  on hub channel interrupt --workspace "$(ws hub)" --agent ops --order k-open --action kill --note 'Duplicate of the infra ticket.'
  on wisp agent run --workspace "$(ws wisp)" --once
  verdict
}

# A steer overwritten by the same issuer's next steer: fang (s-over) and kite (s-over-done) each
# acknowledge ops's first steer and submit revision 1; ops sends both back and steers both again.
# kite's next pass writes revision 2 of s-over-done without the second steer; fang has not run again.
case_steer_overwrite() {
  start rt-steer-overwrite
  join hub orchestrator orchestrator off; join fang fang worker off; join kite kite worker off
  on hub operator create --workspace "$(ws hub)" --name ops
  for o in s-over:fang s-over-done:kite; do
    on hub channel order --workspace "$(ws hub)" --agent orchestrator --id "${o%%:*}" --to "${o##*:}" --task 'Port the exporter to the v2 API' --requires-review
    on hub channel interrupt --workspace "$(ws hub)" --agent ops --order "${o%%:*}" --action steer --note 'Keep the v1 endpoint working.'
  done
  on fang agent run --workspace "$(ws fang)" --once
  on kite agent run --workspace "$(ws kite)" --once
  for o in s-over s-over-done; do
    on hub channel review --workspace "$(ws hub)" --reviewer ops --notes 'Cover the error paths.' "$o"
    on hub channel interrupt --workspace "$(ws hub)" --agent ops --order "$o" --action steer --note 'Also update the docs.'
  done
  on kite agent run --workspace "$(ws kite)" --once
  verdict
}

cases=("$@"); [ ${#cases[@]} -gt 0 ] || cases=(twice nobody loop retire_overwrite interrupt_overwrite two_ops human_loop kill_restart steer_overwrite)
for c in "${cases[@]}"; do "case_$c"; done
rm -rf "$BIN"
