package redact

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// The rules below catch a secret in a table whose header names its
// column: a markdown table ("| user | password |", its "|---|---|" line,
// then the rows; without that line when the header and rows are framed
// by "|", or unframed ones that read as a table: frameless.go), psql's
// and mysql's ("-----+-----" under the header, or "+----+----+" borders
// around it, in ASCII or drawn with box-drawing characters: psql's "│"
// and "─┼─", boxes of "┌─┬─┐") or CSV ("user,password" then "admin,…";
// tabs and semicolons separate too). Only that column's cells are
// redacted; the other columns (the user) stay. A row names no secret
// itself, so no rule on the value's own line sees it.

// tablePasswordRule is a table's password column.
var tablePasswordRule = rule{
	id:   "password",
	find: func(t *text) [][]int { return tableColumnCells(t, passwordColumnRE) },
	may: func(t *text) bool {
		return (t.has("pass") || t.has("pw") || t.hasRaw("パスワード") || t.hasRaw("ﾊﾟｽﾜｰﾄﾞ") || t.hasRaw("暗証番号") || t.hasRaw("密") ||
			t.hasRaw("비밀번호") || t.has("wort") || t.has("contrase") || t.has("senha") || t.has("wachtwoord") || t.hasRaw("пароль")) && mayHoldTable(t)
	},
	secretish: func(v string) bool {
		return (madeNotWritten(v) || passphraseLike(v) || shortMade(v) || spacedPassphrase(v)) && notAVariable(v) && !techNameRE.MatchString(v)
	},
}

// tableSecretRule is a table's token, secret or API key column. It
// gives way to a named rule (a ghp_… cell is github-pat).
var tableSecretRule = rule{
	id:   "generic-secret",
	find: func(t *text) [][]int { return tableColumnCells(t, secretColumnRE) },
	may: func(t *text) bool {
		return (t.has("secret") || t.has("token") || t.has("key") || t.has("credential") || mayHoldJASecret(t)) && mayHoldTable(t)
	},
	secretish: func(v string) bool { return madeNotNamed(v) || spacedPassphrase(v) },
	fallback:  true,
}

// passwordColumnRE and secretColumnRE are a header cell (trimmed, lower
// case, emphasis removed) naming a password or another secret, perhaps
// after a word or two ("db password", "GitHub token"). A plural ("tokens",
// an LLM's count) or a word after the name ("password policy", "token
// type") names no secret column.
var (
	passwordColumnRE = regexp.MustCompile(`^(?:[a-z0-9]+[ _.-]){0,2}(?:password|passwd|pwd|pw|pass|pass ?phrase|passcode|` +
		`パスワード|ﾊﾟｽﾜｰﾄﾞ|暗証番号|密码|密碼|비밀번호|passwort|kennwort|contraseña|contrasena|mot de passe|senha|wachtwoord|пароль)$`)
	secretColumnRE = regexp.MustCompile(`^(?:[a-z0-9]+[ _.-]){0,2}(?:secret|token|api[ _-]?key|apikey|credentials?|(?:secret|access|private|signing|encryption|master)[ _-]?key|` +
		`トークン|アクセストークン|api ?キー|ａｐｉキー|シークレット|秘密鍵|認証情報)$`)
)

// mayHoldTable is the table rules' prefilter: a table has two lines and
// a separator.
func mayHoldTable(t *text) bool {
	return strings.IndexByte(t.raw, '\n') >= 0 && (holdsCellSeparator(t.raw) || holdsBoxDrawing(t.raw))
}

// holdsBoxDrawing reports whether s holds a character of Unicode's Box
// Drawing block (U+2500–U+257F: E2 94 80 to E2 95 BF in UTF-8).
func holdsBoxDrawing(s string) bool {
	return strings.Contains(s, "\xe2\x94") || strings.Contains(s, "\xe2\x95")
}

// asciiBoxes writes a table drawn with box-drawing characters in ASCII,
// each character as three bytes so that every offset stays: a vertical
// line ("│", "║") as "|", a horizontal one ("─", "═") as "-", a corner or
// a crossing ("┼", "├", "┌") as "+", the rest of the three as spaces or
// dashes. Text outside the block stays as it is.
func asciiBoxes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] != 0xe2 || (b[i+1] != 0x94 && b[i+1] != 0x95) {
			continue
		}
		r, _ := utf8.DecodeRune(b[i:])
		switch boxShape(r) {
		case '|':
			copy(b[i:], "|  ")
		case '-':
			copy(b[i:], "---")
		case '+':
			copy(b[i:], "+--")
		default:
			continue
		}
		i += 2
	}
	return string(b)
}

// boxShape is what a box-drawing character draws: '|' a vertical line,
// '-' a horizontal one, '+' a corner, a T or a crossing; 0 for the rest
// (arcs, diagonals, half lines).
func boxShape(r rune) byte {
	switch r {
	case '│', '┃', '║', '╎', '╏', '┆', '┇', '┊', '┋':
		return '|'
	case '─', '━', '═', '╌', '╍', '┄', '┅', '┈', '┉':
		return '-'
	}
	if r >= 0x250c && r <= 0x254b || r >= 0x2552 && r <= 0x256c {
		return '+' // the corners, Ts and crossings, light, heavy and double
	}
	return 0
}

