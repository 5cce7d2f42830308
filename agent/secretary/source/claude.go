package source

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"time"
)

// Bounds on one transcript event.
const (
	maxTitleRunes = 120
	maxChatBody   = 2 << 10
)

// ccLine is the part of a Claude Code transcript line aoi reads.
type ccLine struct {
	Type      string    `json:"type"` // user | assistant | summary | system | …
	Timestamp time.Time `json:"timestamp"`
	Cwd       string    `json:"cwd"`
	SessionID string    `json:"sessionId"`
	IsMeta    bool      `json:"isMeta"`
	Summary   string    `json:"summary"`
	Message   *struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

// ccBlock is one content block of a message.
type ccBlock struct {
	Type  string         `json:"type"` // text | tool_use | tool_result | thinking
	Text  string         `json:"text"`
	Name  string         `json:"name"`
	Input map[string]any `json:"input"`
}

// fileTools are the tools whose input names a file they touch.
var fileTools = map[string]string{"Edit": "file_path", "MultiEdit": "file_path", "Write": "file_path", "Read": "file_path", "NotebookEdit": "notebook_path"}

// parseTranscriptLine turns one JSONL line into events: the user's prompt,
// the assistant's text, the files its tools touched, session summaries.
// Unknown or malformed lines yield nothing. touched (nil: not tracked)
// gathers the files the session's tools have named so far; every prompt,
// reply and summary carries them (meta "touched"), since what the
// assistant read it may quote, and a folder's ACL rules must reach its
// words too.
func parseTranscriptLine(line string, repos []Repo, fallback time.Time, touched *Touched) []Event {
	line = strings.TrimSpace(line)
	if line == "" {
		return nil
	}
	var l ccLine
	if json.Unmarshal([]byte(line), &l) != nil || l.IsMeta {
		return nil
	}
	ts := l.Timestamp
	if ts.IsZero() {
		ts = fallback
	}
	// Only sessions working inside a configured context are mirrored: the
	// owner's other projects are none of the asker's business.
	ctxID, dir := Locate(l.Cwd, repos)
	if ctxID == "" {
		return nil
	}
	meta := map[string]any{"session": l.SessionID}
	if dir != "" {
		// The session worked in a folder of the checkout: what it said
		// is about that folder, and the folder's ACL rules apply to it.
		meta["dir"] = dir
	}
	base := Event{Ctx: ctxID, TS: ts, Meta: meta}
	switch {
	case l.Type == "summary" && l.Summary != "":
		return []Event{touched.mark(base.with("summary", "", "session: "+l.Summary, ""))}
	case l.Message == nil:
		return nil
	}
	blocks := contentBlocks(l.Message.Content)
	var out []Event
	for _, blk := range blocks {
		if blk.Type == "tool_use" {
			ev, ok := toolEvent(blk, base, l.Cwd, repos)
			touched.addTool(ev, blk, l.Cwd, repos) // a search makes no event but reads
			if !ok {
				continue
			}
			if ev.Meta["file"] == nil {
				// A command may carry what the session read, and the
				// paths it names ("cp secrets/key.pem /tmp").
				ev = touched.mark(ev)
			}
			out = append(out, ev)
		}
	}
	for _, blk := range blocks {
		switch {
		case blk.Type == "text" && l.Type == "user":
			if text := strings.TrimSpace(blk.Text); text != "" && !strings.HasPrefix(text, "<") {
				out = append(out, touched.mark(base.with("prompt", "", "asked: "+firstLine(text), text)))
			}
		case blk.Type == "text" && l.Type == "assistant":
			if text := strings.TrimSpace(blk.Text); text != "" {
				out = append(out, touched.mark(base.with("assistant", "", firstLine(text), text)))
			}
		}
	}
	return out
}

// contentBlocks reads a message's content, which is either a string or a
// list of blocks.
func contentBlocks(raw json.RawMessage) []ccBlock {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []ccBlock{{Type: "text", Text: s}}
	}
	var blocks []ccBlock
	_ = json.Unmarshal(raw, &blocks)
	return blocks
}

// toolEvent describes a tool use that touched a file (or ran a command).
func toolEvent(blk ccBlock, base Event, cwd string, repos []Repo) (Event, bool) {
	if field, ok := fileTools[blk.Name]; ok {
		p, _ := blk.Input[field].(string)
		if p == "" {
			return Event{}, false
		}
		if !filepath.IsAbs(p) && cwd != "" {
			p = filepath.Join(cwd, p)
		}
		ctxID, rel := Locate(p, repos)
		if ctxID == "" {
			return Event{}, false // a file outside every context
		}
		ev := base.with("tool", rel, blk.Name+" "+rel, "")
		ev.Ctx = ctxID
		ev.Meta = map[string]any{"session": base.Meta["session"], "tool": blk.Name, "file": rel}
		return ev, true
	}
	if blk.Name == "Bash" {
		cmd, _ := blk.Input["command"].(string)
		if cmd == "" {
			return Event{}, false
		}
		ev := base.with("tool", "", "ran: "+firstLine(cmd), cmd)
		ev.Meta = map[string]any{"session": base.Meta["session"], "tool": "Bash"}
		if dir, ok := base.Meta["dir"]; ok {
			ev.Meta["dir"] = dir // run in that folder: its rules apply
		}
		return ev, true
	}
	return Event{}, false
}

func (e Event) with(kind, key, title, body string) Event {
	e.Kind, e.Key, e.Title, e.Body = kind, key, title, clipBytes(body, maxChatBody)
	return e
}

// Locate maps an absolute path to the configured context holding it and
// the path relative to that context's checkout, following symlinks: a path
// through a link is filed where the link leads, so the folder rules of
// what was really read apply (a link to secrets/ is secrets/). Outside
// every context, a link leading out included, it returns "", "".
func Locate(p string, repos []Repo) (ctxID, rel string) {
	if p == "" {
		return "", ""
	}
	real := resolveExisting(filepath.Clean(p))
	for _, r := range repos {
		root := resolveExisting(filepath.Clean(r.Path))
		if real == root {
			return r.Ctx, ""
		}
		if rest, ok := strings.CutPrefix(real, root+string(filepath.Separator)); ok {
			return r.Ctx, filepath.ToSlash(rest)
		}
	}
	return "", ""
}

// resolveExisting resolves the symlinks of p's longest existing prefix and
// keeps the rest (a file reported before it exists, or since deleted).
func resolveExisting(p string) string {
	rest := ""
	for cur := p; ; {
		if real, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(real, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// firstLine is s's first non-empty line, cut to maxTitleRunes.
func firstLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			if r := []rune(l); len(r) > maxTitleRunes {
				return string(r[:maxTitleRunes-1]) + "…"
			}
			return l
		}
	}
	return ""
}
