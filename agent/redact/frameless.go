package redact

import (
	"regexp"
	"strings"
)

// A frameless table splits its cells with "|" but has no "|" at either
// end of a line and no border under its header: sqlite3's and `psql -A`'s
// output ("user|password" over "alice|hunter2"), or notes aligned by hand
// ("user  | password" over "alice | hunter2"). Lines like these are also
// shell pipelines ("env | grep token" over "history | tail"), so the header
// and every row must read as a table's: each header cell a name of a word
// or three, and no cell, header or row, running a command the way a
// pipeline's stage does. Anything else ends the table, or is none.

// columnNameRE is a frameless header's cell: one to three words of
// letters and digits, starting with a letter ("user", "api_key", "db
// password", "パスワード"). A command's arguments ("-i", "$TOKEN",
// "~/.pw", "'x'") are not, nor a number (a row's id).
var columnNameRE = regexp.MustCompile(`^\p{L}[\p{L}\p{N}_.-]*(?: [\p{L}\p{N}][\p{L}\p{N}_.-]*){0,2}$`)

// pipelineCommands are what a pipeline's stages run most (filters,
// pagers, encoders, shells and interpreters, and echo/printf feeding
// them), and words a line of code or a script starts with: a cell whose
// first word is one, followed by arguments ("grep password", "sort -u"),
// is a pipeline's or a program's, not a table's. Alone, most of them
// may well be a table's value (a "mysql", "git" or "test" account).
var pipelineCommands = setOfWords(`grep egrep fgrep rg ag ack awk gawk mawk sed cut sort uniq head tail tr xargs tee wc less more cat tac
zcat bzcat xzcat jq yq base64 column nl fold fmt paste join comm diff rev od xxd hexdump strings gzip gunzip zstd bzip2 xz tar
bash sh zsh dash fish python python3 perl ruby node php lua openssl gpg xclip xsel pbcopy pbpaste nc netcat ssh scp curl wget
kubectl docker podman git go make sudo env printenv echo printf read while do done for if then else elif fi case esac return
ls find stat du df ps top kill pgrep pkill mysql psql sqlite3 iconv true false exec eval source test let local export set`)

// pipelineFilters are the commands a pipeline's last stages run without
// arguments ("env | sort", "history | tail", "curl … | sh"): alone in a
// cell, they are a stage too.
var pipelineFilters = setOfWords(`sort uniq head tail wc less more cat tac base64 jq yq column nl rev xxd od hexdump strings
gzip gunzip zcat bzip2 xz zstd bash sh zsh dash pbcopy pbpaste xclip xsel tee xargs tr cut fold fmt paste iconv`)

// framelessHeader reports whether line (folded) reads as a frameless
// table's header: two cells or more, each a column name, none a
// command, and the first line of its block: a line before it with "|"
// or a border makes it a row of another table (a bordered table's
// "64017 | qmailp | qmail pw" in base-passwd's README is no header of a
// "qmail pw" column).
func framelessHeader(before, line string) bool {
	if strings.IndexByte(before, '|') >= 0 || tableBorderRE.MatchString(before) {
		return false
	}
	if trimmed := strings.TrimSpace(line); strings.HasPrefix(trimmed, "|") || strings.HasSuffix(trimmed, "|") {
		return false
	}
	bounds := markdownCellBounds(line)
	if len(bounds) < 2 {
		return false
	}
	for _, b := range bounds {
		cell := strings.TrimSpace(line[b[0]:b[1]])
		if !columnNameRE.MatchString(cell) || runsCommand(cell) {
			return false
		}
	}
	return true
}

// framelessRow reports whether a line whose cells are bounds is a row of
// a frameless table of n columns: as many cells, none a command, each
// closing every bracket it opens. A "|" inside brackets is code's: a
// regular expression's alternation ("(on|off)"), a shell case's patterns
// ("*Makefile|*makefile)"), a POD link ("L<text|url>"), which split a line
// into cells that do not; so does an arrow ("=>"). A password with an
// unpaired bracket in a frameless table is missed: the price of leaving
// code alone.
func framelessRow(line string, bounds [][2]int, n int) bool {
	if len(bounds) != n {
		return false
	}
	for _, b := range bounds {
		cell := strings.TrimSpace(line[b[0]:b[1]])
		if runsCommand(cell) || !bracketsClose(cell) {
			return false
		}
	}
	return true
}

// openerOf maps a closing bracket to the one it closes.
var openerOf = map[byte]byte{')': '(', ']': '[', '}': '{', '>': '<'}

// bracketsClose reports whether every "(", "[", "{" and "<" in s is
// closed, in order, and nothing else is.
func bracketsClose(s string) bool {
	var open []byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '(', '[', '{', '<':
			open = append(open, c)
		case ')', ']', '}', '>':
			if len(open) == 0 || open[len(open)-1] != openerOf[c] {
				return false
			}
			open = open[:len(open)-1]
		}
	}
	return len(open) == 0
}

// runsCommand reports whether a cell runs a command as a pipeline's stage
// does: one of pipelineCommands with arguments ("grep password", "sort
// -u"), or one of pipelineFilters alone ("tail").
func runsCommand(cell string) bool {
	word, args, _ := strings.Cut(cell, " ")
	word = strings.ToLower(word)
	if strings.TrimSpace(args) == "" {
		return pipelineFilters[word]
	}
	return pipelineCommands[word]
}
