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
	// TaskParamsCut are the task types whose parameters were cut or
	// altered to bound them: what is kept of them cannot judge a request.
	TaskParamsCut []string
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
			ps, cut := describedParams(caps.TaskParams[tt], &budget)
			if len(ps) > 0 {
				if d.TaskParams == nil {
					d.TaskParams = map[string][]wire.TaskParam{}
				}
				d.TaskParams[t] = ps
			}
			if cut || t != tt {
				d.TaskParamsCut = append(d.TaskParamsCut, t)
			}
		}
	}
	return d
}

// describedParams bounds a task type's parameters as a peer told them:
// names a prompt line can carry (paramNameRE), at most maxTaskParams of
// them and of each one's values, every text printable and short. cut says
// that a parameter, a value or a default was left out or changed on the
// way: the rest is still offered, but does not tell what the peer takes.
func describedParams(params []wire.TaskParam, budget *int) (out []wire.TaskParam, cut bool) {
	for _, p := range params {
		if len(out) == maxTaskParams || *budget <= 0 {
			return out, true
		}
		if !paramNameRE.MatchString(p.Name) {
			cut = true
			continue
		}
		kept := wire.TaskParam{Name: p.Name, Description: describedText(p.Description), Required: p.Required, Default: describedText(p.Default)}
		cut = cut || kept.Default != p.Default
		if p.Type == "path" {
			kept.Type = p.Type
		}
		for _, v := range p.Enum {
			if d := describedText(v); d != "" && len(kept.Enum) < maxTaskParams {
				kept.Enum = append(kept.Enum, d)
				cut = cut || d != v
			} else {
				cut = true
			}
		}
		*budget -= paramBytes(kept)
		if *budget < 0 {
			return out, true
		}
		out = append(out, kept)
	}
	return out, cut
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

// storedCaps is what a registry record keeps of a peer's capabilities:
// wire.Capabilities' task_params, and which of them were cut.
type storedCaps struct {
	TaskParams    map[string][]wire.TaskParam `json:"task_params,omitempty"`
	TaskParamsCut []string                    `json:"task_params_cut,omitempty"`
}

// Apply writes the description into a registry record; the task
// parameters go into its capabilities.
func (d Description) Apply(rec *store.PeerRecord) {
	rec.AnnouncedRole, rec.Owner = d.AnnouncedRole, d.Owner
	rec.Contexts, rec.TaskTypes = d.Contexts, d.TaskTypes
	rec.Capabilities = nil
	if len(d.TaskParams) > 0 || len(d.TaskParamsCut) > 0 {
		rec.Capabilities = wire.MustJSON(storedCaps{TaskParams: d.TaskParams, TaskParamsCut: d.TaskParamsCut})
	}
}

// storedTaskParams reads the task parameters Apply stored.
func storedTaskParams(rec store.PeerRecord) storedCaps {
	var caps storedCaps
	if len(rec.Capabilities) == 0 || json.Unmarshal(rec.Capabilities, &caps) != nil {
		return storedCaps{}
	}
	return caps
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
