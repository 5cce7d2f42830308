package redact

import (
	"fmt"
	"strings"
	"testing"
)

// Seed phrases of list words drawn at random (no wallet's), and BIP-0039's
// own first words.
var (
	seed12 = "place essay sketch board celery coral robot buffalo hospital basket clown task"
	seed24 = "stock cat kite common sun bundle disorder inch cabbage slam bonus illness blind during nephew story endorse detail over frame crumble gasp salt cradle"
	seed15 = "language clarify often word quit total nature century detect stock federal quality evidence where subject"
	first  = "abandon ability able about above absent absorb abstract absurd abuse access accident"
)

// TestSeedPhrases: 12 to 24 words of the BIP-0039 list in a row after a
// label, or alone on their line or in their string, are a wallet's seed
// phrase; prose, a run inside a sentence and a run with a word off the
// list stay.
func TestSeedPhrases(t *testing.T) {
	r := newRedactor(t)
	numbered := func(p, sep string) string {
		var b strings.Builder
		for i, w := range strings.Fields(p) {
			if i > 0 {
				b.WriteString(sep)
			}
			fmt.Fprintf(&b, "%d. %s", i+1, w)
		}
		return b.String()
	}
	redactsTo(t, r, map[string]string{
		"seed phrase: " + seed12:                                "seed phrase: [REDACTED:seed-phrase]",
		"Mnemonic: " + seed24 + " (keep offline)":               "Mnemonic: [REDACTED:seed-phrase] (keep offline)",
		"here it is:\n" + seed12 + "\nthanks":                   "here it is:\n[REDACTED:seed-phrase]\nthanks",
		first:                                                   "[REDACTED:seed-phrase]",
		"Recovery phrase:\n" + numbered(seed12, "\n"):           "Recovery phrase:\n1. [REDACTED:seed-phrase]",
		`{"mnemonic":"` + seed15 + `","path":"m/44'/60'/0'"}`:   `{"mnemonic":"[REDACTED:seed-phrase]","path":"m/44'/60'/0'"}`,
		"wallet words " + strings.ReplaceAll(seed12, " ", ", "): "wallet words [REDACTED:seed-phrase]",
		"my seed phrase " + seed12 + " is in the safe":          "my seed phrase [REDACTED:seed-phrase] is in the safe",
		"> " + seed24:                                           "> [REDACTED:seed-phrase]",
		"the backup:\n" + strings.ReplaceAll(seed24, " ", "\n"): "the backup:\n[REDACTED:seed-phrase]",
	})
	keepsAll(t, r, []string{
		"Please make sure the build passes before you merge this change into main today.",
		"we should seed the database with twelve users and then run the import job again tonight",
		"Note that we " + seed12 + " and more.", // inside a sentence, no label
		seed12 + " wagon",                       // 13 words alone: not a phrase's length
		strings.Replace(seed12, "robot", "robots", 1),
		"seed phrase: " + strings.Join(strings.Fields(seed12)[:11], " "), // 11 words
		"Place essay sketch board celery coral robot buffalo hospital basket clown task",
		"mnemonic_for_test_only, seed=42, the words are generated at runtime and never stored",
		"you have this one thing that they want more than money, really",
	})
}

// TestSeedPhraseSeparatorsAndJapaneseLabels: a seed phrase written with
// hyphens, commas or line breaks, numbered or bulleted, without a label,
// and one after a Japanese label (シードフレーズ, 復元フレーズは, ニーモニック：)
// is redacted (the re-check saw these kept); hyphenated prose stays.
func TestSeedPhraseSeparatorsAndJapaneseLabels(t *testing.T) {
	r := newRedactor(t)
	words := strings.Fields(seed12)
	numbered := func(format, sep string) string {
		var b strings.Builder
		for i, w := range words {
			if i > 0 {
				b.WriteString(sep)
			}
			fmt.Fprintf(&b, format, i+1, w)
		}
		return b.String()
	}
	redactsTo(t, r, map[string]string{
		"seed phrase: " + strings.Join(words, "-"): "seed phrase: [REDACTED:seed-phrase]",
		strings.Join(words, "-"):                   "[REDACTED:seed-phrase]",
		strings.Join(words, ", "):                  "[REDACTED:seed-phrase]",
		"backup:\n" + strings.Join(words, ",\n"):   "backup:\n[REDACTED:seed-phrase]",
		numbered("%d. %s", " "):                    "1. [REDACTED:seed-phrase]",
		"words:\n" + numbered("%d) %s", "\n"):      "words:\n1) [REDACTED:seed-phrase]",
		"- " + strings.Join(words, "\n- "):         "- [REDACTED:seed-phrase]",
		"シードフレーズ：" + seed12:                        "シードフレーズ：[REDACTED:seed-phrase]",
		"復元フレーズは " + seed12 + " です":                "復元フレーズは [REDACTED:seed-phrase] です",
		"ニーモニック：" + strings.Join(words, "、"):       "ニーモニック：[REDACTED:seed-phrase]",
		"リカバリーフレーズ\n" + numbered("%d. %s", "\n"):   "リカバリーフレーズ\n1. [REDACTED:seed-phrase]",
	})
	keepsAll(t, r, []string{
		"a state-of-the-art, easy-to-use, well-tested, battle-hardened, kid-friendly library",
		"We " + strings.Join(words, "-") + " today.",
		"1. Install it 2. Run it 3. Check the logs",
		"シードフレーズは紙に書いて保管してください",
	})
}
