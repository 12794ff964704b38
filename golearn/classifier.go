package golearn

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/sjwhitworth/golearn/base"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"

	// Every detection method of the module, registered by name.
	_ "github.com/kernelad/anomaly/detector/all"
)

// classifierName and classifierVersion identify the adapter in golearn's
// model files (ClassifierMetadataV1).
const (
	classifierName    = "github.com/kernelad/anomaly"
	classifierVersion = "1"
)

// Classifier is an anomaly detector of this module that golearn can use
// wherever it expects a base.Classifier.
//
// Method and Params name the detector as `anomaly fit --method M --set
// k=v` does; nil Params means the method's defaults. Fit ignores the class
// attribute unless Labeled is set, Predict fills it with AnomalyClass for
// rows whose score is above the detector's threshold and NormalClass for
// the others. Empty class values are taken from the class attribute: for a
// float class, "1" and "0" (the module's label convention); for a nominal
// class with two values, the obvious pair (dataset.BinaryClasses: {0, 1},
// {normal, anomaly}, {no, yes}, …). Anything else is an error that asks
// for the two values. A float class of integer labels reads as "1" and "0"
// (its Precision is set to 0), so golearn's evaluation functions find the
// classes "1" and "0". Fit refuses a grid whose class attribute looks like
// a feature rather than labels (more than two distinct values under a
// name that is not a label's): golearn's CSV reader makes the last column
// the class, and a file without a label column would lose a feature.
type Classifier struct {
	Method string
	Params map[string]string

	// AnomalyClass and NormalClass are the class values Predict writes.
	AnomalyClass, NormalClass string

	// Labeled fits a semi-supervised method (svdd) with the class
	// attribute as labels: the anomaly value marks a known anomaly, the
	// normal value a known normal row, a missing value an unlabeled row.
	Labeled bool

	det   detector.Detector
	attrs []string // names of the feature attributes the model was fitted on
}

// New returns an unfitted Classifier for a registered method, with its
// parameters checked now rather than at Fit.
func New(method string, params map[string]string) (*Classifier, error) {
	if _, err := detector.New(method, params); err != nil {
		return nil, err
	}
	return &Classifier{Method: method, Params: maps.Clone(params)}, nil
}

// Detector returns the fitted detector (nil before Fit or Load), for
// Score, Threshold and anything else of the detector API.
func (c *Classifier) Detector() detector.Detector { return c.det }

// String names the method and its parameters.
func (c *Classifier) String() string {
	if c.det != nil {
		if desc, ok := detector.Describe(c.det); ok {
			return fmt.Sprintf("anomaly.Classifier(%s%s)", desc.Method, formatParams(desc.Params))
		}
	}
	return fmt.Sprintf("anomaly.Classifier(%s%s)", c.Method, formatParams(c.Params))
}

func formatParams(p map[string]string) string {
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(p)) {
		fmt.Fprintf(&b, ", %s=%s", k, p[k])
	}
	return b.String()
}

// Fit fits the detector on the grid's feature attributes (every attribute
// that is not a class attribute; each must be a float attribute). The
// class attribute is ignored unless Labeled is set.
func (c *Classifier) Fit(grid base.FixedDataGrid) error {
	return c.FitContext(context.Background(), grid)
}

// FitContext is Fit with a context that can cancel the detector's fit.
func (c *Classifier) FitContext(ctx context.Context, grid base.FixedDataGrid) error {
	if err := checkClass(grid); err != nil {
		return err
	}
	// The grid's own attribute order (base.NonClassAttributes goes
	// through a map and returns them in a varying order).
	class := map[string]bool{}
	for _, a := range grid.AllClassAttributes() {
		class[a.GetName()] = true
	}
	var names []string
	for _, a := range grid.AllAttributes() {
		if !class[a.GetName()] {
			names = append(names, a.GetName())
		}
	}
	X, err := features(grid, names)
	if err != nil {
		return err
	}
	det, err := detector.New(c.Method, c.Params)
	if err != nil {
		return err
	}
	if c.Labeled {
		lf, ok := det.(detector.LabeledFitter)
		if !ok {
			return fmt.Errorf("golearn: method %s does not use labels (Labeled is set)", c.Method)
		}
		y, err := c.labels(grid)
		if err != nil {
			return err
		}
		if err := lf.FitLabeled(ctx, X, y); err != nil {
			return err
		}
	} else if err := det.Fit(ctx, X); err != nil {
		return err
	}
	c.det, c.attrs = det, names
	return nil
}

