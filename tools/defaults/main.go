package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/kernelad/anomaly/bench"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	_ "github.com/kernelad/anomaly/detector/all"
)

// candidate is one rule: a name and the parameters that select it.
type candidate struct {
	Name   string
	Params map[string]string
}

// study is a method and its candidates; Old names the previous default
// (listed among the candidates, so it can win).
type study struct {
	Method     string
	Tensor     bool // run on the tensor sets (class protocol) instead of ADBench
	Candidates []candidate
}

// p builds a parameter map from k=v pairs.
func p(kv ...string) map[string]string {
	m := map[string]string{}
	for _, s := range kv {
		k, v, _ := strings.Cut(s, "=")
		m[k] = v
	}
	return m
}

// The candidates, fixed before the study was run. "old" is each method's
// default before this study (no scale stage). The rules: a scale stage
// (standard, robust or minmax) in front of the method, and the method's
// width, ν or component rules. Widths are rules resolved on the training
// rows (γ = 1/(d·Var), the median heuristic, the KDE factors), never
// numbers picked for these data.
var studies = []study{
	{Method: "kde", Candidates: []candidate{
		{"old: none, scott", p("scale=none", "bandwidth=scott")},
		{"standard, scott", p("scale=standard", "bandwidth=scott")},
		{"standard, silverman", p("scale=standard", "bandwidth=silverman")},
		{"standard, scale", p("scale=standard", "bandwidth=scale")},
		{"robust, scale", p("scale=robust", "bandwidth=scale")},
		{"minmax, scale", p("scale=minmax", "bandwidth=scale")},
		{"none, scale", p("scale=none", "bandwidth=scale")},
		// Added after the held-out study (README, Defaults): the scale
		// width shrunk at Scott's rate n^(−1/(d+4)).
		{"standard, scale_scott", p("scale=standard", "bandwidth=scale_scott")},
	}},
	{Method: "expose", Candidates: []candidate{
		{"old: none, scale", p("scale=none", "gamma=scale")},
		{"standard, scale", p("scale=standard", "gamma=scale")},
		{"robust, scale", p("scale=robust", "gamma=scale")},
		{"minmax, scale", p("scale=minmax", "gamma=scale")},
		{"standard, median", p("scale=standard", "gamma=median")},
		// Added after the held-out study (README, Defaults): the scale
		// width shrunk at Scott's rate, as kde's scale_scott.
		{"standard, scale_scott", p("scale=standard", "gamma=scale_scott")},
	}},
	{Method: "ocsvm", Candidates: []candidate{
		{"old: none, scale, nu 0.5", p("scale=none", "gamma=scale", "nu=0.5")},
		{"standard, scale, nu 0.5", p("scale=standard", "gamma=scale", "nu=0.5")},
		{"standard, scale, nu 0.9", p("scale=standard", "gamma=scale", "nu=0.9")},
		{"robust, scale, nu 0.5", p("scale=robust", "gamma=scale", "nu=0.5")},
		{"robust, scale, nu 0.9", p("scale=robust", "gamma=scale", "nu=0.9")},
		{"standard, median, nu 0.5", p("scale=standard", "gamma=median", "nu=0.5")},
		{"standard, median, nu 0.9", p("scale=standard", "gamma=median", "nu=0.9")},
		// Added after the held-out study (README, Defaults).
		{"standard, scale_scott, nu 0.9", p("scale=standard", "gamma=scale_scott", "nu=0.9")},
	}},
	{Method: "svdd", Candidates: []candidate{
		{"old: none, scale, nu 0.5", p("scale=none", "gamma=scale", "nu=0.5")},
		{"standard, scale, nu 0.5", p("scale=standard", "gamma=scale", "nu=0.5")},
		{"standard, scale, nu 0.9", p("scale=standard", "gamma=scale", "nu=0.9")},
		{"robust, scale, nu 0.5", p("scale=robust", "gamma=scale", "nu=0.5")},
		{"robust, scale, nu 0.9", p("scale=robust", "gamma=scale", "nu=0.9")},
		{"standard, median, nu 0.9", p("scale=standard", "gamma=median", "nu=0.9")},
		// Added after the held-out study (README, Defaults).
		{"standard, scale_scott, nu 0.9", p("scale=standard", "gamma=scale_scott", "nu=0.9")},
	}},
	{Method: "kpca", Candidates: []candidate{
		{"old: none, scale, 50 components", p("scale=none", "gamma=scale", "components=50")},
		{"standard, scale, 50 components", p("scale=standard", "gamma=scale", "components=50")},
		{"standard, scale, variance 0.5", p("scale=standard", "gamma=scale", "variance=0.5")},
		{"standard, scale, variance 0.7", p("scale=standard", "gamma=scale", "variance=0.7")},
		{"standard, scale, variance 0.9", p("scale=standard", "gamma=scale", "variance=0.9")},
		{"robust, scale, variance 0.5", p("scale=robust", "gamma=scale", "variance=0.5")},
		{"none, scale, variance 0.5", p("scale=none", "gamma=scale", "variance=0.5")},
	}},
	{Method: "r1svm", Candidates: []candidate{
		{"old: none, median, nu 0.5", p("scale=none", "gamma=median", "nu=0.5")},
		{"standard, median, nu 0.5", p("scale=standard", "gamma=median", "nu=0.5")},
		{"standard, median, nu 0.9", p("scale=standard", "gamma=median", "nu=0.9")},
		{"robust, median, nu 0.5", p("scale=robust", "gamma=median", "nu=0.5")},
		{"standard, median/4, nu 0.5", p("scale=standard", "gamma=median", "gamma_factor=0.25", "nu=0.5")},
		// Added after the held-out study (README, Defaults), as for the
		// other kernel methods.
		{"standard, scale_scott, nu 0.9", p("scale=standard", "gamma=scale_scott", "nu=0.9")},
	}},
	{Method: "1stm", Tensor: true, Candidates: tensorCandidates},
	{Method: "r1stm", Tensor: true, Candidates: tensorCandidates},
}

