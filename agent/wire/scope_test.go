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
