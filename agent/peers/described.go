package peers

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// What a peer says about itself (its announce, or its answer to ours) is
// stored, listed and passed on to other peers and to the coding
// assistant, so it is bounded here: at most maxDescribedItems contexts and
// task types, each at most maxDescribedRunes long, printable only. The
// attack run had one answer with 60,000 contexts fill the registry row
// (4 MB), every aoi.discover reply and the assistant's context.
const (
	maxDescribedItems = 64
	maxDescribedRunes = 128
)

// Description is what a peer said about itself, as stored.
type Description struct {
	AnnouncedRole, Owner, Status string
	Contexts, TaskTypes          []string
}

// Describe bounds what a peer said about itself. A status that is not one
// of aoi's is taken as online: the peer answered.
func Describe(role, owner, status string, contexts []wire.ContextReference, taskTypes []string) Description {
	d := Description{AnnouncedRole: describedText(role), Owner: describedText(owner), Status: status}
	switch status {
	case Online, Busy, Offline, "away":
	default:
		d.Status = Online
	}
	for _, c := range contexts {
		if len(d.Contexts) == maxDescribedItems {
			break
		}
		if t := describedText(c.Identifier); t != "" {
			d.Contexts = append(d.Contexts, t)
		}
	}
	for _, tt := range taskTypes {
		if len(d.TaskTypes) == maxDescribedItems {
			break
		}
		if t := describedText(tt); t != "" {
			d.TaskTypes = append(d.TaskTypes, t)
		}
	}
	return d
}

// Apply writes the description into a registry record.
func (d Description) Apply(rec *store.PeerRecord) {
	rec.AnnouncedRole, rec.Owner = d.AnnouncedRole, d.Owner
	rec.Contexts, rec.TaskTypes = d.Contexts, d.TaskTypes
}

// describedText keeps a peer's words printable and short: control,
// format (bidi, zero-width), line and paragraph separators and invalid
// characters go, and the rest is cut at maxDescribedRunes.
func describedText(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "")
	}
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return -1
		}
		return r
	}, s)
	if utf8.RuneCountInString(s) > maxDescribedRunes {
		s = string([]rune(s)[:maxDescribedRunes])
	}
	return strings.TrimSpace(s)
}
