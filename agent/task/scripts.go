package task

import (
	"path/filepath"
	"regexp"
	"strings"
	"unicode"
)

// A task command is argv, never a shell line, so a parameter's value stays
// one argument whatever it holds. Except where the owner's command hands a
// string to an interpreter as code: sh -c "go test {{pkg}}", python -c,
// node -e, make PKG={{pkg}} (make expands a variable's value, $(shell …)
// included, and its recipes hand it to the shell). There a value is
// spliced into a program, and `x; rm -rf ~` or $(curl …) would run. Values that reach such an element may hold only
// characters no interpreter gives a meaning to in a word.

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

// scriptElements marks the command elements an interpreter runs as code:
// the argument after a script flag of an interpreter named anywhere in the
// command, so one run through env, timeout or nice counts too, a variable
// set on make's command line, and whatever follows ssh.
func scriptElements(command []string) map[int]bool {
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

// checkScriptValues refuses a value placed into code (see above) that
// holds anything but letters, digits and . _ / : @ % + = , -.
func checkScriptValues(name, script string, values map[string]string) error {
	for _, m := range placeholderRE.FindAllStringSubmatch(script, -1) {
		if r, ok := firstUnsafe(values[m[1]]); ok {
			return &ParamError{TaskType: name, Param: m[1], Reason: "holds " + describeRune(r) +
				"; this value goes into code the task's command runs (a shell -c script, a make variable, an ssh command), where only letters, digits and . _ / : @ % + = , - are taken"}
		}
	}
	return nil
}

func firstUnsafe(v string) (rune, bool) {
	for _, r := range v {
		if unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._/:@%+=,-", r) {
			continue
		}
		return r, true
	}
	return 0, false
}

// describeRune names a refused character without echoing control or
// invisible ones.
func describeRune(r rune) string {
	if r == ' ' {
		return "a space"
	}
	if unicode.IsGraphic(r) && r < unicode.MaxASCII {
		return "\"" + string(r) + "\""
	}
	return "a character that is not a letter or digit"
}
