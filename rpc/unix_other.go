//go:build !unix

package rpc

import (
	"errors"
	"net"
	"os"
)

func listenPrivate(string) (net.Listener, error) {
	return nil, errors.New("the control socket needs a Unix-like system (Linux or macOS)")
}

func lockFile(string) (*os.File, error) {
	return nil, errors.New("the control socket needs a Unix-like system (Linux or macOS)")
}

func checkSocketFolder(string, string) error { return nil }
