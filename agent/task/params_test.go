package task

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/config"
)

func testTasks() map[string]config.TaskType {
	return map[string]config.TaskType{
		"run_tests": {
			Command: []string{"go", "test", "-json", "{{suite}}"},
			Params:  map[string]config.Param{"suite": {Default: "./...", Pattern: `^\./[A-Za-z0-9_./-]*$`}},
		},
		"bench": {
			Command: []string{"go", "test", "-run=^$", "-bench={{name}}", "-count={{count}}", "{{pkg}}"},
			Params: map[string]config.Param{
				"name":  {Required: true, Pattern: `[A-Za-z]+`},
				"count": {Default: "1", Enum: []string{"1", "3", "5"}},
				"pkg":   {Pattern: `\./[a-z/]*`},
			},
		},
		"lint": {Command: []string{"make", "lint"}},
		"echo": {Command: []string{"echo", "{{msg}}"}, Params: map[string]config.Param{"msg": {}}},
	}
}

func TestResolveAccepts(t *testing.T) {
	tasks := testTasks()
	cases := []struct {
		task   string
		params map[string]any
		argv   []string
	}{
		{"run_tests", nil, []string{"go", "test", "-json", "./..."}},
		{"run_tests", map[string]any{"suite": "./auth/..."}, []string{"go", "test", "-json", "./auth/..."}},
		{"bench", map[string]any{"name": "Parse", "count": float64(3)}, []string{"go", "test", "-run=^$", "-bench=Parse", "-count=3"}},
		{"bench", map[string]any{"name": "Parse", "pkg": "./store"}, []string{"go", "test", "-run=^$", "-bench=Parse", "-count=1", "./store"}},
		{"lint", map[string]any{}, []string{"make", "lint"}},
		// No pattern: anything safe goes, and stays one argv element.
		{"echo", map[string]any{"msg": "a b; c {{msg}}"}, []string{"echo", "a b; c {{msg}}"}},
	}
	for _, c := range cases {
		argv, resolved, err := Resolve(c.task, tasks[c.task], c.params)
		if err != nil {
			t.Errorf("%s %v: %v", c.task, c.params, err)
			continue
		}
		if !reflect.DeepEqual(argv, c.argv) {
			t.Errorf("%s %v: argv = %q, want %q", c.task, c.params, argv, c.argv)
		}
		if len(resolved) != len(tasks[c.task].Params) {
			t.Errorf("%s: resolved = %v", c.task, resolved)
		}
	}
}

