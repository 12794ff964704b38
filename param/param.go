package param

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/kernelad/anomaly/tensor"
)

// Param documents one declared parameter: what `anomaly methods` prints and
// what error messages quote.
type Param struct {
	Name    string   `json:"name"`
	Default string   `json:"default"`
	Help    string   `json:"help"`
	Range   string   `json:"range,omitempty"`
	Choices []string `json:"choices,omitempty"`

	v value
}

// value is the binding of a parameter to its configuration field.
type value interface {
	// set parses text, checks it and assigns it to the field.
	set(text string) error
	// format returns the field's value as text; ok is false when the field
	// holds "unset" and the parameter has no default to stand for it.
	format() (text string, ok bool)
	// resolve assigns the default when the field holds its zero value
	// ("unset"), reporting that it did, and otherwise checks the value the
	// field holds.
	resolve() (filled bool, err error)
}

// Set is the declared parameters of one method. A configuration type binds
// each of its fields once, in a Bind(*Set) method; the parameter list,
// key=value parsing, validation, defaults and the text form saved with a
// model all come from that binding.
type Set struct {
	method    string
	list      []*Param
	index     map[string]int
	defaulted map[string]bool
}

// NewSet returns an empty set for the named method (the name prefixes
// error messages).
func NewSet(method string) *Set {
	return &Set{method: method, index: map[string]int{}}
}

// Method returns the name the set was created with.
func (s *Set) Method() string { return s.method }

func (s *Set) add(p *Param) {
	if p.Name == "" || p.Name != strings.ToLower(p.Name) || strings.ContainsAny(p.Name, " =") {
		panic(fmt.Sprintf("param: invalid parameter name %q", p.Name))
	}
	if _, dup := s.index[p.Name]; dup {
		panic(fmt.Sprintf("param: %s: parameter %s declared twice", s.method, p.Name))
	}
	s.index[p.Name] = len(s.list)
	s.list = append(s.list, p)
}

// Params returns the declared parameters in declaration order.
func (s *Set) Params() []Param {
	out := make([]Param, len(s.list))
	for i, p := range s.list {
		out[i] = *p
		out[i].v = nil
		out[i].Choices = append([]string(nil), p.Choices...)
	}
	return out
}

// Has reports whether a parameter of that name is declared.
func (s *Set) Has(name string) bool {
	_, ok := s.index[name]
	return ok
}

// Error is a parameter that did not parse, is out of range, or is unknown.
type Error struct {
	Method, Name, Value string
	// Reason says what is wrong and what is allowed.
	Reason string
}

func (e *Error) Error() string {
	if e.Value == "" && e.Name == "" {
		return fmt.Sprintf("method %s: %s", e.Method, e.Reason)
	}
	return fmt.Sprintf("method %s: parameter %s=%s: %s", e.Method, e.Name, strconv.Quote(e.Value), e.Reason)
}

// maxListed is the most unknown keys an error lists by name.
const maxListed = 5

// Apply parses the key=value pairs of m (what --set gives) into the bound
// fields. Keys that are absent leave their fields untouched: unset stays
// unset, so the method's New applies the default. An unknown key, a value
// that does not parse and a value out of range are errors naming the key,
// the value and what is allowed. Keys are applied in sorted order, so the
// first error is reproducible.
func (s *Set) Apply(m map[string]string) error {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var unknown []string
	for _, k := range keys {
		if _, ok := s.index[k]; !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		known := make([]string, len(s.list))
		for i, p := range s.list {
			known[i] = p.Name
		}
		sort.Strings(known)
		list := strings.Join(unknown, ", ")
		if len(unknown) > maxListed {
			// A crafted model file named 2,000,000 parameters, and the
			// error was one line of 18 MB.
			list = fmt.Sprintf("%s, … (%d unknown in all)", strings.Join(unknown[:maxListed], ", "), len(unknown))
		}
		return &Error{Method: s.method, Reason: fmt.Sprintf("unknown parameter %s (known: %s)", list, strings.Join(known, ", "))}
	}
	for _, k := range keys {
		p := s.list[s.index[k]]
		v := strings.TrimSpace(m[k])
		if err := p.v.set(v); err != nil {
			return &Error{Method: s.method, Name: k, Value: v, Reason: err.Error()}
		}
	}
	return nil
}

