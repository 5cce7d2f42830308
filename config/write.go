package config

import (
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Default returns a minimal working config for a new agent: direct mode on
// loopback, no peers, no contexts, no tasks. The ACL denies by default and
// has one rule letting authenticated peers (pinned in direct mode, on the
// same tailnet in tailnet mode) ask questions; writing and running tasks
// stay denied until the owner adds rules.
func Default(id, role, owner string) *Config {
	c := &Config{
		Version: "1.0",
		Agent:   Agent{ID: id, Role: role, Owner: owner},
		ACL: ACL{DefaultPermission: PermNone, Rules: []Rule{{
			ID: "peers-read", AgentID: "*", ScopeType: ScopeRepository, ScopePattern: "**",
			Permission: PermRead, Metadata: map[string]any{"reason": "trusted peers may ask about my work"},
		}}},
		Tasks: map[string]TaskType{},
	}
	applyDefaults(c, map[string]any{})
	return c
}

// Validate checks c as Load would check the file Write makes of it, so a
// config built in code (aoi init's flags) is refused before it is written.
func Validate(c *Config) error {
	b, err := json.Marshal(c)
	if err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	_, err = Parse("", b, os.LookupEnv)
	return err
}

// Write stores c at path as indented JSON, atomically (temp file + rename)
// and readable by the owner only, since it may hold keys.
func Write(path string, c *Config) error {
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return fmt.Errorf("encode config: %w", err)
	}
	b = append(b, '\n')
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create config dir: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".config-*.json")
	if err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("write config: %w", err)
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("write config: %w", err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("write config: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write config: %w", err)
	}
	return nil
}

// LogLevel is the log level to use: $AOI_LOG_LEVEL when it names a level,
// else logging.level, else info.
func (c *Config) LogLevel() slog.Level {
	if lvl, ok := parseLevel(os.Getenv("AOI_LOG_LEVEL")); ok {
		return lvl
	}
	if c != nil {
		if lvl, ok := parseLevel(c.Logging.Level); ok {
			return lvl
		}
	}
	return slog.LevelInfo
}

func parseLevel(s string) (slog.Level, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "debug":
		return slog.LevelDebug, true
	case "info":
		return slog.LevelInfo, true
	case "warn", "warning":
		return slog.LevelWarn, true
	case "error":
		return slog.LevelError, true
	}
	return 0, false
}

// TailnetMode reports whether aoi should join the tailnet: the config says
// so, or an auth key is in the environment (design §4).
func (c *Config) TailnetMode() bool {
	return c.Network.Tailscale.Enabled || c.TailnetAuthKey() != ""
}

// TailnetAuthKey is the configured auth key, else $TS_AUTHKEY, else
// $TAILSCALE_AUTH_KEY.
func (c *Config) TailnetAuthKey() string {
	if k := c.Network.Tailscale.AuthKey; k != "" {
		return k
	}
	if k := os.Getenv("TS_AUTHKEY"); k != "" {
		return k
	}
	return os.Getenv("TAILSCALE_AUTH_KEY")
}

func seconds(n int) time.Duration { return time.Duration(n) * time.Second }

// DiscoveryInterval is the heartbeat/discovery period.
func (n Network) DiscoveryInterval() time.Duration { return seconds(n.DiscoveryIntervalSec) }

// OfflineAfter is how long a silent peer stays online.
func (n Network) OfflineAfter() time.Duration { return seconds(n.OfflineAfterSec) }

// OpenQuestionsLimit is how many questions one peer may have waiting for
// the owner at once (0: no limit).
func (n Network) OpenQuestionsLimit() int { return perPeerLimit(n.MaxOpenQuestionsPerPeer, 100) }

// UnreadMessagesLimit is how many messages one peer may have in the
// assistant's inbox that nobody has seen yet (0: no limit).
func (n Network) UnreadMessagesLimit() int { return perPeerLimit(n.MaxUnreadMessagesPerPeer, 500) }

// DailyCallsLimit is how many calls one peer may make per UTC day (0: no
// limit). At the default rate limit a peer could make 432,000.
func (l Limits) DailyCallsLimit() int {
	return perPeerLimit(l.DailyCallsPerPeer, DefaultDailyCallsPerPeer)
}

// perPeerLimit reads a per-peer limit as the config writes it: unset (0)
// is the default, a negative number no limit (0).
func perPeerLimit(set, def int) int {
	switch {
	case set < 0:
		return 0
	case set == 0:
		return def
	}
	return set
}

// AssistantAwayAfter is how long the assistant may go without polling its
// messages before this agent shows away (default 5 minutes).
func (n Network) AssistantAwayAfter() time.Duration {
	if n.AssistantAwayAfterSec <= 0 {
		return 5 * time.Minute
	}
	return seconds(n.AssistantAwayAfterSec)
}

// RequestTimeout bounds one outgoing request.
func (n Network) RequestTimeout() time.Duration { return seconds(n.RequestTimeoutSec) }

// Expiry is how long an undecided approval waits.
func (a Approvals) Expiry() time.Duration { return seconds(a.ExpirySec) }

// Timeout is how long the task may run.
func (t TaskType) Timeout() time.Duration { return seconds(t.TimeoutSec) }

// InitialBackoff is the first retry delay.
func (o Outbox) InitialBackoff() time.Duration {
	return time.Duration(o.InitialBackoffMS) * time.Millisecond
}

// MaxBackoff caps the retry delay.
func (o Outbox) MaxBackoff() time.Duration { return time.Duration(o.MaxBackoffMS) * time.Millisecond }

// Expiry is when the outbox gives up on a message.
func (o Outbox) Expiry() time.Duration { return seconds(o.ExpirySec) }
