package dataset

// LabelKind says what the labels of a data file are.
type LabelKind int

const (
	// NoLabels: the file has no label column or array.
	NoLabels LabelKind = iota
	// AnomalyLabels: 1 = anomaly, 0 = normal, −1 = unlabeled, as
	// Dataset.Y holds them.
	AnomalyLabels
	// ClassLabels: a class index, −1 where it is missing, as
	// Dataset.Class holds them (see NormalClass).
	ClassLabels
)

func (k LabelKind) String() string {
	switch k {
	case NoLabels:
		return "no labels"
	case AnomalyLabels:
		return "anomaly labels"
	case ClassLabels:
		return "class labels"
	}
	return "LabelKind(?)"
}

// Labels says how to read the labels a File's ScanLabeled hands over,
// which are the labels as the file writes them: 1, 0 and −1 (a CSV
// label word as the 0 or 1 it means), a LIBSVM label, an ARFF class as
// 0/1 when its two values are a normal/anomaly pair and as the index
// of its value otherwise, an .npz's y.
//
// Some formats decide what their labels mean from the whole column:
// LIBSVM labels are anomaly labels when they are 0 and 1 or +1 and −1
// and a class index otherwise, and CSV, LIBSVM and .npz labels that are
// only 1 and −1 follow the one-class convention (1 normal, −1 anomaly)
// when the 1s are the majority (CSV, .npz) or the file has a −1 or
// writes "+1" (LIBSVM). A File that has not yet read every row cannot
// know: its Labels then has Final false, and Kind and OneClass say what
// the rows read so far say. Once a pass of Scan or ScanLabeled has
// reached the end (or when Open could decide: an .npz's y and an ARFF
// class are known from the start, a LIBSVM file's labels from the pass
// that finds its width), Final is true. A caller that needs the labels
// of every row (eval) keeps them as ScanLabeled hands them over and
// reads them with Labels once the pass has ended, by Anomaly or Resolve.
type Labels struct {
	Kind LabelKind
	// OneClass is set when the labels are 1 and −1 by the one-class
	// convention: 1 normal, −1 anomaly. Anomaly maps them to 0 and 1.
	OneClass bool
	// Final is set when Kind and OneClass hold for every row of the file.
	Final bool
}

// Anomaly returns the anomaly label (1, 0 or −1, as Dataset.Y has them)
// of v, a label as ScanLabeled hands it over, for labels of Kind
// AnomalyLabels.
func (l Labels) Anomaly(v int) int {
	if l.OneClass {
		return (1 - v) / 2 // 1 → 0 (normal), −1 → 1 (anomaly)
	}
	return v
}

// Resolve returns the labels of every row, in row order as ScanLabeled
// handed them over, as Dataset has them: anomaly labels y (Dataset.Y),
// or class indices class (Dataset.Class), or neither. It reads them in
// place: the result shares raw's memory.
func (l Labels) Resolve(raw []int) (y, class []int) {
	switch l.Kind {
	case AnomalyLabels:
		if l.OneClass {
			for i, v := range raw {
				raw[i] = l.Anomaly(v)
			}
		}
		return raw, nil
	case ClassLabels:
		return nil, raw
	}
	return nil, nil
}
