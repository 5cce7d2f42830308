package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

const (
	peekChildEnv = "AOI_STORE_PEEK_CHILD_DB"
	peekHowEnv   = "AOI_STORE_PEEK_HOW"
)

// TestOtherProcessesCannotOpenTheDatabaseWhileAoiHasIt: the core holds the
// database file's lock for as long as it has the file open (the unix-excl
// VFS), so another process (a second aoi, a person with the sqlite3 CLI)
// can neither read nor write it meanwhile; once the core closes it, they
// can. Connections within the core's process share the lock.
func TestOtherProcessesCannotOpenTheDatabaseWhileAoiHasIt(t *testing.T) {
	if path := os.Getenv(peekChildEnv); path != "" {
		peekChild(path)
		return
	}
	db, path := openTestDB(t)
	if err := db.Write(context.Background(), func(tx *Tx) error {
		_, err := tx.AppendAudit("peer-a", "aoi.ping", "ok", nil)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := peek(t, path, ""); !strings.Contains(got, "locked") {
		t.Fatalf("another process read the open database: %q; want a refusal saying it is locked", got)
	}
	if got := peek(t, path, "store"); !strings.Contains(got, "another process has it open") {
		t.Fatalf("another process's Open said %q; want it to say another process has the file open", got)
	}
	raw := rawDB(t, path)
	if n := countRows(t, raw); n != 1 {
		t.Fatalf("a second connection in aoi's own process read %d audit rows, want 1", n)
	}
	raw.Close()
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if got := peek(t, path, ""); got != "rows 1" {
		t.Fatalf("after aoi closed the database another process got %q, want %q", got, "rows 1")
	}
}

// peek runs this test binary as another process that counts the audit
// rows (how "store": through Open, else as a plain client), and returns
// what it printed.
func peek(t *testing.T, path, how string) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestOtherProcessesCannotOpenTheDatabaseWhileAoiHasIt$", "-test.count=1")
	cmd.Env = append(os.Environ(), peekChildEnv+"="+path, peekHowEnv+"="+how)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("the other process failed: %v\n%s", err, out)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if s, ok := strings.CutPrefix(line, "PEEK "); ok {
			return s
		}
	}
	t.Fatalf("the other process printed no PEEK line:\n%s", out)
	return ""
}

// peekChild opens the file as a plain client would (the default VFS, a
// short busy timeout), or through Open, and prints the audit row count or
// the error.
func peekChild(path string) {
	if os.Getenv(peekHowEnv) == "store" {
		db, err := Open(path, WithBusyTimeout(200*time.Millisecond))
		if err == nil {
			db.Close()
		}
		fmt.Printf("PEEK %v\n", err)
		return
	}
	raw, err := sql.Open("sqlite3", "file:"+path+"?_busy_timeout=200")
	if err == nil {
		var n int
		if err = raw.QueryRow(`SELECT count(*) FROM audit_log`).Scan(&n); err == nil {
			fmt.Printf("PEEK rows %d\n", n)
			return
		}
	}
	fmt.Printf("PEEK %v\n", err)
}

func countRows(t *testing.T, raw *sql.DB) int {
	t.Helper()
	var n int
	if err := raw.QueryRow(`SELECT count(*) FROM audit_log`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
