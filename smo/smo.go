package smo

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/kernelad/anomaly/internal/hugepage"
)

// Matrix supplies the Hessian Q of the problem, column by column. Q must be
// symmetric positive semi-definite; it already carries the labels, i.e. for a
// kernel dual Q_ij = y_i y_j k(x_i, x_j) times any constant factor.
type Matrix interface {
	// Len returns n, the order of Q.
	Len() int
	// Diag returns Q_ii.
	Diag(i int) float64
	// Column sets dst[i] = Q_ij for every i in rows (len(dst) = n). It
	// may set other entries too, but only to their Q_ij (computing a whole
	// column can be cheaper than a scattered subset). The solver calls
	// Column from one goroutine; an implementation may use several
	// goroutines inside, as the rows write disjoint entries.
	Column(dst []float32, j int, rows []int)
}

// Problem is the quadratic program
//
//	min_α ½ αᵀQα + pᵀα   s.t.  yᵀα = Delta,  0 ≤ α_i ≤ C_i.
type Problem struct {
	// Q is the Hessian (required).
	Q Matrix
	// P is the linear term p; nil means zero.
	P []float64
	// Y holds the labels y_i ∈ {+1, −1}; nil means all +1 (then the
	// constraint is Σα = Delta).
	Y []int8
	// C holds the upper bounds C_i > 0 (required, length n).
	C []float64
	// Delta is the right-hand side of the equality constraint.
	Delta float64
	// Alpha0 is a feasible starting point; nil lets Solve build one by
	// filling the variables of one label up to their bounds in index order
	// (LIBSVM's start for the one-class problem).
	Alpha0 []float64
}

// Settings controls the solver. The zero value is the default.
type Settings struct {
	// Tol is the stopping tolerance on the maximal KKT violation
	// m(α) − M(α) (LIBSVM's -e); 0 means 1e-3.
	Tol float64
	// CacheMB is the budget of the kernel-column cache in megabytes
	// (2^20 bytes; LIBSVM's -m); 0 means 200. The cache always holds at
	// least two full columns, whatever the budget.
	CacheMB float64
	// NoShrinking turns the shrinking heuristic off (LIBSVM's -h 0).
	NoShrinking bool
	// MaxIter bounds the iterations; 0 means max(10⁷, 100·n) as LIBSVM.
	// Reaching it ends the solve with Status IterationLimit.
	MaxIter int
	// Progress, when set, is called on the solving goroutine while the
	// initial gradient is formed (stage "gradient", rows or row ranges
	// done and their total) and then every 1,000 iterations and at least
	// every progressEvery of work (stage "smo", the iteration count and
	// the iteration limit). Each stage ends at its total: a solve that
	// meets its tolerance early reports the limit as done when it stops.
	Progress func(stage string, done, total int)
}

// Check returns an error for settings no solve can use: a negative or NaN
// tolerance or cache budget, or a negative iteration limit (zero values
// mean the defaults). Detectors call it in their constructors, so bad
// settings are reported before any training.
func (s Settings) Check() error {
	switch {
	case s.Tol < 0 || math.IsNaN(s.Tol):
		return fmt.Errorf("tol = %v must be > 0 (or 0 for 1e-3)", s.Tol)
	case s.CacheMB < 0 || math.IsNaN(s.CacheMB):
		return fmt.Errorf("cache_mb = %v must be > 0 (or 0 for 200)", s.CacheMB)
	case s.MaxIter < 0:
		return fmt.Errorf("max_iter = %d must be ≥ 0 (0 for LIBSVM's default)", s.MaxIter)
	}
	return nil
}

// Status says how a solve ended.
type Status int

const (
	// Optimal: the KKT conditions hold to the tolerance.
	Optimal Status = iota
	// IterationLimit: MaxIter iterations were done first; α is feasible
	// but not optimal to the tolerance.
	IterationLimit
)

func (s Status) String() string {
	switch s {
	case Optimal:
		return "optimal"
	case IterationLimit:
		return "iteration limit reached"
	}
	return fmt.Sprintf("Status(%d)", int(s))
}