// Resolve fills every unset field with its declared default and checks
// every field that is set, as a method's New does with a configuration a
// Go caller built by hand. Defaulted then reports which fields took their
// default.
func (s *Set) Resolve() error {
	s.defaulted = map[string]bool{}
	for _, p := range s.list {
		filled, err := p.v.resolve()
		if err != nil {
			text, _ := p.v.format()
			return &Error{Method: s.method, Name: p.Name, Value: text, Reason: err.Error()}
		}
		if filled {
			s.defaulted[p.Name] = true
		}
	}
	return nil
}

// Defaulted returns the names of the parameters that Resolve gave their
// default (their fields were unset), as a set.
func (s *Set) Defaulted() map[string]bool {
	out := make(map[string]bool, len(s.defaulted))
	for k := range s.defaulted {
		out[k] = true
	}
	return out
}

// Values returns the bound fields as key=value text, the form Apply reads
// back: after Resolve, the parameters a model was really fitted with.
// Fields that hold "unset" with no default standing for it are left out.
func (s *Set) Values() map[string]string {
	m := make(map[string]string, len(s.list))
	for _, p := range s.list {
		if t, ok := p.v.format(); ok {
			m[p.Name] = t
		}
	}
	return m
}

// Range is the set of values a numeric parameter accepts.
type Range struct {
	desc string
	ok   func(float64) bool
}

// String describes the range, e.g. "in (0, 1]".
func (r Range) String() string { return r.desc }

// Contains reports whether v is in the range.
func (r Range) Contains(v float64) bool { return r.ok == nil || r.ok(v) }

// Any accepts every finite number.
var Any = Range{}

// Above accepts v > lo.
func Above(lo float64) Range {
	return Range{"> " + num(lo), func(v float64) bool { return v > lo }}
}

// AtLeast accepts v ≥ lo.
func AtLeast(lo float64) Range {
	return Range{"≥ " + num(lo), func(v float64) bool { return v >= lo }}
}

// Interval accepts v between lo and hi; openLo and openHi exclude the ends.
func Interval(lo, hi float64, openLo, openHi bool) Range {
	l, h := "[", "]"
	if openLo {
		l = "("
	}
	if openHi {
		h = ")"
	}
	return Range{fmt.Sprintf("in %s%s, %s%s", l, num(lo), num(hi), h), func(v float64) bool {
		return (v > lo || !openLo && v == lo) && (v < hi || !openHi && v == hi)
	}}
}

// Or widens r by one extra value with a meaning, e.g. AtLeast(1).Or(-1,
// "all rows").
func (r Range) Or(v float64, meaning string) Range {
	prev := r
	return Range{fmt.Sprintf("%s, or %s for %s", r.desc, num(v), meaning), func(x float64) bool { return x == v || prev.Contains(x) }}
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

func checkRange(v float64, r Range) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return fmt.Errorf("not a finite number")
	}
	if !r.Contains(v) {
		return fmt.Errorf("must be %s", r.desc)
	}
	return nil
}

// Float binds *p to a floating-point parameter with default def (the value
// an unset field, 0, resolves to) and range r. An explicit value outside r,
// 0 included, is an error: a given value is never swapped for the default.
func (s *Set) Float(p *float64, name string, def float64, r Range, help string) {
	if !r.Contains(def) {
		panic(fmt.Sprintf("param: %s: default %v of %s is outside its range %s", s.method, def, name, r.desc))
	}
	s.add(&Param{Name: name, Default: num(def), Help: help, Range: r.desc, v: &floatValue{p: p, def: def, r: r}})
}

