package main

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"

	"gopkg.in/natefinch/lumberjack.v2"

	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
	"github.com/aoi-protocol/aoi/rpc/tailnet"
)

// tailnetTransport returns the tsnet transport when the config (or an auth
// key in the environment) turns tailnet mode on, else nil: the core then
// uses direct mutual TLS. listen overrides the port.
func tailnetTransport(cfg *config.Config, dir, listen string) (rpc.Transport, error) {
	if !cfg.TailnetMode() {
		return nil, nil
	}
	host := cfg.Network.Tailscale.Hostname
	if host == "" {
		host = "aoi-" + cfg.Agent.ID
	}
	addr := cfg.Network.ListenAddr
	if listen != "" {
		addr = listen
	}
	// tsnet logs a lot: keep them in their own rotated file in the data
	// dir, never on the terminal and never uploaded.
	logs := &lumberjack.Logger{Filename: filepath.Join(dir, "tailnet.log"), MaxSize: 10, MaxBackups: 2}
	t, err := tailnet.New(tailnet.Config{
		Dir:        filepath.Join(dir, "tailnet"),
		Hostname:   host,
		AuthKey:    cfg.TailnetAuthKey(),
		ControlURL: cfg.Network.Tailscale.ControlURL,
		Port:       portOf(addr),
		Logf:       func(format string, args ...any) { fmt.Fprintf(logs, format+"\n", args...) },
	})
	if err != nil {
		return nil, err
	}
	return t, nil
}

// portOf is addr's port, 0 (the transport's default) when there is none.
func portOf(addr string) int {
	_, p, err := net.SplitHostPort(addr)
	if err != nil {
		return 0
	}
	n, err := strconv.Atoi(p)
	if err != nil {
		return 0
	}
	return n
}
