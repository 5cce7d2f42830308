package wire

import "testing"

func TestUncleanScope(t *testing.T) {
	for _, tc := range []struct {
		scope        []string
		entry, clean string
	}{
		{[]string{"acme/webapp", "acme/webapp/auth/jwt.go", "*", ""}, "", ""},
		{[]string{"acme/webapp", "acme//webapp"}, "acme//webapp", "acme/webapp"},
		{[]string{"acme/webapp/"}, "acme/webapp/", "acme/webapp"},
		{[]string{"./acme/webapp"}, "./acme/webapp", "acme/webapp"},
		{[]string{"/acme/webapp"}, "/acme/webapp", "acme/webapp"},
		{[]string{"acme/webapp/./auth"}, "acme/webapp/./auth", "acme/webapp/auth"},
		{[]string{"acme/payroll/x/../../payroll"}, "acme/payroll/x/../../payroll", "acme/payroll"},
		// The ACL refuses these in its own words.
		{[]string{"..", "../etc", "acme/../..", ".", "./", `acme\webapp`, "acme/\x00"}, "", ""},
	} {
		if entry, clean := UncleanScope(tc.scope); entry != tc.entry || clean != tc.clean {
			t.Errorf("UncleanScope(%q) = %q, %q; want %q, %q", tc.scope, entry, clean, tc.entry, tc.clean)
		}
	}
}

func TestCleanScope(t *testing.T) {
	got := CleanScope([]string{"acme//webapp", "./acme/webapp/auth/", "acme/webapp", "*", "../etc"})
	want := []string{"acme/webapp", "acme/webapp/auth", "acme/webapp", "*", "../etc"}
	if len(got) != len(want) {
		t.Fatalf("CleanScope = %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("CleanScope = %q, want %q", got, want)
			break
		}
	}
	if entry, _ := UncleanScope(got); entry != "" {
		t.Errorf("CleanScope left %q unclean", entry)
	}
}
