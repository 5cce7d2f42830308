package bench

import "golang.org/x/sys/unix"

// fsNames names the filesystems a data folder is commonly on, by the
// magic number statfs reports (linux/magic.h).
var fsNames = map[int64]string{
	unix.EXT4_SUPER_MAGIC:      "ext4", // also ext2 and ext3: one magic
	unix.XFS_SUPER_MAGIC:       "xfs",
	unix.BTRFS_SUPER_MAGIC:     "btrfs",
	unix.TMPFS_MAGIC:           "tmpfs",
	unix.OVERLAYFS_SUPER_MAGIC: "overlay",
	unix.F2FS_SUPER_MAGIC:      "f2fs",
	unix.NFS_SUPER_MAGIC:       "nfs",
	unix.FUSE_SUPER_MAGIC:      "fuse",
	0x2fc12fc1:                 "zfs",
}

// filesystem names the filesystem dir is on ("" when statfs fails). The
// aoi.query phase writes every request to SQLite there: on a disk its
// checkpoints' writes cost the phase throughput that tmpfs does not, so a
// figure is only comparable with one taken on the same kind.
func filesystem(dir string) string {
	var st unix.Statfs_t
	if unix.Statfs(dir, &st) != nil {
		return ""
	}
	// Magic numbers are 32 bits; Type is signed, and only 32 bits wide on
	// some platforms, where a magic above 2^31 reads negative.
	if name, ok := fsNames[int64(uint32(st.Type))]; ok {
		return name
	}
	return "other"
}
