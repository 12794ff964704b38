package bench

import (
	"encoding/json"
	"errors"
	"math"
	"slices"

	"github.com/kernelad/anomaly/stats"
)

// Metric is a per-cell figure that Compare ranks the methods by.
type Metric struct {
	Name   string
	Better stats.Better
	Value  func(c *Cell) float64
}

// Metrics are the figures Compare tests: AUC-ROC and average precision
// (higher is better), fit and score time (lower is better).
var Metrics = []Metric{
	{"AUC-ROC", stats.HigherBetter, func(c *Cell) float64 { return c.AUC }},
	{"AP", stats.HigherBetter, func(c *Cell) float64 { return c.AP }},
	{"fit time", stats.LowerBetter, func(c *Cell) float64 { return c.FitSeconds }},
	{"score time", stats.LowerBetter, func(c *Cell) float64 { return c.ScoreSeconds }},
}

// Alpha is the significance level of the Nemenyi critical difference.
const Alpha = 0.05

// Comparison is the statistical comparison of the methods on one metric
// over the data sets of a Result, in the form of the R1STM paper (its
// Figure 3 and Table 4): average ranks with Friedman's test, the Nemenyi
// critical difference, and pairwise Wilcoxon signed-rank tests with Holm's
// correction.
type Comparison struct {
	Metric string
	// Methods are the methods compared: those with a finished figure on
	// every data set in Data (a rank test needs a complete table). Dropped
	// lists the others, e.g. tensor methods when vector data sets are in
	// the run.
	Methods []string
	Dropped []string
	Data    []string
	// Friedman holds the average ranks (1 = best) and the tests; CD is the
	// Nemenyi critical difference at Alpha: two methods whose average
	// ranks differ by less are not told apart.
	Friedman stats.FriedmanResult
	CD       float64
	// Pairs are the Wilcoxon tests of every pair of Methods (indices into
	// Methods), scores[I] − scores[J].
	Pairs []stats.Pair
	// Err says why no test could be run ("" when they were).
	Err string
}

type pairJSON struct {
	A, B   string
	N      int      `json:"n"`
	Zeros  int      `json:"zeros"`
	WPlus  float64  `json:"w_plus"`
	WMinus float64  `json:"w_minus"`
	Exact  bool     `json:"exact"`
	Z      *float64 `json:"z"`
	P      *float64 `json:"p"`
	PHolm  *float64 `json:"p_holm"`
}

type comparisonJSON struct {
	Metric  string     `json:"metric"`
	Methods []string   `json:"methods"`
	Dropped []string   `json:"dropped,omitempty"`
	Data    []string   `json:"data"`
	AvgRank []float64  `json:"average_rank"`
	ChiSq   *float64   `json:"chi2_f"`
	P       *float64   `json:"p_friedman"`
	F       *float64   `json:"f_iman_davenport"`
	PF      *float64   `json:"p_iman_davenport"`
	CD      *float64   `json:"critical_difference"`
	Pairs   []pairJSON `json:"wilcoxon"`
	Err     string     `json:"error,omitempty"`
}

// MarshalJSON writes the comparison with method names in the pairs and
// undefined statistics (NaN, or F = +Inf when every data set ranks the
// methods alike, or all of them when Err says none were computed) as
// null.
func (c Comparison) MarshalJSON() ([]byte, error) {
	j := comparisonJSON{Metric: c.Metric, Methods: c.Methods, Dropped: c.Dropped, Data: c.Data, Err: c.Err}
	if c.Err != "" {
		// No statistics were computed: null, not the zero values
		// (a p of 0 read as highly significant).
		return json.Marshal(j)
	}
	j.AvgRank, j.ChiSq, j.P = c.Friedman.AvgRank, nullable(c.Friedman.ChiSq), nullable(c.Friedman.P)
	j.F, j.PF, j.CD = nullable(c.Friedman.F), nullable(c.Friedman.PF), nullable(c.CD)
	for _, p := range c.Pairs {
		j.Pairs = append(j.Pairs, pairJSON{A: c.Methods[p.I], B: c.Methods[p.J], N: p.N, Zeros: p.Zeros,
			WPlus: p.WPlus, WMinus: p.WMinus, Exact: p.Exact, Z: nullable(p.Z), P: nullable(p.P), PHolm: nullable(p.PHolm)})
	}
	return json.Marshal(j)
}

// Compare runs the comparison of every metric in Metrics over the data
// sets of res. A metric needs at least 2 methods with a figure on at
// least 2 common data sets; otherwise its Comparison carries Err.
func Compare(res *Result) []Comparison {
	var data []string
	byKey := map[[2]string]*Cell{}
	for i := range res.Cells {
		c := &res.Cells[i]
		if !slices.Contains(data, c.Data) {
			data = append(data, c.Data)
		}
		byKey[[2]string{c.Data, c.Method}] = c
	}
	var out []Comparison
	for _, m := range Metrics {
		cmp := Comparison{Metric: m.Name, Data: data}
		for _, meth := range res.Methods {
			complete := true
			for _, d := range data {
				c := byKey[[2]string{d, meth}]
				if c == nil || c.OK == 0 || math.IsNaN(m.Value(c)) {
					complete = false
					break
				}
			}
			if complete {
				cmp.Methods = append(cmp.Methods, meth)
			} else {
				cmp.Dropped = append(cmp.Dropped, meth)
			}
		}
		if len(cmp.Methods) < 2 || len(data) < 2 {
			cmp.Err = "needs at least 2 methods with a figure on each of at least 2 data sets"
			out = append(out, cmp)
			continue
		}
		table := make([][]float64, len(data))
		for i, d := range data {
			table[i] = make([]float64, len(cmp.Methods))
			for j, meth := range cmp.Methods {
				table[i][j] = m.Value(byKey[[2]string{d, meth}])
			}
		}
		fr, err := stats.Friedman(table, m.Better)
		if err != nil && !errors.Is(err, stats.ErrAllTied) {
			cmp.Err = err.Error()
			out = append(out, cmp)
			continue
		}
		cmp.Friedman = fr
		cmp.CD = stats.CriticalDifference(len(cmp.Methods), len(data), Alpha)
		if cmp.Pairs, err = stats.PairwiseWilcoxon(table); err != nil {
			cmp.Err = err.Error()
		}
		out = append(out, cmp)
	}
	return out
}