// Scores returns the anomaly scores of the grid's rows (higher is more
// anomalous); the grid must hold the attributes the model was fitted on,
// in any order.
func (c *Classifier) Scores(grid base.FixedDataGrid) ([]float64, error) {
	if c.det == nil {
		return nil, detector.ErrNotFitted
	}
	X, err := features(grid, c.attrs)
	if err != nil {
		return nil, err
	}
	return c.det.Score(nil, X)
}

// Predict returns a grid with the class attribute of the input, filled with
// AnomalyClass for the rows scored above the threshold and NormalClass for
// the others, as golearn's classifiers do.
func (c *Classifier) Predict(grid base.FixedDataGrid) (base.FixedDataGrid, error) {
	sc, err := c.Scores(grid)
	if err != nil {
		return nil, err
	}
	normal, anomaly, err := c.classes(grid)
	if err != nil {
		return nil, err
	}
	out := base.GeneratePredictionVector(grid)
	t := c.det.Threshold()
	for i, s := range sc {
		v := normal
		if s > t {
			v = anomaly
		}
		base.SetClass(out, i, v)
	}
	return out, nil
}

// features reads the named float attributes of grid into a dense matrix.
func features(grid base.FixedDataGrid, names []string) (*mat.Dense, error) {
	_, rows := grid.Size()
	if len(names) == 0 {
		return nil, errors.New("golearn: the grid has no feature attributes (only class attributes)")
	}
	byName := map[string]base.Attribute{}
	for _, a := range grid.AllAttributes() {
		byName[a.GetName()] = a
	}
	specs := make([]base.AttributeSpec, len(names))
	for j, n := range names {
		a, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("golearn: the grid has no attribute %q (the model was fitted on %q)", n, names)
		}
		if _, ok := a.(*base.FloatAttribute); !ok {
			return nil, fmt.Errorf("golearn: attribute %q is %T, not a float attribute; convert it first (e.g. golearn's filters.BinaryConvertFilter)", n, a)
		}
		s, err := grid.GetAttribute(a)
		if err != nil {
			return nil, fmt.Errorf("golearn: attribute %q: %w", n, err)
		}
		specs[j] = s
	}
	X := mat.NewDense(max(rows, 1), len(names), nil)
	if rows == 0 {
		return nil, &detector.EmptyError{Rows: 0, Cols: len(names)}
	}
	raw := X.RawMatrix()
	for i := 0; i < rows; i++ {
		row := raw.Data[i*raw.Stride : i*raw.Stride+len(names)]
		for j, s := range specs {
			b := grid.Get(s, i)
			if b == nil {
				return nil, fmt.Errorf("golearn: row %d, attribute %q: missing value", i, names[j])
			}
			row[j] = base.UnpackBytesToFloat(b)
		}
	}
	return X, nil
}

// labelNames are the names a class attribute of anomaly labels goes by
// (lower case): those the module's readers take as labels.
var labelNames = []string{"label", "labels", "y", "class", "target", "outlier", "anomaly", "is_anomaly", "ground_truth"}

// checkClass refuses a grid whose class attribute does not look like
// labels: golearn's CSV reader makes the last column the class, so a file
// without a label column loses its last feature to it, and Fit, which
// ignores the class, would silently fit on one feature too few. A class
// attribute looks like labels when its name is a label name, when it is
// nominal with two values, or when its values are two integers (1/0,
// 1/−1) or one.
func checkClass(grid base.FixedDataGrid) error {
	for _, a := range grid.AllClassAttributes() {
		if slices.Contains(labelNames, strings.ToLower(a.GetName())) {
			continue
		}
		vals, err := classValues(grid, a)
		if err != nil {
			return err
		}
		if len(vals) <= 2 {
			continue
		}
		list := vals[:min(len(vals), 5)]
		more := ""
		if len(vals) > 5 {
			more = ", …"
		}
		return fmt.Errorf("golearn: the class attribute %q holds %d distinct values (%s%s) and is not named as labels (%s): it looks like a feature that golearn's CSV reader made the class because it is the last column, and Fit would leave it out; give the file a label column, or make it a feature (DenseInstances.RemoveClassAttribute)",
			a.GetName(), len(vals), strings.Join(list, ", "), more, strings.Join(labelNames, ", "))
	}
	return nil
}

