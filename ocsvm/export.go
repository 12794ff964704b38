package ocsvm

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/scale"
)

// WriteLIBSVM writes the fitted model as a LIBSVM model file (the format
// of svm-train -s 2 and svm_save_model), which svm-predict and the LIBSVM
// bindings load:
//
//	svm_type one_class
//	kernel_type rbf            (or linear, polynomial with degree/gamma/coef0)
//	gamma 0.5
//	nr_class 2
//	total_sv 240
//	rho 67.08
//	SV
//	0.99 1:0.25 3:0.5 ...      (coefficient, then the non-zero features, 1-based)
//
// LIBSVM solves the one-class dual with Σα = νn and writes those
// coefficients and that ρ; this package's form is Σα = 1 (see the package
// documentation), so WriteLIBSVM multiplies every coefficient and ρ by νn
// (n = the number of training rows). LIBSVM's decision value for a row x is
// then Σ coef_i k(sv_i, x) − rho = −νn·(this package's score), and
// svm-predict's label (+1 when the decision value is > 0, −1 otherwise)
// is +1 exactly when Score is negative: svm-predict's −1 is "Score ≥ 0",
// the model's own zero level, not the contamination Threshold.
//
// Numbers are written with 17 significant digits, so LIBSVM reads back the
// exact float64 values. The laplacian kernel has no LIBSVM counterpart,
// and a precomputed-kernel model keeps no support vectors to write: both
// are errors, as is an unfitted model.
func (m *OCSVM) WriteLIBSVM(w io.Writer) error {
	md, ok := m.Model() // one published model, validated when it was loaded
	if !ok {
		return detector.ErrNotFitted
	}
	if st := m.Stage(); st.Rule != scale.None {
		return fmt.Errorf("ocsvm: the model scales its features (scale=%s), which a LIBSVM model file cannot express; refit with --set scale=none to export it", st.Rule)
	}
	if md.precomp {
		return fmt.Errorf("ocsvm: a precomputed-kernel model cannot be exported to LIBSVM (it keeps training indices, not support vectors)")
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', 17, 64) }
	bw := bufio.NewWriter(w)
	fmt.Fprintln(bw, "svm_type one_class")
	switch m.cfg.Kernel.Kind {
	case "rbf":
		fmt.Fprintln(bw, "kernel_type rbf")
		fmt.Fprintln(bw, "gamma", g(md.stats.Gamma))
	case "poly":
		fmt.Fprintln(bw, "kernel_type polynomial")
		fmt.Fprintln(bw, "degree", m.cfg.Kernel.Degree)
		fmt.Fprintln(bw, "gamma", g(md.stats.Gamma))
		fmt.Fprintln(bw, "coef0", g(m.cfg.Kernel.Coef0))
	case "linear":
		fmt.Fprintln(bw, "kernel_type linear")
	default:
		return fmt.Errorf("ocsvm: kernel %q has no LIBSVM counterpart (LIBSVM offers linear, polynomial, rbf, sigmoid)", m.cfg.Kernel.Kind)
	}
	s := m.cfg.Nu * float64(md.nTrain)
	e := md.exp
	fmt.Fprintln(bw, "nr_class 2")
	fmt.Fprintln(bw, "total_sv", e.Len())
	fmt.Fprintln(bw, "rho", g(s*md.rho))
	fmt.Fprintln(bw, "SV")
	for i, c := range e.Coef {
		bw.WriteString(g(s * c))
		e.DoSV(i, func(j int, v float64) {
			bw.WriteByte(' ')
			bw.WriteString(strconv.Itoa(j + 1))
			bw.WriteByte(':')
			bw.WriteString(g(v))
		})
		bw.WriteByte('\n')
	}
	return bw.Flush()
}
