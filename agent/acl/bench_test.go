package acl

import (
	"testing"
	"time"

	"github.com/aoi-protocol/aoi/config"
)

// BenchmarkCheckScope measures the check every aoi.query makes.
func BenchmarkCheckScope(b *testing.B) {
	clock := t0
	p := policy(b, false, &clock)
	scope := []string{"acme/webapp", "acme/webapp/src/auth.go", "acme/api"}
	b.ReportAllocs()
	for b.Loop() {
		if d, _ := p.CheckScope(tanaka, Read, scope); !d.Allowed {
			b.Fatal(d.Reason)
		}
	}
}

// BenchmarkCheckScopeEmpty is the common case: no scope, every context.
func BenchmarkCheckScopeEmpty(b *testing.B) {
	p := New(policyACL(), contexts(b.TempDir())[:2], time.Now)
	b.ReportAllocs()
	for b.Loop() {
		if d, _ := p.CheckScope(tanaka, Read, nil); !d.Allowed {
			b.Fatal(d.Reason)
		}
	}
}

func policyACL() config.ACL { return config.ACL{DefaultPermission: "none", Rules: rules()} }