// classValues returns the distinct values of the class attribute a in the
// grid's rows (a nominal attribute's declared values), and, for a float
// attribute whose values are all integers (labels), sets its Precision to
// 0: golearn's CSV reader gives every float column the file's largest
// precision, so integer labels read as "1.00000000000000000" beside
// features of 17 decimals, and evaluation.GetPrecision("1", cm) found no
// class "1". The attribute is the grid's own, so the labels then read as
// "1" and "0" in the grid, in Predict's output and in golearn's
// evaluation.
func classValues(grid base.FixedDataGrid, a base.Attribute) ([]string, error) {
	if ca, ok := a.(*base.CategoricalAttribute); ok {
		return ca.GetValues(), nil
	}
	spec, err := grid.GetAttribute(a)
	if err != nil {
		return nil, err
	}
	_, rows := grid.Size()
	seen := map[float64]bool{}
	integers := true
	for i := 0; i < rows; i++ {
		b := grid.Get(spec, i)
		if b == nil {
			continue
		}
		v := base.UnpackBytesToFloat(b)
		if !seen[v] {
			seen[v] = true
			integers = integers && v == float64(int64(v))
		}
	}
	if fa, ok := a.(*base.FloatAttribute); ok && integers && len(seen) <= 2 {
		fa.Precision = 0
	}
	vals := slices.Sorted(maps.Keys(seen))
	out := make([]string, len(vals))
	for i, v := range vals {
		out[i] = fmt.Sprint(v)
	}
	return out, nil
}

// classAttr returns the grid's one class attribute.
func classAttr(grid base.FixedDataGrid) (base.Attribute, error) {
	cs := grid.AllClassAttributes()
	if len(cs) != 1 {
		return nil, fmt.Errorf("golearn: the grid has %d class attributes; Predict and Labeled need exactly one", len(cs))
	}
	return cs[0], nil
}

// classes returns the normal and anomaly values of the class attribute.
func (c *Classifier) classes(grid base.FixedDataGrid) (normal, anomaly string, err error) {
	a, err := classAttr(grid)
	if err != nil {
		return "", "", err
	}
	normal, anomaly = c.NormalClass, c.AnomalyClass
	switch a := a.(type) {
	case *base.FloatAttribute:
		if _, err := classValues(grid, a); err != nil { // integer labels read as "1" and "0"
			return "", "", err
		}
		if normal == "" {
			normal = "0"
		}
		if anomaly == "" {
			anomaly = "1"
		}
		for _, v := range []string{normal, anomaly} {
			if _, err := a.CheckSysValFromString(v); err != nil {
				return "", "", fmt.Errorf("golearn: class value %q of the float class %q: %w", v, a.GetName(), err)
			}
		}
	case *base.CategoricalAttribute:
		vals := a.GetValues()
		if normal == "" || anomaly == "" {
			n, an, ok := dataset.BinaryClasses(vals)
			if !ok {
				return "", "", fmt.Errorf("golearn: cannot tell the anomaly value of class %q from its values %q; set AnomalyClass and NormalClass", a.GetName(), vals)
			}
			if normal == "" {
				normal = vals[n]
			}
			if anomaly == "" {
				anomaly = vals[an]
			}
		}
		for _, v := range []string{normal, anomaly} {
			if !slices.Contains(vals, v) {
				return "", "", fmt.Errorf("golearn: %q is not a value of class %q (values %q)", v, a.GetName(), vals)
			}
		}
	default:
		return "", "", fmt.Errorf("golearn: class attribute %q is %T; use a float or categorical class", a.GetName(), a)
	}
	if normal == anomaly {
		return "", "", fmt.Errorf("golearn: the normal and anomaly class values are both %q", normal)
	}
	return normal, anomaly, nil
}

// labels reads the class attribute as detector labels: 1 anomaly, 0
// normal, −1 missing.
func (c *Classifier) labels(grid base.FixedDataGrid) ([]int, error) {
	normal, anomaly, err := c.classes(grid)
	if err != nil {
		return nil, err
	}
	a, _ := classAttr(grid)
	spec, err := grid.GetAttribute(a)
	if err != nil {
		return nil, err
	}
	_, rows := grid.Size()
	y := make([]int, rows)
	for i := range y {
		b := grid.Get(spec, i)
		if b == nil {
			y[i] = -1
			continue
		}
		switch v := a.GetStringFromSysVal(b); {
		case v == anomaly || sameFloat(a, v, anomaly):
			y[i] = 1
		case v == normal || sameFloat(a, v, normal):
			y[i] = 0
		default:
			return nil, fmt.Errorf("golearn: row %d: class value %q is neither the normal value %q nor the anomaly value %q", i, v, normal, anomaly)
		}
	}
	return y, nil
}

