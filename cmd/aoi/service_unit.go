package main

import (
	"encoding/xml"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// serviceSpec is what a service definition runs: this binary serving one
// data dir (and config, when one was named).
type serviceSpec struct {
	Binary  string // absolute path of aoi
	DataDir string // absolute
	Config  string // absolute, or "" to locate it from the data dir
}

// args is the command line the service runs.
func (s serviceSpec) args() []string {
	a := []string{s.Binary, "serve", "--data-dir", s.DataDir}
	if s.Config != "" {
		a = append(a, "--config", s.Config)
	}
	return a
}

// systemdUnit is the user unit for Linux. tailscaled is a system unit the
// user manager cannot pull in (so no Wants=), but After= orders the start
// after it whenever both are being started.
func systemdUnit(s serviceSpec) string {
	quoted := make([]string, 0, len(s.args()))
	for _, a := range s.args() {
		quoted = append(quoted, systemdQuote(a))
	}
	return fmt.Sprintf(`[Unit]
Description=aoi secretary agent
Documentation=https://github.com/aoi-protocol/aoi
After=network-online.target tailscaled.service

[Service]
Type=simple
ExecStart=%s
ExecReload=/bin/kill -HUP $MAINPID
Restart=on-failure
RestartSec=5s

[Install]
WantedBy=default.target
`, strings.Join(quoted, " "))
}

// systemdQuote quotes one ExecStart word: specifiers (%) and variables ($)
// are escaped, and a word with spaces, quotes or backslashes is quoted.
func systemdQuote(s string) string {
	s = strings.ReplaceAll(s, "%", "%%")
	s = strings.ReplaceAll(s, "$", "$$")
	if !strings.ContainsAny(s, " \t\"'\\;") {
		return s
	}
	s = strings.ReplaceAll(s, `\`, `\\`)
	return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"`
}

// launchdLabel names the launchd job.
const launchdLabel = "dev.aoi.agent"

// launchdPlist is the LaunchAgent for macOS: started at login, restarted
// whenever it exits.
func launchdPlist(s serviceSpec) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + launchdLabel + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range s.args() {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<true/>
	<key>StandardErrorPath</key>
	<string>` + xmlText(filepath.Join(s.DataDir, "launchd.log")) + `</string>
</dict>
</plist>
`)
	return b.String()
}

func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s))
	return b.String()
}

// servicePaths is where the definition goes for the current user.
func servicePath(goos string) (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", fmt.Errorf("cannot find your home directory: %w", err)
	}
	switch goos {
	case "linux":
		cfg := os.Getenv("XDG_CONFIG_HOME")
		if cfg == "" {
			cfg = filepath.Join(home, ".config")
		}
		return filepath.Join(cfg, "systemd", "user", "aoi.service"), nil
	case "darwin":
		return filepath.Join(home, "Library", "LaunchAgents", launchdLabel+".plist"), nil
	}
	return "", fmt.Errorf("aoi service supports Linux (systemd) and macOS (launchd), not %s; run `aoi serve` under your own supervisor", goos)
}
