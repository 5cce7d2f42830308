/*
 * aoi-walbatch: SQLite's unix VFS, except that writes to a WAL file are
 * gathered and reach the kernel as one pwrite per commit.
 *
 * SQLite writes each WAL frame with two calls (its 24-byte header, then the
 * page), so a group commit of 8 pages made 16 pwrite calls, and on ext4 each
 * call pays for the inode's timestamps and the page cache's locks: about a
 * twentieth of aoi's CPU under the peer benchmark. Frames of one transaction
 * are contiguous in the file, so they are copied into a buffer and written
 * together.
 *
 * What keeps this as durable as the plain VFS: the buffer never holds a
 * committed frame once SQLite goes on. The frame header of a commit frame
 * says so (its second field, the database size after the commit, is non-zero,
 * https://www.sqlite.org/fileformat2.html#walformat); the write of that frame's
 * page is the transaction's last and flushes the buffer before it returns, so
 * a failed flush is the commit's failure, reported as SQLite expects. Any
 * other operation on the file (read, sync, truncate, size, close, file
 * control) flushes first, as does a write that does not continue the buffer.
 * Only the writer's WAL handle batches; the main database file, the shared
 * memory and every other file are the unix VFS's own.
 */
#include <stdlib.h>
#include <string.h>

#include "walbatch.h"

#define WAL_FRAME_HEADER 24
/* The unix VFS writes at most 128 KiB - 1 bytes in one call (seekAndWrite
 * keeps 17 bits of the length), so a flush stays under that. */
#define BUFFER_BYTES (120 * 1024)

typedef struct batchFile {
	sqlite3_file base;     /* base.pMethods is batchMethods */
	sqlite3_file *real;    /* the unix VFS's file, stored right after this struct */
	unsigned char *buf;    /* BUFFER_BYTES, allocated on the first write */
	int len;               /* bytes waiting in buf */
	sqlite3_int64 off;     /* file offset of buf[0] */
	int commitPage;        /* the next write is a commit frame's page */
	int pad;               /* keeps real 8-byte aligned */
} batchFile;

static sqlite3_vfs *realVfs;
static sqlite3_vfs batchVfs;
static sqlite3_io_methods batchMethods;
static sqlite3_int64 logicalWrites, physicalWrites;

static int realWrite(batchFile *b, const void *p, int n, sqlite3_int64 off) {
	__atomic_add_fetch(&physicalWrites, 1, __ATOMIC_RELAXED);
	return b->real->pMethods->xWrite(b->real, p, n, off);
}

static int flush(batchFile *b) {
	int rc = SQLITE_OK;
	if (b->len > 0) {
		rc = realWrite(b, b->buf, b->len, b->off);
		b->len = 0;
	}
	return rc;
}

/* isCommitHeader: a frame header whose "database size after commit" is set. */
static int isCommitHeader(const unsigned char *h, int n) {
	return n == WAL_FRAME_HEADER && (h[4] | h[5] | h[6] | h[7]) != 0;
}

static int batchWrite(sqlite3_file *f, const void *p, int n, sqlite3_int64 off) {
	batchFile *b = (batchFile *)f;
	int rc, ends;
	__atomic_add_fetch(&logicalWrites, 1, __ATOMIC_RELAXED);
	ends = b->commitPage;
	b->commitPage = isCommitHeader(p, n);
	if (b->len > 0 && (off != b->off + b->len || n > BUFFER_BYTES - b->len)) {
		if ((rc = flush(b)) != SQLITE_OK) {
			return rc;
		}
	}
	if (b->buf == NULL && (b->buf = malloc(BUFFER_BYTES)) == NULL) {
		return SQLITE_NOMEM;
	}
	if (n > BUFFER_BYTES) {
		return realWrite(b, p, n, off);
	}
	if (b->len == 0) {
		b->off = off;
	}
	memcpy(b->buf + b->len, p, n);
	b->len += n;
	return ends ? flush(b) : SQLITE_OK;
}

static int batchClose(sqlite3_file *f) {
	batchFile *b = (batchFile *)f;
	int rc = flush(b);
	int rc2 = b->real->pMethods->xClose(b->real);
	free(b->buf);
	b->buf = NULL;
	return rc != SQLITE_OK ? rc : rc2;
}

/* FLUSHED passes a call through once the buffer is written. */
#define FLUSHED(call) \
	batchFile *b = (batchFile *)f; \
	int rc = flush(b); \
	if (rc != SQLITE_OK) return rc; \
	return call