// ErrIterationLimit is returned by Status.Err for IterationLimit.
var ErrIterationLimit = errors.New("smo: maximum number of iterations reached before the tolerance was met")

// Err returns nil for Optimal and ErrIterationLimit otherwise.
func (s Status) Err() error {
	if s == Optimal {
		return nil
	}
	return ErrIterationLimit
}

// ErrNotPSD is wrapped by the error Solve returns when Q shows negative
// curvature (a negative diagonal entry or a 2×2 principal minor with
// Q_ii + Q_jj − 2 y_i y_j Q_ij < 0).
var ErrNotPSD = errors.New("matrix is not positive semi-definite")

// RangeError is the error Solve returns when a diagonal entry of Q lies
// beyond the float32 range of the kernel cache (3.4e38). For a positive
// semi-definite Q, |Q_ij| ≤ √(Q_ii Q_jj), so no cached column can overflow
// once the diagonal fits; an entry that overflowed would turn the
// gradient, and every score, into NaN.
type RangeError struct {
	Index int     // zero-based variable (training row) index
	Value float64 // Q_ii
}

func (e *RangeError) Error() string {
	return fmt.Sprintf("row %d: its diagonal entry in the dual's kernel matrix, %.3g, is beyond the single-precision range (3.4e38) of the solver's kernel cache: scale the features (scale=standard), lower the kernel's gamma, degree or coef0, or use a bounded kernel (rbf, laplacian)", e.Index+1, e.Value)
}

// Result is the solution of a Problem.
type Result struct {
	// Alpha is the solution, in the problem's order.
	Alpha []float64
	// Gradient is Qα + p at Alpha.
	Gradient []float64
	// Rho is the multiplier of the equality constraint with LIBSVM's sign:
	// y_i G_i = Rho for every free α_i (0 < α_i < C_i), averaged over them;
	// with no free variable it is the midpoint of [Lower, Upper], or its
	// finite end when the other is infinite.
	Rho float64
	// Lower and Upper bound Rho from the bounded variables
	// (Lower = Upper = Rho when a free variable exists).
	Lower, Upper float64
	// Objective is ½αᵀQα + pᵀα.
	Objective float64
	// Iterations is the number of two-variable updates.
	Iterations int
	// Status says whether the tolerance was met.
	Status Status
	// Gap is the final maximal KKT violation m(α) − M(α).
	Gap float64
	// CachePeakBytes is the largest number of bytes of Q values the column
	// cache held at any time; CacheBudgetBytes is the bound it kept to.
	CachePeakBytes, CacheBudgetBytes int64
	// Columns counts the calls of Q.Column (whole columns or the missing
	// tail of a cached one) and Entries the Q values they computed.
	Columns, Entries int64
}

const (
	tau = 1e-12 // LIBSVM's TAU: curvature used for non-positive pairs
)

const (
	lowerBound = iota
	upperBound
	free
)

// solver keeps every vector in the problem's order and the active
// (unshrunk) variables as an ascending index list, so shrinking moves no
// data: cached columns stay in the problem's order too (unlike LIBSVM,
// which permutes variables and must swap entries in every cached column).
type solver struct {
	q                Matrix
	l                int
	y                []int8
	alpha, g, gbar   []float64
	p, c, qd         []float64
	status           []int8
	active           []int // ascending
	all              []int // 0 … l−1
	gen              int32 // incremented whenever the active set grows back
	cache            *cache
	eps              float64
	unshrink         bool
	columns, entries int64
	ctx              context.Context
	work             int64 // work units done since ctx was last checked
	cost             int64 // work units of one Q entry (entryCost)
	err              error
	scratch          []int
}

// ctxEvery is the work between two checks of the context (and of the
// clock, for progress), in units of about a nanosecond on one core: a Q
// entry costs its Matrix's entryCost (the values a kernel value reads,
// plus the exponential), an iteration a few units per active variable.
// About a millisecond, so cancellation latency grows neither with n nor
// with the width of the rows.
const ctxEvery = 1 << 20

