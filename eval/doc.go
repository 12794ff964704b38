// Package eval measures how well anomaly scores separate labelled anomalies
// from normal rows: the area under the ROC curve, average precision,
// precision at n, the best F1 score, and the points of the ROC and
// precision–recall curves.
//
// # Conventions
//
// Every function takes the scores of n rows (higher = more anomalous, the
// sign every detector in this module uses) and their labels y, where 1 marks
// an anomaly (the positive class) and 0 a normal row. Scores may be ±Inf
// (a kernel density with finite support gives +Inf to a row outside it);
// +Inf ranks above every finite score and rows with equal scores, infinite
// or not, form one tie group. The results equal scikit-learn's
// (sklearn.metrics, version 1.x) to rounding; the package tests compare
// against golden values it computed (testdata/make_golden.py).
//
// Ties are never broken by input order. At a threshold t a row is flagged
// when its score is ≥ t, so the curves have one point per distinct score:
//
//	TP(t) = #{i : s_i ≥ t, y_i = 1},  FP(t) = #{i : s_i ≥ t, y_i = 0}
//	P = #{y_i = 1},  N = #{y_i = 0}
//
// [AUCROC] is the trapezoidal area under (FP/N, TP/P), which equals the
// Mann–Whitney statistic with average ranks for ties:
//
//	AUC = (1/(P·N)) Σ_{i:y_i=1} Σ_{j:y_j=0} ( [s_i > s_j] + ½[s_i = s_j] )
//
// (scikit-learn's roc_auc_score). [AveragePrecision] is the step-wise sum
// over the distinct thresholds t_1 > t_2 > … (scikit-learn's
// average_precision_score, no interpolation):
//
//	AP = Σ_k (R_k − R_{k−1}) · P_k,  P_k = TP(t_k)/(TP(t_k)+FP(t_k)),  R_k = TP(t_k)/P
//
// [PrecisionAtN] is the share of anomalies among the n highest-scored rows,
// with a tie group straddling the cut counted at its expected share (as if
// its ties were broken at random), so the value does not depend on row
// order. [BestF1] is the maximum of F1 = 2·TP/(TP+FP+P) over all thresholds.
//
// [ROC] and [PR] return the curves with scikit-learn's conventions:
// roc_curve(drop_intermediate=False) — thresholds decreasing, led by an
// extra +Inf threshold at the point (0, 0) — and precision_recall_curve —
// thresholds increasing, precision and recall one longer than thresholds,
// ending at precision 1, recall 0.
//
// # Errors
//
// The metrics keep the plain signatures of their formulas. Input they cannot
// be computed on — no rows, a NaN score, a label other than 0 or 1, or
// labels of only one class — makes the scalar metrics return NaN and the
// curve functions return nil; [Check] returns an error saying which, so a
// caller with user data validates once with Check and then calls the
// metrics. Scores and labels of different lengths are a programmer's error
// and panic with an "eval:" message.
package eval
