package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// checkOwnership refuses a data dir or config file another local user
// could have placed or can change: one owned by someone else, or one
// anybody may write. Either would let that user choose this agent's ACL
// and task commands (a data dir under /tmp made first by someone else,
// say). Group write is let through: with per-user groups (umask 002) a
// file copied into place is group-writable by its owner's own group. A
// path that does not exist yet is fine: aoi makes it, as its own.
func checkOwnership(dataDir, cfgPath string) error {
	return checkOwnershipAs(os.Getuid(), dataDir, cfgPath)
}

// checkOwnershipAs is checkOwnership for the user uid.
func checkOwnershipAs(uid int, dataDir, cfgPath string) error {
	for _, p := range []struct{ path, what, fix string }{
		{dataDir, "data dir", "chmod 700 " + dataDir},
		{cfgPath, "config", "chmod 600 " + cfgPath},
	} {
		// The folders on the way count whether the path exists or not
		// (aoi makes it there), and whether it is a link or not (who can
		// swap the link chooses where it leads).
		if err := checkParents(uid, p.path, p.what); err != nil {
			return err
		}
		// Stat follows a symlink: what counts is the file that is read.
		fi, err := os.Stat(p.path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		if owner, ok := ownerOf(fi); ok && owner != uid {
			return fmt.Errorf("the %s %s belongs to another user (uid %d, you are uid %d), who could have chosen its ACL rules and task commands; use a %s of your own (aoi init --data-dir DIR under your home)",
				p.what, p.path, owner, uid, p.what)
		}
		if fi.Mode().Perm()&0o002 != 0 {
			return fmt.Errorf("the %s %s can be changed by other users (mode %#o), who could rewrite its ACL rules and task commands; run: %s",
				p.what, p.path, fi.Mode().Perm(), p.fix)
		}
	}
	return nil
}

// checkParents refuses a path whose folders another user could rearrange:
// one of them owned by a user other than uid or root, or writable by
// anybody without the sticky bit (which /tmp has: there nobody may rename
// another's entry). Whoever can rename an entry of a parent can put a
// data dir or config of theirs in its place. The folders of the path as
// given are checked, and those of where its links lead; folders that do
// not exist yet are skipped.
func checkParents(uid int, path, what string) error {
	given, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	if err := checkLinks(uid, given, what); err != nil {
		return err
	}
	dirs := []string{filepath.Dir(given)}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		dirs = append(dirs, filepath.Dir(real))
	}
	for _, start := range dirs {
		for dir := start; ; dir = filepath.Dir(dir) {
			if err := checkFolder(uid, dir, path, what); err != nil {
				return err
			}
			if dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return nil
}

// checkLinks refuses a path that passes through a symbolic link another
// user owns (root aside). In a sticky folder such as /tmp nobody may swap
// another's entry, but the link's owner may: who made /tmp/aoi point at
// your folder can make it lead to theirs at any restart. Each step of the
// path as given is looked at, the path itself included.
func checkLinks(uid int, given, what string) error {
	for p := given; ; p = filepath.Dir(p) {
		fi, err := os.Lstat(p)
		if err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			if owner, ok := ownerOf(fi); ok && owner != uid && owner != 0 {
				return fmt.Errorf("the way to the %s %s passes through the link %s, which belongs to another user (uid %d, you are uid %d), who can make it lead elsewhere; use a %s under your home, or a link of your own",
					what, given, p, owner, uid, what)
			}
		}
		if p == filepath.Dir(p) {
			return nil
		}
	}
}

// checkFolder is checkParents' test of one folder (none when it does not
// exist).
func checkFolder(uid int, dir, path, what string) error {
	fi, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if owner, ok := ownerOf(fi); ok && owner != uid && owner != 0 {
		return fmt.Errorf("the folder %s, which holds the %s %s, belongs to another user (uid %d, you are uid %d), who could put a %s of theirs in its place; use a %s under your home",
			dir, what, path, owner, uid, what, what)
	}
	if fi.Mode().Perm()&0o002 != 0 && fi.Mode()&fs.ModeSticky == 0 {
		return fmt.Errorf("the folder %s, which holds the %s %s, can be changed by other users (mode %#o), who could put a %s of theirs in its place; run: chmod o-w %s",
			dir, what, path, fi.Mode().Perm(), what, dir)
	}
	return nil
}
