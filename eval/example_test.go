package eval_test

import (
	"fmt"

	"github.com/kernelad/anomaly/eval"
)

func Example() {
	// Five rows, two of them anomalies; rows 3 and 4 tie at 0.6.
	scores := []float64{0.1, 0.4, 0.6, 0.6, 0.9}
	y := []int{0, 0, 1, 0, 1}
	if err := eval.Check(scores, y); err != nil {
		fmt.Println(err)
		return
	}
	// Pairs (anomaly, normal): 0.9 beats all 3 normals, 0.6 beats 2 and
	// ties 1, so AUC = (3 + 2.5)/6.
	fmt.Printf("AUC-ROC %.4f\n", eval.AUCROC(scores, y))
	// Thresholds 0.9 (recall ½, precision 1) and 0.6 (recall 1, precision ⅔):
	// AP = ½·1 + ½·⅔.
	fmt.Printf("AP %.4f\n", eval.AveragePrecision(scores, y))
	// Top 2 rows: 0.9 and one of the tied pair, on average ½ an anomaly.
	fmt.Printf("P@2 %.2f\n", eval.PrecisionAtN(scores, y, 0))
	f1, thr := eval.BestF1(scores, y)
	fmt.Printf("best F1 %.2f at score >= %v\n", f1, thr)
	// Output:
	// AUC-ROC 0.9167
	// AP 0.8333
	// P@2 0.75
	// best F1 0.80 at score >= 0.6
}
