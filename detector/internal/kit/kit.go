// Package kit is what package detector and the method author's kit,
// package detector/method, share and a user of either never sees: the
// registry of methods and the first line of a model file.
//
// detector/method registers a method here (method.Register);
// detector's New, Load, Names and Lookup read the registry. The entries
// hold the constructor and the memory estimate untyped (any), because
// this package sits below both packages and cannot name their types:
// package detector asserts what New builds to a detector.Detector, and
// package method asserts Estimate to its own estimate's type.
package kit

import (
	"sort"
	"sync"

	"github.com/kernelad/anomaly/param"
)

// Magic is the first line of a model file (detector.Save).
const Magic = "ANOMALY-MODEL\n"

// Entry is a registered method.
type Entry struct {
	// Name is the registry key, lower case (expose, ocsvm, r1stm, ...).
	Name string
	// Summary is a one-line description.
	Summary string
	// Version is the version of the method's saved state.
	Version int
	// Scale is the method's default scale rule ("" means the kit's
	// default).
	Scale string
	// MinRows is the fewest training rows a fit needs.
	MinRows int
	// Lighter is the parameter settings under which the method fits in
	// much less memory, or nil.
	Lighter map[string]string
	// Params lists the declared parameters with their defaults.
	Params []param.Param
	// Labeled says the method's detectors fit on labels too.
	Labeled bool

	// New builds an unfitted detector (a detector.Detector) from
	// key=value parameters and a progress callback (nil for none).
	New func(params map[string]string, progress func(stage string, done, total int)) (any, error)
	// Parse parses params as New would, without building a detector.
	Parse func(params map[string]string) error
	// Estimate is package method's memory estimate of the method.
	Estimate any
}

var (
	mu       sync.RWMutex
	registry = map[string]Entry{}
)

// Register adds e to the registry. It panics if the name is empty or
// taken or New, Parse or Estimate is nil: registration happens in init
// functions, where such a mistake is a programming error.
func Register(e Entry) {
	if e.Name == "" || e.New == nil || e.Parse == nil || e.Estimate == nil {
		panic("method: Register needs a name, New, Parse and Estimate")
	}
	mu.Lock()
	defer mu.Unlock()
	if _, dup := registry[e.Name]; dup {
		panic("method: method " + e.Name + " registered twice")
	}
	registry[e.Name] = e
}

// Lookup returns the entry of the named method.
func Lookup(name string) (Entry, bool) {
	mu.RLock()
	defer mu.RUnlock()
	e, ok := registry[name]
	return e, ok
}

// Names returns the registered names in sorted order.
func Names() []string {
	mu.RLock()
	defer mu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
