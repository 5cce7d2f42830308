package config

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// check runs the semantic checks a schema cannot express.
func check(c *Config) Errors {
	var errs Errors
	if slices.Contains(reservedIDs, c.Agent.ID) {
		errs = append(errs, &Error{Path: "/agent/id", Problem: fmt.Sprintf("%q is the audit log's name for its own rows", c.Agent.ID), Fix: "choose another id, e.g. your login name"})
	}
	errs = append(errs, checkPeers(c.Agent.ID, c.Peers)...)
	errs = append(errs, checkContexts(c.Contexts)...)
	errs = append(errs, checkRules(c.ACL.Rules)...)
	errs = append(errs, checkTasks(c)...)
	errs = append(errs, checkSecretary(c.Secretary)...)
	errs = append(errs, checkPort("/network/listen_addr", c.Network.ListenAddr)...)
	errs = append(errs, checkPort("/metrics/listen_addr", c.Metrics.ListenAddr)...)
	errs = append(errs, checkMetricsAddr(c.Metrics.ListenAddr)...)
	if o := c.Outbox; o.InitialBackoffMS > 0 && o.MaxBackoffMS > 0 && o.InitialBackoffMS > o.MaxBackoffMS {
		errs = append(errs, &Error{Path: "/outbox/max_backoff_ms", Problem: fmt.Sprintf("%d is less than initial_backoff_ms %d", o.MaxBackoffMS, o.InitialBackoffMS), Fix: "make max_backoff_ms at least initial_backoff_ms"})
	}
	return errs
}

// checkPort refuses a host:port whose port is over 65535 (the schema's
// pattern allows five digits); the listener would fail only at start.
func checkPort(at, addr string) Errors {
	i := strings.LastIndexByte(addr, ':')
	if i < 0 {
		return nil // empty, or the schema already said what is wrong
	}
	if n, err := strconv.Atoi(addr[i+1:]); err == nil && n > 65535 {
		return Errors{{Path: at, Problem: fmt.Sprintf("port %d is out of range", n), Fix: "use a port from 1 to 65535 (0 picks a free one), e.g. 127.0.0.1:8443"}}
	}
	return nil
}

// reservedIDs are the names the audit log gives the owner's and the
// store's own rows (seals, checkpoints): no agent may take them.
var reservedIDs = []string{"owner", "system"}

func checkPeers(self string, peers []Peer) Errors {
	var errs Errors
	seen := map[string]int{}
	for i, p := range peers {
		if slices.Contains(reservedIDs, p.AgentID) {
			errs = append(errs, &Error{Path: pointer("peers", strconv.Itoa(i), "agent_id"), Problem: fmt.Sprintf("%q is the audit log's name for its own rows", p.AgentID), Fix: "pin this peer under another id"})
			continue
		}
		if p.AgentID == self {
			// Its calls would pass for this agent's own, in the audit
			// log and wherever a request's from is checked.
			errs = append(errs, &Error{Path: pointer("peers", strconv.Itoa(i), "agent_id"), Problem: fmt.Sprintf("%q is this agent's own id (agent.id)", p.AgentID), Fix: "pin the peer under the peer's own id"})
			continue
		}
		if j, dup := seen[p.AgentID]; dup {
			errs = append(errs, &Error{Path: pointer("peers", strconv.Itoa(i), "agent_id"), Problem: fmt.Sprintf("%q is already configured at /peers/%d", p.AgentID, j), Fix: "merge the two entries"})
			continue
		}
		seen[p.AgentID] = i
	}
	return errs
}

func checkContexts(ctxs []Context) Errors {
	var errs Errors
	seen := map[string]int{}
	for i, c := range ctxs {
		if why := checkPattern(c.Identifier); why != "" || strings.ContainsAny(c.Identifier, "*?[") {
			if why == "" {
				why = fmt.Sprintf("%q contains a wildcard", c.Identifier)
			}
			errs = append(errs, &Error{Path: pointer("contexts", strconv.Itoa(i), "identifier"), Problem: why, Fix: "use a plain name such as owner/repo; peers use it as a path prefix"})
		}
		if j, dup := seen[c.Identifier]; dup {
			errs = append(errs, &Error{Path: pointer("contexts", strconv.Itoa(i), "identifier"), Problem: fmt.Sprintf("%q is already configured at /contexts/%d", c.Identifier, j), Fix: "give each context a unique identifier"})
			continue
		}
		seen[c.Identifier] = i
	}
	return errs
}

