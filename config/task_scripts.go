package config

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// A task command is argv, never a shell line, so a parameter's value stays
// one argument whatever it holds, except in an element an interpreter runs
// as code (sh -c "go test {{pkg}}", make PKG={{pkg}}, ssh host …). The task
// engine refuses values there that hold more than words; CheckTaskScripts
// tells the owner when such an element takes a placeholder.

// scriptFlags names, per interpreter, the flags whose next argument is code.
var scriptFlags = map[string][]string{
	"sh": {"-c"}, "bash": {"-c"}, "dash": {"-c"}, "zsh": {"-c"}, "ksh": {"-c"}, "ash": {"-c"}, "fish": {"-c", "--command"},
	"python": {"-c"}, "python3": {"-c"}, "node": {"-e", "--eval", "-p", "--print"}, "deno": {"eval"},
	"perl": {"-e", "-E"}, "ruby": {"-e"}, "php": {"-r"}, "pwsh": {"-c", "-Command"}, "powershell": {"-c", "-Command"},
}

// shells take a cluster of one-letter options ending in c (sh -ec,
// bash -lc) as -c.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true, "ash": true}

// makeVarRE is a variable set on make's command line (V=x, V:=x, V+=x):
// make expands its value where the Makefile uses it, $(shell …) included,
// and a recipe hands it to the shell.
var makeVarRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*\s*[:+?!]?=`)

// ScriptElements marks the command elements an interpreter runs as code:
// the argument after a script flag of an interpreter named anywhere in the
// command, so one run through env, timeout or nice counts too, a variable
// set on make's command line, and whatever follows ssh.
func ScriptElements(command []string) map[int]bool {
	marked := map[int]bool{}
	for j, prog := range command {
		base := filepath.Base(prog)
		if base == "ssh" {
			// ssh joins everything after the host into one line for the
			// remote shell: all of it is code.
			for i := j + 1; i < len(command); i++ {
				marked[i] = true
			}
			continue
		}
		if base == "make" || base == "gmake" {
			for i := j + 1; i < len(command); i++ {
				if makeVarRE.MatchString(command[i]) {
					marked[i] = true
				}
			}
			continue
		}
		flags, ok := scriptFlags[base]
		if !ok {
			continue
		}
		for i := j + 1; i+1 < len(command); i++ {
			if isScriptFlag(command[i], flags, shells[base]) {
				marked[i+1] = true
			}
		}
	}
	return marked
}

func isScriptFlag(arg string, flags []string, shell bool) bool {
	for _, f := range flags {
		if arg == f {
			return true
		}
	}
	// sh -ec, bash -lc: a cluster of one-letter options ending in c.
	return shell && len(arg) > 2 && arg[0] == '-' && arg[1] != '-' && strings.HasSuffix(arg, "c")
}

// CheckTaskScripts warns of a task command element that an interpreter
// runs as code and that takes a placeholder: a request's value there may
// hold only letters, digits and . _ / : @ % + = , - (the engine refuses
// anything else), so a parameter meant for spaces or quotes fails every
// time, and the element is one to write with care.
func CheckTaskScripts(c *Config) Errors {
	var out Errors
	for _, name := range taskNames(c) {
		tt := c.Tasks[name]
		for i := range ScriptElements(tt.Command) {
			m := placeholderRE.FindStringSubmatch(tt.Command[i])
			if m == nil {
				continue
			}
			out = append(out, &Error{Path: pointer("tasks", name, "command", strconv.Itoa(i)),
				Problem: fmt.Sprintf("{{%s}} goes into code the command runs (a shell script, a make variable, an ssh command): a request's value there may hold only letters, digits and . _ / : @ %% + = , -", m[1]),
				Fix:     fmt.Sprintf("give {{%s}} an element of its own outside the script (as an argument the script reads as \"$1\"), or keep its values to words", m[1])})
		}
	}
	slices.SortFunc(out, func(a, b *Error) int { return strings.Compare(a.Path, b.Path) })
	return out
}
