package service

import "strings"

// auditResultLabels pair the audit log's error names with the short labels
// the interface's RESULT column shows ("PERMISSION_DENIED" read
// "PERMISSIO…" in its cells). A result filter takes either, so no label
// is a result of its own ("error" is one: a refused reload's).
var auditResultLabels = [][2]string{
	{"PERMISSION_DENIED", "denied"}, {"RATE_LIMIT", "rate-limit"}, {"APPROVAL_DENIED", "unapproved"},
	{"INVALID_PARAMS", "bad-params"}, {"INVALID_REQUEST", "bad-req"}, {"PARSE_ERROR", "bad-json"},
	{"METHOD_NOT_FOUND", "no-method"}, {"CONTEXT_NOT_FOUND", "no-context"}, {"AGENT_NOT_FOUND", "no-agent"},
	{"AGENT_BUSY", "busy"}, {"TIMEOUT", "timeout"}, {"INTERNAL_ERROR", "internal"},
}

// AuditResultLabel is the short label of an audit result, or the result
// itself when it has none ("ok").
func AuditResultLabel(result string) string {
	for _, l := range auditResultLabels {
		if l[0] == result {
			return l[1]
		}
	}
	return result
}

// AuditResultCode is the audit result a filter value means: the name for a
// label ("denied" → "PERMISSION_DENIED", any case), else the value as given.
func AuditResultCode(v string) string {
	for _, l := range auditResultLabels {
		if strings.EqualFold(v, l[1]) {
			return l[0]
		}
	}
	return v
}
