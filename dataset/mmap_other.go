//go:build !unix

package dataset

// mapped is not used where the platform has no mmap: arrays are read
// with ReadAt.
type mapped struct{ data []float64 }

type pass struct{}

func (a *array) mapData()      {}
func (m *mapped) pass() *pass  { return nil }
func (p *pass) use(lo, hi int) {}
func (p *pass) done(hi int)    {}
func (m *mapped) unmap()       {}
