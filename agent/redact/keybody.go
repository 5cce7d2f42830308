package redact

import (
	"bytes"
	"encoding/base64"
	"strings"
)

// This file holds what tells keyBodyRule's base64 runs that are no
// private key from those that may be: a certificate's or a public key's
// body, data encoded for a file or a test (a WebAssembly module, JSON,
// plain text), names glued into one identifier.

// publicBody reports whether the run at s[start:end] is the body of
// something public: a line of a PEM block whose BEGIN line names no
// private key (CERTIFICATE, PUBLIC KEY, PGP MESSAGE), a block whose first
// line is a certificate's or a public key's DER, or a URL's path after its
// host ("github.com/DragonFlyBSD/…" runs from "com/").
func publicBody(s string, start, end int) bool {
	return inPublicPEM(s, start) || publicDER(firstRunOfBlock(s, start)) || afterHostDot(s, start, end)
}

// inPublicPEM reports whether at falls inside a PEM block (its BEGIN line
// before at, no END line between) whose label holds no "PRIVATE".
func inPublicPEM(s string, at int) bool {
	const begin = "-----BEGIN "
	b := strings.LastIndex(s[:at], begin)
	if b < 0 || strings.Contains(s[b:at], "-----END ") {
		return false
	}
	label, _, ok := strings.Cut(s[b+len(begin):at], "-----")
	return ok && !strings.Contains(label, "\n") && !strings.Contains(label, "PRIVATE")
}

// maxBlockLines bounds how far firstRunOfBlock walks up a block (a
// certificate chain is some 30 lines a certificate).
const maxBlockLines = 200

// firstRunOfBlock returns the first base64 run of 40 characters or more on
// the first line of the block of such lines that at is in: where a DER
// structure's header is, when no BEGIN line names it (a certificate in
// an XML signature, a block pasted without its BEGIN line).
func firstRunOfBlock(s string, at int) string {
	ls := strings.LastIndexByte(s[:at], '\n') + 1
	for range maxBlockLines {
		if ls == 0 {
			break
		}
		prev := strings.LastIndexByte(s[:ls-1], '\n') + 1
		if !hasBase64Run(s[prev:ls-1], 40) {
			break
		}
		ls = prev
	}
	line := s[ls:]
	if i := strings.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	return firstBase64Run(line, 40)
}

// firstBase64Run returns the first run of at least n base64 characters in
// line, or "".
func firstBase64Run(line string, n int) string {
	run := 0
	for i := 0; i <= len(line); i++ {
		if i < len(line) && (isAlnum(line[i]) || line[i] == '+' || line[i] == '/') {
			run++
			continue
		}
		if run >= n {
			return line[i-run : i]
		}
		run = 0
	}
	return ""
}

// pbeOIDs are the DER of the password-based encryption schemes' object
// identifiers (PKCS #5, PKCS #12) that open an encrypted private key's
// body: a SEQUENCE within a SEQUENCE, as a certificate's is.
var pbeOIDs = [][]byte{
	{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x05},
	{0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x0c},
}

// publicDER reports whether run opens a DER structure that is public: a
// SEQUENCE whose first element is a SEQUENCE (a certificate's
// tbsCertificate, a public key's algorithm, a request's info). A private
// key's opens with an INTEGER, its version (PKCS #1, PKCS #8, SEC 1); an
// encrypted one's inner SEQUENCE names its encryption scheme.
func publicDER(run string) bool {
	var buf [30]byte
	b, i, ok := derOpening(run, &buf)
	if !ok || b[i] != 0x30 {
		return false
	}
	for _, oid := range pbeOIDs {
		if bytes.Contains(b, oid) {
			return false
		}
	}
	return true
}

// derOpening decodes the first 40 characters of a base64 run that opens
// a DER SEQUENCE into buf: the bytes, and where its first element starts
// in them (ok false when it is no SEQUENCE, or the element lies beyond
// them).
func derOpening(run string, buf *[30]byte) (b []byte, first int, ok bool) {
	if len(run) < 40 || run[0] != 'M' {
		return nil, 0, false
	}
	n, err := base64.StdEncoding.Decode(buf[:], []byte(run[:40]))
	b = buf[:n]
	if err != nil || b[0] != 0x30 {
		return nil, 0, false
	}
	first = 2
	if b[1]&0x80 != 0 {
		first += int(b[1] & 0x7f)
	}
	return b, first, first < len(b)
}

// privateDER reports whether run opens a private key's DER: a SEQUENCE
// whose first element is the INTEGER version 0 or 1 (PKCS #1, PKCS #8,
// SEC 1). Keys of fewer than 256 bytes (elliptic curves: "MIG2AgEA…",
// "MHcCAQEE…") open otherwise than "MII", and their first line, a fixed
// header and a few random characters, looks too little random to be
// taken by that alone: it was kept one time in a few.
func privateDER(run string) bool {
	var buf [30]byte
	b, i, ok := derOpening(run, &buf)
	return ok && i+2 < len(b) && b[i] == 0x02 && b[i+1] == 0x01 && b[i+2] <= 1
}

