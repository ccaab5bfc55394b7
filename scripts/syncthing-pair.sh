#!/usr/bin/env bash
# (A copy of the shared contract checkout's tools/syncthing-pair.sh, kept here so that
# test/sync/syncthing.test.ts runs from a bare clone; the rest of the file is unchanged.)
# syncthing-pair.sh - two real Syncthing instances (A and B) on one machine that
# share one folder over loopback only, inside a private network namespace.
#
# Usage:
#   unshare -n bash -c 'ip link set lo up; ./syncthing-pair.sh BASE [-- CMD [ARGS...]]'
#   ./syncthing-pair.sh BASE [-- CMD ...]   # re-executes itself once under `unshare -n`
#
# Safety: before anything else the script checks that the current network
# namespace contains no interface other than lo (and no route via anything
# else).  If that is not the case it re-executes itself once under
# `unshare -n` (root) or `unshare -rn` (unprivileged), checks again, and
# refuses (exit 3) if the namespace is still not isolated.  Set
# STPAIR_NO_REEXEC=1 to make it refuse instead of re-executing.
#
# BASE must not already contain A/ or B/.  Layout created:
#   BASE/A, BASE/B            Syncthing homes (config.xml, keys, db, syncthing.log)
#   BASE/A/folder, B/folder   the shared folder (same folder id)
#   BASE/pair.env             variables for test code (sourced/exported)
#
# Without CMD: prints READY, then waits until SIGINT/SIGTERM or until one
# instance dies.  With CMD: prints READY, runs CMD (with the pair.env
# variables exported), and exits with its status.  Either way both
# instances are shut down on exit (REST shutdown, then TERM/KILL by pid).
#
# Tunables (env): STPAIR_GUI_A=18384 STPAIR_GUI_B=18385 STPAIR_BEP_A=22101
#   STPAIR_BEP_B=22102 STPAIR_FOLDER_ID=stpair STPAIR_READY_TIMEOUT=90
#   STPAIR_STTRACE (default: discover,relay,nat,stun,beacon,ur,upgrade,dialer;
#   set empty to disable)  SYNCTHING=syncthing
set -euo pipefail
export PATH="/usr/sbin:/sbin:$PATH"

die() { echo "syncthing-pair: $*" >&2; exit 2; }

# ---------------------------------------------------------------- isolation
netns_isolated() {
    local links devs badroutes
    links=$(ip -o link show | awk -F': ' '{sub(/@.*/, "", $2); print $2}' | sort -u | tr '\n' ' ')
    [[ "$links" == "lo " ]] || return 1
    # /proc/net/dev follows the current netns (/sys/class/net does not).
    devs=$(awk -F: 'NR > 2 {gsub(/ /, "", $1); print $1}' /proc/net/dev | sort -u | tr '\n' ' ')
    [[ "$devs" == "lo " ]] || return 1
    badroutes=$(ip -o route show table all | grep -v ' dev lo ' || true)
    badroutes+=$(ip -o -6 route show table all | grep -v ' dev lo ' || true)
    [[ -z "$badroutes" ]] || return 1
    return 0
}

if ! netns_isolated; then
    if [[ -z "${STPAIR_IN_UNSHARE:-}" && -z "${STPAIR_NO_REEXEC:-}" ]]; then
        if [[ $(id -u) -eq 0 ]]; then ns=(unshare -n); else ns=(unshare -rn); fi
        echo "syncthing-pair: not in an isolated netns; re-executing under ${ns[*]}" >&2
        exec "${ns[@]}" -- env STPAIR_IN_UNSHARE=1 bash "$0" "$@"
    fi
    echo "syncthing-pair: REFUSING: this network namespace has interfaces/routes other than lo:" >&2
    ip -o link show >&2 || true
    exit 3
fi
ip link set lo up || die "cannot bring lo up"
netns_isolated || { echo "syncthing-pair: REFUSING: namespace not isolated" >&2; exit 3; }
echo "syncthing-pair: netns $(readlink /proc/self/ns/net); ip addr:"
ip -o addr show | sed 's/^/  /'