// TestInjectionRefused is the injection table: every attempt is
// refused with a ParamError naming the param, and nothing runs.
func TestInjectionRefused(t *testing.T) {
	pwned := filepath.Join(t.TempDir(), "pwned")
	tasks := testTasks()
	cases := []struct {
		task, param string
		params      map[string]any
		wantInError string
	}{
		{"run_tests", "suite", map[string]any{"suite": "./...; touch " + pwned}, "does not match"},
		{"run_tests", "suite", map[string]any{"suite": "$(touch " + pwned + ")"}, "does not match"},
		{"run_tests", "suite", map[string]any{"suite": "`touch " + pwned + "`"}, "does not match"},
		{"run_tests", "suite", map[string]any{"suite": "../../etc"}, `".." path segment`},
		{"run_tests", "suite", map[string]any{"suite": "./../../etc"}, `".." path segment`},
		{"run_tests", "suite", map[string]any{"suite": "-exec=rm"}, `starts with "-"`},
		{"run_tests", "suite", map[string]any{"suite": "./x\n-exec=rm"}, "control character"},
		{"run_tests", "suite", map[string]any{"suite": "./x\x00"}, "control character"},
		{"run_tests", "suite", map[string]any{"suite": map[string]any{"a": 1}}, "must be a string"},
		{"run_tests", "suite", map[string]any{"suite": "./" + strings.Repeat("a", 2000)}, "limit"},
		{"run_tests", "cwd", map[string]any{"cwd": "/"}, "not a parameter of run_tests (declared: suite)"},
		{"run_tests", "extra", map[string]any{"suite": "./...", "extra": "x"}, "not a parameter of run_tests"},
		{"lint", "target", map[string]any{"target": "all"}, "it takes none"},
		{"bench", "name", map[string]any{}, "is required"},
		{"bench", "name", map[string]any{"name": ""}, "; an empty value counts as none"},
		{"bench", "count", map[string]any{"name": "X", "count": "7"}, "not one of 1, 3, 5"},
		{"bench", "name", map[string]any{"name": "X Y"}, "does not match"},
		{"echo", "msg", map[string]any{"msg": "--output=/etc/passwd"}, `starts with "-"`},
	}
	for _, c := range cases {
		argv, _, err := Resolve(c.task, tasks[c.task], c.params)
		var pe *ParamError
		if !errors.As(err, &pe) || pe.Param != c.param || !strings.Contains(err.Error(), c.wantInError) {
			t.Errorf("%s %q: err = %v, want ParamError on %s containing %q", c.task, c.params, err, c.param, c.wantInError)
		}
		if argv != nil {
			t.Errorf("%s %q: argv %q returned with an error", c.task, c.params, argv)
		}
		if !strings.HasPrefix(err.Error(), "task_params."+c.param+": ") {
			t.Errorf("error %q should name task_params.%s", err, c.param)
		}
	}
	_, err := LookupTaskType(tasks, "rm_rf")
	var ue *UnknownTaskTypeError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "available: bench, echo, lint, run_tests") {
		t.Errorf("unknown task type: err = %v", err)
	}
	// A value the echo task accepts is passed as one argv element: the
	// shell metacharacters are printed, not run.
	argv, _, err := Resolve("echo", tasks["echo"], map[string]any{"msg": "x; touch " + pwned + " $(touch " + pwned + ")"})
	if err != nil {
		t.Fatal(err)
	}
	res := fastRunner(1).Run(context.Background(), Job{ID: "echo", Argv: argv})
	if res.Err != nil || !strings.Contains(res.OutputTail, "; touch") {
		t.Fatalf("echo result %+v", res)
	}
	if _, err := os.Stat(pwned); !os.IsNotExist(err) {
		t.Fatal("an injection attempt created the pwned file")
	}
}

func TestResolveDashAllowedByPattern(t *testing.T) {
	tt := config.TaskType{Command: []string{"go", "test", "{{flag}}"},
		Params: map[string]config.Param{"flag": {Pattern: `^-run=[A-Za-z]+$`}}}
	argv, _, err := Resolve("t", tt, map[string]any{"flag": "-run=TestX"})
	if err != nil || argv[2] != "-run=TestX" {
		t.Fatalf("argv %q, err %v", argv, err)
	}
	enum := config.TaskType{Command: []string{"go", "{{v}}"}, Params: map[string]config.Param{"v": {Enum: []string{"-v"}}}}
	if _, _, err := Resolve("t", enum, map[string]any{"v": "-v"}); err != nil {
		t.Fatalf("an enum value the owner listed must pass: %v", err)
	}
}

func TestResolveProgramFromParamRefused(t *testing.T) {
	tt := config.TaskType{Command: []string{"{{prog}}"}, Params: map[string]config.Param{"prog": {Default: "ls"}}}
	if _, _, err := Resolve("t", tt, nil); err == nil {
		t.Fatal("command[0] from a parameter must be refused")
	}
}

