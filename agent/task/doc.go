// Package task runs the tasks peers ask this agent for (design §7): task
// types come from the owner's config, params only fill declared
// placeholders (Resolve), requests wait in a durable approval inbox
// (Policy, store approvals), approved tasks run as argv in their own
// process group, bounded in number and time (Runner), under a reaper and,
// on Linux, confined by Landlock to writing their own folders (Confinement),
// optionally in a fresh git worktree (AddWorktree), and their results are parsed (ParseOutput)
// and reported back. Engine ties these together for the core, which fills
// its hooks (notify, redact, publish, audit). The package never imports
// agent; the state and event strings equal agent's constants.
package task