// OptionalFloat binds *p to a floating-point parameter with no default: 0
// means "not given" and the method decides what that means (help says so).
func (s *Set) OptionalFloat(p *float64, name string, r Range, help string) {
	s.add(&Param{Name: name, Help: help, Range: r.desc, v: &floatValue{p: p, r: r, optional: true}})
}

type floatValue struct {
	p        *float64
	def      float64
	r        Range
	optional bool
}

func (v *floatValue) set(t string) error {
	f, err := strconv.ParseFloat(t, 64)
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("out of float64's range (%s)", v.r.desc)
	}
	if err != nil {
		return fmt.Errorf("not a number")
	}
	if err := checkRange(f, v.r); err != nil {
		return err
	}
	*v.p = f
	return nil
}

func (v *floatValue) format() (string, bool) {
	if *v.p == 0 && v.optional {
		return "", false
	}
	return num(*v.p), true
}

func (v *floatValue) resolve() (bool, error) {
	if *v.p == 0 {
		if !v.optional {
			*v.p = v.def
		}
		return true, nil
	}
	return false, checkRange(*v.p, v.r)
}

// Int binds *p to an integer parameter with default def and range r.
func (s *Set) Int(p *int, name string, def int, r Range, help string) {
	if !r.Contains(float64(def)) {
		panic(fmt.Sprintf("param: %s: default %d of %s is outside its range %s", s.method, def, name, r.desc))
	}
	s.add(&Param{Name: name, Default: strconv.Itoa(def), Help: help, Range: r.desc, v: &intValue{p: p, def: def, r: r}})
}

type intValue struct {
	p        *int
	def      int
	r        Range
	optional bool
}

func (v *intValue) set(t string) error {
	n, err := strconv.Atoi(t)
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("must be %s (it is past the integers this machine holds)", v.r.desc)
	}
	if err != nil {
		return fmt.Errorf("not an integer")
	}
	if !v.r.Contains(float64(n)) {
		return fmt.Errorf("must be %s", v.r.desc)
	}
	*v.p = n
	return nil
}

func (v *intValue) format() (string, bool) {
	if *v.p == 0 && v.optional {
		return "", false
	}
	return strconv.Itoa(*v.p), true
}

// OptionalInt binds *p to an integer parameter with no default: 0 means
// "not given" and the method decides what that means (help says so).
func (s *Set) OptionalInt(p *int, name string, r Range, help string) {
	s.add(&Param{Name: name, Help: help, Range: r.desc, v: &intValue{p: p, r: r, optional: true}})
}

func (v *intValue) resolve() (bool, error) {
	if *v.p == 0 {
		if !v.optional {
			*v.p = v.def
		}
		return true, nil
	}
	if !v.r.Contains(float64(*v.p)) {
		return false, fmt.Errorf("must be %s", v.r.desc)
	}
	return false, nil
}

// Choice binds *p to one of a list of words; "" resolves to def. Aliases
// maps extra accepted spellings to a choice (gaussian → rbf), stored as the
// choice they stand for.
func (s *Set) Choice(p *string, name, def string, choices []string, aliases map[string]string, help string) {
	s.add(&Param{Name: name, Default: def, Help: help, Choices: choices, v: &choiceValue{p: p, def: def, choices: choices, aliases: aliases}})
}

type choiceValue struct {
	p       *string
	def     string
	choices []string
	aliases map[string]string
}

func (v *choiceValue) canonical(t string) (string, error) {
	if a, ok := v.aliases[t]; ok {
		t = a
	}
	for _, c := range v.choices {
		if t == c {
			return t, nil
		}
	}
	return "", fmt.Errorf("must be one of %s", strings.Join(v.choices, ", "))
}

func (v *choiceValue) set(t string) error {
	c, err := v.canonical(t)
	if err == nil {
		*v.p = c
	}
	return err
}

