package task

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// inheritedEnv names the variables a task inherits from aoi's environment
// when the job does not set Env. Everything else (tokens, auth keys, API
// keys aoi itself was started with) stays out of the task.
var inheritedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "TMPDIR", "TZ",
	"GOPATH", "GOCACHE", "GOMODCACHE", "GOPROXY", "GOFLAGS", "GOROOT", "GOTOOLCHAIN",
}

// BaseEnv returns the minimal environment a task runs with: the inherited
// variables above that are set in this process, as KEY=value pairs.
func BaseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		for _, want := range inheritedEnv {
			if k == want {
				env = append(env, kv)
				break
			}
		}
	}
	return env
}

// taskEnv is the environment of task id's command. In a worktree git stops
// looking for a repository at the worktree itself (GIT_CEILING_DIRECTORIES
// names its parent): one whose history was left out (hideHistory) must not
// find the data dir's or the home directory's repository above it instead.
func taskEnv(id, worktree string) []string {
	env := append(BaseEnv(), "AOI_TASK_ID="+id)
	if worktree != "" {
		env = append(env, "GIT_CEILING_DIRECTORIES="+filepath.Dir(worktree))
	}
	return env
}

// A task's command runs as the owner, and with the owner's HOME it writes
// the owner's dotfiles as a matter of course: a peer's test script (at a
// ref it chose) appending to ~/.bashrc, dropping a ~/.config/autostart
// entry or running `go env -w GOFLAGS=-toolexec=…` plants a command the
// owner runs later. Unless its type says "real_home", a task therefore
// runs with HOME and the XDG base directories in a scratch folder of its
// own, removed when it ends (scratchHome). It is no sandbox: a command
// that names the real path still writes there.

// scratchHomeCopies are the owner's files a scratch home starts with, as
// copies (what the task writes to them stays in the scratch folder): git's
// identity and settings, and Go's `go env -w` settings (GOPRIVATE,
// GOPROXY), without which a build may fetch what it should not.
var scratchHomeCopies = []string{".gitconfig", ".config/git/config", ".config/go/env"}

// toolchainHomes are the folders, under the owner's home, where version
// managers keep the toolchains a project's tests run with; each has a
// variable that names it. In a scratch home rustup's `cargo` proxy finds no
// toolchain and pyenv's `python` shim no Python, so a test task of a Rust
// or Python project would fail at its first command. They stay the
// owner's (when the owner has them): a private copy would download a
// whole toolchain per peer.
var toolchainHomes = []struct{ env, rel string }{
	{"RUSTUP_HOME", ".rustup"}, {"PYENV_ROOT", ".pyenv"}, {"ASDF_DATA_DIR", ".asdf"},
}

// A task that shared the owner's build and download caches could poison
// them: Go trusts what GOCACHE holds (an object file put under the right
// action id is linked into the owner's next build unchecked), a module
// cache entry is read again without checking go.sum once it is extracted,
// `go install` writes into GOPATH/bin (or the GOBIN of the owner's `go env
// -w`), which is on the owner's PATH, and so is cargo's CARGO_HOME/bin,
// beside its registry. So a scratch-home task gets those folders from the
// requester's own cache folder (peerCaches), kept between its tasks under
// aoi's data dir: the owner's builds never read what a peer's task wrote,
// and a peer's second task builds warm.

// peerCacheVars names the variables that point Go and cargo at the
// requester's cache folder caches, and where each leads.
func peerCacheVars(caches string) map[string]string {
	gopath := filepath.Join(caches, "go")
	return map[string]string{
		"GOCACHE":    filepath.Join(caches, "go-build"),
		"GOPATH":     gopath,
		"GOMODCACHE": filepath.Join(gopath, "pkg", "mod"),
		"GOBIN":      filepath.Join(gopath, "bin"),
		"CARGO_HOME": filepath.Join(caches, "cargo"),
	}
}

// cargoConfigCopies are the owner's cargo settings a peer's CARGO_HOME
// gets a fresh copy of at every task (a mirror, a target dir), never its
// credentials.
var cargoConfigCopies = []string{"config.toml", "config"}

