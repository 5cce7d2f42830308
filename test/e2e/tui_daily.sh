# Daily-use checks for test/e2e/tui.sh (sourced; uses its BIN, T, ENG, PM,
# TMUX_SOCK, SESSION, poll, fail, aoi, keys, screen_has, pm_inbox_has and
# free_port). The engineer's interface is open at 120x40 with focus on
# Queries; the PM (aoi serve) and the engineer trust each other.
#
# What a keypress shows: one-keypress approval from any pane, the approval
# detail (argv, isolation, timeout, rule) and deciding from it, a refused
# empty reject reason, the Audit pane following the log and searching its
# text, the Messages pane and its unread count, trusting a new caller from
# the Peers pane, and the first-run dialog.

# enable_tasks gives the engineer a task type the PM may ask for (approval
# required) and lets the PM's assistant message the engineer's, then
# reloads the engineer's config through the running interface's core.
enable_tasks() {
	local cfg="$ENG/config.json"
	sed -i.bak \
		-e 's/"rules": \[/"rules": [ {"id": "pm-tasks", "agent_role": "pm", "scope_type": "repository", "scope_pattern": "**", "permission": "write"}, {"id": "pm-messages", "agent_role": "pm", "scope_type": "messages", "scope_pattern": "*", "permission": "write"},/' \
		-e 's/"approvals": {/"tasks": {"say_hi": {"command": ["echo", "hi {{who}}"], "params": {"who": {"default": "team", "pattern": "^[a-z]+$"}}, "timeout_sec": 30, "isolation": "none", "approval": "required"}}, "approvals": {/' \
		"$cfg"
	aoi --data-dir "$ENG" config validate >"$T/validate.log" 2>&1 || fail "the edited config is invalid: $(cat "$T/validate.log")"
	aoi --data-dir "$ENG" reload >"$T/reload.log" 2>&1 || fail "aoi reload of the engineer's config"
}

check_approve_from_any_pane() {
	aoi --data-dir "$PM" task eng-suzuki say_hi who=team >"$T/task1.log" 2>&1 || fail "the PM's task request failed: $(cat "$T/task1.log")"
	poll screen_has "1 pending" || fail "the task request never showed as pending"
	poll screen_has "y approve · n reject" || fail "the notice of the new request does not name y/n"
	sleep 2.2 # one y approves a request that has been on screen 2 s (a newer one is named first)
	keys y    # focus is on Queries: y still reaches the newest request
	poll screen_has "approved say_hi from pm-tanaka" || fail "y from the Queries pane did not approve the request"
	poll pm_inbox_has "hi team" || fail "the approved task's output never reached the PM"
}

check_detail_and_reject() {
	aoi --data-dir "$PM" task eng-suzuki say_hi who=again >"$T/task2.log" 2>&1 || fail "the second task request failed"
	poll screen_has "1 pending" || fail "the second request never showed as pending"
	keys Tab Tab # Approvals; the new request is selected
	keys Enter
	poll screen_has 'will run: echo "hi again"' || fail "the approval detail does not show the argv"
	screen_has "isolation: a scratch directory" || fail "the approval detail does not show the isolation"
	screen_has "timeout: 30s" || fail "the approval detail does not show the timeout"
	screen_has "allowed by rule: pm-tasks" || fail "the approval detail does not show the rule"
	keys n
	poll screen_has "Reject say_hi from pm-tanaka" || fail "n in the detail did not ask for a reason"
	keys Enter
	poll screen_has "a reason is required" || fail "an empty reject reason was not refused with a reason"
	keys -l "not before the release"
	keys Enter
	poll screen_has "rejected say_hi from pm-tanaka" || fail "the rejection was not confirmed"
	poll pm_inbox_has "not before the release" || fail "the reject reason never reached the PM"
}

check_audit_live_and_search() {
	keys Tab # Audit
	poll screen_has "┏━ Audit" || fail "tab did not open the Audit pane"
	aoi --data-dir "$PM" send eng-suzuki note "audit pane is live" >"$T/send.log" 2>&1 || fail "aoi send from the PM failed: $(cat "$T/send.log")"
	poll screen_has "aoi.message" || fail "the Audit pane did not show a row written after it opened"
	keys /
	keys -l "say_hi rejected"
	keys Enter
	poll screen_has "filter say_hi rejected" || fail "the audit filter was not applied"
	poll screen_has "approval.decide" || fail "searching the audit text for 'say_hi rejected' found no row"
}

check_messages_pane() {
	poll screen_has "Messages · 1 unread" || fail "the Messages pane does not count the unread message"
	screen_has "msgs 1" || fail "the status bar does not count the unread message"
	keys Tab # Messages
	poll screen_has "audit pane is live" || fail "the Messages pane does not show the message"
	poll screen_has "msgs 0" || fail "looking at the Messages pane did not mark the message read"
	aoi --data-dir "$ENG" status --json | grep -qF '"unread_messages": 0' || fail "the read mark is not stored in the core"
}