// afterHostDot reports whether the run s[start:end] continues a host's
// name into a URL's path: a dot before it, and a top-level domain then a
// slash at its start ("github.com/…" runs from "com/"), and no part of the
// path random-looking (a webhook's token: "hooks.slack.com/…/F6Vm03re…").
func afterHostDot(s string, start, end int) bool {
	if !hostBefore(s, start, end) {
		return false
	}
	for part := range strings.SplitSeq(s[start:end], "/") {
		if randomLooking(part) {
			return false
		}
	}
	return true
}

// hostBefore reports whether the run s[start:end] opens with a top-level
// domain and a slash after a dot.
func hostBefore(s string, start, end int) bool {
	if start == 0 || s[start-1] != '.' {
		return false
	}
	slash := strings.IndexByte(s[start:end], '/')
	if slash < 2 || slash > 6 {
		return false
	}
	for _, c := range []byte(s[start : start+slash]) {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

// publicMagic are the base64 openings of file formats a text embeds that
// hold no key: a WebAssembly module, PNG, GIF and JPEG images, gzip.
var publicMagic = []string{"AGFzbQ", "iVBORw0KGgo", "R0lGOD", "/9j/", "H4sI"}

// encodedSecretWords are the words that make text encoded in base64 a
// secret all the same (a service account's JSON names its private_key a
// few hundred bytes in).
var encodedSecretWords = [][]byte{[]byte("private"), []byte("auth"), []byte("passw"), []byte("secret"), []byte("token"),
	[]byte("credential"), []byte("service_account"), []byte("api_key"), []byte("apikey"), []byte("access_key"), []byte("-----begin")}

// maxDecodedCheck bounds how much of a run encodedData decodes.
const maxDecodedCheck = 4096

// encodedData reports whether the base64 run v is a file or text encoded
// for a test or a build rather than a key: it opens with a known file
// format's magic, or it decodes (its first maxDecodedCheck characters) to
// printable text that names no secret and holds no encoded run itself
// (JSON, a sentence: "ewogI…" is "{\n "). A PEM private key, a service
// account's JSON or a registry's credentials encoded again name theirs;
// base64 inside base64 (a key's body in an encoded JSON) is a run of its
// own; an OpenSSH key's opening decodes to text and a zero byte; a key's
// DER is binary.
func encodedData(v string) bool {
	for _, m := range publicMagic {
		if strings.HasPrefix(v, m) {
			return true
		}
	}
	if len(v) < 60 {
		return false
	}
	var src [60]byte
	var buf [45]byte
	var tail [16]byte // the end of the chunk before, for words and runs across chunks
	keep, run := 0, encodedRun{}
	end := min(len(v), maxDecodedCheck) &^ 3 // whole quanta of four characters
	for off := 0; off < end; off += 60 {
		n, err := base64.StdEncoding.Decode(buf[:], src[:copy(src[:], v[off:min(off+60, end)])])
		if err != nil {
			return false
		}
		var ok bool
		if run, ok = plainChunk(tail[:keep], buf[:n], run); !ok {
			return false
		}
		keep = copy(tail[:], buf[max(n-len(tail), 0):n])
	}
	return true
}

// encodedRun is a run of base64 characters in decoded text, carried from
// one chunk to the next: how long, and whether it holds a character that
// is no hex digit (a digest, hex alone, is no secret; a key's body is).
type encodedRun struct {
	n     int
	mixed bool
}

// plainChunk checks one decoded chunk of encodedData, with the end of the
// chunk before (prev) for a word across their edge: printable, no secret
// word, no run of 40 base64 characters but hex digits.
func plainChunk(prev, b []byte, run encodedRun) (encodedRun, bool) {
	var both [61]byte
	joined := append(both[:copy(both[:], prev)], b...)
	for i, c := range joined {
		if 'A' <= c && c <= 'Z' {
			joined[i] = c + 'a' - 'A'
		}
	}
	for _, w := range encodedSecretWords {
		if bytes.Contains(joined, w) {
			return run, false
		}
	}
	for _, c := range b {
		if (c < 0x20 || c > 0x7e) && c != '\n' && c != '\r' && c != '\t' {
			return run, false
		}
		if !isAlnum(c) && c != '+' && c != '/' {
			run = encodedRun{}
			continue
		}
		run.n++
		run.mixed = run.mixed || !isHexDigit(c)
		if run.n >= 40 && run.mixed {
			return run, false
		}
	}
	return run, true
}

// gluedNames reports whether v, 100 characters or more, is words glued
// into one identifier ("RuneCtrlACtrlBCtrlCCtrlD…", a generated enum's
// names): seven in ten of its characters are in words of three letters
// or more (Ctrl, Tab, backspace: a capital and two lower-case letters or
// more, or three lower-case ones). Random base64 has three in ten so; in
// a line as short as a PEM block's (64) chance makes seven often enough.
// (It counts byte by byte: keyBodyRule asks it about runs of kilobytes.)
func gluedNames(v string) bool {
	if len(v) < 100 {
		return false
	}
	covered := 0
	for i := 0; i < len(v); {
		j := i
		if 'A' <= v[j] && v[j] <= 'Z' {
			j++
		}
		k := j
		for k < len(v) && 'a' <= v[k] && v[k] <= 'z' {
			k++
		}
		switch {
		case k-j >= 2 && j > i, k-j >= 3:
			covered += k - i
			i = k
		default:
			i = max(k, i+1)
		}
	}
	return covered*10 >= len(v)*7
}
