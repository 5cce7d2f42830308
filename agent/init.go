package agent

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/aoi-protocol/aoi/agent/logging"
	"github.com/aoi-protocol/aoi/config"
	"github.com/aoi-protocol/aoi/rpc"
)

// InitOptions configure Init.
type InitOptions struct {
	DataDir, ConfigPath  string
	AgentID, Role, Owner string
	ListenAddr           string
	Force                bool // overwrite an existing config
}

// InitResult says what Init wrote.
type InitResult struct {
	DataDir         string `json:"data_dir"`
	ConfigPath      string `json:"config_path"`
	Fingerprint     string `json:"fingerprint"`
	CreatedIdentity bool   `json:"created_identity"`
	CreatedConfig   bool   `json:"created_config"`
	// ListenAddr and Role are the config's network.listen_addr and
	// agent.role: where colleagues' agents reach this one and the role
	// their ACL rules may match (what their `aoi peers trust` takes). ""
	// when a kept config could not be read.
	ListenAddr string `json:"listen_addr"`
	Role       string `json:"role"`
	// BackupPath is where the config Force overwrote was copied ("" when
	// there was none).
	BackupPath string `json:"backup_path,omitempty"`
}

// Init creates the data dir, the agent's ed25519 TLS identity and a working
// config. An existing identity is kept; an existing config is kept unless
// Force is set.
func Init(opts InitOptions) (InitResult, error) {
	res := InitResult{DataDir: opts.DataDir, ConfigPath: opts.ConfigPath}
	if res.DataDir == "" {
		res.DataDir = config.DataDir("")
	}
	if res.ConfigPath == "" {
		res.ConfigPath = filepath.Join(res.DataDir, "config.json")
	}
	cfg := config.Default(opts.AgentID, opts.Role, opts.Owner)
	if opts.ListenAddr != "" {
		cfg.Network.ListenAddr = opts.ListenAddr
	}
	// Refuse what the agent could not start with before anything is made.
	if err := config.Validate(cfg); err != nil {
		return res, err
	}
	if err := checkOwnership(res.DataDir, res.ConfigPath); err != nil {
		return res, err
	}
	if err := os.MkdirAll(res.DataDir, 0o700); err != nil {
		return res, fmt.Errorf("create data dir: %w", err)
	}
	id, created, err := rpc.LoadOrCreateIdentity(filepath.Join(res.DataDir, "tls"), cfg.Agent.ID)
	if err != nil {
		return res, fmt.Errorf("create identity: %w", err)
	}
	res.Fingerprint, res.CreatedIdentity = id.Fingerprint, created
	if _, err := os.Stat(res.ConfigPath); err == nil && !opts.Force {
		if kept, err := config.Load(res.ConfigPath); err == nil {
			res.ListenAddr, res.Role = kept.Network.ListenAddr, kept.Agent.Role
		}
		return res, nil
	} else if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return res, err
	} else if err == nil {
		// --force: the old config's settings are not lost, only set aside.
		if res.BackupPath, err = backUp(res.ConfigPath); err != nil {
			return res, err
		}
	}
	if err := config.Write(res.ConfigPath, cfg); err != nil {
		return res, err
	}
	res.CreatedConfig, res.ListenAddr, res.Role = true, cfg.Network.ListenAddr, cfg.Agent.Role
	return res, nil
}

// backUp copies the file at path to path.bak (0600, replacing an older
// backup) and returns the backup's path.
func backUp(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("back up the config before overwriting it: %w", err)
	}
	bak := path + ".bak"
	if err := os.WriteFile(bak, data, 0o600); err != nil {
		return "", fmt.Errorf("back up the config before overwriting it: %w", err)
	}
	return bak, nil
}

// maxSocketPath is the portable limit of a Unix socket path (macOS: 104).
const maxSocketPath = 100

// SocketPath is the control socket for a data dir: <data dir>/aoi.sock, or,
// when that is too long for a Unix socket, a short path in the runtime dir
// derived from the data dir so every front end finds the same one.
func SocketPath(dataDir string) string {
	p := filepath.Join(dataDir, "aoi.sock")
	if len(p) <= maxSocketPath {
		return p
	}
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		abs = dataDir
	}
	sum := sha256.Sum256([]byte(abs))
	base := os.Getenv("XDG_RUNTIME_DIR")
	if base == "" {
		base = filepath.Join(os.TempDir(), fmt.Sprintf("aoi-%d", os.Getuid()))
	}
	return filepath.Join(base, "aoi-"+hex.EncodeToString(sum[:6])+".sock")
}

// openLog sends structured logs to <data dir>/aoi.log (the terminal belongs
// to the TUI), rotated by size with secrets redacted, unless the caller
// supplied a logger. The level follows the config on reload.
func (c *Core) openLog(cfg *config.Config) error {
	if c.opts.Logger != nil {
		c.log = c.opts.Logger
		return nil
	}
	path := filepath.Join(c.dataDir, "aoi.log")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600) // fail now, not silently later
	if err != nil {
		return fmt.Errorf("open log file: %w", err)
	}
	f.Close()
	level := new(slog.LevelVar)
	level.Set(cfg.LogLevel())
	log, closer := logging.Open(logging.Options{Path: path, Level: level,
		MaxSizeMB: cfg.Logging.MaxSizeMB, MaxBackups: cfg.Logging.MaxBackups})
	c.ext.onClose(func() { closer.Close() })
	c.ext.onReload(func(cfg *config.Config) { level.Set(cfg.LogLevel()) })
	c.log = log.With("agent", cfg.Agent.ID)
	return nil
}