# check_read_long_answer asks the PM from the prompt bar (focus stays on
# Messages) and reads the PM's long answer whole under the list: the notice
# line holds three lines of it, the preview all of it.
check_read_long_answer() {
	keys @
	keys -l "pm-tanaka when is the release?"
	keys Enter
	poll screen_has "asked pm-tanaka" || fail "the @question gave no feedback"
	local qid filler
	poll pm_inbox_has "when is the release?" || fail "the @question never reached the PM"
	qid=$(timeout 10 "$BIN" --data-dir "$PM" inbox --json | grep -o '"q-[0-9a-f]*"' | head -1 | tr -d '"')
	filler="the release waits for QA sign-off on Thursday and the migration dry run on Wednesday"
	aoi --data-dir "$PM" answer "$qid" "Friday: $filler; $filler; $filler; $filler; $filler; ANSWER-END" >"$T/answer2.log" 2>&1 ||
		fail "the PM could not answer: $(cat "$T/answer2.log")"
	poll screen_has "ANSWER-END" || fail "the long answer cannot be read whole in the Messages pane"
}

# check_cli_daily: the CLI a person uses next to the interface. approvals
# --watch prints a request as it arrives; reject needs a reason and the
# requester's inbox line (and inbox --watch) says it; send keeps TEXT next to --payload and
# messages --thread finds it.
check_cli_daily() {
	local watch="$T/approvals-watch.out" wpid id
	timeout 20 "$BIN" --data-dir "$ENG" approvals --watch >"$watch" 2>&1 &
	wpid=$!
	poll grep -qF "watching for changes" "$watch" || fail "aoi approvals --watch never started watching: $(cat "$watch")"
	aoi --data-dir "$PM" task eng-suzuki say_hi who=cli >"$T/task3.log" 2>&1 || fail "the third task request failed"
	poll grep -qF "say_hi who=cli" "$watch" || fail "aoi approvals --watch did not print the new request: $(cat "$watch")"
	kill "$wpid" 2>/dev/null; wait "$wpid" 2>/dev/null || true
	id=$(aoi --data-dir "$ENG" approvals --json | grep -o '"id": "a[0-9a-f]*"' | head -1 | cut -d'"' -f4)
	[ -n "$id" ] || fail "aoi approvals --json lists no pending request"
	local rc=0
	timeout 20 "$BIN" --data-dir "$ENG" reject "$id" >"$T/reject0.log" 2>&1 || rc=$?
	[ "$rc" = 2 ] || fail "aoi reject without --reason exited $rc, want 2 (usage): $(cat "$T/reject0.log")"
	local iwatch="$T/inbox-watch.out" ipid
	timeout 20 "$BIN" --data-dir "$PM" inbox --watch >"$iwatch" 2>&1 &
	ipid=$!
	poll grep -qF "watching for changes" "$iwatch" || fail "aoi inbox --watch never started watching: $(cat "$iwatch")"
	aoi --data-dir "$ENG" reject "$id" --reason "cli says no" >/dev/null || fail "aoi reject --reason failed"
	poll grep -qF "↳ $(echo "$id" | sed 's/^a/t/') · say_hi rejected: cli says no" "$iwatch" ||
		fail "aoi inbox --watch did not print why the task was rejected: $(cat "$iwatch")"
	kill "$ipid" 2>/dev/null; wait "$ipid" 2>/dev/null || true
	pm_inbox_line() { timeout 10 "$BIN" --data-dir "$PM" inbox | grep -F "say_hi rejected: cli says no"; }
	poll pm_inbox_line || fail "the requester's aoi inbox does not say why the task was rejected"
	aoi --data-dir "$PM" send eng-suzuki question "which branch has the fix?" --thread th-e2e --payload '{"pr":42}' >/dev/null ||
		fail "aoi send with --thread and --payload failed"
	local msgs
	msgs=$(aoi --data-dir "$ENG" messages --thread th-e2e --json)
	grep -qF "which branch has the fix?" <<<"$msgs" || fail "aoi send dropped TEXT given with --payload: $msgs"
	grep -qF '"pr": 42' <<<"$msgs" || fail "aoi send lost the --payload: $msgs"
}

