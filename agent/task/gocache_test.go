package task

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The task's Go cache program reads the owner's cache and writes the
// peer's: a get the peer's cache lacks is served where the owner's entry
// lies, a put lands in the peer's cache only, and a get of it then hits
// there; nothing in the owner's cache changes.
func TestGoCacheReadsTheOwnersAndWritesThePeers(t *testing.T) {
	owners, peers := t.TempDir(), t.TempDir()
	ownerAction, ownerOutput := bytes.Repeat([]byte{0xa1}, 32), bytes.Repeat([]byte{0xb2}, 32)
	if _, err := writeGoCacheEntry(owners, ownerAction, ownerOutput, []byte("owner's object")); err != nil {
		t.Fatal(err)
	}
	before := listTree(t, owners)
	peerAction, peerOutput := bytes.Repeat([]byte{0xc3}, 32), bytes.Repeat([]byte{0xd4}, 32)
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	_ = enc.Encode(goCacheRequest{ID: 1, Command: "get", ActionID: ownerAction})
	_ = enc.Encode(goCacheRequest{ID: 2, Command: "put", ActionID: peerAction, OutputID: peerOutput, BodySize: 5})
	in.WriteString(`"` + base64.StdEncoding.EncodeToString([]byte("built")) + "\"\n")
	_ = enc.Encode(goCacheRequest{ID: 3, Command: "get", ActionID: peerAction})
	_ = enc.Encode(goCacheRequest{ID: 4, Command: "get", ActionID: bytes.Repeat([]byte{0xee}, 32)})
	_ = enc.Encode(goCacheRequest{ID: 5, Command: "close"})
	var out bytes.Buffer
	if err := serveGoCache(&in, &out, owners, peers); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(&out)
	var res []goCacheResponse
	for {
		var r goCacheResponse
		if dec.Decode(&r) != nil {
			break
		}
		res = append(res, r)
	}
	if len(res) != 6 || len(res[0].KnownCommands) != 3 {
		t.Fatalf("responses %+v; want the commands then five answers", res)
	}
	if r := res[1]; r.Miss || r.DiskPath != goCacheFile(owners, ownerOutput, "d") || r.Size != int64(len("owner's object")) {
		t.Errorf("get of the owner's entry: %+v; want it served from the owner's cache", r)
	}
	if r := res[2]; r.Err != "" || !strings.HasPrefix(r.DiskPath, peers) {
		t.Errorf("put: %+v; want it stored in the peer's cache", r)
	}
	if body, _ := os.ReadFile(res[2].DiskPath); string(body) != "built" {
		t.Errorf("the put stored %q", body)
	}
	if r := res[3]; r.Miss || r.DiskPath != res[2].DiskPath {
		t.Errorf("get of the peer's put: %+v; want a hit in the peer's cache", r)
	}
	if !res[4].Miss {
		t.Errorf("get of an unknown action: %+v; want a miss", res[4])
	}
	if after := listTree(t, owners); after != before {
		t.Errorf("the owner's cache changed:\n%s\nbecame\n%s", before, after)
	}
}

// listTree lists dir's files with their sizes.
func listTree(t *testing.T, dir string) string {
	var b strings.Builder
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			info, _ := d.Info()
			b.WriteString(p + " " + info.ModTime().String() + "\n")
		}
		return nil
	})
	return b.String()
}

// GOCACHEPROG names this binary with its arguments quoted for the go
// command's splitting; a binary gone since aoi started (replaced by an
// upgrade, its old file deleted) is not named, or every go command of
// the task would fail to start it.
func TestGoCacheProgNamesOnlyABinaryThatIsThere(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "it's here")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "aoi")
	if err := os.WriteFile(exe, []byte("#!/bin/sh\n"), 0o700); err != nil {
		t.Fatal(err)
	}
	want := `"` + exe + `" '` + goCacheArg + `' '/owner/go-build' '/peer/go-build'`
	if got := goCacheProgOf(exe, "/owner/go-build", "/peer/go-build"); got != want {
		t.Errorf("GOCACHEPROG = %s; want %s", got, want)
	}
	if got := goCacheProgOf(exe+" (deleted)", "/owner/go-build", "/peer/go-build"); got != "" {
		t.Errorf("GOCACHEPROG for a deleted binary = %s; want none", got)
	}
}
