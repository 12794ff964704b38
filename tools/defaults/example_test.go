package main

import (
	"fmt"
	"math"
)

// The selection rule: the candidate with the highest mean AUC over the
// data sets wins (a set where every run failed counts as chance, 0.5); on
// a tie, one with a scale stage beats one without, so that a user's raw
// file gets the same result as the protocol's min-max scaled one.
func Example_bestOf() {
	st := study{Method: "kde", Candidates: []candidate{
		{Name: "raw", Params: p("scale=none")},
		{Name: "minmax", Params: p("scale=minmax")},
		{Name: "narrow", Params: p("scale=minmax", "bandwidth=0.01")},
	}}
	sets := []string{"a", "b"}
	failed := mean(map[string]float64{"a": math.NaN()}, []string{"a"}) // every run on a failed: chance
	scores := []map[string]float64{
		{"a": 0.9, "b": 0.7}, // mean 0.8
		{"a": 0.7, "b": 0.9}, // mean 0.8: ties raw, and has a scale stage
		{"a": 1.0, "b": 0.5}, // mean 0.75
	}
	fmt.Println(st.Candidates[bestOf(st, scores, sets)].Name)
	fmt.Println(failed)
	// Output:
	// minmax
	// 0.5
}
