# Signal checks for test/e2e/tui.sh (sourced; uses its BIN, T, ENG, PM,
# ENG_PORT, PM_PID, TMUX_SOCK, poll, fail and aoi). What a signal can show:
# the interface ends on SIGTERM and when its pane closes (SIGHUP) and frees
# its port and socket; `aoi serve` reloads on SIGHUP; an interface attached
# to a daemon that dies says so at once and recovers when it is back.

tm() { tmux -L "$TMUX_SOCK" "$@"; }
pane_has() { tm capture-pane -p -t "$1" | grep -qF -- "$2"; }
port_free() { ! (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
no_core() { ! timeout 5 "$BIN" --data-dir "$1" status >/dev/null 2>&1 && [ ! -e "$1/aoi.sock" ]; }
# gone PID: the process has exited (a zombie nobody reaped yet counts).
gone() { ! kill -0 "$1" 2>/dev/null || grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }

# open_interface SESSION DATA_DIR TEXT: the interface in a pane, run by a
# shell that records its exit status in $T/SESSION.rc; waits for TEXT.
open_interface() {
	tm new-session -d -s "$1" -x 120 -y 36 \
		"TERM=xterm-256color '$BIN' --data-dir '$2' 2>>'$T/$1.log'; echo \$? >'$T/$1.rc'; sleep 30"
	poll pane_has "$1" "$3" || fail "$1: the interface never drew its status bar"
}

# aoi_pid SESSION: the pid of the interface, the child of the pane's shell
# (pgrep -P, else the kernel's list of children).
aoi_pid() {
	local pp c
	pp=$(tm display -p -t "$1" '#{pane_pid}')
	pgrep -P "$pp" 2>/dev/null && return 0
	read -r c _ <"/proc/$pp/task/$pp/children" && [ -n "$c" ] && echo "$c"
}

# The interface ends on SIGTERM with status 0, port and socket released.
# Before that, :reload in the prompt bar reports on the config.
check_interface_sigterm() {
	open_interface sigterm "$ENG" eng-suzuki
	poll aoi --data-dir "$ENG" status || fail "sigterm: the interface's core never answered"
	tm send-keys -t sigterm ":" && tm send-keys -t sigterm -l "reload" && tm send-keys -t sigterm Enter
	poll pane_has sigterm "config reloaded: no changes" || fail ":reload did not report on the config"
	local pid
	pid=$(aoi_pid sigterm) || fail "sigterm: no interface process in the pane"
	kill -TERM "$pid"
	poll test -f "$T/sigterm.rc" || fail "the interface still runs 15 s after SIGTERM"
	[ "$(cat "$T/sigterm.rc")" = 0 ] || fail "the interface exited with status $(cat "$T/sigterm.rc") after SIGTERM"
	poll port_free "$ENG_PORT" || fail "port $ENG_PORT still held after SIGTERM"
	poll no_core "$ENG" || fail "the control socket survived SIGTERM"
	tm kill-session -t sigterm
}

# Closing the pane hangs up the terminal: the interface must end cleanly.
# Before that, up in its prompt bar finds the :reload typed in the
# interface SIGTERM ended: the prompt history outlives the process.
check_interface_pane_closed() {
	open_interface hangup "$ENG" eng-suzuki
	tm send-keys -t hangup ":" && tm send-keys -t hangup Up
	poll pane_has hangup "› :reload" || fail "up in a new interface did not find the :reload typed in the one before"
	tm send-keys -t hangup Escape
	local pid
	pid=$(aoi_pid hangup) || fail "hangup: no interface process in the pane"
	tm kill-pane -t hangup
	poll gone "$pid" || fail "the interface still runs 15 s after its pane closed"
	poll port_free "$ENG_PORT" || fail "port $ENG_PORT still held after the pane closed"
	poll no_core "$ENG" || fail "the control socket survived the pane closing"
}

# aoi serve reloads its config on SIGHUP and keeps running.
check_serve_reload() {
	sed -i.bak 's/"auto_respond_threshold": 0.8/"auto_respond_threshold": 0.7/' "$PM/config.json"
	kill -HUP "$PM_PID"
	poll grep -qF "auto_respond_threshold 0.8 → 0.7" "$T/pm-serve.log" || fail "SIGHUP did not reload aoi serve's config"
	kill -0 "$PM_PID" 2>/dev/null || fail "SIGHUP stopped aoi serve"
	aoi --data-dir "$PM" reload | grep -qF "config reloaded: no changes" || fail "aoi reload did not report"
}

# An interface attached to aoi serve shows the daemon dying and coming back.
check_attached_daemon_restart() {
	open_interface attached "$PM" pm-tanaka
	kill -KILL "$PM_PID"
	wait "$PM_PID" 2>/dev/null || true
	poll pane_has attached "core disconnected" || fail "the attached interface did not show the daemon's death"
	"$BIN" --data-dir "$PM" serve >>"$T/pm-serve.log" 2>&1 &
	PM_PID=$!
	poll aoi --data-dir "$PM" status || fail "aoi serve did not start again on the stale socket"
	poll pane_has attached "core reconnected" || fail "the attached interface did not reconnect"
	aoi --data-dir "$PM" focus on >/dev/null || fail "aoi focus on after the restart"
	poll pane_has attached "focus ON" || fail "the attached interface shows no live updates after reconnecting"
	tm kill-session -t attached
}

run_signal_checks() {
	check_interface_sigterm
	check_interface_pane_closed
	check_serve_reload
	check_attached_daemon_restart
	echo "tui.sh: signals ok (SIGTERM and a closed pane end the interface, aoi serve reloads on SIGHUP, an attached interface follows a daemon restart)"
}
