package store

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

func insertTaskWithApproval(t *testing.T, db *DB, id string, expires time.Time) {
	t.Helper()
	err := db.Write(context.Background(), func(tx *Tx) error {
		if err := tx.InsertTask(TaskRecord{ID: id, RequestID: "7", Requester: "pm-tanaka", TaskType: "run_tests",
			Params: map[string]string{"suite": "./auth/..."}, State: "pending"}); err != nil {
			return err
		}
		return tx.InsertApproval(ApprovalRecord{ID: "ap-" + id, TaskID: id, Requester: "pm-tanaka", TaskType: "run_tests",
			Params: map[string]string{"suite": "./auth/..."}, MatchedRule: "pm-run-tests", State: "pending", ExpiresAt: expires})
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestTaskLifecycle(t *testing.T) {
	ctx := context.Background()
	clock := newTestClock()
	db, _ := openTestDB(t, WithClock(clock.Now))
	insertTaskWithApproval(t, db, "t1", clock.Now().Add(time.Hour))

	task, ok, err := db.Task(ctx, "t1")
	if err != nil || !ok {
		t.Fatalf("Task: %v %v", ok, err)
	}
	if task.Requester != "pm-tanaka" || task.Params["suite"] != "./auth/..." || task.State != "pending" || task.RequestID != "7" || task.StartedAt != nil {
		t.Fatalf("task = %+v", task)
	}
	a, ok, err := db.ApprovalForTask(ctx, "t1")
	if err != nil || !ok || a.ID != "ap-t1" || a.MatchedRule != "pm-run-tests" || a.State != "pending" {
		t.Fatalf("approval = %+v %v %v", a, ok, err)
	}

	code := 1
	msg := "1 test failed"
	steps := []struct {
		from, to string
		u        TaskUpdate
	}{
		{"pending", "approved", TaskUpdate{}},
		{"approved", "in_progress", TaskUpdate{Started: true}},
		{"in_progress", "failed", TaskUpdate{ExitCode: &code, Error: &msg, Output: json.RawMessage(`{"tests_failed":1}`), Finished: true}},
	}
	for _, s := range steps {
		if err := db.Write(ctx, func(tx *Tx) error { return tx.TransitionTask("t1", s.from, s.to, "step", s.u) }); err != nil {
			t.Fatalf("%s → %s: %v", s.from, s.to, err)
		}
	}
	beat := clock.Now()
	if err := db.Write(ctx, func(tx *Tx) error {
		if err := tx.SetTaskHeartbeat("t1", beat); err != nil {
			return err
		}
		return tx.SetTaskWorktree("t1", "/data/worktrees/t1")
	}); err != nil {
		t.Fatal(err)
	}
	task, _, _ = db.Task(ctx, "t1")
	if task.State != "failed" || task.ExitCode == nil || *task.ExitCode != 1 || task.Error != msg ||
		string(task.Output) != `{"tests_failed":1}` || task.StartedAt == nil || task.FinishedAt == nil ||
		!task.FinishedAt.After(*task.StartedAt) || task.HeartbeatAt == nil || !task.HeartbeatAt.Equal(beat) ||
		task.Worktree != "/data/worktrees/t1" {
		t.Fatalf("task after run = %+v", task)
	}
	trs, err := db.TaskTransitions(ctx, "t1")
	if err != nil || len(trs) != 4 || trs[0].From != "" || trs[0].To != "pending" || trs[3].To != "failed" || trs[3].Reason != "step" {
		t.Fatalf("transitions = %+v, %v", trs, err)
	}
	err = db.Write(ctx, func(tx *Tx) error { return tx.TransitionTask("nope", "pending", "approved", "", TaskUpdate{}) })
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("unknown task: %v", err)
	}
	err = db.Write(ctx, func(tx *Tx) error { return tx.TransitionTask("t1", "pending", "approved", "", TaskUpdate{}) })
	var se *StateError
	if !errors.As(err, &se) || se.Found != "failed" || !errors.Is(err, ErrStateChanged) {
		t.Fatalf("stale transition: %v", err)
	}
}

// TestTransitionRace: of many concurrent transitions out of pending, exactly
// one wins and only it is recorded.
func TestTransitionRace(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	for round := range 5 {
		id := fmt.Sprint("race", round)
		insertTaskWithApproval(t, db, id, time.Now().Add(time.Hour))
		targets := []string{"approved", "canceled", "rejected", "expired"}
		var wg sync.WaitGroup
		errs := make([]error, 20)
		for i := range errs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				errs[i] = db.Write(ctx, func(tx *Tx) error {
					return tx.TransitionTask(id, "pending", targets[i%len(targets)], "", TaskUpdate{})
				})
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, ErrStateChanged):
				t.Fatalf("unexpected error: %v", err)
			}
		}
		trs, _ := db.TaskTransitions(ctx, id)
		if wins != 1 || len(trs) != 2 {
			t.Fatalf("round %d: %d winners, %d transitions; want 1 and 2", round, wins, len(trs))
		}
	}
}

