package detector

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Param documents one parameter of a method, for `anomaly methods` and
// error messages.
type Param struct {
	Name    string `json:"name"`
	Default string `json:"default"`
	Help    string `json:"help"`
}

// Method describes a registered detector.
type Method struct {
	// Name is the registry key, lower case (expose, ocsvm, r1stm, ...).
	Name string
	// Summary is a one-line description.
	Summary string
	// Version is the version of the method's saved state; Load refuses a
	// model written with another version.
	Version int
	// Params lists the parameters New accepts, with their defaults.
	Params []Param
	// New builds an unfitted detector from its parameters. It must call
	// p.Err() before returning so unknown keys are reported.
	New func(p *Params) (Detector, error)
}

var (
	regMu    sync.RWMutex
	registry = map[string]Method{}
)

// Register adds a method to the registry. It panics if the name is empty,
// already taken or New is nil: registration happens in init functions, where
// such a mistake is a programming error.
func Register(m Method) {
	if m.Name == "" || m.New == nil {
		panic("detector: Register needs a name and a constructor")
	}
	regMu.Lock()
	defer regMu.Unlock()
	if _, dup := registry[m.Name]; dup {
		panic("detector: method " + m.Name + " registered twice")
	}
	registry[m.Name] = m
}

// Names returns the registered method names in sorted order.
func Names() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the registered method with the given name.
func Lookup(name string) (Method, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	m, ok := registry[name]
	return m, ok
}

// New builds an unfitted detector of the named method from key=value
// parameters. Unknown methods and parameters, and values out of range, are
// errors.
func New(name string, params map[string]string) (Detector, error) {
	m, ok := Lookup(name)
	if !ok {
		return nil, fmt.Errorf("unknown method %q (available: %s)", name, strings.Join(Names(), ", "))
	}
	return m.New(NewParams(name, params))
}
