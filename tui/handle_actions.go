package tui

import (
	"context"
	"errors"
	"strconv"

	tea "charm.land/bubbletea/v2"
	"github.com/aoi-protocol/aoi/agent"
	"github.com/aoi-protocol/aoi/agent/inbox"
)

// runAction turns a pane or dialog action into dialogs and service calls.
func (m *Model) runAction(a action) tea.Cmd {
	switch a := a.(type) {
	case nil, closeDialog:
		return nil
	case approveAction:
		return m.callAs("approved "+approvalNamed(a.a)+" · its state shows in Approvals", "approving "+approvalNamed(a.a),
			dApprovals|dTasks|dStatus, func(c context.Context, s Service) error { return s.Approve(c, agent.ApproveRequest{ID: a.a.ID}) })
	case askRejectReason:
		m.pushDialog(newReasonDialog("Reject "+approvalLabel(a.a),
			"Why? (sent to the requester)", func(r string) action { return rejectAction{a: a.a, reason: r} }, m.env).
			requireText("a reason is required: the requester reads it (esc cancels)").
			withAbout(rejectAbout(a.a), "the request"))
	case rejectAction:
		return m.callAs("rejected "+approvalNamed(a.a)+" · the requester is told why", "rejecting "+approvalNamed(a.a),
			dApprovals|dTasks|dStatus, func(c context.Context, s Service) error {
				return s.Reject(c, agent.RejectRequest{ID: a.a.ID, Reason: a.reason})
			})
	case keepAnswer:
		m.keepText(a.q.ID, a.text)
		// What to do first: a long question's name is what a narrow line cuts.
		m.info("kept, not sent (enter on the question finishes it): your answer to " + queryNamed(a.q))
	case openQuery:
		m.dropActionNotice()
		m.pushDialog(newAnswerDialog(a.q, m.unsent[a.q.ID], m.env))
		return m.topDialog().(*answerDialog).focusCmd()
	case answerAction:
		send := m.callAs(m.answerSentText(a.q), "answering "+queryNamed(a.q), dQueries|dStatus, func(c context.Context, s Service) error {
			return s.Answer(c, agent.AnswerRequest{QueryID: a.q.ID, Text: a.text})
		})
		return then(send, func(m *Model, err error) { m.keepUnsent(a.q.ID, a.text, err) })
	case askDeclineReason:
		m.dropActionNotice()
		m.pushDialog(newReasonDialog("Decline query from "+Sanitize(a.q.From),
			"Why? (sent to the asker)", func(r string) action { return declineAction{q: a.q, reason: r} }, m.env).
			withAbout("“"+Sanitize(a.q.Text)+"”", "the question").
			requireText("a reason is required: the asker reads it (esc cancels)"))
	case declineAction:
		return m.callAs("declined "+queryNamed(a.q), "declining "+queryNamed(a.q), dQueries|dStatus, func(c context.Context, s Service) error {
			return s.Decline(c, agent.DeclineRequest{QueryID: a.q.ID, Reason: a.reason})
		})
	case releaseAction:
		if a.q.ID == "" && !a.confirmed {
			return m.confirmReleaseAll()
		}
		if a.q.ID != "" && a.q.State != "" && len(a.q.Draft) == 0 {
			// A question the secretary wrote no draft for (it waited for
			// the owner from the start): there is nothing to send.
			m.info(helpKeys(m.env.keys.Queries.Answer) + " · " + helpKeys(m.env.keys.Queries.Decline) +
				": nothing to send; the secretary wrote no draft for " + queryNamed(a.q))
			return nil
		}
		if a.q.ID != "" && len(a.q.Draft) > 0 && !inbox.DraftFoundWork(a.q.Draft) {
			// What to do and why first, the question last: a long one
			// is what is cut (the walk read "…auth tests?”, so…" at 60
			// columns).
			m.info(helpKeys(m.env.keys.Queries.Answer) + " · " + helpKeys(m.env.keys.Queries.Decline) +
				": no draft to send; the secretary found no work for " + queryNamed(a.q))
			return nil
		}
		if a.q.ID != "" && a.q.State != "" && !a.confirmed && a.q.Confidence < inbox.WeakDraft {
			// A guess may answer another question (the third walk's
			// "when does the mobile app ship?" got the billing work):
			// sent only once the owner has read it.
			body := "The secretary only guessed (confidence " + strconv.FormatFloat(a.q.Confidence, 'f', 2, 64) + "): its draft may be about other work. " +
				"Send it to " + queryNamed(a.q) + " as your answer anyway? enter on the question shows the draft first."
			a.confirmed = true
			m.pushDialog(newConfirmDialog("Send the secretary's guess", body, a, m.env))
			return nil
		}
		what, failed := "sent the draft to "+queryNamed(a.q), "sending the draft to "+queryNamed(a.q)
		if a.q.ID == "" {
			what, failed = "sent "+countOf(a.n, "buffered question", "buffered questions")+" the secretary's draft", "sending the buffered questions their drafts"
		}
		return m.callAs(what, failed, dQueries|dStatus, func(c context.Context, s Service) error {
			return s.Release(c, agent.ReleaseRequest{QueryID: a.q.ID})
		})
	case trustAction:
		req := agent.TrustRequest{AgentID: a.p.AgentID, Fingerprint: a.p.Fingerprint, Endpoint: a.p.Endpoint, Role: a.p.Role, Announce: true}
		done := "trusted " + Sanitize(a.p.AgentID)
		if before, ok := m.peers.pinned(req.AgentID, req.Fingerprint); ok {
			done = Sanitize(agent.RetrustSummary(before, req)) // not a first trust: say what changed
		}
		return m.callAs(done, "trusting "+Sanitize(a.p.AgentID), dPeers|dStatus, func(c context.Context, s Service) error {
			return s.Trust(c, req)
		})
	case quitAction:
		return tea.Quit
	case askTrust:
		m.pushDialog(newTrustDialog(a.p, m.env))
		return m.topDialog().(*trustDialog).focusCmd()
	case askRefuse:
		title, question := "Refuse "+peerLabel(a.p), "Refuse this caller? It is not listed again and rings nobody; `aoi peers trust` can still pin it later."
		if a.p.Trust == agent.TrustPinned {
			title, question = "Stop trusting "+peerLabel(a.p), "Stop trusting this peer? Its pin goes and its calls are refused from now on, ringing nobody; :trust (or `aoi peers trust`) pins it again."
		}
		m.pushDialog(newConfirmDialog(title, question+"\n\nfingerprint: "+Sanitize(agent.GroupFingerprint(a.p.Fingerprint)), refuseAction{p: a.p}, m.env))
	case refuseAction:
		done, doing := "refused "+peerLabel(a.p), "refusing "+peerLabel(a.p)
		if a.p.Trust == agent.TrustPinned {
			done, doing = peerLabel(a.p)+" is no longer trusted", "untrusting "+peerLabel(a.p)
		}
		return m.callAs(done, doing, dPeers|dStatus, func(c context.Context, s Service) error {
			return s.Refuse(c, agent.RefuseRequest{Fingerprint: a.p.Fingerprint})
		})
	case showDetail:
		m.pushDialog(newDetailDialog(a.title, a.body))
	case auditFetch:
		return m.auditCmd(a.req)
	case openFilter:
		m.pushDialog(newReasonDialog("Filter audit",
			"words search every row; agent:NAME method:NAME result:NAME narrow", func(t string) action { return setFilter{text: t} }, m.env).
			withValue(a.current).allowEmpty().withVerb("apply").
			withAbout("Words search the text of every row (all words, any case); agent:NAME, method:NAME, result:NAME narrow by column. Empty shows every row.", "the help"))
	case setFilter:
		if word, key := unknownFilterKey(a.text); word != "" {
			m.hint(Sanitize(key) + ": is not a filter key (agent:, method:, result:); " + Sanitize(word) + " is searched as text")
		} else {
			m.dropHint() // about an earlier filter
		}
		return m.runAction(m.audit.setFilter(a.text))
	case openApproval:
		m.pushDialog(newApprovalDialog(a.a, m.env))
	case openMessage:
		return m.messageDetailCmd(a.msg)
	case noticeAction:
		m.info(a.text)
	}
	return nil
}