func TestApprovalQueue(t *testing.T) {
	ctx := context.Background()
	clock := newTestClock()
	db, path := openTestDB(t, WithClock(clock.Now))
	base := clock.Now()
	insertTaskWithApproval(t, db, "old", base.Add(time.Minute))
	insertTaskWithApproval(t, db, "new", base.Add(time.Hour))
	insertTaskWithApproval(t, db, "done", base.Add(time.Hour))
	if err := db.Write(ctx, func(tx *Tx) error { return tx.DecideApproval("ap-done", "pending", "approved", "owner", "") }); err != nil {
		t.Fatal(err)
	}
	err := db.Write(ctx, func(tx *Tx) error { return tx.DecideApproval("ap-done", "pending", "rejected", "owner", "late") })
	if !errors.Is(err, ErrStateChanged) {
		t.Fatalf("second decision: %v", err)
	}
	list, err := db.Approvals(ctx, "", 0)
	if err != nil || len(list) != 3 || list[0].ID != "ap-old" || list[1].ID != "ap-new" || list[2].ID != "ap-done" {
		t.Fatalf("approvals order = %+v, %v", ids(list), err)
	}
	if list[2].DecidedBy != "owner" || list[2].DecidedAt == nil {
		t.Fatalf("decided approval = %+v", list[2])
	}
	expired, err := db.ExpiredApprovals(ctx, base.Add(30*time.Minute), 0)
	if err != nil || len(expired) != 1 || expired[0].ID != "ap-old" {
		t.Fatalf("expired = %v, %v", ids(expired), err)
	}
	if n, _ := db.CountApprovals(ctx, "pending"); n != 2 {
		t.Fatalf("pending count = %d", n)
	}

	// Pending approvals survive a restart.
	db.Close()
	db2, err := Open(path, WithClock(clock.Now))
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	pending, err := db2.Approvals(ctx, "pending", 0)
	if err != nil || len(pending) != 2 || pending[0].Params["suite"] != "./auth/..." {
		t.Fatalf("after reopen: %+v, %v", pending, err)
	}
}

func ids(list []ApprovalRecord) []string {
	out := make([]string, len(list))
	for i, a := range list {
		out[i] = a.ID
	}
	return out
}

func TestTaskAndApprovalAreAtomic(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	insertTaskWithApproval(t, db, "a", time.Now())
	// The approval id collides, so the task must not be stored either.
	err := db.Write(ctx, func(tx *Tx) error {
		if err := tx.InsertTask(TaskRecord{ID: "b", Requester: "x", TaskType: "lint", State: "pending"}); err != nil {
			return err
		}
		return tx.InsertApproval(ApprovalRecord{ID: "ap-a", TaskID: "b", Requester: "x", TaskType: "lint", State: "pending"})
	})
	if err == nil {
		t.Fatal("duplicate approval id accepted")
	}
	if _, ok, _ := db.Task(ctx, "b"); ok {
		t.Fatal("the task was stored without its approval")
	}
}

func TestTaskQueries(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t, WithClock(newTestClock().Now))
	for i, st := range []string{"pending", "in_progress", "in_progress", "completed"} {
		id := fmt.Sprint("q", i)
		if err := db.Write(ctx, func(tx *Tx) error {
			return tx.InsertTask(TaskRecord{ID: id, Requester: fmt.Sprint("pm-", i%2), TaskType: "lint", State: st})
		}); err != nil {
			t.Fatal(err)
		}
	}
	running, err := db.TasksInStates(ctx, "in_progress", "review")
	if err != nil || len(running) != 2 || running[0].ID != "q1" {
		t.Fatalf("running = %+v, %v", running, err)
	}
	list, err := db.Tasks(ctx, TaskQuery{Requester: "pm-1"})
	if err != nil || len(list) != 2 || list[0].ID != "q3" {
		t.Fatalf("by requester = %+v, %v", list, err)
	}
	list, _ = db.Tasks(ctx, TaskQuery{States: []string{"pending", "completed"}, Limit: 1})
	if len(list) != 1 || list[0].ID != "q3" {
		t.Fatalf("by states = %+v", list)
	}
	counts, err := db.CountTasksByState(ctx)
	if err != nil || counts["in_progress"] != 2 || counts["pending"] != 1 || counts["completed"] != 1 {
		t.Fatalf("counts = %v, %v", counts, err)
	}
}

func TestTaskNotified(t *testing.T) {
	ctx := context.Background()
	db, _ := openTestDB(t)
	insertTaskWithApproval(t, db, "n1", time.Now())
	insertTaskWithApproval(t, db, "n2", time.Now())
	for _, id := range []string{"n1", "n2"} {
		if err := db.Write(ctx, func(tx *Tx) error { return tx.TransitionTask(id, "pending", "rejected", "", TaskUpdate{}) }); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Write(ctx, func(tx *Tx) error { return tx.MarkTaskNotified("n1") }); err != nil {
		t.Fatal(err)
	}
	owed, err := db.UnnotifiedTasks(ctx, []string{"rejected", "failed"}, 0)
	if err != nil || len(owed) != 1 || owed[0].ID != "n2" {
		t.Fatalf("owed = %+v, %v", owed, err)
	}
	if ok, _ := db.TaskNotified(ctx, "n1"); !ok {
		t.Fatal("n1 should be notified")
	}
	if ok, _ := db.TaskNotified(ctx, "n2"); ok {
		t.Fatal("n2 should not be notified")
	}
}
