package embedded_test

import (
	"fmt"
	"testing"

	"github.com/kernelad/anomaly/dataset/embedded"
)

// The shapes and anomaly counts come from shared/data/MANIFEST.md (numpy).
func TestLoadAll(t *testing.T) {
	want := map[string][3]int{ // rows, cols, anomalies (or classes for tensors)
		"4_breastw":    {683, 9, 239},
		"6_cardio":     {1831, 21, 176},
		"38_thyroid":   {3772, 6, 93},
		"40_vowels":    {1456, 12, 50},
		"32_shuttle":   {49097, 9, 3511},
		"basicmotions": {80, 600, 0},
	}
	if len(embedded.Names()) != len(want) {
		t.Fatalf("Names() = %v", embedded.Names())
	}
	for _, name := range embedded.Names() {
		ds, err := embedded.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		r, c := ds.X.Dims()
		w := want[name]
		if r != w[0] || c != w[1] || ds.Anomalies() != w[2] {
			t.Errorf("%s: %d × %d with %d anomalies, want %v", name, r, c, ds.Anomalies(), w)
		}
		if embedded.Citation(name) == "" {
			t.Errorf("%s: no citation", name)
		}
	}
	bm, _ := embedded.Load("basicmotions")
	if len(bm.Shape) != 2 || bm.Shape[0] != 6 || bm.Shape[1] != 100 || len(bm.Class) != 80 || len(bm.Split) != 80 {
		t.Errorf("basicmotions: Shape %v, %d classes, %d split", bm.Shape, len(bm.Class), len(bm.Split))
	}
	if _, err := embedded.Load("nope"); err == nil {
		t.Error("Load(nope) did not fail")
	}
}

func ExampleLoad() {
	ds, err := embedded.Load("6_cardio")
	if err != nil {
		fmt.Println(err)
		return
	}
	r, c := ds.X.Dims()
	fmt.Println(r, c, ds.Anomalies())
	// Output: 1831 21 176
}
