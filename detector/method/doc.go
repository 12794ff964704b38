// Package method is the kit a detection method is written with: what a
// method author needs to join package detector's registry, as
// database/sql/driver is to database/sql. A user who fits and scores
// needs only package detector.
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
//	func New(cfg Config) (*Detector, error) {
//		d := &Detector{cfg: cfg}
//		b, err := method.NewBase("name", &d.cfg, method.Hooks[*model]{Fit: d.fit, Decode: d.decode})
//		d.Base = b // NewBase resolved d.cfg in place: read it after
//		return d, err
//	}
//
//	func init() { method.Register(detector.Info{Name: "name", Version: 1}, New, memory) }
//
// Hooks.Fit receives a *Fitting: the training rows, already through the
// fitted scale stage, read as the model needs them (Matrix or Dense for
// every row in memory, Scan for passes, Rows or Sample for some rows),
// whether they are a matrix (Fit) or a detector.Source read a chunk at a
// time (FitSource). It returns the model and the scores of the training
// rows (all, or a sample), from which Base sets the threshold. Decode
// rebuilds a model from its saved bytes, checking every size against
// the bytes present. gauss is the smallest real method written this way.
//
// # What Base does
//
// A fit is a transaction: Base publishes the new model, its scale stage
// and its threshold together, through an atomic pointer, only when the
// whole fit has succeeded. A fit that fails, for any reason, leaves the
// detector exactly as it was, and Score, which reads the published
// model, never sees a fit in progress. Base also checks the input
// (finite values, the column count), fits and applies the scale stage,
// draws a sample (Common.Sample), settles near-ties (Hooks.Settle),
// densifies sparse input for a method that works on dense rows
// (Hooks.Densify), scores in chunks of ChunkRows rows (so a file
// streamed from disk scores as the same rows in memory, bit for bit),
// turns a panic while scoring into an error, and saves and loads the
// model.
//
// # Conventions
//
// Rows are samples; scores are higher for more anomalous rows. A
// Model's Score checks its context between blocks of work (about every
// 50 ms at most), and a fit reports progress through Fitting.Report from
// every stage that can take more than a second, ending each stage at its
// total; detector's package documentation lists every method's stages.
package method