static int batchRead(sqlite3_file *f, void *p, int n, sqlite3_int64 off) {
	FLUSHED(b->real->pMethods->xRead(b->real, p, n, off));
}
static int batchTruncate(sqlite3_file *f, sqlite3_int64 size) {
	FLUSHED(b->real->pMethods->xTruncate(b->real, size));
}
static int batchSync(sqlite3_file *f, int flags) {
	FLUSHED(b->real->pMethods->xSync(b->real, flags));
}
static int batchFileSize(sqlite3_file *f, sqlite3_int64 *size) {
	FLUSHED(b->real->pMethods->xFileSize(b->real, size));
}
static int batchFileControl(sqlite3_file *f, int op, void *arg) {
	FLUSHED(b->real->pMethods->xFileControl(b->real, op, arg));
}
/* SQLite maps only the database file; a WAL file answers "no mapping". */
static int batchFetch(sqlite3_file *f, sqlite3_int64 off, int n, void **pp) {
	(void)f, (void)off, (void)n;
	*pp = NULL;
	return SQLITE_OK;
}

/* The rest never touch the file's contents. */
#define REAL(f) (((batchFile *)(f))->real)
static int batchLock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xLock(REAL(f), l); }
static int batchUnlock(sqlite3_file *f, int l) { return REAL(f)->pMethods->xUnlock(REAL(f), l); }
static int batchCheckReserved(sqlite3_file *f, int *out) {
	return REAL(f)->pMethods->xCheckReservedLock(REAL(f), out);
}
static int batchSectorSize(sqlite3_file *f) { return REAL(f)->pMethods->xSectorSize(REAL(f)); }
static int batchDeviceCharacteristics(sqlite3_file *f) {
	return REAL(f)->pMethods->xDeviceCharacteristics(REAL(f));
}
static int batchShmMap(sqlite3_file *f, int pg, int sz, int ext, void volatile **pp) {
	return REAL(f)->pMethods->xShmMap(REAL(f), pg, sz, ext, pp);
}
static int batchShmLock(sqlite3_file *f, int off, int n, int flags) {
	return REAL(f)->pMethods->xShmLock(REAL(f), off, n, flags);
}
static void batchShmBarrier(sqlite3_file *f) { REAL(f)->pMethods->xShmBarrier(REAL(f)); }
static int batchShmUnmap(sqlite3_file *f, int del) { return REAL(f)->pMethods->xShmUnmap(REAL(f), del); }
static int batchUnfetch(sqlite3_file *f, sqlite3_int64 off, void *p) {
	(void)f, (void)off, (void)p;
	return SQLITE_OK;
}

/* batchOpen opens every file with the unix VFS and wraps only WAL files. */
static int batchOpen(sqlite3_vfs *v, const char *name, sqlite3_file *f, int flags, int *outFlags) {
	batchFile *b = (batchFile *)f;
	int rc;
	(void)v;
	if (!(flags & SQLITE_OPEN_WAL)) {
		return realVfs->xOpen(realVfs, name, f, flags, outFlags);
	}
	memset(b, 0, sizeof *b);
	b->real = (sqlite3_file *)(b + 1);
	rc = realVfs->xOpen(realVfs, name, b->real, flags, outFlags);
	/* SQLite closes a file whose pMethods is set, even after a failed open. */
	b->base.pMethods = b->real->pMethods != NULL ? &batchMethods : NULL;
	return rc;
}

int aoi_walbatch_register(void) {
	if (realVfs != NULL) {
		return SQLITE_OK;
	}
	sqlite3_vfs *dflt = sqlite3_vfs_find(NULL);
	if (dflt == NULL) {
		return SQLITE_ERROR;
	}
	batchVfs = *dflt; /* same pAppData: the unix methods read it */
	batchVfs.pNext = NULL;
	batchVfs.zName = "aoi-walbatch";
	batchVfs.szOsFile = (int)sizeof(batchFile) + dflt->szOsFile;
	batchVfs.xOpen = batchOpen;
	batchMethods = (sqlite3_io_methods){
		3, batchClose, batchRead, batchWrite, batchTruncate, batchSync, batchFileSize,
		batchLock, batchUnlock, batchCheckReserved, batchFileControl, batchSectorSize,
		batchDeviceCharacteristics, batchShmMap, batchShmLock, batchShmBarrier, batchShmUnmap,
		batchFetch, batchUnfetch,
	};
	realVfs = dflt;
	return sqlite3_vfs_register(&batchVfs, 0);
}

void aoi_walbatch_counts(sqlite3_int64 *logical, sqlite3_int64 *physical) {
	*logical = __atomic_load_n(&logicalWrites, __ATOMIC_RELAXED);
	*physical = __atomic_load_n(&physicalWrites, __ATOMIC_RELAXED);
}