// withScratchHome points env's HOME and XDG base directories at home,
// which it fills with copies of scratchHomeCopies from the owner's home,
// and Go's and cargo's caches at the requester's folder caches (see
// peerCacheVars). The toolchain managers' folders stay the owner's
// (toolchainHomes).
func withScratchHome(env []string, home, caches string) ([]string, error) {
	if err := os.Mkdir(home, 0o700); err != nil { // afresh: never through a link
		return nil, err
	}
	realHome, _ := os.UserHomeDir()
	realConfig, _ := os.UserConfigDir()
	set := peerCacheVars(caches)
	if prog := goCacheProg(ownersGoCache(), set["GOCACHE"]); prog != "" {
		set["GOCACHEPROG"] = prog
	}
	set["HOME"] = home
	set["XDG_CONFIG_HOME"] = filepath.Join(home, ".config")
	set["XDG_CACHE_HOME"] = filepath.Join(home, ".cache")
	set["XDG_DATA_HOME"] = filepath.Join(home, ".local", "share")
	set["XDG_STATE_HOME"] = filepath.Join(home, ".local", "state")
	for _, tc := range toolchainHomes {
		dir := filepath.Join(realHome, tc.rel)
		if fi, err := os.Stat(dir); err == nil && fi.IsDir() && !hasVar(env, tc.env) && realHome != "" {
			set[tc.env] = dir
		}
	}
	out := replaceVars(env, set)
	for _, dir := range []string{set["XDG_CONFIG_HOME"], set["XDG_CACHE_HOME"], set["XDG_DATA_HOME"], set["XDG_STATE_HOME"]} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	}
	for _, dir := range []string{set["GOCACHE"], set["GOBIN"], set["GOMODCACHE"], set["CARGO_HOME"]} {
		if err := realFolders(filepath.Dir(filepath.Dir(caches)), dir); err != nil {
			return nil, err
		}
	}
	for _, rel := range scratchHomeCopies {
		from := filepath.Join(realHome, rel)
		if rel == ".config/git/config" || rel == ".config/go/env" {
			from = filepath.Join(realConfig, strings.TrimPrefix(rel, ".config/"))
		}
		if realHome == "" || realConfig == "" {
			break
		}
		copyRegular(from, filepath.Join(home, rel))
	}
	copyCargoConfig(realHome, set["CARGO_HOME"])
	return out, nil
}

