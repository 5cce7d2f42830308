package agent_test

import (
	"bytes"
	"context"
	"os"
	"testing"
)

// storedAt checkpoints a's database and reports the first file of it
// (the database, then its WAL) that still holds needle, and where; ""
// when none does. Tests of what aoi forgets or never keeps look at the
// bytes on disk, not at what the store's queries return.
func storedAt(t *testing.T, a *testAgent, needle string) (file string, at int) {
	t.Helper()
	if err := a.DB().CheckpointWAL(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{a.DBPath(), a.DBPath() + "-wal"} {
		b, err := os.ReadFile(f)
		if err != nil && !os.IsNotExist(err) {
			t.Fatal(err)
		}
		if i := bytes.Index(b, []byte(needle)); i >= 0 {
			return f, i
		}
	}
	return "", -1
}