# ---------------------------------------------------------------- arguments
[[ $# -ge 1 ]] || die "usage: $0 BASE [-- CMD [ARGS...]]"
BASE=$1; shift
if [[ $# -gt 0 ]]; then
    [[ "$1" == "--" ]] || die "usage: $0 BASE [-- CMD [ARGS...]]"
    shift
fi
CMD=("$@")

ST=${SYNCTHING:-syncthing}
command -v "$ST" >/dev/null || die "syncthing not found"
command -v python3 >/dev/null || die "python3 not found"
command -v curl >/dev/null || die "curl not found"

GUI_A=${STPAIR_GUI_A:-18384}; GUI_B=${STPAIR_GUI_B:-18385}
BEP_A=${STPAIR_BEP_A:-22101}; BEP_B=${STPAIR_BEP_B:-22102}
FOLDER_ID=${STPAIR_FOLDER_ID:-stpair}
READY_TIMEOUT=${STPAIR_READY_TIMEOUT:-90}
STTRACE_FACILITIES=${STPAIR_STTRACE-discover,relay,nat,stun,beacon,ur,upgrade,dialer}

mkdir -p "$BASE"
BASE=$(cd "$BASE" && pwd)
HOME_A=$BASE/A; HOME_B=$BASE/B
DIR_A=$HOME_A/folder; DIR_B=$HOME_B/folder
[[ ! -e "$HOME_A" && ! -e "$HOME_B" ]] || die "$HOME_A or $HOME_B already exists; use a fresh BASE"

# No proxy may redirect anything (Syncthing and curl both honour these).
unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
export STNOUPGRADE=1 STNORESTART=1 STNODEFAULTFOLDER=1

T0=$(date +%s.%N)

# ---------------------------------------------------------------- generate
for h in "$HOME_A" "$HOME_B"; do
    "$ST" generate --home="$h" --no-default-folder --skip-port-probing >"$h.generate.log" 2>&1 \
        || { cat "$h.generate.log" >&2; die "generate failed for $h"; }
    mv "$h.generate.log" "$h/generate.log"
done
ID_A=$("$ST" serve --home="$HOME_A" --device-id)
ID_B=$("$ST" serve --home="$HOME_B" --device-id)

# ---------------------------------------------------------------- configure
configure() {  # cfg myname peername peerid mybep peerbep guiport folderid folderpath
python3 - "$@" <<'PY'
import copy, sys
import xml.etree.ElementTree as ET
cfg, myname, peername, peerid, mybep, peerbep, gui, fid, fpath = sys.argv[1:]
tree = ET.parse(cfg)
root = tree.getroot()
opts = root.find('options')

def set_list(tag, values):
    for e in opts.findall(tag):
        opts.remove(e)
    for v in values:
        ET.SubElement(opts, tag).text = v

def set_opt(tag, value):
    set_list(tag, [value])

for tag, value in [
    ('globalAnnounceEnabled', 'false'), ('localAnnounceEnabled', 'false'),
    ('relaysEnabled', 'false'), ('natEnabled', 'false'),
    ('urAccepted', '-1'), ('urSeen', '3'), ('crashReportingEnabled', 'false'),
    ('autoUpgradeIntervalH', '0'), ('upgradeToPreReleases', 'false'),
    ('announceLANAddresses', 'false'), ('startBrowser', 'false'),
    ('restartOnWakeup', 'false'), ('setLowPriority', 'false'),
    # 1.19 has no "no STUN servers" setting: an empty stunServer list is
    # re-filled with "default" on load.  STUN is off when natEnabled=false or
    # either keepalive is 0 (OptionsConfiguration.IsStunDisabled); do both.
    ('stunKeepaliveStartS', '0'), ('stunKeepaliveMinS', '0'),
]:
    set_opt(tag, value)
set_list('listenAddress', ['tcp://127.0.0.1:%s' % mybep])

me = root.find('device')
me.set('name', myname)

peer = copy.deepcopy(root.find('defaults/device'))
peer.set('id', peerid)
peer.set('name', peername)
peer.find('address').text = 'tcp://127.0.0.1:%s' % peerbep
root.insert(list(root).index(me) + 1, peer)

gui_el = root.find('gui')
gui_el.set('enabled', 'true')
gui_el.set('tls', 'false')
gui_el.find('address').text = '127.0.0.1:%s' % gui

folder = copy.deepcopy(root.find('defaults/folder'))
for k, v in [('id', fid), ('label', fid), ('path', fpath), ('type', 'sendreceive'),
             ('rescanIntervalS', '10'), ('fsWatcherEnabled', 'true'),
             ('fsWatcherDelayS', '1')]:
    folder.set(k, v)
for d in folder.findall('device'):
    folder.remove(d)
for i, did in enumerate([me.get('id'), peerid]):
    d = ET.Element('device', {'id': did, 'introducedBy': ''})
    ET.SubElement(d, 'encryptionPassword').text = ''
    folder.insert(1 + i, d)
root.insert(0, folder)
tree.write(cfg)
print(gui_el.find('apikey').text)
PY
}
KEY_A=$(configure "$HOME_A/config.xml" A B "$ID_B" "$BEP_A" "$BEP_B" "$GUI_A" "$FOLDER_ID" "$DIR_A")
KEY_B=$(configure "$HOME_B/config.xml" B A "$ID_A" "$BEP_B" "$BEP_A" "$GUI_B" "$FOLDER_ID" "$DIR_B")
for d in "$DIR_A" "$DIR_B"; do mkdir -p "$d/.stfolder"; done

# ---------------------------------------------------------------- cleanup
# PID_A/PID_B are our direct children (Syncthing's monitor process, even with
# --no-restart); KIDS_* are the serving processes the monitors spawn.
PID_A=""; PID_B=""; KIDS_A=""; KIDS_B=""
children() { ps -o pid= --ppid "$1" 2>/dev/null | tr -s ' \n' ' ' || true; }
api() {  # gui key method path
    curl -sS --noproxy '*' --max-time 5 -X "$3" -H "X-API-Key: $2" "http://127.0.0.1:$1$4"
}
cleanup() {
    local rc=$? pid t
    trap - EXIT INT TERM
    [[ -n "$PID_A" ]] && kill -0 "$PID_A" 2>/dev/null && api "$GUI_A" "$KEY_A" POST /rest/system/shutdown >/dev/null 2>&1 || true
    [[ -n "$PID_B" ]] && kill -0 "$PID_B" 2>/dev/null && api "$GUI_B" "$KEY_B" POST /rest/system/shutdown >/dev/null 2>&1 || true
    [[ -n "$PID_A" && -z "${KIDS_A// /}" ]] && KIDS_A=$(children "$PID_A")
    [[ -n "$PID_B" && -z "${KIDS_B// /}" ]] && KIDS_B=$(children "$PID_B")
    for pid in $PID_A $PID_B; do
        for t in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        if kill -0 "$pid" 2>/dev/null; then
            echo "syncthing-pair: pid $pid ignored REST shutdown; sending TERM" >&2
            kill -TERM "$pid" 2>/dev/null || true
            for t in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
            kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null || true
        fi
        wait "$pid" 2>/dev/null || true
    done
    for pid in $KIDS_A $KIDS_B; do   # never leave a serving process orphaned
        kill -0 "$pid" 2>/dev/null || continue
        echo "syncthing-pair: child $pid still alive; sending KILL" >&2
        kill -KILL "$pid" 2>/dev/null || true
    done
    echo "syncthing-pair: stopped (monitor pids ${PID_A:-none} ${PID_B:-none}; children" $KIDS_A $KIDS_B")" >&2
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# ---------------------------------------------------------------- start
start() {  # home; runs in this shell so $! is a direct child we can wait for
    STTRACE="$STTRACE_FACILITIES" "$ST" serve --home="$1" --no-browser --no-restart \
        --no-upgrade --skip-port-probing --logfile=- --logflags=7 \
        >"$1/syncthing.log" 2>&1 </dev/null &
}
# Start A, wait until its API answers, only then start B.  Started together,
# both dial each other at the same instant and in 1.19 the two Hello
# exchanges block each other until the 20 s Hello timeout (observed; READY
# then takes ~21 s).  Staggered, A's single startup dial is refused (B not
# up yet), B's first dial to A succeeds, and A does not redial for
# reconnectionIntervalS (default 60 s, deliberately left alone).
start "$HOME_A"; PID_A=$!
for t in $(seq 300); do
    api "$GUI_A" "$KEY_A" GET /rest/system/ping >/dev/null 2>&1 && break
    kill -0 "$PID_A" 2>/dev/null || die "A exited during startup; see $HOME_A/syncthing.log"
    sleep 0.1
done
start "$HOME_B"; PID_B=$!

cat >"$BASE/pair.env" <<EOF
STPAIR_BASE=$BASE
STPAIR_FOLDER_ID=$FOLDER_ID
STPAIR_A_HOME=$HOME_A
STPAIR_B_HOME=$HOME_B
STPAIR_A_DIR=$DIR_A
STPAIR_B_DIR=$DIR_B
STPAIR_A_ID=$ID_A
STPAIR_B_ID=$ID_B
STPAIR_A_API=http://127.0.0.1:$GUI_A
STPAIR_B_API=http://127.0.0.1:$GUI_B
STPAIR_A_KEY=$KEY_A
STPAIR_B_KEY=$KEY_B
STPAIR_A_PID=$PID_A
STPAIR_B_PID=$PID_B
EOF

# ---------------------------------------------------------------- wait READY
python3 - "$READY_TIMEOUT" "$FOLDER_ID" "$PID_A" "$PID_B" \
    "$GUI_A" "$KEY_A" "$ID_B" "$GUI_B" "$KEY_B" "$ID_A" <<'PY'
import json, os, sys, time, urllib.request
timeout, fid, pid_a, pid_b = float(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
sides = [('A', sys.argv[5], sys.argv[6], sys.argv[7]), ('B', sys.argv[8], sys.argv[9], sys.argv[10])]
opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
def get(gui, key, path):
    req = urllib.request.Request('http://127.0.0.1:%s%s' % (gui, path), headers={'X-API-Key': key})
    with opener.open(req, timeout=3) as r:
        return json.load(r)
def alive(pid):
    try:
        os.kill(pid, 0)
        return not open('/proc/%d/stat' % pid).read().split(') ')[1].startswith('Z')
    except OSError:
        return False
deadline = time.time() + timeout
last = {}
while time.time() < deadline:
    if not (alive(pid_a) and alive(pid_b)):
        sys.exit('syncthing-pair: an instance exited during startup (see BASE/*/syncthing.log)')
    ok = True
    for name, gui, key, peer in sides:
        try:
            conn = get(gui, key, '/rest/system/connections')['connections'].get(peer, {})
            st = get(gui, key, '/rest/db/status?folder=' + fid)
            last[name] = (conn.get('connected'), st.get('state'), st.get('error'))
            ok &= bool(conn.get('connected')) and st.get('state') == 'idle'
        except Exception as e:
            last[name] = repr(e)
            ok = False
    if ok:
        sys.exit(0)
    time.sleep(0.25)
sys.exit('syncthing-pair: not ready after %ss: %s' % (timeout, last))
PY
T1=$(date +%s.%N)
KIDS_A=$(children "$PID_A"); KIDS_B=$(children "$PID_B")
echo "READY startup_s=$(python3 -c "print(round($T1-$T0,2))") base=$BASE env=$BASE/pair.env A=$ID_A B=$ID_B"

# ---------------------------------------------------------------- run / wait
if [[ ${#CMD[@]} -gt 0 ]]; then
    set +e
    ( set -a; . "$BASE/pair.env"; set +a; exec "${CMD[@]}" )
    rc=$?
    set -e
    exit "$rc"
fi
set +e
wait -n "$PID_A" "$PID_B"
echo "syncthing-pair: an instance exited; shutting down" >&2
exit 1
