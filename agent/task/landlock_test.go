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
		{Writable: []string{"/w"}, Hidden: "/data dir"},
		{Off: "its task type lint is marked unconfined"},
	} {
		argv := append(append(c.args(), "--"), "sh", "-c", "--write x")
		got, rest, err := parseConfinement(argv)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		if (got == nil) != (c == nil) || (c != nil && (!slices.Equal(got.Writable, c.Writable) || got.Off != c.Off || got.Hidden != c.Hidden)) {
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

// A hidden folder is kept from the command however it is named: beside
// the way to it, a link that leads into it or to a folder holding it is
// not granted; what lies beside it reads as before, and so does a
// writable folder beneath it.
func TestHiddenFolderIsNotReadThroughLinks(t *testing.T) {
	if LandlockABI() == 0 {
		t.Skip("the kernel offers no Landlock (ABI 0)")
	}
	base := t.TempDir()
	hidden := filepath.Join(base, "data")
	own := filepath.Join(hidden, "tasks", "t1")
	for _, dir := range []string{own, filepath.Join(base, "beside")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(hidden, "key"), filepath.Join(base, "beside", "notes"), filepath.Join(own, "mine")} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for link, to := range map[string]string{"into": hidden, "up": base, "root": "/"} {
		if err := os.Symlink(to, filepath.Join(base, "beside", link)); err != nil {
			t.Fatal(err)
		}
	}
	script := `try() { if cat "$2" >/dev/null 2>&1; then echo "read $1"; else echo "refused $1"; fi; }
try key "$1/data/key"; try into "$1/beside/into/key"; try up "$1/beside/up/data/key"
try notes "$1/beside/notes"; try mine "$1/data/tasks/t1/mine"; try system /etc/passwd`
	res := fastRunner(1).Run(context.Background(), Job{ID: "hidden", Timeout: 30 * time.Second,
		Argv: []string{"sh", "-c", script, "sh", base}, Env: taskEnv("hidden", ""),
		Confine: &Confinement{Writable: []string{own}, Hidden: hidden}})
	if res.ExitCode != 0 {
		t.Fatalf("the confined command: %+v", res)
	}
	for _, want := range []string{"refused key", "refused into", "refused up", "read notes", "read mine", "read system"} {
		if !strings.Contains(res.OutputTail, want+"\n") {
			t.Errorf("output %q; want %q", res.OutputTail, want)
		}
	}
}

// A real_home type may write the owner's home, which holds aoi's data dir
// by default: Landlock grants beneath a folder whole, so the task could
// rewrite aoi's config, replace its key or delete its database. The home
// is now granted entry by entry beside the way down to the data dir: the
// data dir stays unwritable however it is named (a link into it, renaming
// it away), the rest of the home is written as before, and the task's own
// folder in the data dir too. A new entry directly in a folder on the way
// (the home itself) is refused: that is the price.
func TestHiddenFolderIsNotWrittenBeneathAWritableHome(t *testing.T) {
	if LandlockABI() == 0 {
		t.Skip("the kernel offers no Landlock (ABI 0)")
	}
	home := t.TempDir()
	hidden := filepath.Join(home, ".local", "share", "aoi")
	own := filepath.Join(hidden, "tasks", "t1")
	for _, dir := range []string{own, filepath.Join(home, ".cache", "go-build"), filepath.Join(home, ".local", "share", "other-app"), filepath.Join(home, "beside")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{filepath.Join(hidden, "config.json"), filepath.Join(home, ".bashrc")} {
		if err := os.WriteFile(f, []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(hidden, filepath.Join(home, "beside", "into")); err != nil {
		t.Fatal(err)
	}
	script := `h="$1"; try() { name=$1; shift; if "$@" 2>/dev/null; then echo "wrote $name"; else echo "refused $name"; fi; }
try config sh -c 'echo y >> "$1/.local/share/aoi/config.json"' sh "$h"
try plant sh -c 'echo y > "$1/.local/share/aoi/planted"' sh "$h"
try link sh -c 'echo y >> "$1/beside/into/config.json"' sh "$h"
try remove rm "$h/.local/share/aoi/config.json"
try move mv "$h/.local/share/aoi" "$h/.local/share/moved"
try cache sh -c 'echo y > "$1/.cache/go-build/f"' sh "$h"
try app sh -c 'mkdir "$1/.local/share/other-app/d" && echo y > "$1/.local/share/other-app/d/f"' sh "$h"
try bashrc sh -c 'echo y >> "$1/.bashrc"' sh "$h"
try mine sh -c 'echo y > "$1/.local/share/aoi/tasks/t1/mine"' sh "$h"
try new-in-home sh -c 'echo y > "$1/.new"' sh "$h"`
	res := fastRunner(1).Run(context.Background(), Job{ID: "home", Timeout: 30 * time.Second,
		Argv: []string{"sh", "-c", script, "sh", home}, Env: taskEnv("home", ""),
		Confine: &Confinement{Writable: []string{own, home}, Hidden: hidden}})
	if res.ExitCode != 0 {
		t.Fatalf("the confined command: %+v", res)
	}
	for _, want := range []string{"refused config", "refused plant", "refused link", "refused remove", "refused move",
		"wrote cache", "wrote app", "wrote bashrc", "wrote mine", "refused new-in-home"} {
		if !strings.Contains(res.OutputTail, want+"\n") {
			t.Errorf("output %q; want %q", res.OutputTail, want)
		}
	}
	if got, err := os.ReadFile(filepath.Join(hidden, "config.json")); err != nil || string(got) != "x\n" {
		t.Errorf("aoi's config is now %q (%v)", got, err)
	}
}
