#!/usr/bin/env bash
# End-to-end check of the interface: two real agents on 127.0.0.1, the
# engineer's interface driven through tmux send-keys and read back with
# capture-pane. Usage: bash test/e2e/tui.sh ./bin/aoi
set -euo pipefail

BIN=${1:?usage: tui.sh PATH_TO_AOI_BINARY}
BIN=$(cd "$(dirname "$BIN")" && pwd)/$(basename "$BIN")
[ -x "$BIN" ] || { echo "tui.sh: $BIN is not an executable; run make build first" >&2; exit 2; }
command -v tmux >/dev/null || { echo "tui.sh: tmux is not installed" >&2; exit 2; }

T=$(mktemp -d "${TMPDIR:-/tmp}/aoi-e2e.XXXXXX")
PM=$T/pm
ENG=$T/eng
TMUX_SOCK=aoi-e2e-$$
SESSION=eng
PM_PID=
QA_PID=

cleanup() {
	tmux -L "$TMUX_SOCK" kill-server 2>/dev/null || true
	if [ -n "$PM_PID" ]; then kill "$PM_PID" 2>/dev/null || true; wait "$PM_PID" 2>/dev/null || true; fi
	if [ -n "$QA_PID" ]; then kill "$QA_PID" 2>/dev/null || true; wait "$QA_PID" 2>/dev/null || true; fi
	rm -rf "$T"
}
trap cleanup EXIT

fail() {
	echo "tui.sh: FAIL: $*" >&2
	echo "--- engineer's screen" >&2
	tmux -L "$TMUX_SOCK" capture-pane -p -t "$SESSION" >&2 2>/dev/null || true
	echo "--- the PM's inbox" >&2
	timeout 10 "$BIN" --data-dir "$PM" inbox >&2 2>&1 || true
	for f in "$T"/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }; done
	exit 1
}

# free_port prints a loopback port nothing listens on (bounded tries).
free_port() {
	local p i
	for i in $(seq 1 100); do
		p=$((20000 + RANDOM % 40000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
			echo "$p"
			return 0
		fi
	done
	echo "tui.sh: no free port found on 127.0.0.1" >&2
	return 1
}

# poll CMD... runs CMD every 0.2 s, up to 75 times (15 s), until it succeeds.
poll() {
	local i
	for i in $(seq 1 75); do
		if "$@" >/dev/null 2>&1; then return 0; fi
		sleep 0.2
	done
	return 1
}

screen_has() { tmux -L "$TMUX_SOCK" capture-pane -p -t "$SESSION" | grep -qF -- "$1"; }
pm_inbox_has() { timeout 10 "$BIN" --data-dir "$PM" inbox --json | grep -qF -- "$1"; }
aoi() { timeout 20 "$BIN" "$@"; }
keys() { tmux -L "$TMUX_SOCK" send-keys -t "$SESSION" "$@"; }

PM_PORT=$(free_port)
ENG_PORT=$(free_port)
while [ "$ENG_PORT" = "$PM_PORT" ]; do ENG_PORT=$(free_port); done

aoi --data-dir "$PM" init --id pm-tanaka --role pm --listen "127.0.0.1:$PM_PORT" >"$T/init-pm.log" 2>&1 ||
	fail "aoi init for the PM"
aoi --data-dir "$ENG" init --id eng-suzuki --role engineer --listen "127.0.0.1:$ENG_PORT" >"$T/init-eng.log" 2>&1 ||
	fail "aoi init for the engineer"

"$BIN" --data-dir "$PM" serve >"$T/pm-serve.log" 2>&1 &
PM_PID=$!
poll aoi --data-dir "$PM" status || fail "aoi serve for the PM never answered on its control socket"

# The engineer's interface runs the core in its own process.
tmux -L "$TMUX_SOCK" new-session -d -s "$SESSION" -x 120 -y 40 \
	"TERM=xterm-256color '$BIN' --data-dir '$ENG' 2>'$T/eng-tui.log'; echo \$? >'$T/eng.rc'; sleep 30"
poll screen_has "eng-suzuki" || fail "the engineer's interface never drew its status bar"
poll aoi --data-dir "$ENG" status || fail "the interface's core never answered on its control socket"

PM_FP=$(aoi --data-dir "$PM" id --fingerprint) || fail "aoi id for the PM"
ENG_FP=$(aoi --data-dir "$ENG" id --fingerprint) || fail "aoi id for the engineer"
aoi --data-dir "$PM" peers trust eng-suzuki "$ENG_FP" --endpoint "127.0.0.1:$ENG_PORT" >/dev/null ||
	fail "the PM could not pin the engineer"
aoi --data-dir "$ENG" peers trust pm-tanaka "$PM_FP" --endpoint "127.0.0.1:$PM_PORT" --role pm >/dev/null ||
	fail "the engineer (through the interface's control socket) could not pin the PM"

aoi --data-dir "$PM" query eng-suzuki "how is auth going?" >"$T/query.log" 2>&1 ||
	fail "the PM's query to eng-suzuki failed"
# The Queries column is narrow at 120 columns; the row shows asker and
# state, the dialog shows the full question.
poll screen_has "question from pm-tanaka" || fail "the query never raised a notice in the engineer's interface"
poll screen_has "escalated" || fail "the query never showed in the engineer's Queries pane"

# Queries is the focused pane at start: first row, open, clear the
# secretary's draft (the text area starts with it), write the answer, send.
keys Home
keys Enter
poll screen_has "Answer query" || fail "enter did not open the answer dialog"
poll screen_has "how is auth going?" || fail "the answer dialog does not show the question"
keys C-x
keys -l "JWT done, refresh tokens next"
keys C-s
poll screen_has "answer sent for pm-tanaka's question" || fail "the interface never confirmed which answer was sent"
# The answer starts with the typed words: ctrl+x left none of the draft.
poll pm_inbox_has '"JWT done, refresh tokens next' || fail "the answer never reached the PM's inbox, or ctrl+x did not clear the draft"

# Daily use (approvals, audit, messages, trust, first run): tui_daily.sh.
# shellcheck source=tui_daily.sh
. "$(dirname "${BASH_SOURCE[0]}")/tui_daily.sh"
run_daily_checks

aoi --data-dir "$ENG" audit verify >"$T/verify.log" 2>&1 || fail "aoi audit verify failed for the engineer"

# The interface runs the agent: with a question waiting, q asks first
# (colleagues would reach nobody), and q again quits.
aoi --data-dir "$PM" query eng-suzuki "is the release branch cut?" >>"$T/query.log" 2>&1 ||
	fail "the PM's second query to eng-suzuki failed"
poll screen_has "is the release branch cut?" || fail "the second query never showed in the engineer's interface"
poll screen_has "queries 1" || fail "the status bar never counted the second query"
keys q
poll screen_has "Quit aoi" || fail "q with a question waiting did not ask before stopping the agent"
keys q
poll test -f "$T/eng.rc" || fail "q did not quit the interface"
[ "$(cat "$T/eng.rc")" = 0 ] || fail "the interface exited with status $(cat "$T/eng.rc")"

# Signals (process life): test/e2e/tui_signals.sh.
# shellcheck source=tui_signals.sh
. "$(dirname "${BASH_SOURCE[0]}")/tui_signals.sh"
run_signal_checks

echo "tui.sh: ok (query shown in the interface, answered from the text area, received by the PM, audit chain verified)"
