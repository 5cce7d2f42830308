package config

import (
	"os"
	"path/filepath"
)

// ConfigFile is the config file's name inside a data or config dir.
const ConfigFile = "config.json"

// Locate returns the config file to use, in this order:
//
//  1. <dataDir>/config.json when dataDir is non-empty. Pass the --data-dir
//     flag's value here only when the user gave it: an explicit data dir
//     carries its own config, so two agents can run on one machine
//     (aoi --data-dir /tmp/eng, aoi --data-dir /tmp/pm).
//  2. $AOI_CONFIG_PATH.
//  3. $XDG_CONFIG_HOME/aoi/config.json (default ~/.config/aoi/config.json)
//     if it exists.
//  4. /etc/aoi/config.json if it exists.
//  5. Otherwise the path of step 3, which is where `aoi init` writes.
func Locate(dataDir string) string {
	return locate(dataDir, os.Getenv, fileExists)
}

func locate(dataDir string, getenv func(string) string, exists func(string) bool) string {
	if dataDir != "" {
		return filepath.Join(dataDir, ConfigFile)
	}
	if p := getenv("AOI_CONFIG_PATH"); p != "" {
		return p
	}
	user := filepath.Join(xdgDir(getenv, "XDG_CONFIG_HOME", ".config"), "aoi", ConfigFile)
	if exists(user) {
		return user
	}
	if system := "/etc/aoi/" + ConfigFile; exists(system) {
		return system
	}
	return user
}

// DataDir returns the data dir: the --data-dir flag when given, else
// $AOI_DATA_DIR, else $XDG_DATA_HOME/aoi (default ~/.local/share/aoi).
func DataDir(flag string) string {
	return dataDir(flag, os.Getenv)
}

func dataDir(flag string, getenv func(string) string) string {
	if flag != "" {
		return flag
	}
	if d := getenv("AOI_DATA_DIR"); d != "" {
		return d
	}
	return filepath.Join(xdgDir(getenv, "XDG_DATA_HOME", filepath.Join(".local", "share")), "aoi")
}

// xdgDir is $env when it is an absolute path (the XDG spec says relative
// values are invalid and must be ignored), else $HOME/fallback.
func xdgDir(getenv func(string) string, env, fallback string) string {
	if d := getenv(env); filepath.IsAbs(d) {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		if h, err := os.UserHomeDir(); err == nil {
			home = h
		}
	}
	return filepath.Join(home, fallback)
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}