// realFolders makes dir, below root (trusted as it is: the data dir may
// well be a link), a folder, and each folder on the way from root: a link
// or a file in the place of one is removed first. A peer's caches outlive
// its task, and a task that replaced its GOCACHE with a link to the
// owner's cache had the peer's next task build into the owner's. (A link
// deeper inside a cache is not looked for: a task can write the owner's
// cache by its path all the same.)
func realFolders(root, dir string) error {
	rel, err := filepath.Rel(root, dir)
	if err != nil || strings.HasPrefix(rel, "..") {
		return fmt.Errorf("%s is not below %s", dir, root)
	}
	at := root
	if rel == "." {
		return nil
	}
	for _, part := range strings.Split(rel, string(os.PathSeparator)) {
		at = filepath.Join(at, part)
		info, err := os.Lstat(at)
		if err == nil && info.IsDir() {
			continue
		}
		if err == nil {
			if err := os.Remove(at); err != nil {
				return err
			}
		}
		if err := os.Mkdir(at, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// copyCargoConfig gives a peer's CARGO_HOME a fresh copy of the owner's
// cargo settings, so what a task wrote to its copy last time is gone.
func copyCargoConfig(realHome, cargoHome string) {
	owners := os.Getenv("CARGO_HOME")
	if owners == "" && realHome != "" {
		owners = filepath.Join(realHome, ".cargo")
	}
	for _, name := range cargoConfigCopies {
		_ = os.Remove(filepath.Join(cargoHome, name))
		if owners != "" {
			copyRegular(filepath.Join(owners, name), filepath.Join(cargoHome, name))
		}
	}
}

// hasVar reports whether env sets k.
func hasVar(env []string, k string) bool {
	return slices.ContainsFunc(env, func(kv string) bool { return strings.HasPrefix(kv, k+"=") })
}

// replaceVars returns env with the variables of set in place of its own,
// those appended in sorted order.
func replaceVars(env []string, set map[string]string) []string {
	out := slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		k, _, _ := strings.Cut(kv, "=")
		_, replaced := set[k]
		return replaced
	})
	added := make([]string, 0, len(set))
	for k, v := range set {
		added = append(added, k+"="+v)
	}
	slices.Sort(added)
	return append(out, added...)
}

// copyRegular copies a regular file of at most 1 MiB, if there is one,
// owner-only; anything else (missing, a FIFO, a device) is left out. A
// link is followed (dotfile managers link ~/.gitconfig into a repository of
// dotfiles), but the open never waits.
func copyRegular(from, to string) {
	f, err := os.OpenFile(from, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > 1<<20 {
		return
	}
	body, err := io.ReadAll(io.LimitReader(f, 1<<20))
	if err != nil {
		return
	}
	if os.MkdirAll(filepath.Dir(to), 0o700) == nil {
		_ = os.WriteFile(to, body, 0o600)
	}
}

// removeScratchHome removes a task's scratch home once its processes are
// gone. A task may have made folders unwritable (chmod 0); they are made
// the owner's again first, without following links.
func removeScratchHome(home string) error {
	var err error
	for range 4 { // each pass opens what the last made readable
		_ = filepath.WalkDir(home, func(path string, d fs.DirEntry, _ error) error {
			if d != nil && d.IsDir() {
				_ = os.Chmod(path, 0o700)
			}
			return nil
		})
		if err = os.RemoveAll(home); err == nil {
			return nil
		}
	}
	return err
}

// A task's environment never holds the owner's session sockets (BaseEnv
// names none): with SSH_AUTH_SOCK a task would sign as the owner, with
// DBUS_SESSION_BUS_ADDRESS or XDG_RUNTIME_DIR `systemd-run --user` would
// start a service outside the task, with TMUX `tmux new-window` would run
// a command in the owner's tmux server; none of those is the task's
// descendant, so no reaper ends it. Tools that look in a default place
// when the variable is unset find a folder of the task's own instead:
// XDG_RUNTIME_DIR (sd-bus's user bus, many daemons' sockets) and
// TMUX_TMPDIR (tmux's default server, which would otherwise be the
// owner's /tmp/tmux-UID/default) name it, so a tmux server the task
// starts is its own, and its descendant. A task type's pass_env hands
// named variables over all the same (withPassedEnv).

// withRuntimeDir points env's XDG_RUNTIME_DIR and TMUX_TMPDIR at dir,
// which it makes, owner-only as the runtime dir must be.
func withRuntimeDir(env []string, dir string) ([]string, error) {
	if err := os.Mkdir(dir, 0o700); err != nil { // afresh: never through a link
		return nil, err
	}
	return replaceVars(env, map[string]string{"XDG_RUNTIME_DIR": dir, "TMUX_TMPDIR": dir}), nil
}

// withTempDir points env's TMPDIR at dir, which it makes: a confined
// command may not write the shared /tmp, and what it leaves there is
// removed with its task folder.
func withTempDir(env []string, dir string) ([]string, error) {
	if err := os.Mkdir(dir, 0o700); err != nil { // afresh: never through a link
		return nil, err
	}
	return replaceVars(env, map[string]string{"TMPDIR": dir}), nil
}

// withPassedEnv sets in env each variable names lists (a task type's
// pass_env) that aoi's own environment sets, with aoi's value.
func withPassedEnv(env []string, names []string) []string {
	set := map[string]string{}
	for _, name := range names {
		if v, ok := os.LookupEnv(name); ok {
			set[name] = v
		}
	}
	return replaceVars(env, set)
}
