package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
)

// serviceCmds runs the service manager's commands (tests replace it).
type serviceCmds struct {
	goos string
	run  func(name string, args ...string) (string, error)
}

func defaultServiceCmds() serviceCmds {
	return serviceCmds{goos: runtime.GOOS, run: func(name string, args ...string) (string, error) {
		var out bytes.Buffer
		cmd := exec.Command(name, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if err != nil {
			err = fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(out.String()))
		}
		return out.String(), err
	}}
}

func (a *app) serviceCmd() *cobra.Command {
	var dry bool
	sc := defaultServiceCmds()
	cmd := &cobra.Command{
		Use:   "service install|uninstall|status",
		Short: "Run aoi serve as a user service (systemd on Linux, launchd on macOS)",
		Args:  args(cobra.NoArgs),
	}
	cmd.PersistentFlags().BoolVar(&dry, "dry-run", false, "print the service definition and the commands instead of running them")
	sub := func(use, short string, f func(cmd *cobra.Command) error) *cobra.Command {
		return &cobra.Command{Use: use, Short: short, Args: args(cobra.NoArgs),
			RunE: func(cmd *cobra.Command, _ []string) error { return f(cmd) }}
	}
	cmd.AddCommand(
		sub("install", "Write the service definition and start it now and at every login", func(*cobra.Command) error { return a.serviceInstall(sc, dry) }),
		sub("uninstall", "Stop the service and remove its definition", func(*cobra.Command) error { return a.serviceUninstall(sc, dry) }),
		sub("status", "Say whether the service is installed and running", func(*cobra.Command) error { return a.serviceStatus(sc) }),
	)
	return cmd
}

// serviceSpecFor is this binary serving the current data dir.
func (a *app) serviceSpecFor() (serviceSpec, error) {
	bin, err := os.Executable()
	if err != nil {
		return serviceSpec{}, fmt.Errorf("cannot find the aoi binary: %w", err)
	}
	if bin, err = filepath.EvalSymlinks(bin); err != nil {
		return serviceSpec{}, err
	}
	dir, err := filepath.Abs(a.dataDir())
	if err != nil {
		return serviceSpec{}, err
	}
	s := serviceSpec{Binary: bin, DataDir: dir}
	if a.configFlag != "" {
		if s.Config, err = filepath.Abs(a.configFlag); err != nil {
			return s, err
		}
	}
	return s, nil
}

// definition returns the service file's path, content and the commands
// that load and unload it.
func (a *app) definition(sc serviceCmds) (path, content string, load, unload [][]string, err error) {
	spec, err := a.serviceSpecFor()
	if err != nil {
		return "", "", nil, nil, err
	}
	if path, err = servicePath(sc.goos); err != nil {
		return "", "", nil, nil, err
	}
	if sc.goos == "darwin" {
		domain := "gui/" + strconv.Itoa(os.Getuid())
		return path, launchdPlist(spec),
			[][]string{{"launchctl", "bootstrap", domain, path}},
			[][]string{{"launchctl", "bootout", domain + "/" + launchdLabel}}, nil
	}
	return path, systemdUnit(spec),
		[][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", "aoi.service"}},
		[][]string{{"systemctl", "--user", "disable", "--now", "aoi.service"}, {"systemctl", "--user", "daemon-reload"}}, nil
}

func (a *app) serviceInstall(sc serviceCmds, dry bool) error {
	path, content, load, _, err := a.definition(sc)
	if err != nil {
		return err
	}
	if dry { // the file on stdout, exactly; where it goes and what runs on stderr
		fmt.Fprintf(a.stderr, "# would write %s\n", path)
		fmt.Fprint(a.stdout, content)
		printCommands(a.stderr, load)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := writeAtomic(path, []byte(content), 0o644); err != nil {
		return err
	}
	if err := runAll(sc, load); err != nil {
		return fmt.Errorf("%s written, but starting it failed: %w", path, err)
	}
	fmt.Fprintf(a.stdout, "installed %s and started it; `aoi service status` shows it, `aoi` attaches to it\n", path)
	return nil
}

func (a *app) serviceUninstall(sc serviceCmds, dry bool) error {
	path, _, _, unload, err := a.definition(sc)
	if err != nil {
		return err
	}
	if dry {
		printCommands(a.stdout, unload)
		fmt.Fprintf(a.stdout, "rm %s\n", path)
		return nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("no aoi service is installed (%s does not exist)", path)
	}
	stopErr := runAll(sc, unload[:1])
	if err := os.Remove(path); err != nil {
		return err
	}
	_ = runAll(sc, unload[1:])
	if stopErr != nil {
		fmt.Fprintf(a.stderr, "note: stopping it reported: %v\n", stopErr)
	}
	fmt.Fprintf(a.stdout, "removed %s\n", path)
	return nil
}

func (a *app) serviceStatus(sc serviceCmds) error {
	path, _, _, _, err := a.definition(sc)
	if err != nil {
		return err
	}
	_, statErr := os.Stat(path)
	installed := statErr == nil
	state := "not installed"
	if installed {
		state = a.managerState(sc)
	}
	answering := false
	if c, err := a.service(); err == nil {
		answering = true
		c.Close()
	}
	st := map[string]any{"definition": path, "installed": installed, "state": state, "answering": answering}
	return a.emit(st, func(w io.Writer) {
		fmt.Fprintf(w, "service:   %s (%s)\nagent:     ", state, path)
		if answering {
			fmt.Fprintf(w, "answering for %s\n", a.dataDir())
		} else {
			fmt.Fprintf(w, "not answering for %s\n", a.dataDir())
		}
	})
}

// managerState asks systemd or launchd whether the service runs.
func (a *app) managerState(sc serviceCmds) string {
	if sc.goos == "darwin" {
		if _, err := sc.run("launchctl", "print", "gui/"+strconv.Itoa(os.Getuid())+"/"+launchdLabel); err != nil {
			return "installed, not loaded"
		}
		return "loaded"
	}
	out, _ := sc.run("systemctl", "--user", "is-active", "aoi.service")
	if s := strings.TrimSpace(out); s != "" {
		return s
	}
	return "unknown"
}

func runAll(sc serviceCmds, cmds [][]string) error {
	for _, c := range cmds {
		if _, err := sc.run(c[0], c[1:]...); err != nil {
			return err
		}
	}
	return nil
}

func printCommands(w io.Writer, cmds [][]string) {
	for _, c := range cmds {
		fmt.Fprintf(w, "# would run: %s\n", strings.Join(c, " "))
	}
}

// writeAtomic writes a file through a temporary file and a rename.
func writeAtomic(path string, data []byte, mode os.FileMode) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".aoi-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
