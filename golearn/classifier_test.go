package golearn_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/evaluation"
	"github.com/sjwhitworth/golearn/meta"
	"gonum.org/v1/gonum/mat"

	"github.com/kernelad/anomaly/golearn"
	"github.com/kernelad/anomaly/internal/shareddata"
)

// fitPredict fits cls on data and returns its predictions for data,
// failing t when either step fails.
func fitPredict(t *testing.T, cls *golearn.Classifier, data base.FixedDataGrid) base.FixedDataGrid {
	t.Helper()
	if err := cls.Fit(data); err != nil {
		t.Fatal(err)
	}
	pred, err := cls.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	return pred
}

func breastw(t *testing.T) *base.DenseInstances {
	t.Helper()
	data, err := base.ParseDenseARFFToInstances("../testdata/breastw.arff")
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// golearn's cross-validation drives the adapter as it drives its own
// classifiers: Fit on four folds, Predict the fifth. The detector flags 10%
// of each test fold; on breastw (35% malignant) doing better than the
// majority class (accuracy 444/683 = 0.650) needs flagged rows to be
// mostly malignant.
func TestCrossValidation(t *testing.T) {
	data := breastw(t)
	for _, method := range []string{"ocsvm", "kde", "iforest", "expose"} {
		cls, err := golearn.New(method, nil)
		if err != nil {
			t.Fatal(err)
		}
		cms, err := evaluation.GenerateCrossFoldValidationConfusionMatrices(data, cls, 5)
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		total := 0
		for _, cm := range cms {
			for _, row := range cm {
				for _, k := range row {
					total += k
				}
			}
		}
		if total != 683 {
			t.Errorf("%s: the folds' confusion matrices count %d rows, want 683", method, total)
		}
		mean, _ := evaluation.GetCrossValidatedMetric(cms, evaluation.GetAccuracy)
		t.Logf("%s: 5-fold mean accuracy %.3f", method, mean)
		if mean <= 444.0/683 {
			t.Errorf("%s: mean accuracy %.3f is no better than calling every row benign (0.650)", method, mean)
		}
	}
}

// golearn's CSV reader makes the 0/1 label column a float class attribute;
// Predict writes 1 and 0 into it.
func TestCSVFloatClass(t *testing.T) {
	data, err := base.ParseCSVToInstances("../testdata/breastw.csv", true)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := data.AllClassAttributes()[0].(*base.FloatAttribute); !ok {
		t.Fatalf("class attribute is %T, want a float attribute", data.AllClassAttributes()[0])
	}
	cls, _ := golearn.New("gauss", nil)
	cm, err := evaluation.GetConfusionMatrix(data, fitPredict(t, cls, data))
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("confusion matrix %v", cm)
	if len(cm) != 2 || cm["1"]["1"] == 0 { // the attribute's precision is that of the file: 0 digits
		t.Errorf("confusion matrix %v: want float classes 0/1 with some malignant rows flagged", cm)
	}
}

// Nominal classes other than the obvious pairs need AnomalyClass and
// NormalClass; with them, Predict writes those values.
func TestClassValues(t *testing.T) {
	const arff = `@relation tiny
@attribute a real
@attribute b real
@attribute kind {benign,malignant}
@data
0,0,benign
0.1,0,benign
0,0.1,benign
0.1,0.1,benign
5,5,malignant
`
	path := filepath.Join(t.TempDir(), "tiny.arff")
	if err := os.WriteFile(path, []byte(arff), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := base.ParseDenseARFFToInstances(path)
	if err != nil {
		t.Fatal(err)
	}
	cls, _ := golearn.New("gauss", map[string]string{"contamination": "0.2"})
	if err := cls.Fit(data); err != nil {
		t.Fatal(err)
	}
	if _, err := cls.Predict(data); err == nil || !strings.Contains(err.Error(), "set AnomalyClass and NormalClass") {
		t.Fatalf("Predict with classes {benign, malignant} and no mapping: %v, want an error asking for the values", err)
	}
	cls.AnomalyClass, cls.NormalClass = "malignant", "benign"
	pred, err := cls.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	if got := base.GetClass(pred, 4); got != "malignant" {
		t.Errorf("row 4 (far from the others) predicted %q, want malignant", got)
	}
	cls.AnomalyClass = "cancer"
	if _, err := cls.Predict(data); err == nil || !strings.Contains(err.Error(), `"cancer" is not a value`) {
		t.Errorf("AnomalyClass outside the attribute's values: %v", err)
	}
}

// Labeled fits semi-supervised SVDD with the class attribute as labels
// (a missing class value is an unlabeled row); a method without labels
// refuses Labeled.
func TestLabeled(t *testing.T) {
	data := breastw(t)
	cls, _ := golearn.New("svdd", nil)
	cls.Labeled = true
	cm, _ := evaluation.GetConfusionMatrix(data, fitPredict(t, cls, data))
	t.Logf("semi-supervised svdd, fitted with every label: %v, accuracy %.3f", cm, evaluation.GetAccuracy(cm))
	un, _ := golearn.New("svdd", nil)
	cmu, _ := evaluation.GetConfusionMatrix(data, fitPredict(t, un, data))
	if evaluation.GetAccuracy(cm) < evaluation.GetAccuracy(cmu) {
		t.Errorf("with labels accuracy %.3f, without %.3f: the labels made it worse", evaluation.GetAccuracy(cm), evaluation.GetAccuracy(cmu))
	}
	oc, _ := golearn.New("ocsvm", nil)
	oc.Labeled = true
	if err := oc.Fit(data); err == nil || !strings.Contains(err.Error(), "does not use labels") {
		t.Errorf("ocsvm with Labeled: %v", err)
	}
}

// Inside golearn's bagging ensemble (feature bagging: each member sees 5
// of the 9 attributes), saved and loaded through SaveWithPrefix and
// LoadWithPrefix: the reloaded ensemble predicts the same classes.
func TestBaggedEnsemble(t *testing.T) {
	data := breastw(t)
	bag := new(meta.BaggedModel)
	bag.RandomFeatures = 5
	for range 3 {
		c, _ := golearn.New("gauss", nil)
		bag.AddModel(c)
	}
	bag.Fit(data)
	p1, err := bag.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "bag.model")
	if err := bag.Save(path); err != nil {
		t.Fatal(err)
	}
	back := new(meta.BaggedModel)
	for range 3 {
		back.AddModel(new(golearn.Classifier))
	}
	if err := back.Load(path); err != nil {
		t.Fatal(err)
	}
	p2, err := back.Predict(data)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(classes(p1), classes(p2)) {
		t.Error("the reloaded ensemble predicts other classes")
	}
	cm, _ := evaluation.GetConfusionMatrix(data, p1)
	t.Logf("bagged gauss: %v", cm)
}

// A grid without a feature the model was fitted on, a categorical feature,
// and a model file of another classifier are errors that say so.
func TestErrors(t *testing.T) {
	data := breastw(t)
	cls, _ := golearn.New("gauss", nil)
	if _, err := cls.Predict(data); err == nil {
		t.Error("Predict before Fit: no error")
	}
	if err := cls.Fit(data); err != nil {
		t.Fatal(err)
	}
	few := base.NewInstancesViewFromAttrs(data, append(base.NonClassAttributes(data)[:3], data.AllClassAttributes()...))
	if _, err := cls.Predict(few); err == nil || !strings.Contains(err.Error(), "no attribute") {
		t.Errorf("Predict on 3 of the 9 attributes: %v", err)
	}
	const arff = "@relation c\n@attribute a real\n@attribute colour {red,blue}\n@attribute class {0,1}\n@data\n1,red,0\n2,blue,1\n"
	path := filepath.Join(t.TempDir(), "c.arff")
	os.WriteFile(path, []byte(arff), 0o644)
	cat, err := base.ParseDenseARFFToInstances(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := cls.Fit(cat); err == nil || !strings.Contains(err.Error(), `attribute "colour"`) {
		t.Errorf("Fit with a categorical feature: %v", err)
	}
	if _, err := golearn.New("nosuch", nil); err == nil {
		t.Error("New with an unknown method: no error")
	}
	if _, err := golearn.New("ocsvm", map[string]string{"nu": "2"}); err == nil {
		t.Error("New with nu=2: no error")
	}
}

// Must-show 4 of the golearn issue: on cardio (ADBench 6_cardio from
// ../shared/data, written as ARFF), the adapter's predictions equal the
// anomaly column of `anomaly fit` + `anomaly score` on the same file, row
// for row, for every tabular method at its defaults.
func TestMatchesCommandLine(t *testing.T) {
	ds := shareddata.ADBench(t, "6_cardio")
	dir := t.TempDir()
	arffPath := filepath.Join(dir, "cardio.arff")
	if err := os.WriteFile(arffPath, arffOf(ds.X.(*mat.Dense), ds.Y), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := base.ParseDenseARFFToInstances(arffPath)
	if err != nil {
		t.Fatal(err)
	}
	anomaly := buildAnomaly(t, dir)
	for _, method := range []string{"expose", "kde", "kpca", "ocsvm", "svdd", "iforest", "gauss"} {
		model := filepath.Join(dir, method+".model")
		var out, errb bytes.Buffer
		fit := exec.Command(anomaly, "fit", "--method", method, "--data", arffPath, "--out", model)
		fit.Stdout, fit.Stderr = &out, &errb
		if err := fit.Run(); err != nil {
			t.Fatalf("%s: anomaly fit: %v: %s", method, err, errb.String())
		}
		out.Reset()
		score := exec.Command(anomaly, "score", "--model", model, "--data", arffPath)
		score.Stdout, score.Stderr = &out, &errb
		if err := score.Run(); err != nil {
			t.Fatalf("%s: anomaly score: %v: %s", method, err, errb.String())
		}
		lines := strings.Split(strings.TrimSpace(out.String()), "\n")[1:]
		cls, _ := golearn.New(method, nil)
		got := classes(fitPredict(t, cls, data))
		if len(got) != len(lines) {
			t.Fatalf("%s: %d predictions, %d score lines", method, len(got), len(lines))
		}
		flagged := 0
		for i, l := range lines {
			want := l[strings.LastIndexByte(l, ',')+1:]
			if got[i] != want {
				t.Fatalf("%s: row %d: adapter %q, anomaly score %q (%s)", method, i, got[i], want, l)
			}
			if want == "1" {
				flagged++
			}
		}
		t.Logf("%s: %d rows, %d flagged, all equal", method, len(lines), flagged)
	}
}

// buildAnomaly builds the anomaly command of the parent module (this
// module's replace directive points at it) into dir and returns its path.
// The command line lives in the parent module's cmd/anomaly/internal, which
// no other module may import, so the comparison runs the real binary.
func buildAnomaly(t *testing.T, dir string) string {
	t.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("the go command is needed to build the anomaly binary: %v", err)
	}
	exe := filepath.Join(dir, "anomaly")
	build := exec.Command(gobin, "build", "-o", exe, "./cmd/anomaly")
	build.Dir = ".."
	// Without cgo, as make build: nothing needs C (see the Makefile).
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/anomaly: %v\n%s", err, out)
	}
	return exe
}

// arffOf writes X and 0/1 labels as dense ARFF (real attributes, as
// golearn's reader requires), numbers in their shortest exact form.
func arffOf(X *mat.Dense, y []int) []byte {
	n, d := X.Dims()
	var b bytes.Buffer
	b.WriteString("@relation data\n")
	for j := 0; j < d; j++ {
		fmt.Fprintf(&b, "@attribute x%d real\n", j+1)
	}
	b.WriteString("@attribute class {0,1}\n@data\n")
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			b.WriteString(strconv.FormatFloat(X.At(i, j), 'g', -1, 64))
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "%d\n", y[i])
	}
	return b.Bytes()
}

