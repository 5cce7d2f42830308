package store

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

const crashChildEnv = "AOI_STORE_CRASH_CHILD_DB"

// TestKill9Durability runs a writer in a child process (this test binary
// re-executed), SIGKILLs it mid-load, reopens the file and checks that every
// write the child saw acknowledged is present and the chain verifies.
func TestKill9Durability(t *testing.T) {
	if path := os.Getenv(crashChildEnv); path != "" {
		crashChild(path)
		return
	}
	path := t.TempDir() + "/aoi.db"
	cmd := exec.Command(os.Args[0], "-test.run=^TestKill9Durability$", "-test.count=1")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	acked := make(chan []int64)
	firstAck := make(chan struct{})
	go func() {
		var seqs []int64
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if s, ok := strings.CutPrefix(sc.Text(), "ACK "); ok {
				if n, err := strconv.ParseInt(s, 10, 64); err == nil {
					if len(seqs) == 0 {
						close(firstAck)
					}
					seqs = append(seqs, n)
				}
			}
		}
		acked <- seqs
	}()
	// Kill ~300 ms into the load (the child may take a while to start on a
	// busy machine or under -race).
	select {
	case <-firstAck:
	case <-time.After(15 * time.Second):
	}
	time.Sleep(300 * time.Millisecond)
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("kill child: %v", err)
	}
	seqs := <-acked
	_ = cmd.Wait()
	if len(seqs) < 10 {
		t.Fatalf("child acknowledged only %d writes before the kill; the test proves nothing", len(seqs))
	}
	checkAfterCrash(t, path, seqs)
}

func checkAfterCrash(t *testing.T, path string, seqs []int64) {
	db, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after kill -9: %v", err)
	}
	defer db.Close()
	ctx := context.Background()
	v := mustVerify(t, db)
	if !v.OK {
		t.Fatalf("verify after kill -9 = %+v", v)
	}
	var maxSeq int64
	for _, s := range seqs {
		maxSeq = max(maxSeq, s)
	}
	if v.Entries < maxSeq {
		t.Fatalf("chain has %d rows but the child was acknowledged up to seq %d", v.Entries, maxSeq)
	}
	// Every acknowledged write's second effect (a message) is there too.
	for _, s := range seqs {
		var n int
		if err := db.rd.QueryRowContext(ctx, `SELECT COUNT(*) FROM audit_log a JOIN messages m ON m.msg_id = 'a' || a.seq WHERE a.seq = ?`, s).Scan(&n); err != nil || n != 1 {
			t.Fatalf("acknowledged seq %d: audit row + message found %d times (%v)", s, n, err)
		}
	}
	t.Logf("kill -9 after %d acknowledged writes (max seq %d); %d rows survived, chain intact", len(seqs), maxSeq, v.Entries)
}

// crashChild writes from 8 goroutines until it is killed (or 20 s pass),
// printing each acknowledged seq.
func crashChild(path string) {
	db, err := Open(path)
	if err != nil {
		fmt.Fprintln(os.Stderr, "child open:", err)
		os.Exit(3)
	}
	var mu sync.Mutex
	out := bufio.NewWriter(os.Stdout)
	deadline := time.Now().Add(20 * time.Second)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				var seq int64
				err := db.Write(context.Background(), func(tx *Tx) error {
					rec, err := tx.AppendAudit("child", "crash.write", "ok", nil)
					if err != nil {
						return err
					}
					seq = rec.Seq
					_, _, err = tx.InsertMessage(MessageRecord{MsgID: fmt.Sprintf("a%d", rec.Seq), From: "child", Event: "e"})
					return err
				})
				if err != nil {
					fmt.Fprintln(os.Stderr, "child write:", err)
					os.Exit(4)
				}
				mu.Lock()
				fmt.Fprintf(out, "ACK %d\n", seq)
				out.Flush()
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	os.Exit(0)
}

// TestSpilledWriteSurvivesACrashCopy: a write too large for the page cache
// (SQLite spills it to the WAL before COMMIT, then rewrites the frames of
// pages it changes again) is whole in the files the moment Write returns:
// a copy of the database and its WAL, what a kill -9 would leave, holds
// every row. A WAL write batching VFS once left the commit frame's header
// in a buffer on this path.
func TestSpilledWriteSurvivesACrashCopy(t *testing.T) {
	db, path := openTestDB(t)
	ctx := context.Background()
	text := strings.Repeat("spilled ", 150) // 1.2 KB a row: 2,500 rows outgrow the 2 MB cache
	const rows = 2500
	for round := range 2 {
		write(t, db, func(tx *Tx) error {
			for i := range rows {
				q := QueryRecord{ID: fmt.Sprintf("q-%d-%05d", round, i), From: "pm-tanaka", Text: text, State: "escalated", ReceivedAt: tx.Now()}
				if err := tx.InsertQuery(q); err != nil {
					return err
				}
			}
			// A page spilled early is changed again before the commit.
			return tx.UpdateQuery(fmt.Sprintf("q-%d-00000", round), "answered", json.RawMessage(`{"summary":"done"}`), ptr(tx.Now()))
		})
		copyPath := filepath.Join(t.TempDir(), "copy.db")
		for _, suffix := range []string{"", "-wal"} {
			b, err := os.ReadFile(path + suffix)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(copyPath+suffix, b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		raw, err := sql.Open("sqlite3", "file:"+copyPath)
		if err != nil {
			t.Fatal(err)
		}
		var n, answered int
		err = raw.QueryRowContext(ctx, `SELECT count(*), count(answered_at) FROM queries`).Scan(&n, &answered)
		raw.Close()
		if err != nil || n != rows*(round+1) || answered != round+1 {
			t.Fatalf("round %d: the crash copy holds %d queries, %d answered (%v); want %d and %d", round, n, answered, err, rows*(round+1), round+1)
		}
	}
}
