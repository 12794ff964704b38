package dataset

import (
	"slices"
	"testing"
)

// TestColumnNumbers: beside each feature's name, the column of the file it
// was read from, as the readers' errors and notes number columns: the
// label, a row index, a row identifier and an ARFF class attribute before
// a feature shift it.
func TestColumnNumbers(t *testing.T) {
	for _, tc := range []struct {
		file, content string
		cols          []string
		nums          []int
	}{
		{"plain.csv", "a,b\n1,2\n", []string{"a", "b"}, []int{1, 2}},
		{"skips.csv", ",id,a,label,b,\n0,r1,1,0,2,\n", []string{"a", "b"}, []int{3, 5}},
		{"t.tsv", "label\tx\n0\t1\n", []string{"x"}, []int{2}},
		{"c.arff", "@relation r\n@attribute id numeric\n@attribute class {0,1}\n@attribute a numeric\n@attribute b numeric\n@data\n1,0,1,2\n", []string{"a", "b"}, []int{3, 4}},
	} {
		ds, err := Load(writeFile(t, tc.file, []byte(tc.content)), Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.file, err)
		}
		if !slices.Equal(ds.Columns, tc.cols) || !slices.Equal(ds.ColumnNumbers, tc.nums) {
			t.Errorf("%s: columns %q numbered %v, want %q %v", tc.file, ds.Columns, ds.ColumnNumbers, tc.cols, tc.nums)
		}
		sub := Subset(ds, []int{0})
		if !slices.Equal(sub.ColumnNumbers, tc.nums) {
			t.Errorf("%s: Subset numbers %v", tc.file, sub.ColumnNumbers)
		}
	}
}
