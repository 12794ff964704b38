package detector

import (
	"encoding/json"
	"testing"
)

// TestColumnsJSONLen: SetColumns measures the names as Save writes them
// (encoding/json), without encoding the plain ones.
func TestColumnsJSONLen(t *testing.T) {
	names := []string{"a", "plain_name-1.5", "", "a\"b", `back\slash`, "<tag>&", "é", "tab\t", "\x00", "\u2028", "bad\xff", "ok ok"}
	total := 1
	for i, n := range names {
		names[i] = validUTF8(n) // as SetColumns keeps them
		j, _ := json.Marshal(names[i])
		if got := jsonLen(names[i]); got != len(j) {
			t.Errorf("jsonLen(%q) = %d, encoding/json writes %d bytes", n, got, len(j))
		}
		total += len(j) + 1
	}
	j, _ := json.Marshal(names)
	if total != len(j) {
		t.Errorf("total %d, encoding/json %d", total, len(j))
	}
}