// A float class of 0/1 labels in a file whose features carry 17 decimals:
// golearn's CSV reader gives the class the file's precision, and the
// labels read as "1.00000000000000000", so evaluation.GetPrecision("1",
// cm) was NaN. The adapter reads integer labels as "1" and "0".
func TestFloatLabelsEvaluate(t *testing.T) {
	var b strings.Builder
	b.WriteString("a,b,label\n")
	for i := range 40 {
		lab := 0
		if i%10 == 9 {
			lab = 1
		}
		fmt.Fprintf(&b, "%.17f,%.17f,%d\n", float64(i%7)/7+float64(lab)*9, float64(i%5)/3+float64(lab)*9, lab)
	}
	path := filepath.Join(t.TempDir(), "labels.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := base.ParseCSVToInstances(path, true)
	if err != nil {
		t.Fatal(err)
	}
	cls, err := golearn.New("kde", map[string]string{"contamination": "0.1"})
	if err != nil {
		t.Fatal(err)
	}
	pred := fitPredict(t, cls, data)
	cm, err := evaluation.GetConfusionMatrix(data, pred)
	if err != nil {
		t.Fatal(err)
	}
	if p := evaluation.GetPrecision("1", cm); p != 1 {
		t.Errorf(`GetPrecision("1", cm) = %v, want 1 (the four anomalies are far from the rest); confusion matrix %v`, p, cm)
	}
	if r := evaluation.GetRecall("1", cm); r != 1 {
		t.Errorf(`GetRecall("1", cm) = %v, want 1; confusion matrix %v`, r, cm)
	}
}

// A CSV without a label column: golearn's reader makes its last feature
// the class, which Fit ignored without a word. Fit refuses such a grid,
// naming the attribute.
func TestFeatureTakenAsClassRefused(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nolabel.csv")
	if err := os.WriteFile(path, []byte("a,b,c\n1,2,3\n2,3,4\n1,1,1\n3,3,3.5\n2,2,2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	data, err := base.ParseCSVToInstances(path, true)
	if err != nil {
		t.Fatal(err)
	}
	cls, _ := golearn.New("kde", nil)
	err = cls.Fit(data)
	if err == nil || !strings.Contains(err.Error(), `class attribute "c"`) {
		t.Fatalf("Fit of a grid whose class is a feature: %v, want an error naming the attribute c", err)
	}
}
