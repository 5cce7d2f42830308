package peers

import (
	"encoding/json"
	"regexp"
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
	// A task type's parameters: at most maxTaskParams, each with at most
	// maxTaskParams allowed values, and maxParamBytes of text for all the
	// task types together (the re-check's 64 types × 16 × 16 values of
	// 128 characters made a 9 MB registry row).
	maxTaskParams = 16
	maxParamBytes = 32 << 10
)

// Description is what a peer said about itself, as stored.
type Description struct {
	AnnouncedRole, Owner, Status string
	Contexts, TaskTypes          []string
	// TaskParams are the parameters of TaskTypes, for front ends to offer.
	TaskParams map[string][]wire.TaskParam
}

// Describe bounds what a peer said about itself. A status that is not one
// of aoi's is taken as online: the peer answered.
func Describe(role, owner, status string, caps wire.Capabilities) Description {
	contexts, taskTypes := caps.Contexts, caps.TaskTypes
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
	budget := maxParamBytes
	for _, tt := range taskTypes {
		if len(d.TaskTypes) == maxDescribedItems {
			break
		}
		if t := describedText(tt); t != "" {
			d.TaskTypes = append(d.TaskTypes, t)
			if ps := describedParams(caps.TaskParams[tt], &budget); len(ps) > 0 {
				if d.TaskParams == nil {
					d.TaskParams = map[string][]wire.TaskParam{}
				}
				d.TaskParams[t] = ps
			}
		}
	}
	return d
}

// describedParams bounds a task type's parameters as a peer told them:
// names a prompt line can carry (paramNameRE), at most maxTaskParams of
// them and of each one's values, every text printable and short.
func describedParams(params []wire.TaskParam, budget *int) []wire.TaskParam {
	var out []wire.TaskParam
	for _, p := range params {
		if len(out) == maxTaskParams || *budget <= 0 {
			break
		}
		if !paramNameRE.MatchString(p.Name) {
			continue
		}
		kept := wire.TaskParam{Name: p.Name, Description: describedText(p.Description), Required: p.Required, Default: describedText(p.Default)}
		if p.Type == "path" {
			kept.Type = p.Type
		}
		for _, v := range p.Enum {
			if v = describedText(v); v != "" && len(kept.Enum) < maxTaskParams {
				kept.Enum = append(kept.Enum, v)
			}
		}
		*budget -= paramBytes(kept)
		if *budget < 0 {
			break
		}
		out = append(out, kept)
	}
	return out
}

// paramBytes is the text a parameter holds.
func paramBytes(p wire.TaskParam) int {
	n := len(p.Name) + len(p.Description) + len(p.Default) + len(p.Type)
	for _, v := range p.Enum {
		n += len(v)
	}
	return n
}

// paramNameRE is a task parameter's name as `:task` and `aoi task` take it
// (name=value).
var paramNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]{0,63}$`)

// Apply writes the description into a registry record; the task
// parameters go into its capabilities.
func (d Description) Apply(rec *store.PeerRecord) {
	rec.AnnouncedRole, rec.Owner = d.AnnouncedRole, d.Owner
	rec.Contexts, rec.TaskTypes = d.Contexts, d.TaskTypes
	rec.Capabilities = nil
	if len(d.TaskParams) > 0 {
		rec.Capabilities = wire.MustJSON(wire.Capabilities{TaskParams: d.TaskParams})
	}
}

// storedTaskParams reads the task parameters Apply stored.
func storedTaskParams(rec store.PeerRecord) map[string][]wire.TaskParam {
	var caps wire.Capabilities
	if len(rec.Capabilities) == 0 || json.Unmarshal(rec.Capabilities, &caps) != nil {
		return nil
	}
	return caps.TaskParams
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
