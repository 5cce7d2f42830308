package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/agent"
)

// TestPrintRetrySaysWhatBecameOfTheTry: `aoi outbox retry` names the
// entry and says, in words, whether it went, was given up, was kept back
// (and why), or still waits.
func TestPrintRetrySaysWhatBecameOfTheTry(t *testing.T) {
	entry := agent.OutboxEntry{ID: "n-1", To: "pm-tanaka", What: "answer"}
	cases := []struct {
		res  agent.OutboxRetryResult
		want string
	}{
		{agent.OutboxRetryResult{Entry: entry, Delivered: true}, "delivered the answer n-1 to pm-tanaka"},
		{agent.OutboxRetryResult{Entry: entry, Expired: true}, "the answer n-1 to pm-tanaka expired before pm-tanaka took it"},
		{agent.OutboxRetryResult{Entry: entry, Withheld: true, Error: "pm-tanaka may no longer read acme/webapp/auth/"},
			"the answer n-1 to pm-tanaka was kept back, not sent: pm-tanaka may no longer read acme/webapp/auth/"},
		{agent.OutboxRetryResult{Entry: entry, Error: "nothing is listening there"}, "the answer n-1 to pm-tanaka still waits: nothing is listening there"},
	}
	for _, c := range cases {
		var b bytes.Buffer
		printRetry(&b, c.res)
		if !strings.Contains(b.String(), c.want) {
			t.Errorf("printRetry(%+v) = %q; want it to say %q", c.res, b.String(), c.want)
		}
	}
}