// sameFloat compares class values of a float attribute numerically (its
// strings carry the attribute's precision: "1.00" is "1").
func sameFloat(a base.Attribute, v, w string) bool {
	f, ok := a.(*base.FloatAttribute)
	if !ok {
		return false
	}
	x, err1 := f.CheckSysValFromString(v)
	y, err2 := f.CheckSysValFromString(w)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}

// GetMetadata describes the classifier for golearn's model files and
// ensembles.
func (c *Classifier) GetMetadata() base.ClassifierMetadataV1 {
	p := map[string]any{"method": c.Method}
	for k, v := range c.Params {
		p["param."+k] = v
	}
	p["anomaly_class"], p["normal_class"], p["labeled"] = c.AnomalyClass, c.NormalClass, c.Labeled
	return base.ClassifierMetadataV1{
		FormatVersion:      1,
		ClassifierName:     classifierName,
		ClassifierVersion:  classifierVersion,
		ClassifierMetadata: p,
	}
}

// Save writes the fitted classifier to path in golearn's model format (a
// gzipped tar with METADATA), through a temporary file in the same
// directory that is renamed over path only when complete.
func (c *Classifier) Save(path string) error {
	if c.det == nil {
		return detector.ErrNotFitted
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	tmp.Close()
	defer os.Remove(name) // after a successful rename this finds nothing
	w, err := base.CreateSerializedClassifierStub(name, c.GetMetadata())
	if err != nil {
		return err
	}
	if err := c.SaveWithPrefix(w, ""); err != nil {
		w.Close()
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return os.Rename(name, path)
}

// SaveWithPrefix writes the classifier under prefix of a golearn model file
// (golearn's ensembles call it with one prefix per member).
func (c *Classifier) SaveWithPrefix(w *base.ClassifierSerializer, prefix string) error {
	if c.det == nil {
		return detector.ErrNotFitted
	}
	if prefix != "" { // the file's own METADATA is written by Save's stub
		if err := w.WriteMetadataAtPrefix(prefix, c.GetMetadata()); err != nil {
			return err
		}
	}
	var model bytes.Buffer
	if err := detector.Save(&model, c.det); err != nil {
		return err
	}
	if err := w.WriteBytesForKey(w.Prefix(prefix, "MODEL"), model.Bytes()); err != nil {
		return err
	}
	return w.WriteJSONForKey(w.Prefix(prefix, "ATTRIBUTES"), c.attrs)
}

// Load reads a classifier written by Save.
func (c *Classifier) Load(path string) error {
	r, err := base.ReadSerializedClassifierStub(path)
	if err != nil {
		return fmt.Errorf("golearn: %s: %w", path, err)
	}
	defer r.Close()
	if err := c.LoadWithPrefix(r, ""); err != nil {
		return fmt.Errorf("golearn: %s: %w", path, err)
	}
	return nil
}

// LoadWithPrefix reads a classifier written by SaveWithPrefix.
func (c *Classifier) LoadWithPrefix(r *base.ClassifierDeserializer, prefix string) error {
	md, err := r.ReadMetadataAtPrefix(prefix)
	if err != nil {
		return err
	}
	if md.ClassifierName != classifierName {
		return fmt.Errorf("the model is a %q classifier, not %q", md.ClassifierName, classifierName)
	}
	if md.ClassifierVersion != classifierVersion {
		return fmt.Errorf("model version %q is not supported (this build reads %q)", md.ClassifierVersion, classifierVersion)
	}
	b, err := r.GetBytesForKey(r.Prefix(prefix, "MODEL"))
	if err != nil {
		return err
	}
	det, err := detector.Load(bytes.NewReader(b))
	if err != nil {
		return err
	}
	var attrs []string
	if err := r.GetJSONForKey(r.Prefix(prefix, "ATTRIBUTES"), &attrs); err != nil {
		return err
	}
	desc, _ := detector.Describe(det)
	method, params := desc.Method, desc.Params
	m := md.ClassifierMetadata
	str := func(k string) string { s, _ := m[k].(string); return s }
	labeled, _ := m["labeled"].(bool)
	*c = Classifier{
		Method: method, Params: params,
		AnomalyClass: str("anomaly_class"), NormalClass: str("normal_class"), Labeled: labeled,
		det: det, attrs: attrs,
	}
	return nil
}

var _ base.Classifier = (*Classifier)(nil)
