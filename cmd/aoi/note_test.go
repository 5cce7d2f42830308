package main

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// TestNotesListAndDelete: `aoi note TEXT` saves a note the secretary
// answers from and prints its id (`--json`: {"id": N}), `--list` shows the notes with their ids (redacted as
// stored), `--delete ID` removes one; an unknown id and a note with no text
// say what to do instead.
func TestNotesListAndDelete(t *testing.T) {
	bin := buildAOI(t)
	dir := shortDir(t)
	initAgent(t, bin, dir, "eng-suzuki")
	startServeProc(t, bin, dir).waitServing(t, dir)
	first := cli(t, bin, dir, "note", "spike on caching done; password=Hx8qLm2pZ")
	var saved struct {
		ID int64 `json:"id"`
	}
	if err := json.Unmarshal([]byte(cli(t, bin, dir, "--json", "note", "demo moved to friday")), &saved); err != nil || saved.ID == 0 {
		t.Fatalf("aoi --json note: %+v, %v; want the new note's id", saved, err)
	}
	var notes []struct {
		ID   int64  `json:"id"`
		Text string `json:"text"`
	}
	if err := json.Unmarshal([]byte(cli(t, bin, dir, "--json", "note", "--list")), &notes); err != nil || len(notes) != 2 {
		t.Fatalf("aoi note --list --json: %+v, %v", notes, err)
	}
	// Each note says the id --list shows it under and --delete takes.
	if notes[0].ID != saved.ID {
		t.Errorf("aoi --json note said id %d; --list shows the note under %d", saved.ID, notes[0].ID)
	}
	if want := "note " + strconv.FormatInt(notes[1].ID, 10) + " saved"; !strings.Contains(first, want) ||
		!strings.Contains(first, "aoi note --delete "+strconv.FormatInt(notes[1].ID, 10)) {
		t.Errorf("aoi note printed:\n%s\nwant %q and the --delete that takes it back", first, want)
	}
	if notes[0].Text != "demo moved to friday" || strings.Contains(notes[1].Text, "Hx8qLm2pZ") {
		t.Errorf("notes %+v: want the newest first, the password redacted", notes)
	}
	if out := cli(t, bin, dir, "note", "--list"); !strings.Contains(out, "ID") || !strings.Contains(out, "demo moved to friday") {
		t.Errorf("aoi note --list:\n%s", out)
	}
	id := strconv.FormatInt(notes[0].ID, 10)
	if out := cli(t, bin, dir, "note", "--delete", id); !strings.Contains(out, "note "+id+" deleted") {
		t.Errorf("aoi note --delete %s:\n%s", id, out)
	}
	if out := cli(t, bin, dir, "note", "--list"); strings.Contains(out, "friday") || !strings.Contains(out, "caching") {
		t.Errorf("after the delete, aoi note --list:\n%s", out)
	}
	if out := cliFails(t, bin, dir, exitFailure, "note", "--delete", id); !strings.Contains(out, "no note "+id) {
		t.Errorf("deleting it again:\n%s", out)
	}
	cliFails(t, bin, dir, exitUsage, "note")
	cliFails(t, bin, dir, exitUsage, "note", "--list", "extra words")
}
