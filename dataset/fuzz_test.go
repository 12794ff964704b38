package dataset

import (
	"bytes"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// fuzzRead reads data as a file called name and checks the invariants of
// any result: an error is a one-line *Error; a data set has n ≥ 1 rows,
// d ≥ 1 columns, finite values, labels in range and per-row fields of
// length n.
func fuzzRead(t *testing.T, data []byte, name string, opt Options) {
	ds, err := Read(bytes.NewReader(data), int64(len(data)), name, opt)
	if err != nil {
		var de *Error
		if !errors.As(err, &de) {
			t.Fatalf("error %T is not a *dataset.Error: %v", err, err)
		}
		if bytes.ContainsAny([]byte(err.Error()), "\n\r") {
			t.Fatalf("multi-line message %q", err)
		}
		return
	}
	r, c := ds.X.Dims()
	if r < 1 || c < 1 {
		t.Fatalf("data set of %d × %d", r, c)
	}
	for _, v := range [][]int{ds.Y, ds.Class, ds.Split} {
		if v != nil && len(v) != r {
			t.Fatalf("%d labels for %d rows", len(v), r)
		}
	}
	for _, y := range ds.Y {
		if y < -1 || y > 1 {
			t.Fatalf("label %d", y)
		}
	}
	if d, ok := ds.X.(*mat.Dense); ok {
		for _, v := range d.RawMatrix().Data {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("value %v", v)
			}
		}
	}
}

func FuzzCSV(f *testing.F) {
	for _, s := range []string{
		"a,b,label\n1,2,0\n3,4,1\n",
		"y,a\n,1\n-1,2\n",
		"\ufeff\"a\",\"b,c\"\r\n1,2\r\n",
		"a,b\n1,nan\n",
		"a\n1e308\n-0x1p-3\n",
		"1,2\n",
		"",
	} {
		f.Add([]byte(s), "")
	}
	f.Add([]byte("t,a\n1,2\n"), "t")
	f.Fuzz(func(t *testing.T, data []byte, label string) {
		fuzzRead(t, data, "f.csv", Options{Label: label})
	})
}

// fuzzFile fuzzes Read on a file called name with the default options,
// starting from the seeds.
func fuzzFile(f *testing.F, name string, seeds ...[]byte) {
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzRead(t, data, name, Options{})
	})
}

func FuzzNPY(f *testing.F) {
	fuzzFile(f, "f.npy",
		npyBytes("<f8", false, []int{2, 3}, []float64{1, 2, 3, 4, 5, 6}),
		npyBytes("<i2", true, []int{2, 2, 2}, []float64{1, 2, 3, 4, 5, 6, 7, 8}),
		npyBytes("|u1", true, []int{3, 1}, []float64{1, 2, 3}),
		npyBytes("<i8", false, []int{3}, []float64{1, 2, 3}),
		npyBytes("<f8", false, []int{1000000, 1000000}, nil),
		[]byte("\x93NUMPY\x02\x00\xff\xff\xff\xff"))
}

func FuzzNPZ(f *testing.F) {
	x := npyBytes("<f8", true, []int{3, 2}, []float64{1, 2, 3, 4, 5, 6})
	y := npyBytes("<i8", false, []int{3}, []float64{0, 1, 0})
	split := npyBytes("<i8", false, []int{3}, []float64{0, 0, 1})
	fuzzFile(f, "f.npz",
		npzBytes(map[string][]byte{"X.npy": x, "y.npy": y}, "X.npy", "y.npy"),
		npzBytes(map[string][]byte{"X.npy": npyBytes("<f8", false, []int{3, 1, 2}, []float64{1, 2, 3, 4, 5, 6}), "y.npy": y, "split.npy": split}, "X.npy", "y.npy", "split.npy"),
		npzBytes(map[string][]byte{"X.npy": npyBytes("<i2", false, []int{100000, 100000}, nil)}, "X.npy"),
		[]byte("PK\x05\x06"))
}

func FuzzLIBSVM(f *testing.F) {
	fuzzFile(f, "f.svm",
		[]byte("1 1:0.5 3:2\n0 2:-1\n"),
		[]byte("+1 qid:3 1:1 # c\n-1 2:1e-3\n"),
		[]byte("3 1:1\n2 2147483647:1\n"),
		[]byte("1 2:1 2:3\n"),
		[]byte(""))
}

func FuzzARFF(f *testing.F) {
	fuzzFile(f, "f.arff",
		[]byte("@relation r\n@attribute a numeric\n@attribute 'outlier' {'no','yes'}\n@data\n1,'no'\n2,yes\n3,?\n"),
		[]byte("% c\n@RELATION r\n@ATTRIBUTE \"a b\" REAL\n@attribute class {x,y,z}\n@DATA\n1,z\n"),
		[]byte("@relation r\n@attribute label numeric\n@attribute a integer\n@data\n1,2\n"),
		[]byte("@relation r\n@attribute a numeric\n@data\n{0 1}\n"))
}