// keepUnsent keeps the text of an answer that could not be sent, so
// opening the question again offers it instead of the draft; a sent
// answer forgets it.
func (m *Model) keepUnsent(queryID, text string, err error) {
	if err == nil || errors.Is(err, agent.ErrNotFound) || errors.Is(err, agent.ErrConflict) {
		// Sent, or there is nothing to send it to: no such question, or
		// it is answered already.
		delete(m.unsent, queryID)
		return
	}
	m.keepText(queryID, text)
	m.notice.text += " · your answer is kept: open the question again to send it"
}

// keepText keeps the owner's answer to a question for its next opening.
func (m *Model) keepText(queryID, text string) {
	if m.unsent == nil {
		m.unsent = map[string]string{}
	}
	m.unsent[queryID] = text
}

// confirmReleaseAll asks before every buffered question gets the
// secretary's draft as its answer: one key would otherwise send answers
// the owner has not read to everyone waiting.
func (m *Model) confirmReleaseAll() tea.Cmd {
	all := len(m.interrupts.rows)
	if all == 0 {
		m.info("nothing buffered to release")
		return nil
	}
	n := releasable(m.interrupts.rows)
	// A draft that found no work says only that, and a guess may answer
	// another question: release leaves them.
	kept := ""
	if all > n {
		kept = " " + countOf(all-n, "question whose draft found no work or is a guess stays", "questions whose drafts found no work or are guesses stay") + " for you to answer."
	}
	if n == 0 {
		m.info(nothingToRelease(m.interrupts.rows, m.env))
		return nil
	}
	body := "Send " + countOf(n, "buffered question", "buffered questions") + " the secretary's draft as the answer? " +
		"Each asker reads it as your reply; enter on a question in Interrupts shows its draft first." + kept
	m.pushDialog(newConfirmDialog("Release every buffered question", body, releaseAction{confirmed: true, n: n}, m.env))
	return nil
}

