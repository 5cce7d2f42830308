package task

import (
	"strings"
	"unicode"
)

// A task command is argv, never a shell line, so a parameter's value stays
// one argument whatever it holds. Except where the owner's command hands a
// string to an interpreter as code: sh -c "go test {{pkg}}", python -c,
// node -e, make PKG={{pkg}} (make expands a variable's value, $(shell …)
// included, and its recipes hand it to the shell), ssh host … (one line
// for the remote shell). There a value is spliced into a program, and
// `x; rm -rf ~` or $(curl …) would run. Values that reach such an element
// (config.ScriptElements) may hold only characters no interpreter gives a
// meaning to in a word.

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
