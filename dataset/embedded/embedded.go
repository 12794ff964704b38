package embedded

import (
	"bytes"
	"embed"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/kernelad/anomaly/dataset"
)

//go:embed data/*.npz
var files embed.FS

var citations = map[string]string{
	"4_breastw":    adbench + " Data: Wisconsin breast cancer (UCI), via ODDS.",
	"6_cardio":     adbench + " Data: cardiotocography (UCI), via ODDS.",
	"38_thyroid":   adbench + " Data: thyroid disease (UCI), via ODDS.",
	"40_vowels":    adbench + " Data: Japanese vowels (UCI), via ODDS.",
	"32_shuttle":   adbench + " Data: Statlog shuttle (UCI), via ODDS.",
	"basicmotions": "Bagnall, Dau, Lines, Flynn, Large, Bostrom, Southam, Keogh, \"The UEA multivariate time series classification archive, 2018\", arXiv:1811.00075. File converted from sktime/sktime (BSD-3-Clause).",
}

const adbench = "Han, Hu, Huang, Jiang, Zhao, \"ADBench: Anomaly Detection Benchmark\", NeurIPS 2022 (Minqi824/ADBench, BSD-2-Clause)."

// Names returns the embedded data sets, sorted.
func Names() []string {
	return slices.Sorted(maps.Keys(citations))
}

// Load decodes the named embedded data set (a name from Names, with or
// without the .npz extension). Its Source is "embedded:NAME".
func Load(name string) (*dataset.Dataset, error) {
	name = strings.TrimSuffix(name, ".npz")
	if _, ok := citations[name]; !ok {
		return nil, fmt.Errorf("embedded: no data set %q (have: %s)", name, strings.Join(Names(), ", "))
	}
	b, err := files.ReadFile("data/" + name + ".npz")
	if err != nil {
		return nil, fmt.Errorf("embedded: %v", err)
	}
	ds, err := dataset.Read(bytes.NewReader(b), int64(len(b)), "embedded:"+name+".npz", dataset.Options{})
	if err != nil {
		return nil, err
	}
	ds.Source = "embedded:" + name
	return ds, nil
}

// Citation returns how to cite the named data set ("" if unknown).
func Citation(name string) string {
	return citations[strings.TrimSuffix(name, ".npz")]
}
