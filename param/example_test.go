package param_test

import (
	"fmt"

	"github.com/kernelad/anomaly/param"
)

// config is a method's configuration; Bind declares each field once.
type config struct {
	Nu       float64
	Features int
	Solver   string
}

func (c *config) Bind(s *param.Set) {
	s.Float(&c.Nu, "nu", 0.5, param.Interval(0, 1, true, false), "outlier share bound")
	s.Int(&c.Features, "features", 2000, param.AtLeast(1), "random features")
	s.Choice(&c.Solver, "solver", "batch", []string{"batch", "sgd"}, nil, "solver")
}

func Example() {
	var cfg config
	s := param.NewSet("demo")
	cfg.Bind(s)

	// What --set gives: parsed and checked, unset keys left unset.
	fmt.Println(s.Apply(map[string]string{"features": "500"}))
	// What New does: defaults for the unset fields, checks for the set ones.
	fmt.Println(s.Resolve(), cfg.Nu, cfg.Features, cfg.Solver)
	// The text form saved with a model.
	fmt.Println(s.Values())
	// An explicit value is never swapped for the default.
	fmt.Println(s.Apply(map[string]string{"nu": "0"}))
	// Output:
	// <nil>
	// <nil> 0.5 500 batch
	// map[features:500 nu:0.5 solver:batch]
	// method demo: parameter nu="0": must be in (0, 1]
}
