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

// Entry is a registered method: what method.Info says of it (detector.Method
// documents each field for users), its declared parameters, whether it
// fits on labels, and the functions the two packages call.
type Entry struct {
	Name, Summary, Scale string
	Version, MinRows     int
	Lighter              map[string]string
	Params               []param.Param
	Labeled              bool

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