check_trust_from_peers_pane() {
	local qa="$T/qa" port
	port=$(free_port)
	aoi --data-dir "$qa" init --id qa-ito --role qa --listen "127.0.0.1:$port" >"$T/init-qa.log" 2>&1 || fail "aoi init for QA"
	"$BIN" --data-dir "$qa" serve >"$T/qa-serve.log" 2>&1 &
	QA_PID=$!
	poll aoi --data-dir "$qa" status || fail "aoi serve for QA never answered"
	local eng_fp qa_fp
	eng_fp=$(aoi --data-dir "$ENG" id --fingerprint)
	qa_fp=$(aoi --data-dir "$qa" id --fingerprint)
	aoi --data-dir "$qa" peers trust eng-suzuki "$eng_fp" --endpoint "127.0.0.1:$ENG_PORT" >/dev/null || fail "QA could not pin the engineer"
	aoi --data-dir "$qa" discover >/dev/null 2>&1 || true # refused: the engineer has not pinned QA
	poll screen_has "wants trust" || fail "QA's trust request never reached the Peers pane"
	keys BTab BTab BTab BTab BTab # Messages → Peers
	poll screen_has "┏━ Peers" || fail "shift+tab did not reach the Peers pane"
	keys Home t
	poll screen_has "agent id › qa-ito" || fail "the trust dialog does not carry QA's announced id"
	screen_has "${qa_fp:0:8} ${qa_fp:8:8}" || fail "the trust dialog does not show QA's fingerprint in groups of eight"
	screen_has "endpoint: 127.0.0.1:$port" || fail "the trust dialog does not show QA's listen endpoint"
	keys Enter
	poll screen_has "trusted qa-ito" || fail "the trust was not confirmed"
	aoi --data-dir "$ENG" peers --json | grep -qF "$qa_fp" || fail "QA is not pinned after t"
	kill "$QA_PID" 2>/dev/null; wait "$QA_PID" 2>/dev/null || true
	QA_PID=
}

# The first run shows what it created inside the interface. It listens on
# the default 127.0.0.1:8443, which must be free.
check_first_run() {
	(exec 3<>/dev/tcp/127.0.0.1/8443) 2>/dev/null && fail "127.0.0.1:8443 is in use; the first-run check starts aoi on its default port"
	local dir="$T/fresh"
	tmux -L "$TMUX_SOCK" new-session -d -s first -x 100 -y 30 \
		"TERM=xterm-256color '$BIN' --data-dir '$dir' 2>'$T/first.log'; echo \$? >'$T/first.rc'; sleep 30"
	local first_has
	first_has() { tmux -L "$TMUX_SOCK" capture-pane -p -t first | grep -qF -- "$1"; }
	poll first_has "Welcome to aoi" || fail "the first run did not open on the first-run dialog"
	first_has "fingerprint:" || fail "the first-run dialog does not show the fingerprint"
	first_has "aoi peers trust" || fail "the first-run dialog does not say how to add a peer"
	first_has '"agent": {"id": …} in the config' || fail "the first-run dialog does not say how to choose another agent id"
	tmux -L "$TMUX_SOCK" send-keys -t first Escape
	local no_dialog
	no_dialog() { ! first_has "Welcome to aoi"; }
	poll no_dialog || fail "esc did not close the first-run dialog"
	tmux -L "$TMUX_SOCK" send-keys -t first BTab
	poll first_has "you: " || fail "closing the first-run dialog did not show the Peers pane with this agent's fingerprint"
	tmux -L "$TMUX_SOCK" send-keys -t first q
	poll test -f "$T/first.rc" || fail "q did not quit the first-run interface"
	tmux -L "$TMUX_SOCK" kill-session -t first 2>/dev/null || true
	# The dialog's advice for another agent id works and keeps the identity
	# and the other settings.
	local fp listen
	fp=$(aoi --data-dir "$dir" id --fingerprint) || fail "aoi id after the first run"
	listen=$(aoi --data-dir "$dir" id | sed -n 's/^listen: *//p')
	sed -i '0,/"id": "[^"]*"/s//"id": "eng-renamed"/' "$dir/config.json" || fail "could not edit the agent id" # the first: agent.id
	local id_out
	id_out=$(aoi --data-dir "$dir" id 2>&1)
	grep -q "agent: *eng-renamed" <<<"$id_out" || fail "changing agent.id in the config did not change the agent id: $id_out"
	[ "$(aoi --data-dir "$dir" id --fingerprint)" = "$fp" ] || fail "changing agent.id changed the fingerprint colleagues pinned"
	grep -q "listen: *$listen" <<<"$id_out" || fail "changing agent.id changed the listen address ($listen before): $id_out"
}

run_daily_checks() {
	enable_tasks
	check_approve_from_any_pane
	check_detail_and_reject
	check_audit_live_and_search
	check_messages_pane
	check_read_long_answer
	check_cli_daily
	check_trust_from_peers_pane
	check_first_run
	echo "tui.sh: daily use ok (approve from any pane, approval detail and reject reason, live audit and search, messages read, a long answer read whole, approvals --watch, reject --reason, inbox --watch, send --payload, trust from the Peers pane, first-run dialog)"
}
