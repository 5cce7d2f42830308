package wire

import (
	"path"
	"strings"
)

// UncleanScope returns the first context_scope entry that is not written
// in its clean form ("acme//webapp", "acme/webapp/", "./acme/webapp",
// "/acme/webapp") and that clean form, or "", "" when every entry is clean.
//
// A peer sending such an entry is refused, naming the clean form, rather
// than having it cleaned for it. The ACL judged a cleaned form while the
// secretary looked up the entry as sent (and stored it, and drafted from
// it again on release), so "acme//webapp" passed the ACL and was then no
// context at all. Cleaning it in one more place would still leave every
// reader of a scope — the ACL, the context lookup, the stored question,
// its release, a repeat's match, and whatever reads it next — to agree on
// one reading of a name; refused at the edge, only clean names get past
// and there is nothing to disagree about.
//
// Left to the ACL's own refusals, as before: "" and "*" (every context),
// entries holding a NUL or a backslash, and ones whose clean form names
// nothing (".") or climbs out with "..".
func UncleanScope(scope []string) (entry, clean string) {
	for _, e := range scope {
		if c, ok := cleanScopeEntry(e); !ok {
			return e, c
		}
	}
	return "", ""
}

// cleanScopeEntry returns e's clean form and whether e is written so.
func cleanScopeEntry(e string) (string, bool) {
	t := strings.Trim(e, "/")
	if t == "" || t == "*" || strings.ContainsAny(t, "\x00\\") {
		return e, true
	}
	c := path.Clean(t)
	if c == "." || c == ".." || strings.HasPrefix(c, "../") {
		return e, true
	}
	return c, c == e
}

// CleanScope returns scope with each entry UncleanScope would refuse
// written in its clean form. The asking side uses it on its owner's own
// scope ("--scope acme/webapp/" from a shell's completion), so a peer
// receives only clean names and is never asked to read one two ways.
func CleanScope(scope []string) []string {
	if scope == nil {
		return nil
	}
	out := make([]string, len(scope))
	for i, e := range scope {
		out[i], _ = cleanScopeEntry(e)
	}
	return out
}