// tensorCandidates are the scale stages both tensor methods (1stm and
// r1stm) are studied with.
var tensorCandidates = []candidate{
	{"old: none", p("scale=none")},
	{"standard (per entry)", p("scale=standard")},
	{"robust (per entry)", p("scale=robust")},
	{"channel (per first-mode index)", p("scale=channel")},
	{"minmax (per entry)", p("scale=minmax")},
}

// key identifies one run in the cache.
type key struct {
	Method, Candidate, Data string
	Seed                    uint64
	Class                   int
}

type record struct {
	key
	AUC     float64 `json:"auc"`
	Err     string  `json:"error,omitempty"`
	Seconds float64 `json:"seconds"`
}

func main() {
	dataDir := flag.String("data", "../shared/data", "the shared data folder (adbench/ and tensor/)")
	methods := flag.String("methods", "", "comma-separated methods to study (default: all)")
	outDir := flag.String("out", "bench-out/defaults", "folder for the cache and the report")
	timeout := flag.Duration("timeout", 10*time.Minute, "time limit of one run")
	flag.Parse()
	if err := run(*dataDir, *methods, *outDir, *timeout, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "defaults:", err)
		os.Exit(1)
	}
}

func run(dataDir, methods, outDir string, timeout time.Duration, stdout, stderr io.Writer) error {
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	adbench, err := filepath.Glob(filepath.Join(dataDir, "adbench", "*.npz"))
	if err != nil || len(adbench) == 0 {
		return fmt.Errorf("no ADBench sets in %s/adbench (is ../shared beside the repository?)", dataDir)
	}
	tensors, _ := filepath.Glob(filepath.Join(dataDir, "tensor", "*.npz"))
	sort.Slice(adbench, func(i, j int) bool { return bench.NaturalLess(bench.DataName(adbench[i]), bench.DataName(adbench[j])) })
	sort.Strings(tensors)
	cachePath := filepath.Join(outDir, "cache.jsonl")
	cache, err := readCache(cachePath)
	if err != nil {
		return err
	}
	cf, err := os.OpenFile(cachePath, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer cf.Close()
	want := map[string]bool{}
	for _, m := range strings.Split(methods, ",") {
		if m != "" {
			want[m] = true
		}
	}
	var report strings.Builder
	for _, st := range studies {
		if len(want) > 0 && !want[st.Method] {
			continue
		}
		if _, ok := detector.Lookup(st.Method); !ok {
			return fmt.Errorf("unknown method %s", st.Method)
		}
		files := adbench
		if st.Tensor {
			files = tensors
		}
		// scores[candidate][data set] = median AUC over seeds (and classes)
		scores := make([]map[string]float64, len(st.Candidates))
		for ci, c := range st.Candidates {
			scores[ci] = map[string]float64{}
			for _, f := range files {
				ds, err := dataset.Load(f, dataset.Options{})
				if err != nil {
					return err
				}
				classes := []int{-1}
				if st.Tensor {
					classes = classList(ds)
				}
				var aucs []float64
				for _, class := range classes {
					for _, seed := range bench.DefaultSeeds {
						k := key{st.Method, c.Name, bench.DataName(f), seed, class}
						r, ok := cache[k]
						if !ok {
							r = runOne(ds, k, c.Params, timeout)
							cache[k] = r
							b, _ := json.Marshal(r)
							cf.Write(append(b, '\n'))
							fmt.Fprintf(stderr, "%s %-32s %-18s seed %d class %2d: AUC %.4f (%.1f s) %s\n",
								st.Method, c.Name, k.Data, seed, class, r.AUC, r.Seconds, r.Err)
						}
						if r.Err == "" {
							aucs = append(aucs, r.AUC)
						}
					}
				}
				scores[ci][bench.DataName(f)] = median(aucs)
			}
		}
		writeStudy(&report, st, files, scores)
	}
	fmt.Fprint(stdout, report.String())
	return os.WriteFile(filepath.Join(outDir, "report.md"), []byte(report.String()), 0o644)
}

// classList returns the class indices of a class-labelled data set.
func classList(ds *dataset.Dataset) []int {
	seen := map[int]bool{}
	for _, c := range ds.Class {
		if c >= 0 {
			seen[c] = true
		}
	}
	out := slices.Sorted(maps.Keys(seen))
	return out
}

func runOne(ds *dataset.Dataset, k key, params map[string]string, timeout time.Duration) record {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	start := time.Now()
	out := bench.RunTask(ctx, ds, bench.Task{Data: k.Data, Method: k.Method, Params: params, Seed: k.Seed, Class: k.Class})
	r := record{key: k, AUC: out.AUC, Seconds: time.Since(start).Seconds(), Err: out.Err}
	if out.TimedOut {
		r.Err = "timed out"
	}
	return r
}

func readCache(path string) (map[key]record, error) {
	cache := map[key]record{}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return cache, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r record
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			cache[r.key] = r
		}
	}
	return cache, sc.Err()
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	return bench.Median(v)
}