// defaultEntryCost is the work units of a Q entry of a Matrix that does
// not say (entryCost): a kernel value on about a dozen values.
const defaultEntryCost = 16

// progressEvery is the longest the solver goes between two progress
// reports while it has work to report.
const progressEvery = 100 * time.Millisecond

// entryCost returns the work units of one entry of q.
func entryCost(q Matrix) int64 {
	if c, ok := q.(interface{ entryCost() int64 }); ok {
		return max(1, c.entryCost())
	}
	return defaultEntryCost
}

// checkCtx returns ctx.Err() once enough work was done since the last look.
func (s *solver) checkCtx(ctx context.Context) error {
	if s.work < ctxEvery {
		return nil
	}
	s.work = 0
	return ctx.Err()
}

// Solve minimises the problem and returns its solution. It returns an error,
// and no result, when the problem is infeasible or Q is not positive
// semi-definite, and ctx.Err() when ctx is cancelled. Reaching the iteration
// limit is not an error: the result carries Status IterationLimit.
//
// Solve panics when the lengths of P, Y, C or Alpha0 differ from Q.Len(), as
// that is a programming error.
func Solve(ctx context.Context, prob Problem, set Settings) (*Result, error) {
	if prob.Q == nil {
		panic("smo: nil Q")
	}
	l := prob.Q.Len()
	if l <= 0 {
		panic("smo: empty problem")
	}
	check := func(name string, n int) {
		if n != l {
			panic(fmt.Sprintf("smo: len(%s) = %d, want %d", name, n, l))
		}
	}
	check("C", len(prob.C))
	if prob.P != nil {
		check("P", len(prob.P))
	}
	if prob.Y != nil {
		check("Y", len(prob.Y))
	}
	if prob.Alpha0 != nil {
		check("Alpha0", len(prob.Alpha0))
	}
	tol := set.Tol
	if tol == 0 {
		tol = 1e-3
	}
	if !(tol > 0) || math.IsInf(tol, 0) {
		return nil, fmt.Errorf("smo: tolerance %v must be > 0", set.Tol)
	}
	mb := set.CacheMB
	if mb == 0 {
		mb = 200
	}
	if !(mb > 0) || math.IsInf(mb, 0) {
		return nil, fmt.Errorf("smo: cache size %v MB must be > 0", set.CacheMB)
	}
	maxIter := set.MaxIter
	if maxIter == 0 {
		maxIter = 10000000
		if l < math.MaxInt/100 && 100*l > maxIter {
			maxIter = 100 * l
		}
	}
	if maxIter < 0 {
		return nil, fmt.Errorf("smo: max iterations %d must be ≥ 0", set.MaxIter)
	}

	s := &solver{q: prob.Q, l: l, eps: tol, cost: entryCost(prob.Q), ctx: ctx}
	s.y = make([]int8, l)
	s.alpha = make([]float64, l)
	s.g = make([]float64, l)
	s.gbar = make([]float64, l)
	s.p = make([]float64, l)
	s.c = make([]float64, l)
	s.qd = make([]float64, l)
	s.status = make([]int8, l)
	s.all = make([]int, l)
	for i := 0; i < l; i++ {
		s.all[i] = i
		s.y[i] = 1
		if prob.Y != nil {
			switch prob.Y[i] {
			case 1, -1:
				s.y[i] = prob.Y[i]
			default:
				return nil, fmt.Errorf("smo: label y[%d] = %d, want +1 or −1", i, prob.Y[i])
			}
		}
		ci := prob.C[i]
		if !(ci > 0) || math.IsInf(ci, 0) {
			return nil, fmt.Errorf("smo: bound C[%d] = %v, want a finite number > 0", i, ci)
		}
		s.c[i] = ci
		// The diagonal first: the linear term of SVDD is made from it,
		// and an overflowing kernel is the user's to fix (RangeError
		// says how), not an internal p[i] of −Inf.
		d := prob.Q.Diag(i)
		if math.IsNaN(d) || math.IsInf(d, -1) {
			return nil, fmt.Errorf("smo: Q[%d][%d] = %v is not finite", i, i, d)
		}
		if d < 0 {
			return nil, fmt.Errorf("smo: %w: Q[%d][%d] = %v < 0", ErrNotPSD, i, i, d)
		}
		if d > math.MaxFloat32 { // +Inf included
			return nil, &RangeError{Index: i, Value: d}
		}
		if prob.P != nil {
			if math.IsNaN(prob.P[i]) || math.IsInf(prob.P[i], 0) {
				return nil, fmt.Errorf("smo: linear term p[%d] = %v is not finite", i, prob.P[i])
			}
			s.p[i] = prob.P[i]
		}
		s.qd[i] = d
	}
	if err := s.start(prob.Alpha0, prob.Delta); err != nil {
		return nil, err
	}

	// In float32 values, at most the whole matrix: a larger budget holds
	// nothing more, and one past int64's range (cache_mb = 1e18) would not
	// convert (it became the two-column minimum).
	budget := int64(min(mb*(1<<20)/4, float64(l)*float64(l)))
	if budget < int64(2*l) {
		budget = int64(2 * l)
	}
	s.cache = newCache(l, budget)
	// The columns are carved from one mapping of the whole budget (at most
	// the whole matrix), advised for huge pages but not populated: only
	// the columns the solver asks for are faulted in, 2 MiB at a time, as
	// svm-train mallocs its columns on demand (from the Go heap each
	// 28 kB column of 7,000 rows was zeroed and faulted in 4 KiB pages:
	// 32_shuttle at ν = 0.1, a first fit in a fresh process 183 ms against
	// 105 ms warm). The mapping goes when Solve returns; every goroutine
	// that fills columns has finished by then, and the Result holds no
	// column.
	region, free := hugepage.Reserve32(int(min(budget, int64(l)*int64(l)) / int64(l) * int64(l)))
	defer free()
	s.cache.region = region
	s.active = append(make([]int, 0, l), s.all...)

	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Initial gradient G = Qα + p and Ḡ = Σ_{α_i = C_i} C_i Q_i: by
	// columns, or when most α are non-zero in one symmetric pass over Q
	// (mulAdd) that computes each kernel value once instead of twice.
	copy(s.g, s.p)
	nz := 0
	for i := 0; i < l; i++ {
		if s.status[i] != lowerBound {
			nz++
		}
	}
	var progress func(done, total int)
	if set.Progress != nil {
		progress = func(done, total int) { set.Progress("gradient", done, total) }
	}
	if fa, ok := s.q.(interface {
		fillAll(ctx context.Context, cols [][]float32, progress func(done, total int)) (bool, error)
	}); ok && 2*nz > l && int64(l)*int64(l) <= s.cache.budget {
		// The whole matrix fits the cache: store every column from one
		// symmetric pass; the gradient loop below and every iteration
		// then read stored columns.
		// The region holds every column: populated in one call, since
		// each will be written.
		slab := region[:l*l]
		hugepage.Prefault32(slab)
		s.cache.carved = l * l
		cols := make([][]float32, l)
		for i := range cols {
			cols[i] = s.cache.adopt(i, slab[i*l:(i+1)*l]).data
		}
		filled, err := fa.fillAll(ctx, cols, progress)
		if err != nil {
			return nil, err
		}
		if filled {
			for i := range cols {
				s.cache.head[i].state = colFull
			}
			s.columns += int64(l)
			s.entries += int64(l) * int64(l+1) / 2 // each value computed once
			nz = 0                                 // the column loop runs, on stored columns
		}
	}
	if sm, ok := s.q.(interface {
		mulAdd(ctx context.Context, g, a, gb, b []float64, progress func(done, total int)) (bool, error)
	}); ok && 2*nz > l {
		b := make([]float64, l)
		for i := range b {
			if s.status[i] == upperBound {
				b[i] = s.c[i]
			}
		}
		done, err := sm.mulAdd(ctx, s.g, s.alpha, s.gbar, b, progress)
		if err != nil {
			return nil, err
		}
		if done {
			nz = -1
		}
	}
	last := time.Now()
	for i := 0; i < l && nz >= 0; i++ {
		if progress != nil && (i == 0 || time.Since(last) >= progressEvery) {
			progress(i, l)
			last = time.Now()
		}
		if s.status[i] == lowerBound {
			continue
		}
		if err := s.checkCtx(ctx); err != nil {
			return nil, err
		}
		qi := s.getQ(i, true)
		ai := s.alpha[i]
		for j := 0; j < l; j++ {
			s.g[j] += ai * float64(qi[j])
		}
		if s.status[i] == upperBound {
			ci := s.c[i]
			for j := 0; j < l; j++ {
				s.gbar[j] += ci * float64(qi[j])
			}
		}
	}
	if progress != nil && nz >= 0 {
		progress(l, l)
	}

	shrinking := !set.NoShrinking
	iter := 0
	counter := min(l, 1000) + 1
	st := Optimal
	gap := 0.0
	for {
		if iter >= maxIter {
			st = IterationLimit
			break
		}
		if s.work >= ctxEvery {
			s.work = 0
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if set.Progress != nil && time.Since(last) >= progressEvery {
				set.Progress("smo", iter, maxIter)
				last = time.Now()
			}
		}
		counter--
		if counter == 0 {
			counter = min(l, 1000)
			if shrinking {
				s.shrink()
			}
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		i, j, ok := s.selectWorkingSet(&gap)
		if s.err != nil {
			return nil, s.err
		}
		if !ok {
			s.unshrinkAll()
			i, j, ok = s.selectWorkingSet(&gap)
			if s.err != nil {
				return nil, s.err
			}
			if !ok {
				break
			}
			counter = 1 // shrink at the next iteration
		}
		iter++
		s.work += 4 * int64(len(s.active))
		if set.Progress != nil && iter%1000 == 0 {
			set.Progress("smo", iter, maxIter)
			last = time.Now()
		}
		s.update(i, j)
	}
	s.unshrinkAll()
	if s.err != nil {
		return nil, s.err
	}
	if set.Progress != nil {
		set.Progress("smo", maxIter, maxIter)
	}
	if st == IterationLimit {
		// Report the violation at the returned point.
		var g float64
		s.selectWorkingSet(&g)
		gap = g
		s.err = nil
	}

	res := &Result{
		Alpha:            make([]float64, l),
		Gradient:         make([]float64, l),
		Iterations:       iter,
		Status:           st,
		Gap:              gap,
		CachePeakBytes:   4 * s.cache.peak,
		CacheBudgetBytes: 4 * s.cache.budget,
		Columns:          s.columns,
		Entries:          s.entries,
	}
	res.Rho, res.Lower, res.Upper = s.rho()
	var obj float64
	for k := 0; k < l; k++ {
		obj += s.alpha[k] * (s.g[k] + s.p[k])
	}
	copy(res.Alpha, s.alpha)
	copy(res.Gradient, s.g)
	res.Objective = obj / 2
	return res, nil
}

// start sets a feasible α and the bound statuses.
func (s *solver) start(alpha0 []float64, delta float64) error {
	if math.IsNaN(delta) || math.IsInf(delta, 0) {
		return fmt.Errorf("smo: Delta = %v is not finite", delta)
	}
	if alpha0 != nil {
		var sum, scale float64
		for i, a := range alpha0 {
			if !(a >= 0 && a <= s.c[i]) {
				return fmt.Errorf("smo: Alpha0[%d] = %v is outside [0, C_i = %v]", i, a, s.c[i])
			}
			s.alpha[i] = a
			sum += float64(s.y[i]) * a
			scale += s.c[i]
		}
		if math.Abs(sum-delta) > 1e-9*math.Max(1, scale) {
			return fmt.Errorf("smo: Alpha0 is infeasible: yᵀα = %v, want %v", sum, delta)
		}
	} else {
		// Fill the variables whose label has the sign of Delta, in order.
		want := int8(1)
		if delta < 0 {
			want = -1
		}
		rest := math.Abs(delta)
		for i := 0; i < s.l && rest > 0; i++ {
			if s.y[i] != want {
				continue
			}
			a := math.Min(s.c[i], rest)
			s.alpha[i] = a
			rest -= a
		}
		if rest > 1e-12*math.Max(1, math.Abs(delta)) {
			return fmt.Errorf("smo: infeasible problem: the bounds allow |yᵀα| ≤ %v, but Delta = %v", math.Abs(delta)-rest, delta)
		}
	}
	for i := range s.alpha {
		s.setStatus(i)
	}
	return nil
}

func (s *solver) setStatus(i int) {
	switch {
	case s.alpha[i] >= s.c[i]:
		s.status[i] = upperBound
	case s.alpha[i] <= 0:
		s.status[i] = lowerBound
	default:
		s.status[i] = free
	}
}

// getQ returns column i of Q in the problem's order, valid on the active
// variables, or on all when full is set; it computes what the cache lacks.
func (s *solver) getQ(i int, full bool) []float32 {
	e := s.cache.get(i)
	switch {
	case e.state == colFull:
	case e.state == colActive && e.gen == s.gen && len(s.active) == s.l:
		e.state = colFull
	case e.state == colActive && e.gen == s.gen:
		if full {
			// Valid on an active set that contains today's: completing it
			// over today's inactive variables makes it whole.
			s.fill(e.data, i, s.inactive())
			e.state = colFull
		}
	default:
		if full || len(s.active) == s.l {
			s.fill(e.data, i, s.all)
			e.state = colFull
		} else {
			s.fill(e.data, i, s.active)
			e.state, e.gen = colActive, s.gen
		}
	}
	return e.data
}

func (s *solver) fill(dst []float32, j int, rows []int) {
	if len(rows) == 0 {
		return
	}
	s.q.Column(dst, j, rows)
	s.columns++
	s.entries += int64(len(rows))
	s.work += int64(len(rows)) * s.cost
}

// inactive returns the shrunk variables in ascending order (scratch space).
func (s *solver) inactive() []int {
	out := s.scratch[:0]
	k := 0
	for i := 0; i < s.l; i++ {
		if k < len(s.active) && s.active[k] == i {
			k++
			continue
		}
		out = append(out, i)
	}
	s.scratch = out
	return out
}

// unshrinkAll reconstructs the gradient of the shrunk variables and makes
// every variable active again.
func (s *solver) unshrinkAll() {
	if len(s.active) == s.l {
		return
	}
	s.reconstructGradient()
	s.active = append(s.active[:0], s.all...)
	s.gen++
}

// selectWorkingSet is WSS 2 of Fan, Chen and Lin (2005): i maximises the
// violation −y_i G_i over I_up, j minimises the second-order decrease
// −b²/a over the pairs (i, t) with b = −y_iG_i + y_tG_t > 0. It reports the
// violation m − M in gap and ok = false when it is below the tolerance.
func (s *solver) selectWorkingSet(gap *float64) (int, int, bool) {
	gmax, gmax2 := math.Inf(-1), math.Inf(-1)
	imax := -1
	g, y, st := s.g, s.y, s.status
	for _, t := range s.active {
		if y[t] == 1 {
			if st[t] != upperBound && -g[t] >= gmax {
				gmax, imax = -g[t], t
			}
		} else {
			if st[t] != lowerBound && g[t] >= gmax {
				gmax, imax = g[t], t
			}
		}
	}
	var qi []float32
	var qdi, yi float64
	if imax != -1 {
		qi = s.getQ(imax, false)
		qdi = s.qd[imax]
		yi = float64(s.y[imax])
	}
	jmin := -1
	objMin := math.Inf(1)
	qd := s.qd
	for _, t := range s.active {
		if y[t] == 1 {
			if st[t] == lowerBound {
				continue
			}
			diff := gmax + g[t]
			if g[t] >= gmax2 {
				gmax2 = g[t]
			}
			if diff > 0 {
				a := qdi + qd[t] - 2*yi*float64(qi[t])
				if a <= 0 {
					s.curvature(imax, t, a)
					a = tau
				}
				if o := -(diff * diff) / a; o <= objMin {
					jmin, objMin = t, o
				}
			}
		} else {
			if st[t] == upperBound {
				continue
			}
			diff := gmax - g[t]
			if -g[t] >= gmax2 {
				gmax2 = -g[t]
			}
			if diff > 0 {
				a := qdi + qd[t] + 2*yi*float64(qi[t])
				if a <= 0 {
					s.curvature(imax, t, a)
					a = tau
				}
				if o := -(diff * diff) / a; o <= objMin {
					jmin, objMin = t, o
				}
			}
		}
	}
	*gap = gmax + gmax2
	if gmax+gmax2 < s.eps || jmin == -1 {
		return 0, 0, false
	}
	return imax, jmin, true
}

// curvature records an error when a 2×2 minor is clearly negative; values
// within single-precision rounding of zero (identical points) are fine.
func (s *solver) curvature(i, t int, a float64) {
	if s.err != nil || i == t {
		return
	}
	if a < -1e-5*(math.Abs(s.qd[i])+math.Abs(s.qd[t])+1e-300) {
		s.err = fmt.Errorf("smo: %w: training rows %d and %d give Q_ii + Q_jj − 2Q_ij = %.4g < 0, which no kernel can (poly with coef0 < 0 is not one; use coef0 ≥ 0 or another kernel)", ErrNotPSD, i+1, t+1, a)
	}
}

// update solves the two-variable subproblem on (i, j) and updates G and Ḡ.
func (s *solver) update(i, j int) {
	qi := s.getQ(i, false)
	qj := s.getQ(j, false)
	ci, cj := s.c[i], s.c[j]
	oldI, oldJ := s.alpha[i], s.alpha[j]
	ai, aj := oldI, oldJ
	if s.y[i] != s.y[j] {
		a := s.qd[i] + s.qd[j] + 2*float64(qi[j])
		if a <= 0 {
			a = tau
		}
		delta := (-s.g[i] - s.g[j]) / a
		diff := ai - aj
		ai += delta
		aj += delta
		if diff > 0 {
			if aj < 0 {
				aj, ai = 0, diff
			}
		} else if ai < 0 {
			ai, aj = 0, -diff
		}
		if diff > ci-cj {
			if ai > ci {
				ai, aj = ci, ci-diff
			}
		} else if aj > cj {
			aj, ai = cj, cj+diff
		}
	} else {
		a := s.qd[i] + s.qd[j] - 2*float64(qi[j])
		if a <= 0 {
			a = tau
		}
		delta := (s.g[i] - s.g[j]) / a
		sum := ai + aj
		ai -= delta
		aj += delta
		if sum > ci {
			if ai > ci {
				ai, aj = ci, sum-ci
			}
		} else if aj < 0 {
			aj, ai = 0, sum
		}
		if sum > cj {
			if aj > cj {
				aj, ai = cj, sum-cj
			}
		} else if ai < 0 {
			ai, aj = 0, sum
		}
	}
	s.alpha[i], s.alpha[j] = ai, aj
	dai, daj := ai-oldI, aj-oldJ
	g := s.g
	for _, k := range s.active {
		g[k] += float64(qi[k])*dai + float64(qj[k])*daj
	}
	ui := s.status[i] == upperBound
	uj := s.status[j] == upperBound
	s.setStatus(i)
	s.setStatus(j)
	if ui != (s.status[i] == upperBound) {
		s.updateGbar(i, ui)
	}
	if uj != (s.status[j] == upperBound) {
		s.updateGbar(j, uj)
	}
}

func (s *solver) updateGbar(i int, wasUpper bool) {
	q := s.getQ(i, true)
	c := s.c[i]
	if wasUpper {
		c = -c
	}
	gb := s.gbar[:s.l]
	for k := range gb {
		gb[k] += c * float64(q[k])
	}
}

func (s *solver) beShrunk(i int, gmax1, gmax2 float64) bool {
	switch s.status[i] {
	case upperBound:
		if s.y[i] == 1 {
			return -s.g[i] > gmax1
		}
		return -s.g[i] > gmax2
	case lowerBound:
		if s.y[i] == 1 {
			return s.g[i] > gmax2
		}
		return s.g[i] > gmax1
	}
	return false
}

func (s *solver) shrink() {
	gmax1, gmax2 := math.Inf(-1), math.Inf(-1)
	for _, i := range s.active {
		if s.y[i] == 1 {
			if s.status[i] != upperBound && -s.g[i] >= gmax1 {
				gmax1 = -s.g[i]
			}
			if s.status[i] != lowerBound && s.g[i] >= gmax2 {
				gmax2 = s.g[i]
			}
		} else {
			if s.status[i] != upperBound && -s.g[i] >= gmax2 {
				gmax2 = -s.g[i]
			}
			if s.status[i] != lowerBound && s.g[i] >= gmax1 {
				gmax1 = s.g[i]
			}
		}
	}
	if !s.unshrink && gmax1+gmax2 <= s.eps*10 {
		s.unshrink = true
		s.unshrinkAll()
	}
	keep := s.active[:0]
	for _, i := range s.active {
		if !s.beShrunk(i, gmax1, gmax2) {
			keep = append(keep, i)
		}
	}
	s.active = keep
}

// reconstructGradient recomputes G for the shrunk variables from
// G_i = Ḡ_i + p_i + Σ_{free j} α_j Q_ij. When ctx ends it stops, with
// s.err set to its error and G incomplete.
func (s *solver) reconstructGradient() {
	n, l := len(s.active), s.l
	if n == l {
		return
	}
	in := append([]int(nil), s.inactive()...) // getQ below reuses the scratch
	for _, j := range in {
		s.g[j] = s.gbar[j] + s.p[j]
	}
	nFree := 0
	for _, j := range s.active {
		if s.status[j] == free {
			nFree++
		}
	}
	// Each column costs a kernel column or a pass over the variables:
	// the context is heard between them (a solve of 20,000 rows spent a
	// tenth of a second here; s.err then ends the solve).
	if nFree*l > 2*n*(l-n) {
		for _, i := range in {
			if s.err = s.checkCtx(s.ctx); s.err != nil {
				return
			}
			s.work += int64(n)
			q := s.getQ(i, false)
			var sum float64
			for _, j := range s.active {
				if s.status[j] == free {
					sum += s.alpha[j] * float64(q[j])
				}
			}
			s.g[i] += sum
		}
	} else {
		for _, i := range s.active {
			if s.status[i] != free {
				continue
			}
			if s.err = s.checkCtx(s.ctx); s.err != nil {
				return
			}
			s.work += int64(len(in))
			q := s.getQ(i, true)
			a := s.alpha[i]
			for _, j := range in {
				s.g[j] += a * float64(q[j])
			}
		}
	}
}

// rho returns LIBSVM's ρ with the bounds it comes from.
func (s *solver) rho() (r, lower, upper float64) {
	ub, lb := math.Inf(1), math.Inf(-1)
	nFree := 0
	var sumFree float64
	for _, i := range s.active {
		yg := float64(s.y[i]) * s.g[i]
		switch s.status[i] {
		case upperBound:
			if s.y[i] == -1 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		case lowerBound:
			if s.y[i] == 1 {
				ub = math.Min(ub, yg)
			} else {
				lb = math.Max(lb, yg)
			}
		default:
			nFree++
			sumFree += yg
		}
	}
	switch {
	case nFree > 0:
		r = sumFree / float64(nFree)
		return r, r, r
	case math.IsInf(ub, 1):
		// Every variable at its upper bound (as ν = 1 gives): ρ may be
		// any value ≥ lb; take the tightest.
		return lb, lb, ub
	case math.IsInf(lb, -1):
		return ub, lb, ub
	}
	return (ub + lb) / 2, lb, ub
}
