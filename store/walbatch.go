package store

/*
#cgo linux LDFLAGS: -Wl,--unresolved-symbols=ignore-in-object-files
#cgo darwin LDFLAGS: -Wl,-undefined,dynamic_lookup
#include "walbatch.h"
*/
import "C"

import (
	"fmt"
	"sync"
)

// walBatchVFS is the VFS the write connection opens the database with:
// SQLite's unix VFS, except that a transaction's WAL frames reach the
// kernel in one write instead of two per page (walbatch.c says why that is
// as durable). The symbols walbatch.c calls are the SQLite that
// github.com/mattn/go-sqlite3 compiles in, found at link time.
const walBatchVFS = "aoi-walbatch"

var registerWALBatch = sync.OnceValue(func() error {
	if rc := C.aoi_walbatch_register(); rc != C.SQLITE_OK {
		return fmt.Errorf("store: registering the %s VFS failed (SQLite code %d)", walBatchVFS, int(rc))
	}
	return nil
})

// walWriteCounts reports how many writes SQLite made to WAL files through
// walBatchVFS and how many reached the kernel.
func walWriteCounts() (logical, physical int64) {
	var l, p C.sqlite3_int64
	C.aoi_walbatch_counts(&l, &p)
	return int64(l), int64(p)
}