func (v *choiceValue) format() (string, bool) {
	if *v.p == "" {
		return v.def, v.def != ""
	}
	return *v.p, true
}

func (v *choiceValue) resolve() (bool, error) {
	if *v.p == "" {
		*v.p = v.def
		return true, nil
	}
	c, err := v.canonical(*v.p)
	if err == nil {
		*v.p = c
	}
	return false, err
}

// Enum binds *p, of an integer-like enumeration type, to the words names:
// names[i] stands for values[i]. The zero value of T must be values[0],
// the default.
func Enum[T comparable](s *Set, p *T, name string, names []string, values []T, help string) {
	var zero T
	if len(names) == 0 || len(names) != len(values) || values[0] != zero {
		panic(fmt.Sprintf("param: enum %s needs matching names and values, the first being the zero value", name))
	}
	s.add(&Param{Name: name, Default: names[0], Help: help, Choices: names, v: &enumValue[T]{p: p, names: names, values: values}})
}

type enumValue[T comparable] struct {
	p      *T
	names  []string
	values []T
}

func (v *enumValue[T]) set(t string) error {
	for i, n := range v.names {
		if t == n {
			*v.p = v.values[i]
			return nil
		}
	}
	return fmt.Errorf("must be one of %s", strings.Join(v.names, ", "))
}

func (v *enumValue[T]) format() (string, bool) {
	for i, x := range v.values {
		if *v.p == x {
			return v.names[i], true
		}
	}
	return fmt.Sprint(*v.p), true
}

func (v *enumValue[T]) resolve() (bool, error) {
	for i, x := range v.values {
		if *v.p == x {
			return i == 0, nil
		}
	}
	return false, fmt.Errorf("invalid value %v (want one of %s)", *v.p, strings.Join(v.names, ", "))
}

// Switch binds *p to a boolean parameter whose default is false.
func (s *Set) Switch(p *bool, name, help string) {
	s.add(&Param{Name: name, Default: "false", Help: help, v: &boolValue{p: p}})
}

// SwitchOff binds the field *off (default false) to a boolean parameter
// that reads as its negation and so defaults to true: shrinking=false sets
// NoShrinking.
func (s *Set) SwitchOff(off *bool, name, help string) {
	s.add(&Param{Name: name, Default: "true", Help: help, v: &boolValue{p: off, negate: true}})
}

type boolValue struct {
	p      *bool
	negate bool
}

func (v *boolValue) set(t string) error {
	b, err := strconv.ParseBool(t)
	if err != nil {
		return fmt.Errorf("not a boolean (true or false)")
	}
	*v.p = b != v.negate
	return nil
}

func (v *boolValue) format() (string, bool) { return strconv.FormatBool(*v.p != v.negate), true }
func (v *boolValue) resolve() (bool, error) { return !*v.p, nil }

// FloatOrRule binds *p to a parameter that is either a number in r or the
// word rule, the name of a data-driven rule that the field's 0 stands for
// (gamma=scale, gamma=median). The rule is the default.
func (s *Set) FloatOrRule(p *float64, name, rule string, r Range, help string) {
	s.add(&Param{Name: name, Default: rule, Help: help, Range: r.desc, v: &ruleValue{p: p, rule: rule, r: r}})
}

type ruleValue struct {
	p    *float64
	rule string
	r    Range
}

