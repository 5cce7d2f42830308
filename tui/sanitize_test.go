package tui

import (
	"strings"
	"testing"
)

func TestSanitize(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"plain", "auth progress?", "auth progress?"},
		{"osc52 bel", "a\x1b]52;c;ZXZpbA==\x07b", "ab"},
		{"osc52 st", "a\x1b]52;c;ZXZpbA==\x1b\\b", "ab"},
		{"osc8 link", "\x1b]8;;http://evil\x07click\x1b]8;;\x07", "click"},
		{"clear screen", "x\x1b[2Jy", "xy"},
		{"sgr", "\x1b[31;1mred\x1b[0m", "red"},
		{"csi private", "\x1b[?1049hz", "z"},
		{"dcs", "a\x1bPq#0;2;0;0;0\x1b\\b", "ab"},
		{"apc", "a\x1b_Gf=100;AAAA\x1b\\b", "ab"},
		{"pm sos", "a\x1b^pm\x1b\\b\x1bXsos\x1b\\c", "abc"},
		{"two byte esc", "a\x1bcb\x1b(Bc\x1b7d", "abcd"},
		{"unterminated osc", "a\x1b]0;title", "a"},
		{"trailing esc", "a\x1b", "a"},
		{"c1 csi", "a\u009b2Jb", "ab"},
		{"c1 osc", "a\u009d52;c;eA==\u009cb", "ab"},
		{"c1 single", "a\u0085b", "ab"},
		{"cr", "done\rFAKE", "doneFAKE"},
		{"crlf", "one\r\ntwo", "one two"},
		{"tab", "a\tb", "a    b"},
		{"bell", "a\x07b", "a␇b"},
		{"nul del", "a\x00b\x7f", "a␀b␡"},
		{"bidi override", "abc\u202eevil\u202c", "abcevil"},
		{"bidi isolates", "\u2066x\u2067y\u2068z\u2069", "xyz"},
		{"marks and zero width", "a\u200eb\u200fc\u200bd\ufeffe\u2060f\u061cg", "abcdefg"},
		{"emoji joiner kept", "👩\u200d💻", "👩\u200d💻"},
		{"cjk kept", "認証の進捗", "認証の進捗"},
		{"invalid utf8", "a\xffb", "a\ufffdb"},
		{"line separator", "a\u2028b", "a b"},
		{"csi then utf8", "\x1b[é", "é"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Sanitize(c.in); got != c.want {
				t.Errorf("Sanitize(%q) = %q; want %q", c.in, got, c.want)
			}
		})
	}
}

func TestSanitizeMultilineKeepsNewlines(t *testing.T) {
	got := SanitizeMultiline("line one\r\n\x1b[2Jline two\n\u202eend")
	if got != "line one\nline two\nend" {
		t.Errorf("got %q", got)
	}
}

// FuzzSanitize checks the invariant: nothing that a terminal would act on
// survives, whatever the input.
func FuzzSanitize(f *testing.F) {
	for _, s := range []string{"\x1b]52;c;ZXZpbA==\x07", "\x1b[2J", "\r", "\u202e", "\u009b31m", "a\x1bP\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		for _, out := range []string{Sanitize(in), SanitizeMultiline(in)} {
			if strings.ContainsAny(out, "\x1b\r\x07\x00\u009b\u009d\u009c\u202e\u2066") {
				t.Fatalf("Sanitize(%q) = %q still holds a control", in, out)
			}
			for _, r := range out {
				if r < 0x20 && r != '\n' || r >= 0x7f && r <= 0x9f {
					t.Fatalf("Sanitize(%q) = %q holds control %U", in, out, r)
				}
			}
		}
		if strings.Contains(Sanitize(in), "\n") {
			t.Fatalf("single-line Sanitize kept a newline")
		}
	})
}

// TestQuoteHiddenShowsWhatRuns: the attack run's approval argument, with a
// bidi override and a C1 control, is shown with both escaped instead of
// looking like "wbC1"; an ordinary value is left as it is.
func TestQuoteHiddenShowsWhatRuns(t *testing.T) {
	if got, want := QuoteHidden("w\u202eb\u009b31mC1"), `"w\u202eb\u009b31mC1"`; got != want {
		t.Errorf("QuoteHidden = %s, want %s", got, want)
	}
	for _, plain := range []string{"TestAuth", "認証 テスト", "a b"} {
		if got := QuoteHidden(plain); got != plain {
			t.Errorf("QuoteHidden(%q) = %q, want it unchanged", plain, got)
		}
	}
	if got := argvText([]string{"echo", "w\u202eb"}); got != `echo "w\u202eb"` {
		t.Errorf("argvText = %s", got)
	}
	if got := Sanitize(paramsText(map[string]string{"msg": "w\u202eb"})); got != `msg="w\u202eb"` {
		t.Errorf("paramsText through Sanitize = %s", got)
	}
}
