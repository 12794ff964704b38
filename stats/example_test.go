package stats_test

import (
	"fmt"

	"github.com/kernelad/anomaly/stats"
)

// The AUCs of Table 3 of the R1STM paper (Erfani et al.), as printed to two
// decimals: 9 data sets (rows) × 5 methods (columns).
var (
	methods = []string{"H1SVM", "DRDAE", "R1SVM", "1STM", "R1STM"}
	auc     = [][]float64{
		{0.78, 0.98, 0.98, 0.93, 0.98}, // Banana
		{0.84, 0.98, 0.98, 0.98, 0.99}, // DSA
		{0.83, 0.98, 0.99, 0.96, 0.99}, // GSAOS
		{0.90, 0.96, 0.96, 0.97, 0.98}, // PAMAP2
		{0.85, 0.96, 0.96, 0.95, 0.99}, // UHAD
		{0.86, 0.97, 0.96, 0.93, 0.99}, // USFG32
		{0.87, 0.97, 0.97, 0.94, 0.99}, // USFG64
		{0.88, 0.97, 0.97, 0.96, 0.99}, // USFG128
		{0.81, 0.98, 0.96, 0.95, 0.98}, // CASIAA
	}
)

// Friedman's test, Nemenyi's critical difference and the groups a
// critical-difference diagram joins, on the paper's AUCs (higher is
// better, so rank 1 goes to the highest AUC of each data set).
func ExampleFriedman() {
	res, err := stats.Friedman(auc, stats.HigherBetter)
	if err != nil {
		fmt.Println(err)
		return
	}
	for j, m := range methods {
		fmt.Printf("%-6s average rank %.3f\n", m, res.AvgRank[j])
	}
	fmt.Printf("χ²_F = %.3f (p = %.2g), F_F = %.2f (p = %.2g)\n", res.ChiSq, res.P, res.F, res.PF)
	cd := stats.CriticalDifference(res.K, res.N, 0.05)
	fmt.Printf("CD(α=0.05) = %.3f\n", cd)
	for _, g := range stats.NemenyiGroups(res.AvgRank, cd) {
		fmt.Print("not significantly different:")
		for _, j := range g {
			fmt.Print(" ", methods[j])
		}
		fmt.Println()
	}
	// Output:
	// H1SVM  average rank 5.000
	// DRDAE  average rank 2.500
	// R1SVM  average rank 2.611
	// 1STM   average rank 3.667
	// R1STM  average rank 1.222
	// χ²_F = 31.253 (p = 2.7e-06), F_F = 52.67 (p = 1.2e-13)
	// CD(α=0.05) = 2.033
	// not significantly different: R1STM DRDAE R1SVM
	// not significantly different: DRDAE R1SVM 1STM
	// not significantly different: 1STM H1SVM
}

// Wilcoxon's signed-rank test of every pair of methods, with Holm's
// adjustment, as in Table 4 of the R1STM paper (which has no adjustment
// and works on unrounded AUCs). The rank sums of DRDAE vs R1SVM (4.5, 1.5),
// R1SVM vs 1STM (33.5, 2.5), DRDAE vs R1STM (0, 28) and H1SVM vs DRDAE,
// R1SVM and R1STM (0, 45) are the paper's, with the sides swapped where it
// puts the other method first; the two-decimal rounding ties |d| on most
// pairs, so their p-values come from the normal approximation.
func ExamplePairwiseWilcoxon() {
	pairs, err := stats.PairwiseWilcoxon(auc)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range pairs {
		how := "normal"
		if p.Exact {
			how = "exact"
		}
		fmt.Printf("%-5s vs %-5s W+ %4.1f W- %4.1f p %.4f (%s) Holm %.4f\n",
			methods[p.I], methods[p.J], p.WPlus, p.WMinus, p.P, how, p.PHolm)
	}
	// Output:
	// H1SVM vs DRDAE W+  0.0 W- 45.0 p 0.0076 (normal) Holm 0.0668
	// H1SVM vs R1SVM W+  0.0 W- 45.0 p 0.0076 (normal) Holm 0.0668
	// H1SVM vs 1STM  W+  0.0 W- 45.0 p 0.0076 (normal) Holm 0.0668
	// H1SVM vs R1STM W+  0.0 W- 45.0 p 0.0039 (exact) Holm 0.0391
	// DRDAE vs R1SVM W+  4.5 W-  1.5 p 0.4142 (normal) Holm 0.4142
	// DRDAE vs 1STM  W+ 34.0 W-  2.0 p 0.0242 (normal) Holm 0.0788
	// DRDAE vs R1STM W+  0.0 W- 28.0 p 0.0158 (normal) Holm 0.0788
	// R1SVM vs 1STM  W+ 33.5 W-  2.5 p 0.0278 (normal) Holm 0.0788
	// R1SVM vs R1STM W+  0.0 W- 28.0 p 0.0158 (normal) Holm 0.0788
	// 1STM  vs R1STM W+  0.0 W- 45.0 p 0.0074 (normal) Holm 0.0668
}

// Holm's step-down adjustment of four p-values.
func ExampleHolm() {
	fmt.Printf("%.3f\n", stats.Holm(nil, []float64{0.01, 0.04, 0.03, 0.005}))
	// Output: [0.030 0.060 0.060 0.020]
}
