package config

// Default values, applied to whatever the file leaves out.
const (
	DefaultListenAddr        = "127.0.0.1:8443"
	DefaultDiscoverySec      = 60
	DefaultOfflineAfterSec   = 180
	DefaultMaxBodyBytes      = 1 << 20
	DefaultRequestTimeoutSec = 30
	DefaultRatePerSec        = 5
	DefaultBurst             = 20
	DefaultBodyBytesPerSec   = 128 << 10
	DefaultMaxTasks          = 2
	DefaultDailyCallsPerPeer = 100000
	DefaultTaskTimeoutSec    = 600
	DefaultApprovalExpiry    = 3600
	DefaultInitialBackoffMS  = 1000
	DefaultMaxBackoffMS      = 60000
	DefaultOutboxExpirySec   = 86400
	DefaultThreshold         = 0.8
	DefaultIndexIntervalSec  = 30
	DefaultRetentionDays     = 30
	DefaultAuditDays         = 365
	DefaultLogLevel          = "info"
	DefaultTheme             = "auto"
)

// applyDefaults fills in everything the file left out. tree is the parsed
// file, consulted for booleans whose default is true (absent ≠ false).
func applyDefaults(c *Config, tree any) {
	setStr(&c.Version, "1.0")
	setStr(&c.ACL.DefaultPermission, PermNone)
	defaultNetwork(&c.Network)
	setNum(&c.Limits.RatePerSec, DefaultRatePerSec)
	setNum(&c.Limits.Burst, DefaultBurst)
	setNum(&c.Limits.BodyBytesPerSec, DefaultBodyBytesPerSec)
	setNum(&c.Limits.MaxConcurrentTasks, DefaultMaxTasks)
	setNum(&c.Approvals.ExpirySec, DefaultApprovalExpiry)
	setNum(&c.Outbox.InitialBackoffMS, DefaultInitialBackoffMS)
	setNum(&c.Outbox.MaxBackoffMS, max(DefaultMaxBackoffMS, c.Outbox.InitialBackoffMS))
	setNum(&c.Outbox.ExpirySec, DefaultOutboxExpirySec)
	defaultSecretary(&c.Secretary, tree)
	setStr(&c.UI.Theme, DefaultTheme)
	c.UI.Bell = boolAt(tree, true, "ui", "bell")
	c.UI.OSC9 = boolAt(tree, true, "ui", "osc9")
	setStr(&c.Logging.Level, DefaultLogLevel)
	setNum(&c.Logging.MaxSizeMB, 20)
	setNum(&c.Logging.MaxBackups, 3)
	setNum(&c.Retention.AuditDays, DefaultAuditDays)
	setNum(&c.Retention.TasksDays, DefaultRetentionDays)
	c.Retention.AutoPrune = boolAt(tree, true, "retention", "auto_prune")
	defaultTasks(c, tree)
}

func defaultNetwork(n *Network) {
	setStr(&n.ListenAddr, DefaultListenAddr)
	setNum(&n.DiscoveryIntervalSec, DefaultDiscoverySec)
	setNum(&n.OfflineAfterSec, DefaultOfflineAfterSec)
	setNum(&n.MaxBodyBytes, DefaultMaxBodyBytes)
	setNum(&n.RequestTimeoutSec, DefaultRequestTimeoutSec)
}

func defaultSecretary(s *Secretary, tree any) {
	s.InterruptControl.Enabled = boolAt(tree, true, "secretary", "interrupt_control", "enabled")
	if !present(tree, "secretary", "interrupt_control", "auto_respond_threshold") {
		s.InterruptControl.AutoRespondThreshold = DefaultThreshold
	}
	s.ContextMirroring.Enabled = boolAt(tree, true, "secretary", "context_mirroring", "enabled")
	setNum(&s.ContextMirroring.IndexIntervalSec, DefaultIndexIntervalSec)
	setNum(&s.ContextMirroring.RetentionDays, DefaultRetentionDays)
	setNum(&s.LLM.MaxTokens, 400)
}

func defaultTasks(c *Config, tree any) {
	for name, t := range c.Tasks {
		setNum(&t.TimeoutSec, DefaultTaskTimeoutSec)
		setStr(&t.Isolation, IsolationNone)
		if !present(tree, "tasks", name, "approval") {
			// A remote request to run something waits for the owner unless
			// the owner said otherwise.
			t.Approval.Required = true
		}
		c.Tasks[name] = t
	}
}

func setStr(p *string, def string) {
	if *p == "" {
		*p = def
	}
}

func setNum[T int | int64 | float64](p *T, def T) {
	if *p == 0 {
		*p = def
	}
}

// present reports whether the parsed file has a value at keys.
func present(tree any, keys ...string) bool {
	cur := tree
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return false
		}
		if cur, ok = m[k]; !ok {
			return false
		}
	}
	return true
}

// boolAt is the boolean at keys, or def when the file does not say.
func boolAt(tree any, def bool, keys ...string) bool {
	cur := tree
	for _, k := range keys {
		m, ok := cur.(map[string]any)
		if !ok {
			return def
		}
		if cur, ok = m[k]; !ok {
			return def
		}
	}
	b, ok := cur.(bool)
	if !ok {
		return def
	}
	return b
}
