// Package plot draws the pictures of the anomaly project with
// gonum.org/v1/plot: ROC and precision–recall curves of several methods,
// score maps over the plane, and the convergence of EXPoSE's stochastic
// gradient. It returns *plot.Plot values (gonum's) that the caller may
// restyle, and Save writes one or several stacked plots to a file.
//
// # Pictures
//
//   - ROC: false positive rate FP/N against true positive rate TP/P as the
//     threshold falls through the scores (eval.ROC), one line per method,
//     AUC in the legend, the diagonal of a random ranking dashed.
//   - PR: recall TP/P against precision TP/(TP+FP) (eval.PR), average
//     precision in the legend, the anomaly share (a random ranking's
//     precision) dashed.
//   - ScoreMap: a fitted detector's scores over a grid covering 2-D points
//     (higher = more anomalous, as everywhere in the project), coloured by
//     rank on a blue (normal) to red (anomalous) diverging palette, with the
//     points on top — Figure 1 of the EXPoSE paper (Schneider, Ertel, Ramos)
//     for any method.
//   - Convergence: ‖w_t − w*‖ on a log scale and the test AUC of w_t
//     against the iteration t, with the batch embedding's AUC — the second
//     and fourth rows of the EXPoSE paper's Figure 2. The series come from
//     bench.SGDTrace.
//   - Sweeps: the relative error of CP-ALS against the sweep on a log scale
//     (series from bench.CPALSTrace).
//   - CDDiagram: Demšar's critical-difference diagram of methods compared
//     over several data sets — average ranks on an axis, thick bars joining
//     the groups Nemenyi's test does not tell apart (from package stats).
//   - RankBars: average ranks of the methods under several metrics as
//     grouped bars with each method's place on top, like Figure 3 of the
//     R1STM paper.
//
// The package never prints; Save writes the file it is given.
package plot
