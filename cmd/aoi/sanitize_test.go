package main

import "testing"

func TestSanitize(t *testing.T) {
	cases := []struct {
		name, in, line, text string
	}{
		{"plain", "JWT done 75%", "JWT done 75%", "JWT done 75%"},
		{"japanese", "認証機能の進捗", "認証機能の進捗", "認証機能の進捗"},
		{"csi colour", "\x1b[31mred\x1b[0m", "red", "red"},
		{"csi clear screen", "a\x1b[2J\x1b[Hb", "ab", "ab"},
		{"osc 52 clipboard (BEL)", "x\x1b]52;c;aGVsbG8=\x07y", "xy", "xy"},
		{"osc title (ST)", "x\x1b]0;pwned\x1b\\y", "xy", "xy"},
		{"dcs", "x\x1bPq#0;2;0;0;0\x1b\\y", "xy", "xy"},
		{"8-bit csi", "x\u009b31my", "xy", "xy"},
		{"8-bit osc", "x\u009d52;c;aGk=\u009cy", "xy", "xy"},
		{"two-byte esc", "x\x1bcy", "xy", "xy"},
		{"unterminated osc", "x\x1b]52;c;aGk=", "x", "x"},
		{"bell and backspace", "a\x07b\x08c", "abc", "abc"},
		{"carriage return", "safe\rEVIL", "safeEVIL", "safeEVIL"},
		{"newlines and tabs", "a\nb\tc", "a b c", "a\nb\tc"},
		{"bidi override", "abc\u202edcba", "abcdcba", "abcdcba"},
		{"invalid utf-8", "a\xffb", "a\uFFFDb", "a\uFFFDb"},
		{"del", "a\x7fb", "ab", "ab"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := sanitize(tc.in, false); got != tc.line {
				t.Errorf("line: got %q, want %q", got, tc.line)
			}
			if got := sanitize(tc.in, true); got != tc.text {
				t.Errorf("text: got %q, want %q", got, tc.text)
			}
		})
	}
}

func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"plain", "\x1b[31mx", "\x1b]52;c;aGk=\x07", "\u009b1m", "a\nb", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, keep := range []bool{false, true} {
			out := sanitize(s, keep)
			for _, r := range out {
				if r == 0x1b || r == 0x9b || r == 0x9d || r == '\r' || r == 0x07 || (!keep && r == '\n') {
					t.Fatalf("sanitize(%q, %v) = %q still holds %U", s, keep, out, r)
				}
			}
		}
	})
}
