package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/aoi-protocol/aoi/agent/wire"
	"github.com/aoi-protocol/aoi/store"
)

// Stamped at build time: go build -ldflags "-X main.buildVersion=v1.2.3 -X main.buildCommit=abc123".
// These are the only package-level variables: the linker can set nothing else.
var (
	buildVersion string
	buildCommit  string
)

// versionInfo is `aoi version`'s output.
type versionInfo struct {
	Version  string `json:"version"`
	Commit   string `json:"commit,omitempty"`
	Protocol string `json:"protocol"`
	Go       string `json:"go"`
	SQLite   string `json:"sqlite"`
	Platform string `json:"platform"`
}

// currentVersion reads the stamped values, falling back to what the Go
// toolchain recorded (`go install …@vX` sets the module version).
func currentVersion() versionInfo {
	v := versionInfo{Version: buildVersion, Commit: buildCommit, Protocol: wire.ProtocolVersion,
		Go: runtime.Version(), SQLite: store.SQLiteVersion(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && v.Commit == "" {
				v.Commit = s.Value
			}
		}
	}
	if v.Version == "" {
		v.Version = "dev"
	}
	return v
}

func (a *app) versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print aoi's version, commit, protocol, Go and SQLite versions",
		Args:  args(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			v := currentVersion()
			return a.emit(v, func(w io.Writer) {
				fmt.Fprintf(w, "aoi %s\n", v.Version)
				if v.Commit != "" {
					fmt.Fprintf(w, "commit:   %s\n", v.Commit)
				}
				fmt.Fprintf(w, "protocol: %s\ngo:       %s (%s)\nsqlite:   %s\n", v.Protocol, v.Go, v.Platform, v.SQLite)
			})
		},
	}
}
