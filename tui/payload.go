package tui

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// payloadKnown are the fields readablePayload shows as text; a payload
// with other fields also shows its JSON, so nothing a peer sent is hidden.
var payloadKnown = map[string]bool{
	"summary": true, "description": true, "message": true, "feedback": true, "status": true,
	"error": true, "blockers": true, "progress": true, "context_refs": true, "completed": true,
	"metadata": true, "task_id": true, "exit_code": true, "duration_ms": true, "output": true,
	"output_tail": true, "output_truncated": true, "code": true,
}

// readablePayload renders an answer, a task result or a message payload as
// text a person reads: the answer with its blockers and references, a
// task's outcome with its test counts and the output's last lines as
// lines (not a JSON string with \n in it). ok is false when the payload is
// not an object; other says it has fields shown only in its JSON.
func readablePayload(raw json.RawMessage) (text string, other, ok bool) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(raw, &fields) != nil {
		return "", false, false
	}
	for k := range fields {
		if !payloadKnown[k] {
			other = true
		}
	}
	var v struct {
		Summary     string   `json:"summary"`
		Description string   `json:"description"`
		Message     string   `json:"message"`
		Feedback    string   `json:"feedback"`
		Status      string   `json:"status"`
		Error       string   `json:"error"`
		Blockers    []string `json:"blockers"`
		Progress    *int     `json:"progress"`
		Refs        []struct {
			Type, Ref, Summary string
		} `json:"context_refs"`
		TaskID     string `json:"task_id"`
		ExitCode   *int   `json:"exit_code"`
		DurationMS int64  `json:"duration_ms"`
		Output     *struct {
			Run     int `json:"tests_run"`
			Passed  int `json:"tests_passed"`
			Failed  int `json:"tests_failed"`
			Skipped int `json:"tests_skipped"`
		} `json:"output"`
		Tail      string `json:"output_tail"`
		Truncated bool   `json:"output_truncated"`
	}
	if json.Unmarshal(raw, &v) != nil {
		return "", false, false
	}
	var parts []string
	for _, s := range []string{v.Summary, v.Description, v.Message, v.Feedback} {
		if strings.TrimSpace(s) != "" {
			parts = append(parts, SanitizeMultiline(strings.TrimSpace(s)))
		}
	}
	var facts []string
	if v.TaskID != "" {
		facts = append(facts, "task "+Sanitize(v.TaskID))
	}
	if v.Status != "" {
		facts = append(facts, Sanitize(v.Status))
	}
	if v.ExitCode != nil {
		facts = append(facts, fmt.Sprintf("exit %d", *v.ExitCode))
	}
	if v.DurationMS > 0 {
		facts = append(facts, (time.Duration(v.DurationMS) * time.Millisecond).String())
	}
	if v.Progress != nil {
		facts = append(facts, fmt.Sprintf("%d%% done", *v.Progress))
	}
	if len(facts) > 0 {
		parts = append(parts, strings.Join(facts, " · "))
	}
	if v.Error != "" && (v.Summary == "" || !saidIn(v.Summary, v.Error)) {
		parts = append(parts, "error: "+SanitizeMultiline(v.Error))
	}
	if o := v.Output; o != nil && o.Run+o.Failed+o.Skipped > 0 {
		parts = append(parts, fmt.Sprintf("tests: %d run, %d passed, %d failed, %d skipped", o.Run, o.Passed, o.Failed, o.Skipped))
	}
	if len(v.Blockers) > 0 {
		parts = append(parts, "blocked by:\n  - "+SanitizeMultiline(strings.Join(v.Blockers, "\n  - ")))
	}
	if len(v.Refs) > 0 {
		refs := make([]string, 0, len(v.Refs))
		for _, r := range v.Refs {
			refs = append(refs, "  "+strings.TrimSpace(Sanitize(r.Type+" "+r.Ref+" "+r.Summary)))
		}
		parts = append(parts, "based on:\n"+strings.Join(refs, "\n"))
	}
	if v.Tail != "" {
		head := "output (its last lines):"
		if !v.Truncated {
			head = "output:"
		}
		parts = append(parts, head+"\n"+SanitizeMultiline(strings.TrimRight(v.Tail, "\n")))
	}
	return strings.Join(parts, "\n\n"), other, true
}

// payloadText is a payload for a detail view: the readable text, followed
// by the JSON when it holds more than that text shows (or is no object).
func payloadText(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	text, other, ok := readablePayload(raw)
	if !ok || text == "" {
		return SanitizeMultiline(prettyJSON(raw))
	}
	if other {
		text += "\n\nas received:\n" + SanitizeMultiline(prettyJSON(raw))
	}
	return text
}