// nothingToRelease says why R sends none of the buffered questions qs a
// draft (each draft found no work or is a guess), naming which it is and
// how many, and what to do instead (the fourteenth walk's one buffered
// question, whose draft found no work, read "for the buffered questions,
// or only guessed").
func nothingToRelease(qs []agent.Query, e *env) string {
	guesses := 0 // none is releasable, so a draft that found work is a guess
	for _, q := range qs {
		if inbox.DraftFoundWork(q.Draft) {
			guesses++
		}
	}
	noWork := len(qs) - guesses
	which := "the buffered question"
	if len(qs) > 1 {
		which = "the " + itoa(len(qs)) + " buffered questions"
	}
	why := "the secretary found no work for " + which
	switch {
	case noWork == 0:
		why = "the secretary only guessed at " + which
	case guesses > 0:
		why = "the secretary found no work for " + countOf(noWork, "buffered question", "buffered questions") +
			" and only guessed at " + countOf(guesses, "other", "others")
	}
	each := "it"
	if len(qs) > 1 {
		each = "each"
	}
	return "nothing to send: " + why + "; answer (" + e.keys.Queries.Answer.Help().Key + ") or decline (" +
		e.keys.Queries.Decline.Help().Key + ") " + each
}

// releasable counts the questions R sends a draft: those whose draft
// found work and is no guess.
func releasable(qs []agent.Query) int {
	n := 0
	for _, q := range qs {
		if inbox.Releasable(q.Draft, q.Confidence) {
			n++
		}
	}
	return n
}

// countOf is "1 question" or "3 questions".
func countOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

// answerSentText is the notice after an answer: sent, or, when the asker
// is offline, waiting to be sent (it goes when the asker is back).
func (m *Model) answerSentText(q agent.Query) string {
	for _, p := range m.knownPeers {
		if p.AgentID == q.From && p.Status == agent.PeerOffline {
			return "answer queued for " + queryNamed(q) + ": " + Sanitize(q.From) + " is offline; it goes when " + Sanitize(q.From) + " is back"
		}
	}
	return "answer sent for " + queryNamed(q)
}

// queryNamed names a query for a notice by whose question it is and what
// it asks: "pm-tanaka's question “how is auth going?”", the question cut
// to fit the line. Only a query the interface does not know (a prompt
// command may name any id) is named by its id.
func queryNamed(q agent.Query) string {
	switch {
	case q.From == "":
		return "query " + Sanitize(q.ID)
	case q.Text == "":
		return Sanitize(q.From) + "'s query " + Sanitize(q.ID)
	}
	return Sanitize(q.From) + "'s question “" + truncateWords(Sanitize(q.Text), 40) + "”"
}

// rejectAbout says which request the reject dialog is about: its
// parameters and id (two requests of one type differ there).
func rejectAbout(a agent.Approval) string {
	about := "params: " + paramsText(a.Params)
	if len(a.Params) == 0 {
		about = "no params"
	}
	return about + " · approval " + Sanitize(a.ID)
}
