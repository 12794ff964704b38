// Package kde detects anomalies with a kernel density estimate: a row is
// anomalous when the estimated density of the training data at it is low.
//
// # Formulation
//
// Given training rows x_1 … x_n ∈ R^d (rows are samples), a kernel profile K
// and a bandwidth h > 0, the estimate is
//
//	p̂(x) = (1/n) Σ_i c(h, d) · K(‖x − x_i‖ / h),   c(h, d) = 1 / (h^d ∫ K(‖u‖) du)
//
// so that p̂ integrates to one over R^d. The score is −log p̂(x): higher =
// more anomalous, as every detector in this module. The six profiles are
// scikit-learn's (see [Kernel]); c(h, d) uses the volume V_d = π^(d/2)/Γ(d/2+1)
// of the unit ball, e.g. (2π)^(−d/2) h^(−d) for the Gaussian and
// (d+2)/(2 V_d h^d) for the Epanechnikov profile, exactly as
// scikit-learn's KernelDensity, so LogDensity equals its score_samples —
// except for the cosine kernel, whose constant scikit-learn gets wrong for
// even d and for larger d (its "density" integrates to 0.0045 in six
// dimensions); here it integrates to one (see Kernel's constants).
//
// The sum is evaluated as a log-sum-exp, log Σ_i e^(l_i) = l_max +
// log Σ_i e^(l_i − l_max) with l_i = log K(‖x − x_i‖/h), so a point far from
// all training rows keeps a large finite score under the Gaussian (and
// exponential) kernel instead of underflowing to +Inf. Under a
// finite-support kernel (tophat, epanechnikov, linear, cosine) a point with
// no training row closer than h has density exactly zero and scores +Inf;
// package eval and method.ThresholdFromScores accept infinite scores.
//
// # Bandwidth
//
// Config.Bandwidth fixes h. Otherwise Config.Rule picks it at Fit:
//
//	ScaleScott h = √(d·Var(X)/2)·n^(−1/(d+4))  (default; the width of gamma=scale_scott)
//	ScaleWidth h = √(d·Var(X)/2)               (the width of gamma=scale)
//	Scott      h = n^(−1/(d+4))                (scikit-learn's 'scott')
//	Silverman  h = (n(d+2)/4)^(−1/(d+4))       (scikit-learn's 'silverman')
//	CV         argmax_h (1/m) Σ_(i∈S) log p̂_(−i)(x_i) over a grid
//
// Scott and Silverman are scikit-learn's bare factors: they are not
// multiplied by the data's spread (scipy's gaussian_kde does that), so on
// min-max scaled data they are large (0.3–0.9) and the density is smooth.
// CV is leave-one-out likelihood cross-validation: p̂_(−i) drops row i from
// its own sum (normalised by n − 1); S is m = min(n, 1000) rows evenly spaced
// through the training set (Config.CVRows), each scored against all n − 1
// others, so no random choice is involved. The default grid is 21 values
// h_S·10^(−1.5 + 0.1k), k = 0…20 (from h_S/31.6 to 3.16·h_S), around the
// classical rule of thumb h_S = σ̄·n^(−1/(d+4)) with σ̄ the mean column
// standard deviation; Config.CVGrid replaces it. A bandwidth under which a
// held-out row has zero density scores −Inf; ties go to the larger h. On
// data with many exact duplicate rows the leave-one-out likelihood grows
// without bound as h → 0 (a duplicate stays in the sum), so CV then picks
// the smallest grid value; use a rule or a fixed h there.
//
// ScaleWidth is the Gaussian width at which exp(−‖x−y‖²/(2h²)) is the RBF
// kernel of the other methods at γ = scale = 1/(d·Var(X)), Var over all
// entries. make defaults (the selection protocol in the README) first chose
// it: on standardised features (the scale stage's default) it averaged 0.888
// AUC over the 15 ADBench sets, Scott's factor 0.877 and Silverman's 0.872;
// the old default (no scaling, Scott) 0.825. But ScaleWidth does not
// depend on n. A density estimate whose width stays fixed as n grows
// never converges to the density, and on 66 held-out tasks from public
// data (README, Defaults) ScaleWidth averaged 0.830. At that width the
// score is dominated by the distance to the training mean in standardised
// units, which alone averaged 0.786 there.
//
// ScaleScott, the default, keeps ScaleWidth's dependence on the spread and
// the dimension and adds Scott's dependence on n: h = √(d·Var(X)/2)·
// n^(−1/(d+4)). Scott's factor alone, on standardised features, is
// ScaleWidth without the √(d/2): in high dimension every kernel value then
// vanishes (6_cardio, d = 21: 0.670 against 0.945). ScaleScott averaged
// 0.903 over the 15 ADBench sets (leave-one-dataset-out 0.903, picked on
// every fold) and 0.849 over the held-out families (0.830 for ScaleWidth,
// 0.854 for Scott's factor).
//
// # Scorers
//
// Exact (Config.Algorithm) sums over every training row: squared distances
// for a block of up to 64 query rows come from one matrix product on
// mean-centred data (‖q‖² + ‖x‖² − 2qᵀx, clamped at 0), taken a tile of
// training rows at a time so that the rows are read where they are, and
// blocks are spread over runtime.GOMAXPROCS(0) goroutines.
//
// Tree builds a kd-tree (median split of the widest coordinate; leaves of
// LeafSize to 2·LeafSize − 1 rows; each node keeps the tight bounding box of
// its rows); the training rows are reordered in place into the tree's
// order, not copied. For a query x, a node with N rows at box distances
// [r_min, r_max] contributes between N·K(r_max/h) and N·K(r_min/h). The
// walk visits the nearer child first and stops refining a node — adding
// the midpoint N(K(r_min/h) + K(r_max/h))/2 — when
//
//	K(r_min/h) − K(r_max/h) ≤ ATol/c(h,d) + RTol·L/n
//
// with L a lower bound of Σ_i K known at that moment (rows summed so far,
// lower bounds of pruned and pending nodes). Each pruned node errs by at
// most half its spread, so the returned density satisfies
// |p̂ − p| ≤ (ATol + RTol·p)/2, within scikit-learn's documented guarantee
// |p̂ − p| ≤ ATol + RTol·p (ATol is on the normalised density, as
// scikit-learn's atol). With RTol = ATol = 0 only nodes whose kernel value is
// the same for every row are summed in one step (a node of identical rows,
// or one wholly outside — or, for the tophat, inside — the support), so the
// tree is exact to round-off. Auto (the default) uses Exact unless a
// tolerance is set.
//
// Note that scikit-learn's tree at rtol = atol = 0 can return a finite
// log-density near log(n·10⁻¹⁶) where the true density of a finite-support
// kernel is zero (round-off in its bound bookkeeping); this package returns
// −Inf there (testdata/golden.py documents the case).
//
// # Threshold
//
// The threshold is the (1 − contamination) quantile of the training
// scores. Scoring every training row costs n² kernel values, so at most
// Config.ThresholdRows rows (default 10,000, evenly spaced through the
// training set; −1 scores all) are scored for it; each is still scored
// against all n rows, its own included. They are scored from the model's
// centred rows, which equal what Score makes of the training rows bit for
// bit, so scoring the training rows flags the rows the fit flagged.
//
// # Data, memory and sparse input
//
// A density estimate holds its training rows: a fit keeps one dense copy
// of them, scaled by the scale stage and centred in place (8·n·d bytes),
// with their squared norms (exact scorer) or the tree's boxes and row
// order; that is the model, and what a saved model holds. Scoring is
// row-wise and streams, a chunk at a time. A file larger than memory
// (FitSource) is read into that one copy, or fitted on a uniform sample of
// its rows (Config.Sample, --sample N): the memory estimate refuses what
// does not fit.
//
// Sparse input (a *sparse.CSR, such as a LIBSVM file) is densified, a
// chunk at a time in one pass over its non-zeros, before the scale stage
// centres it: the kernel sums and the tree work on dense rows, and a
// sparse matrix and a dense copy of it give the same model and the same
// scores, bit for bit. The dense copy is 8·n·d bytes however few values
// are non-zero (400 × 50,000 rows: 160 MB), and the estimate counts it.
//
// # Cancellation and progress
//
// Fit and ScoreContext return soon after their context ends (every loop
// checks it at least every few milliseconds of work: each query row of
// the scorers, each bandwidth of each held-out row of cross-validation,
// each node of the tree), and a fit that does not finish leaves the
// detector as it was. A fit's progress callback (Config.Progress)
// receives, in order:
//
//	cv     held-out rows of the bandwidth cross-validation (bandwidth=cv)
//	tree   training rows placed in the kd-tree's leaves (the tree scorer)
//	score  training rows scored to set the threshold
//
// besides the stages of the method kit before them (scale, sample).
//
// # Use
//
//	d, err := kde.New(kde.Config{Kernel: kde.Gaussian, Rule: kde.Scott})
//	err = d.Fit(ctx, Xtrain)
//	scores, err := d.Score(nil, Xtest) // −log p̂
//
// or through the registry: detector.New("kde", map[string]string{"bandwidth":
// "silverman", "kernel": "epanechnikov"}); parameters kernel, bandwidth,
// algorithm, threshold_rows, rtol, atol, leaf_size and the shared ones
// (contamination, scale, sample, sample_seed).
package kde