func TestFillArguments(t *testing.T) {
	args := map[string]any{"suite": "{{suite}}", "opts": []any{"x-{{suite}}", 3.0}, "nested": map[string]any{"k": "{{suite}}"}}
	out, err := FillArguments("t", args, map[string]string{"suite": "./a"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"suite": "./a", "opts": []any{"x-./a", 3.0}, "nested": map[string]any{"k": "./a"}}
	if !reflect.DeepEqual(out, want) || args["suite"] != "{{suite}}" {
		t.Fatalf("out = %v (input must stay unchanged: %v)", out, args)
	}
	if _, err := FillArguments("t", map[string]any{"a": "{{nope}}"}, nil); err == nil {
		t.Fatal("an undeclared placeholder must be an error")
	}
}

// TestValuesGoingIntoCodeAreWords: a command that hands a string to an
// interpreter as code (sh -c, bash -lc, python -c, through env or timeout;
// a variable set on make's command line, which make expands; what follows
// ssh, one line for the remote shell) splices a
// value into a program, so there a value may hold only letters,
// digits and . _ / : @ % + = , -; the refusal names the parameter and
// nothing runs. Elsewhere in the same command a value stays one argv
// element and keeps its characters, and an ordinary word still runs.
func TestValuesGoingIntoCodeAreWords(t *testing.T) {
	pwned := filepath.Join(t.TempDir(), "pwned")
	task := func(command ...string) config.TaskType {
		return config.TaskType{Command: command, Params: map[string]config.Param{"pkg": {}, "label": {}}}
	}
	for _, cmd := range [][]string{
		{"sh", "-c", "echo {{pkg}}"}, {"/bin/bash", "-lc", "echo testing {{pkg}}"}, {"env", "LANG=C", "sh", "-ec", "echo {{pkg}}"},
		{"timeout", "60", "python3", "-c", "print('{{pkg}}')"}, {"make", "test", "PKG={{pkg}}"}, {"gmake", "-C", "src", "FLAGS+=-v {{pkg}}"},
		{"ssh", "ci.internal", "go", "test", "{{pkg}}"},
	} {
		for _, v := range []string{"x; touch " + pwned, "$(touch " + pwned + ")", "$(shell touch " + pwned + ")", "`touch " + pwned + "`", "x'y", "a b", "x|y", "x\u00a0y"} {
			argv, _, err := Resolve("t", task(cmd...), map[string]any{"pkg": v})
			var pe *ParamError
			if !errors.As(err, &pe) || pe.Param != "pkg" || !strings.Contains(err.Error(), "goes into code the task's command runs") || argv != nil {
				t.Errorf("%q with pkg=%q: argv %q, err %v; want it refused", cmd, v, argv, err)
			}
		}
	}
	argv, _, err := Resolve("t", task("sh", "-c", "echo {{pkg}}", "label: {{label}}"), map[string]any{"pkg": "./auth/v2:unit", "label": "x; y $(z)"})
	if err != nil || argv[2] != "echo ./auth/v2:unit" || argv[3] != "label: x; y $(z)" {
		t.Fatalf("argv = %q, err %v; want the word in the script and the other element as given", argv, err)
	}
	// The README's way out: the script reads the value as "$1", an
	// argument of its own, which keeps every character.
	argv, _, err = Resolve("t", task("sh", "-c", `grep -rn "$1" .`, "sh", "{{pkg}}"), map[string]any{"pkg": "a b; c"})
	if err != nil || argv[4] != "a b; c" {
		t.Fatalf("sh -c reading $1: argv %q, err %v", argv, err)
	}
	argv, _, err = Resolve("t", task("make", "{{label}}", "PKG={{pkg}}"), map[string]any{"pkg": "./auth/...", "label": "x$(y)"})
	if err != nil || argv[1] != "x$(y)" || argv[2] != "PKG=./auth/..." {
		t.Fatalf("make argv = %q, err %v; want the target as given and the variable's word", argv, err)
	}
	argv, _, err = Resolve("t", task("sh", "-c", "echo ran {{pkg}}"), map[string]any{"pkg": "認証-2"})
	if err != nil {
		t.Fatal(err)
	}
	if res := fastRunner(1).Run(context.Background(), Job{ID: "sh", Argv: argv}); res.Err != nil || !strings.Contains(res.OutputTail, "ran 認証-2") {
		t.Fatalf("sh -c with a word: %+v", res)
	}
	if _, err := os.Stat(pwned); !os.IsNotExist(err) {
		t.Fatal("an injection attempt created the pwned file")
	}
}
