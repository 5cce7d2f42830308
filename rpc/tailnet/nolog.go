package tailnet

import (
	"sync"

	"tailscale.com/envknob"
	"tailscale.com/logtail"
)

var disableLogsOnce sync.Once

// disableLogUpload stops tsnet from sending logs to Tailscale's log service
// (log.tailscale.com). In tailscale.com v1.102.5, tsnet.Server.start always
// builds a logtail.Logger outside tests (startLogger) whatever Logf is set
// to, and ships every backend log line to logtail.DefaultHost. Two
// process-wide switches, applied before any node starts, turn that off:
//
//   - logtail.Disable(): every Logger drops entries in sendLocked before
//     they reach the upload buffer, so nothing is queued or sent.
//   - envknob.SetNoLogsNoSupport() (TS_NO_LOGS_NO_SUPPORT=true): the logtail
//     HTTP transport becomes a no-op (logpolicy.TransportOptions.New), the
//     network flow logger stays off (feature/netlog), and the node tells
//     the control server it opted out (Hostinfo.NoLogsNoSupport).
//
// Both are one-way for the process, which is fine: aoi never uploads logs.
// TestNoLogUpload checks both.
func disableLogUpload() {
	disableLogsOnce.Do(func() {
		logtail.Disable()
		envknob.SetNoLogsNoSupport()
	})
}
