package param

import (
	"errors"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

type mode int

type allKinds struct {
	F     float64
	OF    float64
	I     int
	OI    int
	C     string
	E     mode
	On    bool
	Off   bool
	Rule  float64
	Shape []int
	Src   rand.Source
}

func (c *allKinds) bind(s *Set) {
	s.Float(&c.F, "f", 0.5, Interval(0, 1, true, false), "a float")
	s.OptionalFloat(&c.OF, "of", Above(0), "an optional float")
	s.Int(&c.I, "i", 7, AtLeast(1).Or(-1, "all"), "an int")
	s.OptionalInt(&c.OI, "oi", AtLeast(1), "an optional int")
	s.Choice(&c.C, "c", "rbf", []string{"rbf", "poly"}, map[string]string{"gaussian": "rbf"}, "a choice")
	Enum(s, &c.E, "e", []string{"auto", "exact", "tree"}, []mode{0, 1, 2}, "an enum")
	s.Switch(&c.On, "on", "a switch")
	s.SwitchOff(&c.Off, "shrinking", "a switch that reads negated")
	s.FloatOrRule(&c.Rule, "gamma", "scale", Above(0), "a number or a rule")
	s.Shape(&c.Shape, "shape", false, "a shape")
	s.Seed(&c.Src, "seed", 3, func(seed uint64) rand.Source { return rand.NewPCG(seed, 1) }, "a seed")
}

func newAll() (*allKinds, *Set) {
	c := &allKinds{}
	s := NewSet("m")
	c.bind(s)
	return c, s
}

// Every binder: a zero configuration resolves to the declared defaults, and
// its text form is exactly the documented defaults (optional parameters
// and an unset shape have none).
func TestResolveGivesDocumentedDefaults(t *testing.T) {
	c, s := newAll()
	if err := s.Resolve(); err != nil {
		t.Fatal(err)
	}
	got := s.Values()
	for _, p := range s.Params() {
		if p.Default == "" {
			if v, ok := got[p.Name]; ok {
				t.Errorf("%s has no default but resolves to %q", p.Name, v)
			}
			continue
		}
		if got[p.Name] != p.Default {
			t.Errorf("%s: documented %q, resolved %q", p.Name, p.Default, got[p.Name])
		}
	}
	if c.F != 0.5 || c.I != 7 || c.C != "rbf" || c.E != 0 || c.On || c.Off || c.Rule != 0 || c.Src.(*Seeded).Seed != 3 {
		t.Errorf("resolved config %+v", c)
	}
	if d := s.Defaulted(); !d["f"] || !d["seed"] || d["nonexistent"] {
		t.Errorf("Defaulted = %v", d)
	}
}

// Apply parses every kind, leaves unset keys unset, and round-trips
// through Values.
func TestApplyAndValuesRoundTrip(t *testing.T) {
	in := map[string]string{"f": "0.25", "of": "2", "i": "-1", "oi": "4", "c": "gaussian", "e": "tree",
		"on": "true", "shrinking": "false", "gamma": "0.3", "shape": "4x3x2", "seed": "9"}
	c, s := newAll()
	if err := s.Apply(in); err != nil {
		t.Fatal(err)
	}
	want := allKinds{F: 0.25, OF: 2, I: -1, OI: 4, C: "rbf", E: 2, On: true, Off: true, Rule: 0.3, Shape: []int{4, 3, 2}}
	src := c.Src
	c.Src = nil
	if !reflect.DeepEqual(*c, want) {
		t.Fatalf("applied %+v, want %+v", *c, want)
	}
	c.Src = src
	out := s.Values()
	in["c"] = "rbf" // an alias is stored as the choice it stands for
	if !reflect.DeepEqual(out, in) {
		t.Errorf("Values = %v, want %v", out, in)
	}
	c2, s2 := newAll()
	if err := s2.Apply(out); err != nil || !reflect.DeepEqual(s2.Values(), out) {
		t.Errorf("second round trip: %v, %v", err, s2.Values())
	}
	_ = c2
	// Unset keys stay unset until Resolve.
	c3, s3 := newAll()
	if err := s3.Apply(map[string]string{"i": "3"}); err != nil || c3.F != 0 || c3.I != 3 {
		t.Errorf("Apply set unset fields: %+v (%v)", c3, err)
	}
	if err := s3.Resolve(); err != nil || c3.F != 0.5 || s3.Defaulted()["i"] {
		t.Errorf("after Resolve: %+v, defaulted %v (%v)", c3, s3.Defaulted(), err)
	}
}

// Bad values: one error naming the method, key and value, and what is
// allowed. An explicit value is never swapped for the default.
func TestApplyErrors(t *testing.T) {
	for _, c := range []struct {
		key, val, want string
	}{
		{"f", "0", "must be in (0, 1]"},
		{"f", "NaN", "not a finite number"},
		{"f", "lots", "not a number"},
		{"of", "-1", "must be > 0"},
		{"i", "0", "must be ≥ 1, or -1 for all"},
		{"i", "2.5", "not an integer"},
		{"oi", "0", "must be ≥ 1"},
		{"c", "sigmoid", "must be one of rbf, poly"},
		{"e", "fast", "must be one of auto, exact, tree"},
		{"on", "maybe", "not a boolean"},
		{"gamma", "median", "must be a number > 0, or scale"},
		{"gamma", "-1", "must be a number > 0, or scale"},
		{"shape", "4x0", "positive integers"},
		{"seed", "-3", "not a non-negative integer"},
	} {
		_, s := newAll()
		err := s.Apply(map[string]string{c.key: c.val})
		var pe *Error
		if !errors.As(err, &pe) || pe.Name != c.key || pe.Value != c.val || !strings.Contains(err.Error(), c.want) ||
			!strings.HasPrefix(err.Error(), "method m: parameter "+c.key+"=") {
			t.Errorf("%s=%s: got %v, want an error with %q", c.key, c.val, err, c.want)
		}
	}
	_, s := newAll()
	err := s.Apply(map[string]string{"gama": "1", "zz": "2"})
	if err == nil || !strings.Contains(err.Error(), "unknown parameter gama, zz (known: c, e, f, gamma,") {
		t.Errorf("unknown keys: %v", err)
	}
}

// Resolve checks what a Go caller set by hand against the same ranges.
func TestResolveChecksHandBuiltValues(t *testing.T) {
	for _, set := range []func(*allKinds){
		func(c *allKinds) { c.F = 2 },
		func(c *allKinds) { c.I = -5 },
		func(c *allKinds) { c.C = "sigmoid" },
		func(c *allKinds) { c.E = 9 },
		func(c *allKinds) { c.Rule = -1 },
		func(c *allKinds) { c.Shape = []int{3, -1} },
	} {
		c, s := newAll()
		set(c)
		if err := s.Resolve(); err == nil {
			t.Errorf("%+v resolved without error", c)
		}
	}
}

func TestDeclarationMistakesPanic(t *testing.T) {
	for name, f := range map[string]func(){
		"default out of range": func() { var v float64; NewSet("m").Float(&v, "x", 2, Interval(0, 1, false, false), "") },
		"duplicate":            func() { var v int; s := NewSet("m"); s.Int(&v, "x", 1, Any, ""); s.Int(&v, "x", 1, Any, "") },
		"upper-case name":      func() { var v int; NewSet("m").Int(&v, "X", 1, Any, "") },
		"enum zero not first":  func() { var v mode; Enum(NewSet("m"), &v, "e", []string{"a"}, []mode{1}, "") },
	} {
		func() {
			defer func() {
				if r := recover(); r == nil || !strings.HasPrefix(r.(string), "param: ") {
					t.Errorf("%s: recovered %v, want a param: panic", name, r)
				}
			}()
			f()
		}()
	}
}
