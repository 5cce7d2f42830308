package config

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// wholePlaceholderRE is a command element that is one placeholder alone.
var wholePlaceholderRE = regexp.MustCompile(`^` + placeholderRE.String() + `$`)

// CheckTaskCommands finds a task command whose flag takes its value from
// an optional parameter without a default ("-tags", "{{mode}}"): when a
// request leaves the parameter out, its element is dropped and the flag
// takes the next element as its value (go test -tags ./billing/...). aoi
// still starts; the warning says how to write it instead.
func CheckTaskCommands(c *Config) Errors {
	var out Errors
	for _, name := range taskNames(c) {
		tt := c.Tasks[name]
		for i := 1; i < len(tt.Command); i++ {
			m := wholePlaceholderRE.FindStringSubmatch(tt.Command[i])
			flag := tt.Command[i-1]
			if m == nil || !strings.HasPrefix(flag, "-") || flag == "--" || strings.ContainsAny(flag, "={") {
				continue
			}
			p, ok := tt.Params[m[1]]
			if !ok || p.Required || p.Default != "" {
				continue
			}
			out = append(out, &Error{Path: pointer("tasks", name, "command", strconv.Itoa(i)),
				Problem: fmt.Sprintf("when a request leaves out %s (optional, no default), {{%s}} is dropped and %s takes the next argument as its value", m[1], m[1], flag),
				Fix:     fmt.Sprintf("write %q as one element, give %s a default, or make it required", flag+"={{"+m[1]+"}}", m[1])})
		}
	}
	return out
}

// Warnings are what would not stop aoi starting but is likely a mistake:
// local paths that are not there, task commands that shift when an
// optional parameter is left out or splice one into code, a role given on
// a tailnet to an id no node is pinned to.
func Warnings(c *Config) Errors {
	out := append(CheckLocalPaths(c), CheckTaskCommands(c)...)
	out = append(out, CheckTaskScripts(c)...)
	return append(out, CheckTailnetPins(c)...)
}