func checkRules(rules []Rule) Errors {
	var errs Errors
	seen := map[string]int{}
	for i, r := range rules {
		at := func(field string) string { return pointer("acl", "rules", strconv.Itoa(i), field) }
		if j, dup := seen[r.ID]; dup {
			errs = append(errs, &Error{Path: at("id"), Problem: fmt.Sprintf("rule id %q is already used by /acl/rules/%d", r.ID, j), Fix: "give each rule a unique id (denials and audit entries name it)"})
		} else {
			seen[r.ID] = i
		}
		if err := checkPattern(r.ScopePattern); err != "" {
			errs = append(errs, &Error{Path: at("scope_pattern"), Problem: err, Fix: "write a context identifier or a path under one, using * and ** as wildcards"})
		}
	}
	return errs
}

// checkPattern rejects scope patterns that could never match a normalised
// resource: absolute paths, "..", empty segments and backslashes.
func checkPattern(p string) string {
	switch {
	case strings.HasPrefix(p, "/"):
		return fmt.Sprintf("%q is an absolute path", p)
	case strings.Contains(p, `\`):
		return fmt.Sprintf("%q contains a backslash", p)
	}
	for _, seg := range strings.Split(p, "/") {
		switch seg {
		case "":
			return fmt.Sprintf("%q has an empty path segment", p)
		case ".", "..":
			return fmt.Sprintf("%q contains %q", p, seg)
		}
		if _, err := path.Match(seg, ""); err != nil {
			return fmt.Sprintf("%q has a malformed glob in %q", p, seg)
		}
	}
	return ""
}

var placeholderRE = regexp.MustCompile(`\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}`)

// taskNames are the config's task types, sorted (problems list in a
// stable order).
func taskNames(c *Config) []string {
	names := make([]string, 0, len(c.Tasks))
	for n := range c.Tasks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func checkTasks(c *Config) Errors {
	var errs Errors
	for _, name := range taskNames(c) {
		errs = append(errs, checkTask(c, name, c.Tasks[name])...)
	}
	return errs
}

func checkTask(c *Config, name string, t TaskType) Errors {
	at := func(f ...string) string { return pointer(append([]string{"tasks", name}, f...)...) }
	var errs Errors
	switch {
	case len(t.Command) > 0 && t.MCPTool != "":
		errs = append(errs, &Error{Path: at("mcp_tool"), Problem: "a task has both command and mcp_tool", Fix: "keep one of them"})
	case len(t.Command) == 0 && t.MCPTool == "":
		errs = append(errs, &Error{Path: at(), Problem: "a task needs command or mcp_tool", Fix: `add "command": ["prog", "arg", …] or "mcp_tool": "name"`})
	case t.MCPTool != "" && c.Secretary.WorkAI.MCPEndpoint == "":
		errs = append(errs, &Error{Path: at("mcp_tool"), Problem: "an mcp_tool task needs the work AI's MCP server", Fix: "set /secretary/work_ai/mcp_endpoint (\"stdio:<command>\" or an http(s) URL)"})
	}
	ctx, hasCtx := findContext(c.Contexts, t.Context)
	if t.Context != "" && !hasCtx {
		errs = append(errs, &Error{Path: at("context"), Problem: fmt.Sprintf("%q is not a configured context", t.Context), Fix: "use one of the identifiers under /contexts" + knownContexts(c.Contexts)})
	}
	if t.Isolation == IsolationWorktree {
		switch {
		case t.Context == "":
			errs = append(errs, &Error{Path: at("context"), Problem: "isolation worktree needs the repository to branch from", Fix: "set context to a configured repository that has a local_path"})
		case hasCtx && ctx.LocalPath == "":
			errs = append(errs, &Error{Path: at("context"), Problem: fmt.Sprintf("context %q has no local_path, so there is no repository to make a worktree of", t.Context), Fix: "set local_path on that context, or use isolation \"none\""})
		}
	}
	if t.AllowRef && t.Isolation != IsolationWorktree {
		errs = append(errs, &Error{Path: at("allow_ref"), Problem: "allow_ref needs isolation worktree: a ref is checked out in a fresh worktree",
			Fix: `set "isolation": "worktree", or remove allow_ref`})
	}
	if t.Unconfined && t.MCPTool != "" {
		errs = append(errs, &Error{Path: at("unconfined"), Problem: "unconfined applies to a command: an mcp_tool task runs in your coding assistant, which aoi does not confine",
			Fix: `remove "unconfined"`})
	}
	for i, w := range t.Writable {
		if !filepath.IsAbs(w) {
			errs = append(errs, &Error{Path: at("writable", strconv.Itoa(i)), Problem: fmt.Sprintf("%q is not an absolute path", w),
				Fix: "name the folder from the root, e.g. \"/var/cache/mytool\" (${HOME} is expanded)"})
		}
	}
	errs = append(errs, checkParams(at, t)...)
	errs = append(errs, checkPassEnv(at, t.PassEnv)...)
	return errs
}

// envName is what a variable pass_env names looks like.
var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func checkPassEnv(at func(...string) string, names []string) Errors {
	var errs Errors
	for i, name := range names {
		switch {
		case !envName.MatchString(name):
			errs = append(errs, &Error{Path: at("pass_env", strconv.Itoa(i)), Problem: fmt.Sprintf("%q is not a variable name", name),
				Fix: "name the variable alone, e.g. \"SSH_AUTH_SOCK\" (its value comes from aoi's environment)"})
		case TaskSetsEnv(name):
			errs = append(errs, &Error{Path: at("pass_env", strconv.Itoa(i)), Problem: fmt.Sprintf("aoi sets %s for a task itself", name),
				Fix: "remove it; \"real_home\": true gives the task your HOME, XDG folders and caches"})
		}
	}
	return errs
}

func findContext(ctxs []Context, id string) (Context, bool) {
	for _, c := range ctxs {
		if c.Identifier == id {
			return c, true
		}
	}
	return Context{}, false
}

func knownContexts(ctxs []Context) string {
	if len(ctxs) == 0 {
		return " (there are none yet)"
	}
	ids := make([]string, len(ctxs))
	for i, c := range ctxs {
		ids[i] = c.Identifier
	}
	return " (" + strings.Join(ids, ", ") + ")"
}

// checkParams ties placeholders to declared params, both ways, and checks
// each param's pattern and default.
func checkParams(at func(...string) string, t TaskType) Errors {
	var errs Errors
	used := map[string]bool{}
	for i, arg := range t.Command {
		for _, m := range placeholderRE.FindAllStringSubmatch(arg, -1) {
			used[m[1]] = true
			if _, ok := t.Params[m[1]]; !ok {
				errs = append(errs, &Error{Path: at("command", strconv.Itoa(i)), Problem: fmt.Sprintf("placeholder {{%s}} is not declared", m[1]), Fix: fmt.Sprintf(`declare it under params: "%s": {"pattern": "^…$"}`, m[1])})
			}
		}
	}
	for _, p := range argumentStrings(t.Arguments, at("arguments")) {
		for _, m := range placeholderRE.FindAllStringSubmatch(p.value, -1) {
			used[m[1]] = true
			if _, ok := t.Params[m[1]]; !ok {
				errs = append(errs, &Error{Path: p.path, Problem: fmt.Sprintf("placeholder {{%s}} is not declared", m[1]), Fix: fmt.Sprintf(`declare it under params: "%s": {…}`, m[1])})
			}
		}
	}
	names := make([]string, 0, len(t.Params))
	for n := range t.Params {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		errs = append(errs, checkParam(at, n, t.Params[n], used[n])...)
	}
	return errs
}

func checkParam(at func(...string) string, name string, p Param, used bool) Errors {
	var errs Errors
	if !used {
		errs = append(errs, &Error{Path: at("params", name), Problem: fmt.Sprintf("param %q is declared but no {{%s}} uses it", name, name), Fix: "use it in command/arguments or remove it"})
	}
	var re *regexp.Regexp
	if p.Pattern != "" {
		var err error
		if re, err = regexp.Compile(p.Pattern); err != nil {
			errs = append(errs, &Error{Path: at("params", name, "pattern"), Problem: "is not a valid regular expression: " + err.Error(), Fix: "write a Go RE2 expression, anchored with ^…$"})
		}
	}
	if p.Default == "" {
		return errs
	}
	if re != nil && !re.MatchString(p.Default) {
		errs = append(errs, &Error{Path: at("params", name, "default"), Problem: fmt.Sprintf("%q does not match the param's pattern", p.Default), Fix: "make the default match pattern " + p.Pattern})
	}
	if len(p.Enum) > 0 && !slices.Contains(p.Enum, p.Default) {
		errs = append(errs, &Error{Path: at("params", name, "default"), Problem: fmt.Sprintf("%q is not one of %s", p.Default, strings.Join(p.Enum, ", ")), Fix: "use one of them"})
	}
	return errs
}

type located struct{ path, value string }

// argumentStrings lists every string inside an MCP tool's arguments.
func argumentStrings(v any, path string) []located {
	var out []located
	switch t := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = append(out, argumentStrings(t[k], path+pointer(k))...)
		}
	case []any:
		for i, e := range t {
			out = append(out, argumentStrings(e, path+"/"+strconv.Itoa(i))...)
		}
	case string:
		out = append(out, located{path, t})
	}
	return out
}

func checkSecretary(s Secretary) Errors {
	var errs Errors
	for i, p := range s.Redaction.Patterns {
		if _, err := regexp.Compile(p.Regex); err != nil {
			errs = append(errs, &Error{Path: pointer("secretary", "redaction", "patterns", strconv.Itoa(i), "regex"), Problem: "is not a valid regular expression: " + err.Error(), Fix: "write a Go RE2 expression"})
		}
	}
	for i, g := range s.ContextMirroring.TestOutputs {
		if problem := checkTestOutputGlob(g); problem != "" {
			errs = append(errs, &Error{Path: pointer("secretary", "context_mirroring", "test_outputs", strconv.Itoa(i)), Problem: problem,
				Fix: `write a glob relative to the repository, such as "test-results/*.xml"`})
		}
	}
	if s.LLM.Enabled {
		if s.LLM.Endpoint == "" {
			errs = append(errs, &Error{Path: "/secretary/llm/endpoint", Problem: "is empty but the LLM summariser is enabled", Fix: "set the OpenAI-compatible base URL (e.g. http://127.0.0.1:11434/v1) or set enabled to false"})
		}
		if s.LLM.Model == "" {
			errs = append(errs, &Error{Path: "/secretary/llm/model", Problem: "is empty but the LLM summariser is enabled", Fix: "name the model to use, or set enabled to false"})
		}
	}
	return errs
}

// checkTestOutputGlob says what is wrong with a test_outputs glob: it
// must be a valid pattern that stays inside the repository.
func checkTestOutputGlob(g string) string {
	if _, err := path.Match(g, ""); err != nil {
		return "is not a valid glob: " + err.Error()
	}
	clean := path.Clean(strings.ReplaceAll(g, "\\", "/"))
	if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") || filepath.IsAbs(g) {
		return "leaves the repository"
	}
	return ""
}

// annotate names the unset environment variables behind empty values.
func (x *expansion) annotate(errs Errors) {
	for _, e := range errs {
		vars := x.unset[e.Path]
		if len(vars) == 0 {
			continue
		}
		refs := make([]string, len(vars))
		for i, v := range vars {
			refs[i] = "${" + v + "}"
		}
		e.Problem += fmt.Sprintf(" (it comes from %s, which is not set)", strings.Join(refs, ", "))
		e.Fix = fmt.Sprintf("set %s in the environment, or write a default as ${%s:-value}", vars[0], vars[0])
	}
}

// dotToPointer turns encoding/json's dotted field path into a JSON pointer.
func dotToPointer(field string) string {
	return strings.ReplaceAll(field, ".", "/")
}