// holdsCellSeparator is strings.ContainsAny(s, "|,\t;"), faster: one
// vectorised search a byte.
func holdsCellSeparator(s string) bool {
	return strings.IndexByte(s, '|') >= 0 || strings.IndexByte(s, ',') >= 0 ||
		strings.IndexByte(s, '\t') >= 0 || strings.IndexByte(s, ';') >= 0
}

// tableColumnCells returns, for each table in t whose header has a cell
// name accepts, the match of each row's cell in that column: the whole
// cell, then the value (the cell trimmed, and unquoted).
func tableColumnCells(t *text, name *regexp.Regexp) [][]int {
	if holdsBoxDrawing(t.raw) {
		t = newText(asciiBoxes(t.raw)) // same offsets, so the cells found map back
	}
	s := t.raw
	var out [][]int
	for start := 0; start < len(s); {
		end := strings.IndexByte(s[start:], '\n')
		if end < 0 {
			break // a header with no row after it
		}
		end += start
		next := end + 1
		if line := s[start:end]; holdsCellSeparator(line) {
			if len(t.folded) == len(s) {
				line = t.folded[start:end] // folding kept the offsets
			} else {
				line, _ = foldASCII(line)
			}
			if cols := headerColumns(line, name); cols != nil {
				var rows [][]int
				if strings.IndexByte(line, '|') >= 0 {
					rows, next = markdownRows(s, lineBefore(s, start), line, end+1, cols)
				} else {
					rows, next = csvRows(s, s[start:end], end+1, cols)
				}
				out = append(out, rows...)
				next = max(next, end+1)
			}
		}
		start = next
	}
	return out
}

// columnNameHints is text one of the column names holds: a line without
// any is no header of theirs.
var columnNameHints = []string{"pass", "pw", "secret", "token", "key", "credential", "wort", "contrase", "senha", "wachtwoord", "mot de passe",
	"пароль", "パスワード", "ﾊﾟｽﾜｰﾄﾞ", "暗証番号", "密", "비밀번호", "トークン", "キー", "シークレット", "秘密鍵", "認証情報"}

// headerColumns returns the indexes of line's cells that name accepts,
// when line is a table's header (cells split by "|", or else by the
// first of ",", tab and ";" it holds); line is folded (foldASCII).
func headerColumns(line string, name *regexp.Regexp) []int {
	if !slices.ContainsFunc(columnNameHints, func(h string) bool { return strings.Contains(line, h) }) {
		return nil
	}
	var cells []string
	if strings.IndexByte(line, '|') >= 0 {
		cells = markdownCells(line)
	} else if sep := csvSeparator(line); sep != 0 {
		cells = csvCells(line, sep)
	}
	if len(cells) < 2 {
		return nil
	}
	var cols []int
	for i, c := range cells {
		c = strings.TrimSpace(strings.Trim(strings.TrimSpace(c), "*_`\"'"))
		if len(c) > 40 || strings.Count(c, " ") > 2 {
			return nil // a sentence, not a header
		}
		if name.MatchString(c) {
			cols = append(cols, i)
		}
	}
	return cols
}

// tableBorderRE is the line under a table's header: markdown's
// "|---|:---:|", psql's "-----+-----", a box's "+----+----+" or
// "+====+====+".
var tableBorderRE = regexp.MustCompile(`^[ \t]*[|+]?(?:[ \t]*:?[-=]+:?[ \t]*[|+])+(?:[ \t]*:?[-=]+:?[ \t]*)?\r?$`)

// markdownRows returns the cells in cols of the rows of a table drawn
// with "|" whose header line is header and whose next line starts at
// from, and where the table ends. A border follows the header
// (tableBorderRE), or, when the header is framed by "|" on both sides,
// the rows do, each framed too and with as many cells: "| a | b |" over
// "| c | d |" is a table. "a | b" over "c | d" may be two shell
// pipelines: it is a table only when the header and each row read as a
// frameless table's (framelessHeader, framelessRow); before is the line
// before the header. A box's closing border has no "|" and ends it.
func markdownRows(s, before, header string, from int, cols []int) ([][]int, int) {
	line, next := lineAt(s, from)
	isRow := func(string, [][2]int) bool { return true } // the border said it is a table
	if !tableBorderRE.MatchString(line) {
		n := len(markdownCellBounds(header))
		switch {
		case framedRow(header):
			isRow = func(line string, bounds [][2]int) bool { return framedRow(line) && len(bounds) == n }
		case framelessHeader(before, header):
			isRow = func(line string, bounds [][2]int) bool { return framelessRow(line, bounds, n) }
		default:
			return nil, from
		}
		next = from
	}
	var out [][]int
	for pos := next; pos < len(s); {
		line, next := lineAt(s, pos)
		if strings.IndexByte(line, '|') < 0 || strings.TrimSpace(line) == "" {
			return out, pos
		}
		bounds := markdownCellBounds(line)
		if !isRow(line, bounds) {
			return out, pos
		}
		out = append(out, cellSpans(s, pos, bounds, cols)...)
		pos = next
	}
	return out, len(s)
}

