// Package kpca detects anomalies by kernel PCA reconstruction error
// (Hoffmann, "Kernel PCA for novelty detection", Pattern Recognition 40,
// 2007): a row is anomalous when its image in the kernel's feature space is
// far from the principal subspace of the training images.
//
// # Formulation
//
// Rows are samples. With a kernel k(x, y) = ⟨φ(x), φ(y)⟩ and training rows
// x_1 … x_n, let φ̄ = (1/n) Σ_i φ(x_i) and φ̃(x) = φ(x) − φ̄. The centred
// Gram matrix is
//
//	K̃ = K − 1K/n − K1/n + 1K1/n²,  i.e. K̃_ij = K_ij − r_i − r_j + g,
//	r_i = (1/n) Σ_j K_ij,  g = (1/n²) Σ_ij K_ij.
//
// Let (λ_j, u_j), j = 1…q, be its q leading eigenpairs (unit u_j); the
// principal axes in feature space are e_j = Σ_i u_ij φ̃(x_i)/√λ_j. For a row
// x, with k_x = (k(x, x_1), …, k(x, x_n)) and m_x = (1/n) Σ_i k(x, x_i),
//
//	‖φ̃(x)‖²  = k(x, x) − 2 m_x + g
//	k̃(x)_i   = k(x, x_i) − m_x − r_i + g
//	z_j(x)    = ⟨φ̃(x), e_j⟩ = k̃(x)ᵀ u_j / √λ_j
//	score(x)  = ‖φ̃(x) − Σ_j z_j(x) e_j‖² = ‖φ̃(x)‖² − Σ_(j≤q) z_j(x)²
//
// the squared distance from φ̃(x) to the principal subspace; higher = more
// anomalous. For a training row it is K̃_ii − Σ_j λ_j u_ij². z_j equals
// scikit-learn's KernelPCA.transform (up to sign). The score is a
// difference of two terms and can come out a tiny negative number (of order
// 10⁻¹⁵·k(x, x)) for rows inside the principal subspace; it is not clamped.
//
// # Components
//
// Config.Variance in (0, 1] keeps the fewest components with Σ_(j≤q) λ_j ≥
// Variance · trace(K̃) (trace(K̃) = Σ_i ‖φ̃(x_i)‖² is the total variance
// times n); the default is 0.5, chosen by make defaults: on standardised
// features it averaged 0.908 AUC over the 15 ADBench sets where a fixed 50
// components gave 0.822. Config.Components instead fixes q (at most n − 1).
// Eigenvalues at or below the numerical rank cutoff n·ε·max(λ_1, k_max)
// (ε = 2⁻⁵², NumPy's matrix_rank tolerance; k_max = max_i k(x_i, x_i)) are
// dropped: their axes are round-off. Eigenvalues
// returns the kept λ_j and the explained share.
//
// # Methods
//
// Exact forms the n × n Gram matrix (kernel.Gram, all cores) and centres it.
// Up to n = 300 rows a full symmetric eigendecomposition (gonum's
// EigenSym) gives the eigenpairs. Above that only the q leading pairs are
// computed, by block Lanczos with full reorthogonalisation: a Krylov basis
// V of blocks K̃V_0, K̃²V_0, … (block size max(8, q/4), random start from
// Config.Src) grows until every wanted Ritz pair (θ, y) of Vᵀ K̃ V has
// ‖K̃y − θy‖ ≤ 10⁻¹⁰·θ_1. When the basis reaches its budget of min(n/2,
// max(40 blocks, 10q)) vectors first (eigenvalues packed close around the
// q-th, as for many-featured data), it is restarted thickly: it shrinks to
// its (q + budget)/2 leading Ritz vectors and the Krylov recurrence goes on
// from them (as ARPACK keeps nev + (ncv − nev)/2), for up to six budgets of
// vectors in all. Only past that, or for q > n/4, are the pairs taken from
// one tridiagonal reduction of K̃ (values from it, the q vectors by inverse
// iteration), which is O(n³): at 2,000 rows of 784 features the default
// rule keeps 605 components and the fit takes 1.7 s, at 5,000 rows
// 1,305 and 27.5 s (scikit-learn's KernelPCA() with all components,
// dense, back to back: 1.7 s and 26.2 s). (gonum v0.17 has no LAPACK dsyevr with an
// index range, and its full EigenSym forms all n eigenvectors: 41–52 s at
// n = 2,000; the reduction is LAPACK's blocked dsytrd with its symmetric
// product and rank-2k update on all cores: internal/symeig.) The cost is one
// n × n Gram matrix (8n² bytes) and about 2n² flops per basis vector:
// 72–252 vectors for q ≤ 50 on the first 5,000 training rows of six
// ADBench sets.
//
// Nystrom picks Config.Landmarks training rows l_1 … l_m at random and maps
// every row to its Nyström features z(x) = K_mm^(−1/2) k_m(x)
// (randfeat.NewNystrom), an isometric picture of the projection of φ(x) on
// the landmarks' span S. Then linear PCA of the centred features
// z(x_i) − z̄ gives axes v_j (the q leading eigenvectors of the m × m
// scatter matrix), and
//
//	score(x) = [k(x, x) − ‖z(x)‖²] + ‖z(x) − z̄‖² − Σ_(j≤q) (v_jᵀ(z(x) − z̄))²
//
// where the bracket is ‖φ(x)‖² minus its part in S, the error no axis in S
// can reconstruct. With m = n every training row is a landmark, S contains
// φ̄ and the principal axes, and the score equals the exact one (to
// round-off, tested). The cost is O(nm(d + m)) time and O(nm) memory (the
// features of every row, centred in place): the map's products and the
// m × m covariance (its upper triangle) run on fastmath's
// register-blocked kernel on all cores. On all 49,097 rows of 32_shuttle
// a fit takes 1.5–1.7 s at the default 500 landmarks (scikit-learn's
// Nystroem(500) followed by PCA: 3.5–4.2 s) and 28 s at 2,000. A saved
// model keeps the landmark map, so scoring does not decompose K_mm again.
//
// # Scoring
//
// Score is row-wise: a row's score depends on that row and the model
// alone, so a matrix scored whole, in chunks (as Base hands it over, about
// 8 MiB of values at a time) or from a file (detector.ScoreSource) gets
// the same scores bit for bit. Everything that does not depend on the
// rows scored is prepared once, when the model is fitted or loaded: the
// training rows (exact) or the landmarks (Nyström) centred on their column
// means for the rbf kernel, with their squared norms, and from 1,024 rows
// on transposed, as kernel.Cross prepares them at every call (their values
// are kernel.Cross's, bit for bit); and the projection's centring terms.
// A block of rows then costs its cross kernel and its projections; blocks
// of at most 512 rows (fewer as the model grows: about 2²⁵ multiply-adds
// each) go to the cores, and Score returns ctx.Err() between them.
//
// # Progress and cancellation
//
// Every stage looks at the context within some tens of milliseconds of
// work (at 10,000 rows the n × n matrix is mapped 4 MiB at a time, since
// populating it in one call took seconds), and a cancelled fit changes
// nothing (method.Base publishes a model only when its fit succeeds).
// Progress stages (Config.Progress), besides Base's "sample" and
// "scale":
//
//   - "allocate": MiB of the n × n kernel matrix populated (exact; at
//     10,000 rows 800 MB, seconds on a virtual machine);
//   - "gram": rows of the n × n kernel matrix formed, of n (exact);
//   - "eigen": block Lanczos's basis vectors multiplied by the matrix,
//     against a budget that grows by what each restart frees; it ends at
//     its total when the pairs converge (exact);
//   - "reduce": columns of the tridiagonal reduction, of n (exact, dense
//     route; Nyström, of m, above 300 landmarks);
//   - "vectors": the dense route's eigenvectors by inverse iteration,
//     then its blocks of reflectors;
//   - "landmarks": 0 then 1 of 1 around the Nyström map (the landmarks'
//     kernel matrix and its eigendecomposition: 0.1 s at 500 landmarks,
//     seconds at 2,000, with no report between);
//   - "features": rows mapped to their Nyström features, of n;
//   - "covariance": rows added to the features' covariance, of n.
//
// # Sparse input and large files
//
// Sparse rows (a *sparse.CSR, a LIBSVM file) are densified a chunk at a
// time before the scale stage (method.Hooks.Densify), so that a sparse
// matrix and a dense copy of it give the same model and the same scores,
// bit for bit. Kept sparse they would not: the scale stage centres dense
// columns but not sparse ones (to keep them sparse), and the default
// width rule (scale: 1/(d·Var) over all entries) follows the centring.
// The exact model keeps its training rows dense, for the products of its
// cross kernel. The memory estimate counts the dense rows: fitting a
// 400 × 50,000 CSR of 8,000 non-zeros holds about 500 MB (the rows, their
// prepared copy, the stage's chunks; estimated 690 MB).
//
// Both methods hold every training row in memory (the exact model keeps
// them; Nyström draws its landmarks and its width rule from them), one
// scaled copy read from a file a chunk at a time (FitSource), and the
// exact method the n × n kernel matrix beside them. A file larger than
// memory is fitted on a sample of its rows (Config.Sample, --sample N);
// scoring reads any file a chunk at a time.
//
// # Use
//
//	p, err := kpca.New(kpca.Config{Components: 50})
//	err = p.Fit(ctx, Xtrain)
//	scores, err := p.Score(nil, Xtest)
//
// or through the registry: detector.New("kpca", map[string]string{"method":
// "nystrom", "landmarks": "1000"}); parameters kernel, gamma, components,
// variance, method, landmarks, seed, and the shared contamination, scale,
// sample and sample_seed.
package kpca