// mean is the mean of m over the data sets in names, skipping NaN (a set
// where every run failed counts as AUC 0.5, chance, so a rule cannot win
// by failing).
func mean(m map[string]float64, names []string) float64 {
	var s float64
	for _, n := range names {
		v := m[n]
		if math.IsNaN(v) {
			v = 0.5
		}
		s += v
	}
	return s / float64(len(names))
}

// better reports whether candidate a beats candidate b on the data sets
// names: a higher mean AUC, or an equal one (to 1e-12) with a scale stage
// where b has none. The tie-break is the aim, scores that do not
// depend on the units of the data: under a protocol that has already
// min-max scaled every column, a per-column min-max stage changes nothing
// and ties with none, but only it gives a user's raw file the same result.
func better(st study, scores []map[string]float64, a, b int, names []string) bool {
	ma, mb := mean(scores[a], names), mean(scores[b], names)
	if math.Abs(ma-mb) > 1e-12 {
		return ma > mb
	}
	return st.Candidates[a].Params["scale"] != "none" && st.Candidates[b].Params["scale"] == "none"
}

// bestOf returns the candidate kept by one pass over the candidates in
// order, each taking the place of the one kept when it is better (see
// better) on the data sets names.
func bestOf(st study, scores []map[string]float64, names []string) int {
	best := 0
	for ci := range st.Candidates {
		if better(st, scores, ci, best, names) {
			best = ci
		}
	}
	return best
}

// writeStudy appends the table of one method: each candidate's AUC per data
// set and mean, the leave-one-dataset-out estimate and the chosen rule.
func writeStudy(w *strings.Builder, st study, files []string, scores []map[string]float64) {
	names := make([]string, len(files))
	for i, f := range files {
		names[i] = bench.DataName(f)
	}
	best := bestOf(st, scores, names)
	// Leave one data set out: pick on the others, score on it.
	var lodo float64
	picks := map[string]int{}
	for _, h := range names {
		rest := slices.DeleteFunc(slices.Clone(names), func(n string) bool { return n == h })
		pick := bestOf(st, scores, rest)
		picks[st.Candidates[pick].Name]++
		v := scores[pick][h]
		if math.IsNaN(v) {
			v = 0.5
		}
		lodo += v
	}
	lodo /= float64(len(names))
	protocol := "ADBench protocol, seeds 1–3, median over seeds"
	if st.Tensor {
		protocol = "class protocol, seeds 1–3, median over seeds and classes"
	}
	fmt.Fprintf(w, "### %s\n\n%s; %d data sets.\n\n| candidate |", st.Method, protocol, len(names))
	for _, n := range names {
		fmt.Fprintf(w, " %s |", n)
	}
	w.WriteString(" mean |\n|---|")
	for range names {
		w.WriteString("---|")
	}
	w.WriteString("---|\n")
	for ci, c := range st.Candidates {
		mark := ""
		if ci == best {
			mark = " **(chosen)**"
		}
		fmt.Fprintf(w, "| %s%s |", c.Name, mark)
		for _, n := range names {
			fmt.Fprintf(w, " %.3f |", scores[ci][n])
		}
		fmt.Fprintf(w, " %.4f |\n", mean(scores[ci], names))
	}
	var pickList []string
	for name, k := range picks {
		pickList = append(pickList, fmt.Sprintf("%s ×%d", name, k))
	}
	sort.Strings(pickList)
	fmt.Fprintf(w, "\nChosen on all %d sets: **%s** (mean %.4f; old default %.4f). Leave-one-dataset-out estimate: **%.4f** (rules picked: %s).\n\n",
		len(names), st.Candidates[best].Name, mean(scores[best], names), mean(scores[0], names), lodo, strings.Join(pickList, "; "))
}
