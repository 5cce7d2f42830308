package fold

import "testing"

func TestContainsASCII(t *testing.T) {
	for _, c := range []struct {
		s, sub string
		want   bool
	}{
		{"Authorization: Bearer x", "bearer", true},
		{"AWS_SECRET", "aws", true},
		{"aw", "aws", false},
		{"", "", true},
		{"tskey", "tskey-", false},
		{"ｂearer", "bearer", false}, // a full-width letter is not folded
		{"key=SK-123", "sk-", true},
	} {
		if got := ContainsASCII(c.s, c.sub); got != c.want {
			t.Errorf("ContainsASCII(%q, %q) = %v, want %v", c.s, c.sub, got, c.want)
		}
	}
}
