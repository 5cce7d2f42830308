package task

import (
	"fmt"
	"os"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsyscall "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// writeAccess is every Landlock right that changes the filesystem. Only
// these are handled, so reading, listing and executing stay allowed
// everywhere without a rule, and so do ioctls on devices and connecting
// to named unix sockets (not handled either: tests use both).
const writeAccess = llsyscall.AccessFSWriteFile | llsyscall.AccessFSTruncate |
	llsyscall.AccessFSRemoveDir | llsyscall.AccessFSRemoveFile |
	llsyscall.AccessFSMakeChar | llsyscall.AccessFSMakeDir | llsyscall.AccessFSMakeReg |
	llsyscall.AccessFSMakeSock | llsyscall.AccessFSMakeFifo | llsyscall.AccessFSMakeBlock |
	llsyscall.AccessFSMakeSym | llsyscall.AccessFSRefer

// fileWriteAccess is what a rule for a single file may grant.
const fileWriteAccess = llsyscall.AccessFSWriteFile | llsyscall.AccessFSTruncate

// confineScopes keeps the command from signalling, and from connecting to
// abstract unix sockets of, any process outside its domain (Landlock ABI 6).
const confineScopes = llsyscall.ScopeSignal | llsyscall.ScopeAbstractUnixSocket

// landlockConfig is the task's ruleset, degraded to what the kernel has.
var landlockConfig = landlock.Config{
	HandledAccessFS: writeAccess,
	Scoped:          confineScopes,
}.BestEffort()

// readAccess is reading files and listing folders: handled only when a
// folder is hidden (readRules grants it everywhere else).
const readAccess = llsyscall.AccessFSReadFile | llsyscall.AccessFSReadDir

// hidingConfig is landlockConfig handling reads as well.
var hidingConfig = landlock.Config{
	HandledAccessFS: writeAccess | readAccess,
	Scoped:          confineScopes,
}.BestEffort()

// LandlockABI is the Landlock ABI version the kernel offers (0: none).
func LandlockABI() int {
	abi, err := llsyscall.LandlockGetABIVersion()
	if err != nil {
		return 0
	}
	return abi
}

// ConfinementSupport says how far this kernel confines task commands, for
// `aoi doctor` and the task's output: ok is false when it does not at all.
func ConfinementSupport() (ok bool, detail string) {
	abi, err := llsyscall.LandlockGetABIVersion()
	switch {
	case err != nil || abi < 1:
		return false, fmt.Sprintf("Landlock is not available on this kernel (%v); task commands run unconfined: they can write anywhere you can and signal aoi", err)
	case abi < 2:
		// The ruleset lets a command move files between its folders
		// (refer), which ABI 1 cannot grant: go-landlock's best effort
		// would then enforce nothing.
		return false, "Landlock ABI 1 (Linux before 5.19) cannot let a command move files between its folders; task commands run unconfined: they can write anywhere you can and signal aoi"
	case abi < 6:
		return true, fmt.Sprintf("Landlock ABI %d: task commands write only in their own folders and cannot read or write aoi's data dir, but can still signal aoi and its reapers (that needs ABI 6)", abi)
	}
	return true, fmt.Sprintf("Landlock ABI %d: task commands write only in their own folders, cannot read or write aoi's data dir and cannot signal aoi or its reapers", abi)
}

// restrictSelf puts the calling thread in a new Landlock domain that
// writes only beneath writable and the device files, reads and writes
// nothing beneath hidden (when given) but what writable names there, and
// cannot signal out of it. The caller has locked its OS thread and execs next. On a kernel
// without Landlock it says on stderr (the task's output) that the command
// runs unconfined, and returns nil.
func restrictSelf(writable []string, hidden string) error {
	if ok, detail := ConfinementSupport(); !ok {
		fmt.Fprintln(os.Stderr, "aoi: "+detail)
		return nil
	}
	rules, err := writeRules(writable, hidden)
	if err != nil {
		return err
	}
	for _, dev := range deviceFiles {
		rules = append(rules, deviceRule(dev))
	}
	config := landlockConfig
	if hidden != "" {
		read, err := readRules(hidden, writable)
		if err != nil {
			return err
		}
		rules = append(rules, read...)
		config = hidingConfig
	}
	fd, flags, err := config.NewRulesetFD(rules...)
	if err != nil || fd < 0 {
		return err
	}
	defer unix.Close(fd)
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("no_new_privs: %w", err)
	}
	return llsyscall.LandlockRestrictSelf(fd, flags)
}

// deviceRule lets the command write to dev (a folder: beneath it), when
// this machine has it.
func deviceRule(dev string) landlock.Rule {
	access := landlock.AccessFSSet(fileWriteAccess)
	if fi, err := os.Stat(dev); err == nil && fi.IsDir() {
		access = writeAccess
	}
	return landlock.PathAccess(access, dev).IgnoreIfMissing()
}