func (v *ruleValue) set(t string) error {
	if t == v.rule {
		*v.p = 0
		return nil
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil {
		return fmt.Errorf("must be a number %s, or %s", v.r.desc, v.rule)
	}
	if err := checkRange(f, v.r); err != nil {
		return fmt.Errorf("must be a number %s, or %s", v.r.desc, v.rule)
	}
	*v.p = f
	return nil
}

func (v *ruleValue) format() (string, bool) {
	if *v.p == 0 {
		return v.rule, true
	}
	return num(*v.p), true
}

func (v *ruleValue) resolve() (bool, error) {
	if *v.p == 0 {
		return true, nil
	}
	if err := checkRange(*v.p, v.r); err != nil {
		return false, fmt.Errorf("must be a number %s, or 0 for %s", v.r.desc, v.rule)
	}
	return false, nil
}

// Shape binds *p to a tensor sample shape written as positive integers
// separated by x (24x51). A required shape left unset is an error at
// Resolve.
func (s *Set) Shape(p *[]int, name string, required bool, help string) {
	s.add(&Param{Name: name, Help: help, v: &shapeValue{p: p, required: required}})
}

type shapeValue struct {
	p        *[]int
	required bool
}

func (v *shapeValue) set(t string) error {
	sh, err := tensor.ParseShape(t)
	if err != nil {
		return fmt.Errorf("must be positive integers separated by x, as in 24x51")
	}
	*v.p = sh
	return nil
}

func (v *shapeValue) format() (string, bool) {
	if len(*v.p) == 0 {
		return "", false
	}
	return tensor.FormatShape(*v.p), true
}

func (v *shapeValue) resolve() (bool, error) {
	if len(*v.p) == 0 {
		if v.required {
			return false, fmt.Errorf("the sample shape is required (as in shape=24x51)")
		}
		return true, nil
	}
	for _, n := range *v.p {
		if n < 1 {
			return false, fmt.Errorf("must be positive integers separated by x, as in 24x51")
		}
	}
	return false, nil
}

// Seeded is a random source made from a seed by a Seed binding; it
// remembers the seed, so the text form of the configuration can name it.
type Seeded struct {
	rand.Source
	Seed uint64
}

// Seed binds *p, a configuration's random source, to an integer seed
// parameter: seed=N sets *p to mk(N). An unset (nil) source resolves to
// mk(def). A source the caller built by hand is kept and has no text form.
func (s *Set) Seed(p *rand.Source, name string, def uint64, mk func(seed uint64) rand.Source, help string) {
	s.add(&Param{Name: name, Default: strconv.FormatUint(def, 10), Help: help, v: &seedValue{p: p, def: def, mk: mk}})
}

type seedValue struct {
	p   *rand.Source
	def uint64
	mk  func(uint64) rand.Source
}

func (v *seedValue) set(t string) error {
	n, err := strconv.ParseUint(t, 10, 64)
	if err != nil {
		return fmt.Errorf("not a non-negative integer")
	}
	*v.p = &Seeded{Source: v.mk(n), Seed: n}
	return nil
}

func (v *seedValue) format() (string, bool) {
	switch s := (*v.p).(type) {
	case nil:
		return strconv.FormatUint(v.def, 10), true
	case *Seeded:
		return strconv.FormatUint(s.Seed, 10), true
	}
	return "", false
}

func (v *seedValue) resolve() (bool, error) {
	if *v.p == nil {
		*v.p = &Seeded{Source: v.mk(v.def), Seed: v.def}
		return true, nil
	}
	return false, nil
}

// Value is a custom parameter binding for what the typed binders do not
// cover (a parameter that fills two fields, say).
type Value interface {
	// Set parses, checks and assigns the text of an explicit value.
	Set(text string) error
	// String returns the bound value as text; ok is false for "unset"
	// with no default standing for it.
	String() (text string, ok bool)
	// Resolve assigns the default to an unset field, reporting that it
	// did, and checks a set one.
	Resolve() (defaulted bool, err error)
}

// Var binds a custom Value under name, documenting def as its default.
func (s *Set) Var(v Value, name, def, help string) {
	s.add(&Param{Name: name, Default: def, Help: help, v: customValue{v}})
}

type customValue struct{ Value }

func (c customValue) set(t string) error     { return c.Set(t) }
func (c customValue) format() (string, bool) { return c.String() }
func (c customValue) resolve() (bool, error) { return c.Resolve() }
