package config

import "testing"

// TestPointerOffsets: every member starts at its key and every element at
// its value, however deeply nested; a path the file does not hold is
// placed at the nearest enclosing one.
func TestPointerOffsets(t *testing.T) {
	data := []byte("{\n  \"a\": {\"b~/c\": [1,\n    {\"d\": true}]},\n  \"e\": []\n}")
	pos := pointerOffsets(data)
	for ptr, want := range map[string][2]int{
		"/a": {2, 3}, "/a/b~0~1c": {2, 9}, "/a/b~0~1c/0": {2, 18}, "/a/b~0~1c/1": {3, 5},
		"/a/b~0~1c/1/d": {3, 6}, "/e": {4, 3},
	} {
		off, ok := pos[ptr]
		if !ok {
			t.Errorf("%s: not found in %v", ptr, pos)
			continue
		}
		if l, c := lineCol(data, off); l != want[0] || c != want[1] {
			t.Errorf("%s at %d:%d, want %d:%d", ptr, l, c, want[0], want[1])
		}
	}
	errs := Errors{{Path: "/a/b~0~1c/1/missing"}, {Path: "/nowhere"}, {Line: 9, Column: 1}}
	placeErrors(errs, data)
	if errs[0].Line != 3 || errs[0].Column != 5 {
		t.Errorf("a missing member placed at %d:%d, want its object's 3:5", errs[0].Line, errs[0].Column)
	}
	if errs[1].Line != 0 || errs[2].Line != 9 {
		t.Errorf("placed %+v and %+v; want the unknown path unplaced and the line kept", errs[1], errs[2])
	}
}