// framedRow reports whether line starts and ends with "|" (spaces
// aside).
func framedRow(line string) bool {
	line = strings.TrimSpace(line)
	return len(line) >= 2 && line[0] == '|' && line[len(line)-1] == '|'
}

// csvRows returns the cells in cols of the CSV rows from from on that
// have as many fields as header, and where they end.
func csvRows(s, header string, from int, cols []int) ([][]int, int) {
	sep := csvSeparator(strings.ToLower(header))
	n := len(csvCells(header, sep))
	var out [][]int
	for pos := from; pos < len(s); {
		line, next := lineAt(s, pos)
		bounds := csvCellBounds(line, sep)
		if len(bounds) != n || strings.TrimSpace(line) == "" {
			return out, pos
		}
		out = append(out, cellSpans(s, pos, bounds, cols)...)
		pos = next
	}
	return out, len(s)
}

// cellSpans turns the bounds of a row's cells (offsets in the line at
// pos) into matches for the cells in cols: the cell, then its value. A
// value with spaces is a note ("see the vault") unless it is a
// passphrase of words (spacedPassphrase).
func cellSpans(s string, pos int, bounds [][2]int, cols []int) [][]int {
	var out [][]int
	for _, c := range cols {
		if c >= len(bounds) {
			continue
		}
		a, b := pos+bounds[c][0], pos+bounds[c][1]
		va, vb := cellValue(s, a, b)
		v := s[va:vb]
		if vb > va && (!strings.ContainsAny(v, " \t") || spacedPassphrase(v)) && utf8.RuneCountInString(v) >= 4 {
			out = append(out, []int{a, b, va, vb})
		}
	}
	return out
}

// cellValue trims a cell's spaces and, when it is quoted whole ("…",
// '…', `…`), its quotes.
func cellValue(s string, a, b int) (int, int) {
	for a < b && (s[a] == ' ' || s[a] == '\t') {
		a++
	}
	for b > a && (s[b-1] == ' ' || s[b-1] == '\t' || s[b-1] == '\r') {
		b--
	}
	if b-a >= 2 && (s[a] == '"' || s[a] == '\'' || s[a] == '`') && s[b-1] == s[a] {
		a, b = a+1, b-1
	}
	return a, b
}

// lineBefore returns the line that ends just before the line starting
// at pos ("" for the first line).
func lineBefore(s string, pos int) string {
	if pos == 0 {
		return ""
	}
	return s[strings.LastIndexByte(s[:pos-1], '\n')+1 : pos-1]
}

// lineAt returns the line starting at pos (without its "\n") and where
// the next one starts.
func lineAt(s string, pos int) (string, int) {
	end := strings.IndexByte(s[pos:], '\n')
	if end < 0 {
		return s[pos:], len(s)
	}
	return s[pos : pos+end], pos + end + 1
}

// markdownCells splits a markdown table line into its cells.
func markdownCells(line string) []string {
	var cells []string
	for _, b := range markdownCellBounds(line) {
		cells = append(cells, line[b[0]:b[1]])
	}
	return cells
}

// markdownCellBounds are the offsets of a markdown table line's cells,
// between "|"s (an escaped "\|" is in a cell); the line's leading and
// trailing "|" open and close it.
func markdownCellBounds(line string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(line); i++ {
		if line[i] == '|' && (i == 0 || line[i-1] != '\\') {
			out = append(out, [2]int{start, i})
			start = i + 1
		}
	}
	out = append(out, [2]int{start, len(line)})
	if strings.TrimSpace(line[out[0][0]:out[0][1]]) == "" {
		out = out[1:]
	}
	if n := len(out); n > 0 && strings.TrimSpace(line[out[n-1][0]:out[n-1][1]]) == "" {
		out = out[:n-1]
	}
	return out
}

// csvSeparator is the first of ",", tab and ";" line holds, or 0.
func csvSeparator(line string) byte {
	i := strings.IndexAny(line, ",\t;")
	if i < 0 {
		return 0
	}
	return line[i]
}

// csvCells splits a CSV line into its fields.
func csvCells(line string, sep byte) []string {
	var cells []string
	for _, b := range csvCellBounds(line, sep) {
		cells = append(cells, line[b[0]:b[1]])
	}
	return cells
}

// csvCellBounds are the offsets of a CSV line's fields: split at sep
// outside double quotes.
func csvCellBounds(line string, sep byte) [][2]int {
	var out [][2]int
	start, quoted := 0, false
	for i := 0; i < len(line); i++ {
		switch line[i] {
		case '"':
			quoted = !quoted
		case sep:
			if !quoted {
				out = append(out, [2]int{start, i})
				start = i + 1
			}
		}
	}
	return append(out, [2]int{start, len(line)})
}
