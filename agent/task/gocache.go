package task

import (
	"bufio"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// A peer's own Go build cache (peerCacheVars) starts cold: its first
// `go test` builds the standard library and every dependency again, a
// minute of CPU on a small machine. So a task's go command gets this
// binary as its cache program (GOCACHEPROG, Go 1.24 and later): it reads
// the owner's build cache and writes only the peer's. An entry the peer's
// cache lacks is served from the owner's, read where it lies (the go
// command only reads the files a cache program names); everything the
// task's builds put goes to the peer's. Nothing the task's go command does
// writes the owner's cache, and the owner's builds never read the peer's.

// goCacheArg is argv[1] of this binary started as a task's Go cache
// program; argv[2] and argv[3] are the owner's and the peer's caches.
const goCacheArg = "aoi-task-go-cache"

// serveGoCacheIfAsked runs this process as a task's Go cache program when
// it was started as one, and exits.
func serveGoCacheIfAsked() {
	if len(os.Args) == 4 && os.Args[1] == goCacheArg {
		if err := serveGoCache(os.Stdin, os.Stdout, os.Args[2], os.Args[3]); err != nil {
			fmt.Fprintln(os.Stderr, "aoi: task go cache:", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
}

// goCacheProg is the GOCACHEPROG value that starts this binary as the
// cache program over the owner's cache and the peer's, or "" when it
// cannot be written (the go command splits it at spaces, honouring one
// kind of quotes around each field).
func goCacheProg(owners, peers string) string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return goCacheProgOf(exe, owners, peers)
}

// goCacheProgOf is goCacheProg for the binary exe.
func goCacheProgOf(exe, owners, peers string) string {
	if owners == "" {
		return ""
	}
	// Replaced since aoi started (an upgrade), the file is gone; its new
	// version at the same path serves as well. With none, every go command
	// of the task would fail to start its cache program: go without one.
	if info, err := os.Stat(exe); err != nil || !info.Mode().IsRegular() {
		return ""
	}
	fields := []string{exe, goCacheArg, owners, peers}
	for i, f := range fields {
		switch {
		case !strings.ContainsAny(f, "'"):
			fields[i] = "'" + f + "'"
		case !strings.ContainsAny(f, `"`):
			fields[i] = `"` + f + `"`
		default:
			return ""
		}
	}
	return strings.Join(fields, " ")
}

// ownersGoCache is the build cache the owner's go command uses, as far as
// aoi's environment tells.
func ownersGoCache() string {
	if dir := os.Getenv("GOCACHE"); filepath.IsAbs(dir) {
		return dir
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "go-build")
	}
	return ""
}

// goCacheRequest and goCacheResponse are the cache program protocol's
// messages (cmd/go/internal/cacheprog).
type goCacheRequest struct {
	ID       int64
	Command  string
	ActionID []byte
	OutputID []byte
	BodySize int64
}

type goCacheResponse struct {
	ID            int64
	Err           string     `json:",omitempty"`
	KnownCommands []string   `json:",omitempty"`
	Miss          bool       `json:",omitempty"`
	OutputID      []byte     `json:",omitempty"`
	Size          int64      `json:",omitempty"`
	Time          *time.Time `json:",omitempty"`
	DiskPath      string     `json:",omitempty"`
}

// serveGoCache answers the go command's requests on in and out until it
// closes.
func serveGoCache(in io.Reader, out io.Writer, owners, peers string) error {
	dec := json.NewDecoder(bufio.NewReader(in))
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	reply := func(r goCacheResponse) error {
		if err := enc.Encode(r); err != nil {
			return err
		}
		return w.Flush()
	}
	if err := reply(goCacheResponse{KnownCommands: []string{"get", "put", "close"}}); err != nil {
		return err
	}
	for {
		var req goCacheRequest
		if err := dec.Decode(&req); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		var body []byte
		if req.Command == "put" && req.BodySize > 0 {
			if err := dec.Decode(&body); err != nil {
				return err
			}
		}
		res := answerGoCache(req, body, owners, peers)
		if err := reply(res); err != nil || req.Command == "close" {
			return err
		}
	}
}

func answerGoCache(req goCacheRequest, body []byte, owners, peers string) goCacheResponse {
	res := goCacheResponse{ID: req.ID}
	switch req.Command {
	case "get":
		for _, dir := range []string{peers, owners} {
			if hit, ok := readGoCacheEntry(dir, req.ActionID); ok {
				hit.ID = req.ID
				return hit
			}
		}
		res.Miss = true
	case "put":
		path, err := writeGoCacheEntry(peers, req.ActionID, req.OutputID, body)
		if err != nil {
			res.Err = err.Error()
		}
		res.DiskPath = path
	case "close":
	default:
		res.Err = "unknown command " + req.Command
	}
	return res
}

// goCacheFile is where Go's on-disk cache layout keeps id's file of kind
// "a" (the action entry) or "d" (an output).
func goCacheFile(dir string, id []byte, kind string) string {
	h := hex.EncodeToString(id)
	return filepath.Join(dir, h[:2], h+"-"+kind)
}

// readGoCacheEntry reads action's entry ("v1 ACTION OUTPUT SIZE TIME") in
// the cache dir and the output it names, as a hit.
func readGoCacheEntry(dir string, action []byte) (goCacheResponse, bool) {
	if len(action) == 0 || dir == "" {
		return goCacheResponse{}, false
	}
	raw, err := os.ReadFile(goCacheFile(dir, action, "a"))
	f := strings.Fields(string(raw))
	if err != nil || len(raw) > 200 || len(f) != 5 || f[0] != "v1" || f[1] != hex.EncodeToString(action) {
		return goCacheResponse{}, false
	}
	output, err := hex.DecodeString(f[2])
	size, serr := strconv.ParseInt(f[3], 10, 64)
	nanos, terr := strconv.ParseInt(f[4], 10, 64)
	if err != nil || serr != nil || terr != nil || len(output) == 0 {
		return goCacheResponse{}, false
	}
	path := goCacheFile(dir, output, "d")
	if info, err := os.Stat(path); err != nil || !info.Mode().IsRegular() || info.Size() != size {
		return goCacheResponse{}, false
	}
	at := time.Unix(0, nanos)
	return goCacheResponse{OutputID: output, Size: size, Time: &at, DiskPath: path}, true
}

// writeGoCacheEntry stores body as output in the cache dir, then the
// action's entry naming it, each by a rename so a reader never sees half.
func writeGoCacheEntry(dir string, action, output, body []byte) (string, error) {
	if len(action) == 0 || len(output) == 0 {
		return "", errors.New("put without an action or output id")
	}
	path := goCacheFile(dir, output, "d")
	if err := writeRenamed(path, body); err != nil {
		return "", err
	}
	entry := fmt.Sprintf("v1 %x %x %20d %20d\n", action, output, len(body), time.Now().UnixNano())
	return path, writeRenamed(goCacheFile(dir, action, "a"), []byte(entry))
}

func writeRenamed(path string, body []byte) error {
	// The peer's cache outlives its tasks: a task may have left a link in
	// place of a folder, to have the next one write the owner's cache.
	if err := realFolders(filepath.Dir(filepath.Dir(path)), filepath.Dir(path)); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".put-*")
	if err != nil {
		return err
	}
	_, err = tmp.Write(body)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
	return err
}
