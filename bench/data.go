package bench

import (
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/dataset/embedded"
	"github.com/kernelad/anomaly/detector"
)

// EmbeddedPrefix marks a data set reference that names an embedded data set
// (package dataset/embedded) rather than a file: "embedded:6_cardio".
const EmbeddedPrefix = "embedded:"

// Embedded returns references to every embedded data set, in NaturalLess
// order of their names.
func Embedded() []string {
	names := embedded.Names()
	sort.Slice(names, func(i, j int) bool { return NaturalLess(names[i], names[j]) })
	var refs []string
	for _, n := range names {
		refs = append(refs, EmbeddedPrefix+n)
	}
	return refs
}

// NaturalLess orders data set names by their leading number, as ADBench
// numbers its files (4_breastw before 10_cover), then by name; names
// without a number come last.
func NaturalLess(a, b string) bool {
	lead := func(s string) (int, bool) {
		i := 0
		for i < len(s) && s[i] >= '0' && s[i] <= '9' {
			i++
		}
		n, err := strconv.Atoi(s[:i])
		return n, err == nil
	}
	na, oka := lead(a)
	nb, okb := lead(b)
	switch {
	case oka && okb && na != nb:
		return na < nb
	case oka != okb:
		return oka
	}
	return a < b
}

// Open loads the data set a reference names: EmbeddedPrefix+NAME for an
// embedded data set, otherwise a file path read by dataset.Load.
func Open(ref string) (*dataset.Dataset, error) { return OpenWithin(ref, 0) }

// OpenWithin is Open with the file's values bounded by maxBytes
// (dataset.Options.MaxBytes; 0: no bound).
func OpenWithin(ref string, maxBytes int64) (*dataset.Dataset, error) {
	if name, ok := strings.CutPrefix(ref, EmbeddedPrefix); ok {
		return embedded.Load(name)
	}
	return dataset.Load(ref, dataset.Options{MaxBytes: maxBytes})
}

// DataName is the short name of a data set reference shown in tables: the
// file name without directory and extension, or the embedded name.
func DataName(ref string) string {
	if name, ok := strings.CutPrefix(ref, EmbeddedPrefix); ok {
		return name
	}
	base := filepath.Base(ref)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// IsTensorMethod reports whether the named method takes a sample shape (a
// registry parameter "shape"): a tensor method.
func IsTensorMethod(name string) bool {
	m, ok := detector.Lookup(name)
	return ok && m.Has("shape")
}
