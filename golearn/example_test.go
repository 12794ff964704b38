package golearn_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/sjwhitworth/golearn/base"
	"github.com/sjwhitworth/golearn/evaluation"

	"github.com/kernelad/anomaly/golearn"
)

// An anomaly detector inside golearn: golearn's own ARFF reader, Fit (the
// class attribute is ignored: the detector is unsupervised), Predict (the
// class attribute filled with its own values, 1 for the rows the detector
// flags), golearn's confusion matrix and accuracy, and a Save/Load round
// trip in golearn's model format.
//
// breastw has 444 benign and 239 malignant rows; the detector flags the
// 10% most anomalous (contamination 0.1, 69 rows), so the best accuracy it
// can reach is (444 + 69)/683 = 0.751: every flagged row malignant.
func Example() {
	data, err := base.ParseDenseARFFToInstances("../testdata/breastw.arff")
	if err != nil {
		log.Fatal(err)
	}
	cls, err := golearn.New("ocsvm", nil)
	if err != nil {
		log.Fatal(err)
	}
	if err := cls.Fit(data); err != nil {
		log.Fatal(err)
	}
	pred, err := cls.Predict(data)
	if err != nil {
		log.Fatal(err)
	}
	cm, err := evaluation.GetConfusionMatrix(data, pred)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("flagged %d of 683 rows, %d of them malignant\n", cm["0"]["1"]+cm["1"]["1"], cm["1"]["1"])
	fmt.Printf("accuracy %.3f\n", evaluation.GetAccuracy(cm))

	dir, err := os.MkdirTemp("", "golearn-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "ocsvm.model")
	if err := cls.Save(path); err != nil {
		log.Fatal(err)
	}
	var back golearn.Classifier
	if err := back.Load(path); err != nil {
		log.Fatal(err)
	}
	pred2, err := back.Predict(data)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(back.String())
	fmt.Println("same predictions after Save/Load:", slices.Equal(classes(pred), classes(pred2)))
	// Output:
	// flagged 69 of 683 rows, 67 of them malignant
	// accuracy 0.745
	// anomaly.Classifier(ocsvm, cache_mb=200, coef0=0, contamination=0.1, degree=3, gamma=scale_scott, kernel=rbf, max_iter=0, nu=0.9, sample=0, sample_seed=0, scale=standard, shrinking=true, tol=0.001)
	// same predictions after Save/Load: true
}

// classes returns the predicted class of every row.
func classes(g base.FixedDataGrid) []string {
	_, n := g.Size()
	out := make([]string, n)
	for i := range out {
		out[i] = base.GetClass(g, i)
	}
	return out
}
