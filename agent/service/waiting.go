package service

import "time"

// WaitingGroup is the asks of one text to one peer still waiting for
// their answers: a person reads twenty identical task requests as one
// line counted ×20, not twenty lines.
type WaitingGroup struct {
	WaitingAsk           // the newest of them
	Count      int       // how many
	FirstAt    time.Time // when the oldest was sent
}

// FoldWaiting groups asks (newest first, as Status.Waiting lists them) by
// peer and text, each group where its newest ask was.
func FoldWaiting(asks []WaitingAsk) []WaitingGroup {
	var groups []WaitingGroup
	at := map[[2]string]int{}
	for _, a := range asks {
		k := [2]string{a.To, a.Text}
		if i, ok := at[k]; ok {
			groups[i].Count++
			if a.SentAt.Before(groups[i].FirstAt) {
				groups[i].FirstAt = a.SentAt
			}
			continue
		}
		at[k] = len(groups)
		groups = append(groups, WaitingGroup{WaitingAsk: a, Count: 1, FirstAt: a.SentAt})
	}
	return groups
}
