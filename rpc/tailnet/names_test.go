package tailnet_test

import (
	"strings"
	"testing"

	"github.com/aoi-protocol/aoi/rpc/tailnet"
)

func TestHostname(t *testing.T) {
	long := strings.Repeat("x", 80)
	for _, tc := range []struct{ id, want string }{
		{"eng-suzuki", "aoi-eng-suzuki"},
		{"Eng_Suzuki", "aoi-eng-suzuki"},
		{"pm.tanaka@corp", "aoi-pm-tanaka-corp"},
		{"--a  b--", "aoi-a-b"},
		{long, "aoi-" + long[:59]},
	} {
		if got := tailnet.Hostname(tc.id); got != tc.want {
			t.Errorf("Hostname(%q) = %q; want %q", tc.id, got, tc.want)
		}
	}
	if a, b := tailnet.Hostname("田中"), tailnet.Hostname("鈴木"); a == b || !strings.HasPrefix(a, "aoi-") || len(a) != len("aoi-")+8 {
		t.Errorf("non-ASCII ids map to %q and %q; want distinct aoi-<hash> names", a, b)
	}
	if !(tailnet.Peer{HostName: "aoi-eng-suzuki"}).LooksLikeAOI() || (tailnet.Peer{HostName: "laptop"}).LooksLikeAOI() {
		t.Error("LooksLikeAOI does not go by the aoi- prefix")
	}
}
