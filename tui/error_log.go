package tui

import (
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/aoi-protocol/aoi/agent"
)

// Errors that reach the interface are often chains written for a log: a
// JSON-RPC code in front ("rpc error -32000 (Server error): …") and, for a
// peer that could not be called, the call and the network error before the
// advice ("calling aoi.query on peer bob (https://…): dial tcp …: connect:
// connection refused (after 3 attempts); nothing is listening there: check
// …"). The notice line shows the gist; the error log keeps every error
// whole, and :errors shows it.

// rpcPrefix matches a JSON-RPC error's code and standard message.
var rpcPrefix = regexp.MustCompile(`rpc error (-?\d+) \(([^)]*)\)(: )?`)

// callChain matches a failed call up to the advice that follows it.
var callChain = regexp.MustCompile(`calling \S+ on .*?; `)

// serverErrorCode is JSON-RPC's "Server error", the code of a failure the
// core explained in words (the reason says it all).
const serverErrorCode = -32000

// errGist is the part of an error's text a person acts on: without the
// JSON-RPC code (keeping its message, "Permission denied", unless it is
// "Server error" or a protocol message such as "Invalid params" before a
// reason) and without the call and
// network error in front of the advice. Text written for people passes
// through unchanged.
func errGist(text string) string {
	text = rpcPrefix.ReplaceAllStringFunc(text, func(m string) string {
		sub := rpcPrefix.FindStringSubmatch(m)
		code, _ := strconv.Atoi(sub[1])
		reason := sub[3] != ""
		switch {
		case (code == serverErrorCode || agent.ProtocolErrorCode(code)) && reason:
			return "" // the reason says it in words ("Invalid params" does not)
		case reason:
			return sub[2] + ": "
		}
		return sub[2]
	})
	return callChain.ReplaceAllString(text, "")
}

// maxErrors bounds the error log.
const maxErrors = 50

// loggedError is one error shown in the notice line, whole.
type loggedError struct {
	at    time.Time
	text  string
	times int // how often it was shown in a row (a refetch failing again)
}

// logError adds text to the error log; the same error again only counts.
func (m *Model) logError(text string) {
	if n := len(m.errLog); n > 0 && m.errLog[n-1].text == text {
		m.errLog[n-1].at = m.now()
		m.errLog[n-1].times++
		return
	}
	m.errLog = append(m.errLog, loggedError{at: m.now(), text: text, times: 1})
	if len(m.errLog) > maxErrors {
		m.errLog = m.errLog[len(m.errLog)-maxErrors:]
	}
}

// errorsText is the error log for :errors, newest first.
func (m *Model) errorsText() string {
	if len(m.errLog) == 0 {
		return "No errors since the interface started."
	}
	var b strings.Builder
	for i := len(m.errLog) - 1; i >= 0; i-- {
		e := m.errLog[i]
		b.WriteString(e.at.In(m.env.loc).Format("15:04:05"))
		if e.times > 1 {
			b.WriteString(" (" + strconv.Itoa(e.times) + " times)")
		}
		b.WriteString("\n" + e.text + "\n\n")
	}
	return strings.TrimRight(b.String(), "\n")
}
