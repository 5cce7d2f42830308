package task

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// readRules lets the command read everything but what lies beneath
// hidden, and what writable names even there. Landlock only grants, so
// "everything but" is every entry beside the way from / down to hidden,
// each granted whole, and listing the folders on the way (the names in
// hidden can be listed, not read). An entry that leads into hidden, or to
// a folder on the way, through a link is left out: granting it would
// grant hidden.
func readRules(hidden string, writable []string) ([]landlock.Rule, error) {
	if !filepath.IsAbs(hidden) {
		return nil, fmt.Errorf("the folder to keep from the command, %s, is not an absolute path", hidden)
	}
	h, err := filepath.EvalSymlinks(hidden)
	if err != nil {
		return nil, fmt.Errorf("the folder to keep from the command, %s: %w", hidden, err)
	}
	var rules []landlock.Rule
	for dir := filepath.Dir(h); ; dir = filepath.Dir(dir) {
		rules = append(rules, landlock.PathAccess(llsyscall.AccessFSReadDir, dir))
		rules = append(rules, entriesBeside(dir, h)...)
		if dir == filepath.Dir(dir) {
			break
		}
	}
	for _, w := range writable {
		if !within(h, w) {
			rules = append(rules, readRule(w))
		}
	}
	return rules, nil
}

// writeRules grants writing beneath each writable folder but hidden: a
// folder that holds hidden (a real_home type's home, which holds the data
// dir by default) is granted entry by entry beside the way down to hidden,
// as readRules grants reads, so the agent's key, config and database stay
// unwritable. Entries made later directly in a folder on that way, and
// links there, are not granted.
func writeRules(writable []string, hidden string) ([]landlock.Rule, error) {
	if hidden == "" {
		return []landlock.Rule{landlock.PathAccess(writeAccess, writable...)}, nil
	}
	h, err := filepath.EvalSymlinks(hidden)
	if err != nil {
		return nil, fmt.Errorf("the folder to keep from the command, %s: %w", hidden, err)
	}
	var rules []landlock.Rule
	for _, w := range writable {
		real, err := filepath.EvalSymlinks(w)
		if err != nil || !within(h, real) {
			// A missing folder fails the ruleset, as it did before.
			rules = append(rules, landlock.PathAccess(writeAccess, w))
			continue
		}
		for dir := filepath.Dir(h); within(dir, real); dir = filepath.Dir(dir) {
			rules = append(rules, writableEntriesBeside(dir, h)...)
			if dir == real || dir == filepath.Dir(dir) {
				break
			}
		}
	}
	return rules, nil
}

// writableEntriesBeside grants writing each folder and file of dir but
// the one on the way to hidden. A link is left out whatever it names:
// Landlock would grant its target, which may be hidden, a folder on the
// way, or lie outside the writable folder altogether.
func writableEntriesBeside(dir, hidden string) []landlock.Rule {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unlisted, unwritten: the safe side
	}
	var rules []landlock.Rule
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		switch {
		case within(hidden, p):
			continue
		case e.IsDir():
			rules = append(rules, landlock.PathAccess(writeAccess, p).IgnoreIfMissing())
		case e.Type().IsRegular():
			rules = append(rules, landlock.PathAccess(fileWriteAccess, p).IgnoreIfMissing())
		}
	}
	return rules
}

// entriesBeside grants reading every entry of dir but the one on the way
// to hidden and those that lead to it.
func entriesBeside(dir, hidden string) []landlock.Rule {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil // unlisted, unread: the safe side
	}
	var rules []landlock.Rule
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		target, err := filepath.EvalSymlinks(p)
		if err != nil || within(target, hidden) || within(hidden, target) {
			continue
		}
		rules = append(rules, readRule(target))
	}
	return rules
}

// readRule grants reading path: beneath it when it is a folder.
func readRule(path string) landlock.Rule {
	access := landlock.AccessFSSet(llsyscall.AccessFSReadFile)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		access = readAccess
	}
	return landlock.PathAccess(access, path).IgnoreIfMissing()
}

// within reports whether p is root or lies beneath it.
func within(p, root string) bool {
	return p == root || root == "/" || strings.HasPrefix(p, root+"/")
}
