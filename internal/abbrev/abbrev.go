// Package abbrev knows the words programmers shorten to their start
// ("perf" for performance, "auth" for authentication or authorization).
// The secretary's confidence and the store's ranking share it, so that the
// short form asked about covers the words it shortens and not another word
// that happens to start with it ("auth" in "author", "perf" in "perfect",
// "cert" in "certain").
package abbrev

import "strings"

// longs maps each short form to the starts of the words it shortens. A
// form with no longer words (repos, ctx) is not listed: it covers only
// itself and its endings.
var longs = map[string][]string{
	"perf": {"perform"}, "auth": {"authent", "authoriz", "authoris", "authn", "authz"}, "compat": {"compatib"},
	"config": {"configur"}, "doc": {"document"}, "repo": {"repositor"}, "spec": {"specif"}, "info": {"inform"},
	"impl": {"implement"}, "init": {"initiali"}, "lib": {"librar"}, "env": {"environ"}, "dev": {"develop"},
	"arg": {"argument"}, "param": {"paramet"}, "admin": {"administ"}, "async": {"asynchron"}, "sync": {"synchron"},
	"auto": {"automat"}, "cert": {"certific"}, "err": {"error"}, "gen": {"generat"}, "max": {"maxim"},
	"num": {"number", "numer"}, "opt": {"option", "optim"}, "proc": {"process", "procedur"}, "resp": {"respons"},
	"sys": {"system"}, "util": {"utilit"}, "exec": {"execut"}, "ext": {"extension", "extern"}, "calc": {"calcul"},
	"alloc": {"allocat"}, "nav": {"navig"}, "attr": {"attribut"}, "addr": {"address"}, "desc": {"descript", "descend"},
	"dict": {"dictionar"}, "elem": {"element"}, "eval": {"evaluat"}, "expr": {"expression"}, "func": {"function"},
	"obj": {"object"}, "pos": {"position"},
}

// Ending lists what may follow a short form and leave it the same word:
// only inflections ("synced", "configs"). Derivational endings would make
// "auth" + "or" the same word as auth.
var Ending = map[string]bool{"s": true, "es": true, "ed": true, "d": true, "ing": true, "ings": true}

// Is reports whether term (lower-case) is a short form listed here.
func Is(term string) bool {
	_, ok := longs[term]
	return ok
}

// Shortens reports whether word (lower-case, starting with term) is one of
// the words term shortens: "authentication" for "auth", not "author". It
// is false for a term that is no short form.
func Shortens(term, word string) bool {
	for _, long := range longs[term] {
		if strings.HasPrefix(word, long) {
			return true
		}
	}
	return false
}
