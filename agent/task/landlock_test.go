package task

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// The runner hands a confinement to the reaper on its command line; what
// the reaper reads back is what was given, and the command after "--" is
// left as it was.
func TestConfinementArgsRoundTrip(t *testing.T) {
	for _, c := range []*Confinement{
		nil,
		{Writable: []string{"/a b", "--", "/c"}},
		{Off: "its task type lint is marked unconfined"},
	} {
		argv := append(append(c.args(), "--"), "sh", "-c", "--write x")
		got, rest, err := parseConfinement(argv)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if (got == nil) != (c == nil) || (c != nil && (!slices.Equal(got.Writable, c.Writable) || got.Off != c.Off)) {
			t.Errorf("%+v came back as %+v", c, got)
		}
		if !slices.Equal(rest, []string{"sh", "-c", "--write x"}) {
			t.Errorf("%+v: the command came back as %q", c, rest)
		}
	}
	if _, _, err := parseConfinement([]string{"--write", "/a"}); err == nil {
		t.Error("no command after -- was taken")
	}
}

// A command whose confinement cannot be set up (a folder it names is
// gone) is not run at all, rather than run unconfined; the output says
// why. One confined to a folder writes there and nowhere else.
func TestConfinedCommandRunsOnlyConfined(t *testing.T) {
	if LandlockABI() == 0 {
		t.Skip("the kernel offers no Landlock (ABI 0)")
	}
	own, other := t.TempDir(), t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	run := func(c *Confinement, script string) Result {
		t.Helper()
		return fastRunner(1).Run(context.Background(), Job{ID: "confined", Timeout: 30 * time.Second,
			Argv: []string{"sh", "-c", script}, Env: taskEnv("confined", ""), Confine: c})
	}
	res := run(&Confinement{Writable: []string{filepath.Join(own, "gone")}}, "touch "+marker)
	if res.ExitCode != 126 || !strings.Contains(res.OutputTail, "could not be confined") {
		t.Errorf("a confinement naming a missing folder: %+v; want exit 126 saying it could not be confined", res)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the command ran although it could not be confined")
	}
	res = run(&Confinement{Writable: []string{own}}, "echo x > "+own+"/ok && ! echo x 2>/dev/null > "+other+"/no")
	if res.ExitCode != 0 {
		t.Errorf("a command confined to %s: %+v; want it writing there and refused elsewhere", own, res)
	}
	if _, err := os.Stat(filepath.Join(other, "no")); err == nil {
		t.Error("the confined command wrote outside its folder")
	}
}
