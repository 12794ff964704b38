package stats_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/stats"
)

// Misuse of the API: a table of the wrong shape or an invalid argument is a
// programmer's error and panics with a "stats: " message (gonum's
// convention); a NaN score is a data problem and is returned as an error.
func TestMisuse(t *testing.T) {
	good := [][]float64{{0.9, 0.8, 0.7}, {0.6, 0.8, 0.5}, {0.7, 0.75, 0.6}}
	nan := [][]float64{{0.9, 0.8, 0.7}, {0.6, math.NaN(), 0.5}}
	friedman := func(s [][]float64, b stats.Better) func() error {
		return func() error { _, err := stats.Friedman(s, b); return err }
	}
	rankRows := func(s [][]float64) func() error {
		return func() error { _, err := stats.RankRows(s, stats.HigherBetter); return err }
	}
	pairwise := func(s [][]float64) func() error {
		return func() error { _, err := stats.PairwiseWilcoxon(s); return err }
	}
	wilcoxon := func(x, y []float64) func() error {
		return func() error { _, err := stats.Wilcoxon(x, y); return err }
	}
	noErr := func(f func()) func() error { return func() error { f(); return nil } }
	for _, tc := range []struct {
		name  string
		call  func() error
		panic string // a substring of the panic message; "" = no panic
		err   string // a substring of the returned error; "" = no error
	}{
		{"friedman ragged", friedman([][]float64{{1, 2, 3}, {1, 2}}, stats.HigherBetter), "ragged table: data set 1 has 2 scores", ""},
		{"friedman one method", friedman([][]float64{{1}, {2}, {3}}, stats.HigherBetter), "at least 2 methods", ""},
		{"friedman no method", friedman([][]float64{{}, {}}, stats.HigherBetter), "at least 2 methods", ""},
		{"friedman one data set", friedman([][]float64{{1, 2, 3}}, stats.HigherBetter), "at least 2 data sets", ""},
		{"friedman nil", friedman(nil, stats.HigherBetter), "at least 2 data sets", ""},
		{"friedman zero Better", friedman(good, 0), "Better must be", ""},
		{"friedman NaN score", friedman(nan, stats.LowerBetter), "", "method 1 on data set 1 is NaN (0-based indices)"},
		{"friedman good", friedman(good, stats.LowerBetter), "", ""},
		{"rank rows ragged", rankRows([][]float64{{1, 2}, {1, 2, 3}}), "ragged", ""},
		{"rank rows one data set", rankRows([][]float64{{1, 2}}), "at least 2 data sets", ""},
		{"rank rows NaN", rankRows(nan), "", "is NaN"},
		{"pairwise ragged", pairwise([][]float64{{1, 2}, {1}}), "ragged", ""},
		{"pairwise one method", pairwise([][]float64{{1}, {2}}), "at least 2 methods", ""},
		{"pairwise one data set", pairwise([][]float64{{1, 2}}), "at least 2 data sets", ""},
		{"pairwise NaN", pairwise(nan), "", "is NaN"},
		{"pairwise Inf minus Inf", pairwise([][]float64{{math.Inf(1), math.Inf(1)}, {1, 2}}), "", "methods 0 and 1: stats: pair 0 (0-based): +Inf − +Inf is NaN"},
		{"wilcoxon lengths", wilcoxon([]float64{1, 2, 3}, []float64{1, 2}), "3 and 2 paired scores", ""},
		{"wilcoxon one pair", wilcoxon([]float64{1}, []float64{2}), "at least 2 pairs", ""},
		{"wilcoxon NaN", wilcoxon([]float64{1, math.NaN()}, []float64{2, 3}), "", "pair 1 (0-based)"},
		{"wilcoxon all zero", wilcoxon([]float64{1, 2}, []float64{1, 2}), "", stats.ErrAllTied.Error()},
		{"nemenyi k=1", noErr(func() { stats.NemenyiQ(1, 0.05) }), "at least 2 methods", ""},
		{"nemenyi alpha 0", noErr(func() { stats.NemenyiQ(3, 0) }), "not in (0, 1)", ""},
		{"nemenyi alpha 1", noErr(func() { stats.NemenyiQ(3, 1) }), "not in (0, 1)", ""},
		{"nemenyi alpha NaN", noErr(func() { stats.NemenyiQ(3, math.NaN()) }), "not in (0, 1)", ""},
		{"cd n=1", noErr(func() { stats.CriticalDifference(3, 1, 0.05) }), "at least 2 data sets", ""},
		{"cd k=1", noErr(func() { stats.CriticalDifference(1, 10, 0.05) }), "at least 2 methods", ""},
		{"groups cd 0", noErr(func() { stats.NemenyiGroups([]float64{1, 2}, 0) }), "not positive", ""},
		{"groups NaN rank", noErr(func() { stats.NemenyiGroups([]float64{1, math.NaN()}, 1) }), "NaN average rank", ""},
		{"holm p > 1", noErr(func() { stats.Holm(nil, []float64{0.5, 1.5}) }), "not in [0, 1]", ""},
		{"holm p < 0", noErr(func() { stats.Holm(nil, []float64{-0.1}) }), "not in [0, 1]", ""},
		{"holm dst length", noErr(func() { stats.Holm(make([]float64, 1), []float64{0.1, 0.2}) }), "destination length 1, want 2", ""},
		{"rank dst length", noErr(func() { stats.Rank(make([]float64, 3), []float64{1, 2}) }), "destination length 3, want 2", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var err error
			msg := func() (msg any) {
				defer func() { msg = recover() }()
				err = tc.call()
				return nil
			}()
			switch {
			case tc.panic == "" && msg != nil:
				t.Fatalf("unexpected panic %v", msg)
			case tc.panic != "":
				s, ok := msg.(string)
				if !ok || !strings.HasPrefix(s, "stats: ") || !strings.Contains(s, tc.panic) {
					t.Fatalf("panic %#v, want a \"stats: \" message containing %q", msg, tc.panic)
				}
				return
			}
			switch {
			case tc.err == "" && err != nil:
				t.Fatalf("unexpected error %v", err)
			case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), "stats: ") || !strings.Contains(err.Error(), tc.err)):
				t.Fatalf("error %v, want a \"stats: \" error containing %q", err, tc.err)
			}
		})
	}
	// The all-tied error is the sentinel, for errors.Is.
	if _, err := stats.Wilcoxon([]float64{1, 2}, []float64{1, 2}); !errors.Is(err, stats.ErrAllTied) {
		t.Errorf("Wilcoxon all zero: %v is not ErrAllTied", err)
	}
}
