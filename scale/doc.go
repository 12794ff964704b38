// Package scale holds the per-column affine scalers of the project and the
// scale stage that every detector fits in front of its method.
//
// Scalers: MinMax (x − min)/(max − min), Standard (x − mean)/std, Robust
// (x − median)/IQR and MaxAbs x/max|x|. Each has Fit(X) and Transform(dst,
// X); rows of X are samples, columns features. MinMax, Standard and MaxAbs
// match scikit-learn's scalers of the same names (golden tests to 1e-15);
// Robust matches RobustScaler except where a column's IQR is 0, where it
// divides by the column's standard deviation instead of 1 (and by 1 only
// for a constant column). A constant column is never divided by 0: its
// spread is taken as 1, so it is centred and left unscaled.
//
// Standard.Fit divides each column by a power of two near its largest
// magnitude before summing (an exact operation), so features measured in
// units of 1e±300 neither overflow nor underflow.
//
// # Sparse input
//
// Fit reads a *sparse.CSR through its non-zeros, the implicit zeros
// counting as values. Centring a sparse matrix would make it dense, so
// TransformSparse (and Scale) scale CSR input without centring (MaxAbs,
// Standard{NoCenter: true}, Robust{NoCenter: true}, and MinMax when every
// column's minimum is 0) or return an error rather than densify it.
//
// # The scale stage
//
// Fit(rule, X) learns a Stage, the map x'_j = (x_j − Offset_j)/Divisor_j of
// a rule (standard, robust, minmax or none) from training rows, and
// Stage.Apply maps any matrix with the same columns. A stage fitted on
// sparse input does not centre (Offset is nil), so it keeps sparse input
// sparse. method.Base fits the stage on the training rows, saves it with
// the model and applies it before every score, so a detector's scores do
// not depend on the units its features were measured in.
package scale
