// Package fastmath holds the cosine kernel behind every random Fourier
// feature map: dst[j] = s · cos(dst[j] + b[j]) over a row of projections.
//
// math.Cos is exact to the last bit for any argument, at the price of a
// general range reduction and a data-dependent branch on the quadrant,
// about 10 ns a call here. Feature maps evaluate n·D cosines of moderate
// arguments, so this package reduces x by π with a three-part Cody–Waite
// constant (exact for |x| ≤ 2²⁰, far beyond any projection of scaled
// data), evaluates the Taylor polynomial of cos on [−π/2, π/2] to the
// 20th power (truncation below 2·10⁻¹⁷; ten fused multiply-adds, no
// quadrant selection), and sets the sign from the parity of the multiple
// of π. The result agrees with math.Cos to within 2⁻⁵⁰ (4·10⁻¹⁶ at most
// measured over the whole fast range); arguments beyond MaxArg fall back
// to math.Cos.
//
// Beside it are the other inner loops the detectors spend their time in,
// each in AVX2/FMA assembly on amd64 with a plain Go loop elsewhere: Exp
// (math.Exp to two ulps, four at a time: RBF kernel values) and ExpSum (a
// log-sum-exp's shifted, scaled terms summed in the same pass: KDE),
// Dot4 and DotAxpy4x2 (kernel PCA's projections and its Lanczos products
// over one triangle of the kernel matrix), and MulNN with SumSquares (the
// small-inner-dimension product X·Yᵀ behind the Gram, cross-kernel and
// exact KDE blocks, and row norms in the same arithmetic, so that the
// distance of a row to itself is exactly 0).
package fastmath
