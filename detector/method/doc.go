// Package method is the kit a detection method is written with: what a
// method author needs to join package detector's registry, as
// database/sql/driver is to database/sql. A user who fits and scores
// needs only package detector; a method built with this kit is then
// reached by name (detector.New, detector.Load) like every other.
//
// # What a method provides
//
// A method is a configuration type, a detector type that embeds
// Base[M], and a fitted model type M:
//
//	type Config struct {
//		Gamma float64 // the method's own parameters, declared in Bind
//		method.Common // contamination, scale stage, sample, progress
//	}
//	func (c *Config) Bind(s *param.Set) { ... }
//
//	type Detector struct {
//		method.Base[*model]
//		cfg Config
//	}
//
//	type model struct{ ... } // immutable once a fit returns it
//	func (m *model) Score(ctx context.Context, dst []float64, X mat.Matrix) error
//	func (m *model) MarshalBinary() ([]byte, error)
//
// Base provides every method of a detector.Detector and more (Fit,
// Score, ScoreContext, FitSource, ScoreSource, PredictContext, Threshold,
// and what detector.Save, Load, Describe and SetColumns use), so the
// method writes only its fit, its scoring and its saved state.
//
// # Adding a method: gauss, step by step
//
// Package gauss, the Gaussian detector (mean and shrunk covariance,
// scored by Mahalanobis distance), is the smallest real method; these
// are its parts, in the order a new method needs them.
//
// 1. The configuration. Each parameter is a field, declared once in Bind
// with its name, default, range and help (what `anomaly methods` prints
// and what detector.New checks); method.Common, embedded, brings the
// parameters every method shares:
//
//	type Config struct {
//		Score     string  // mahalanobis or nll
//		Shrinkage float64 // 0: the Ledoit–Wolf estimate
//		method.Common
//	}
//
//	func (c *Config) Bind(s *param.Set) {
//		s.Choice(&c.Score, "score", Mahalanobis, []string{Mahalanobis, NLL}, nil, "mahalanobis (squared distance) or nll (−log density)")
//		s.OptionalFloat(&c.Shrinkage, "shrinkage", param.Interval(0, 1, true, false), "covariance shrinkage toward μI; unset: the Ledoit–Wolf estimate")
//	}
//
// 2. The model: what a fit builds and what scores rows. It is never
// changed once a fit returned it (Base publishes it atomically, and
// Score may read it while another fit runs). Score receives rows already
// through the fitted scale stage and checked (finite, the fit's column
// count), and dst of their length (Base scores ChunkRows rows a call). MarshalBinary builds a state struct of numbers, strings and
// slices and encodes it with EncodeState (RowMajor hands a matrix's own
// array over without a copy):
//
//	type model struct {
//		mean []float64
//		chol *mat.Cholesky // of the shrunk covariance
//		...
//	}
//
//	func (m *model) MarshalBinary() ([]byte, error) {
//		st := state{Mean: m.mean, U: ..., Rho: m.rho}
//		return method.EncodeState("gauss", st)
//	}
//
// 3. The detector and its constructor. NewBase resolves the
// configuration in place (defaults filled in, ranges checked) and takes
// the Hooks: Fit and Decode always; Densify because gauss works on
// dense rows (a sparse matrix and its dense copy then give the same
// model, bit for bit); Settle for a method whose training scores come
// from another computation than Score; StageSample for one that reads few
// rows:
//
//	type Gauss struct {
//		method.Base[*model]
//		cfg Config
//	}
//
//	func New(cfg Config) (*Gauss, error) {
//		g := &Gauss{cfg: cfg}
//		return method.Init(g, &g.Base, "gauss", &g.cfg, method.Hooks[*model]{Fit: g.fit, Decode: g.decode, Densify: true})
//	}
//
// 4. The fit. Hooks.Fit reads the training rows through the *Fitting, as
// the model needs them: gauss passes over them with Scan (sums of the
// rows, their outer products and norms), so a file larger than memory
// fits holding d × d values;
// kde and the support vector machines take every row with Matrix or
// Dense; iforest and EXPoSE's SGD read a sample with Rows or Sample. It
// reports progress with Fitting.Report from every stage that can take
// more than a second, returns ctx.Err() soon after ctx ends, and returns
// the model and the training rows' scores (all of them, or a sample),
// from which Base sets the threshold. It never changes the detector:
//
//	func (g *Gauss) fit(ctx context.Context, f *method.Fitting) (*model, []float64, error) {
//		n, d := f.Dims()
//		err := f.Scan(ctx, method.ChunkRows(d), func(lo int, X mat.Matrix) error {
//			r, _ := X.Dims()
//			addRows(sum, X)
//			...
//			f.Report("moments", lo+r, n)
//			return nil
//		})
//		...
//		return m, train, nil
//	}
//
// 5. Decode, the inverse of MarshalBinary, for detector.Load. The bytes
// are input: DecodeState checks every length against the bytes present,
// and Decode then checks what it decoded before it uses it: the state's
// column count against dim (the model file's shared state), sizes by
// division (a product of two sizes read from a file can wrap), values
// with Finite and the model's own invariants (gauss: a triangular factor
// with a positive diagonal). An invalid state is an error, never a
// panic; a panic while scoring a loaded model would still be turned into
// an error by Base, but a Decode that lets one through is a defect.
//
//	func (g *Gauss) decode(b []byte, dim int) (*model, error) {
//		var s state
//		if err := method.DecodeState("gauss", b, &s); err != nil {
//			return nil, err
//		}
//		if len(s.Mean) != dim || !method.Finite(s.Mean) { ... }
//		...
//	}
//
// 6. Registration, in an init function: the name, a one-line summary,
// the state's version (raise it when the state struct changes: Load then
// refuses older files instead of misreading them), the fewest rows a fit
// needs, the constructor, and the memory estimate: the peak bytes a fit
// or a score allocates on data of a given Size beyond the input (Memory
// adds the threshold's copy of the scores and the scale stage's chunk;
// a fit's estimate includes saving the model, SaveFactor times its
// arrays). Front ends refuse a fit over their memory budget by it, so
// each term says what it counts, measured:
//
//	func init() {
//		method.Register(method.Info{Name: "gauss", Summary: "parametric Gaussian ...", Version: 1, MinRows: 2}, New, memory)
//	}
//
//	func memory(g *Gauss, op method.Op, s method.Size) float64 { ... }
//
// Add the package to detector/all, so that the command line and
// detector/all's users have the method.
//
// 7. Tests. The conformance suite, package detectortest, checks what
// every method must do (input checks, the threshold, save and load,
// the transaction, cancellation, progress, memory against the estimate,
// concurrent scoring, sparse input) in one call; a check the method
// cannot pass is skipped with the reason, never silently:
//
//	func TestConformance(t *testing.T) {
//		detectortest.Run(t, "gauss", nil, detectortest.Options{
//			AUCFloor: 0.94, // a run's AUC less about 0.05: say where it came from
//			Config:   func(d detector.Detector) any { return d.(*Gauss).cfg },
//			Skip:     map[string]string{"Cancel": "a fit is one pass over the rows and a d × d Cholesky: nothing long to cancel"},
//		})
//	}
//
// And a fuzz target for Decode, seeded with real states and with crafted
// ones (sizes that wrap, NaN, a broken invariant): what it decodes must
// score without a panic (gauss's FuzzDecodeGauss):
//
//	func FuzzDecodeGauss(f *testing.F) {
//		f.Add(fittedState) // and crafted states, method.EncodeState("gauss", state{...})
//		g, _ := New(Config{})
//		f.Fuzz(func(t *testing.T, b []byte) {
//			m, err := g.decode(b, 3)
//			if err != nil {
//				return
//			}
//			dst := make([]float64, 5)
//			if err := m.Score(context.Background(), dst, Q); err != nil { t.Fatal(err) }
//		})
//	}
//
// with an Example in the method's package, as for every package.
//
// # What Base does
//
// A fit is a transaction: Base publishes the new model, its scale stage
// and its threshold together, through an atomic pointer, only when the
// whole fit has succeeded. A fit that fails, for any reason, leaves the
// detector exactly as it was, and Score, which reads the published
// model, never sees a fit in progress. Base also checks the input
// (CheckMatrix: finite values, the column count), fits and applies the
// scale stage, draws a sample (Common.Sample), settles near-ties
// (Hooks.Settle), densifies sparse input for a method that works on
// dense rows (Hooks.Densify), scores in chunks of ChunkRows rows (so a
// file streamed from disk scores as the same rows in memory, bit for
// bit), sets the threshold (ThresholdFromScores) and the warning of a
// degenerate fit, turns a panic while scoring into an error, and saves
// and loads the model.
//
// # Conventions
//
// Rows are samples; scores are higher for more anomalous rows. A
// Model's Score checks its context between blocks of work (about every
// 50 ms at most), and a fit reports progress through Fitting.Report from
// every stage that can take more than a second, ending each stage at its
// total; detector's package documentation lists every method's stages.
// Package oneclass holds the one-class dual (ν-SVM, SVDD) that ocsvm,
// svdd and 1stm share.
package method
