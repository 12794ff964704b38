package detector

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
)

// Params reads a method's key=value parameters (what the command line's
// --set gives) with typed getters. Each getter records that its key is known;
// Err reports the first value that did not parse or was out of range, or any
// key that no getter asked for, so a misspelt parameter is never silently
// ignored.
//
//	p := detector.NewParams("expose", m)
//	d := p.Int("features", 2000)
//	g := p.String("gamma", "scale")
//	if err := p.Err(); err != nil { ... }
type Params struct {
	method string
	m      map[string]string
	used   map[string]bool
	err    error
}

// NewParams wraps m for the named method. m is not modified.
func NewParams(method string, m map[string]string) *Params {
	return &Params{method: method, m: m, used: map[string]bool{}}
}

func (p *Params) fail(key, val, format string, args ...any) {
	if p.err == nil {
		p.err = fmt.Errorf("method %s: parameter %s=%q: %s", p.method, key, val, fmt.Sprintf(format, args...))
	}
}

// Has reports whether key was given, and marks it known.
func (p *Params) Has(key string) bool {
	p.used[key] = true
	_, ok := p.m[key]
	return ok
}

// String returns the value of key, or def when absent.
func (p *Params) String(key, def string) string {
	p.used[key] = true
	if v, ok := p.m[key]; ok {
		return strings.TrimSpace(v)
	}
	return def
}

// Choice returns the value of key, which must be one of choices; def when
// absent.
func (p *Params) Choice(key, def string, choices ...string) string {
	v := p.String(key, def)
	for _, c := range choices {
		if v == c {
			return v
		}
	}
	p.fail(key, v, "must be one of %s", strings.Join(choices, ", "))
	return def
}

// Int returns the integer value of key, or def when absent.
func (p *Params) Int(key string, def int) int {
	v, ok := p.m[key]
	p.used[key] = true
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		p.fail(key, v, "not an integer")
		return def
	}
	return n
}

// Uint64 returns the unsigned integer value of key, or def when absent.
func (p *Params) Uint64(key string, def uint64) uint64 {
	v, ok := p.m[key]
	p.used[key] = true
	if !ok {
		return def
	}
	n, err := strconv.ParseUint(strings.TrimSpace(v), 10, 64)
	if err != nil {
		p.fail(key, v, "not a non-negative integer")
		return def
	}
	return n
}

// Float returns the finite floating-point value of key, or def when absent.
func (p *Params) Float(key string, def float64) float64 {
	v, ok := p.m[key]
	p.used[key] = true
	if !ok {
		return def
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		p.fail(key, v, "not a finite number")
		return def
	}
	return f
}

// PositiveOr returns the value of key when it is a positive finite number,
// and 0 when key is absent or equals word, the name of a data-driven rule
// (gamma=scale, gamma=median): 0 tells the method to apply the rule. Any
// other value is an error naming both choices.
func (p *Params) PositiveOr(key, word string) float64 {
	v := p.String(key, word)
	if v == word {
		return 0
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || !(f > 0) || math.IsInf(f, 0) {
		p.fail(key, v, "must be a number > 0 or %s", word)
		return 0
	}
	return f
}

// Bool returns the boolean value of key (true/false/1/0), or def when absent.
func (p *Params) Bool(key string, def bool) bool {
	v, ok := p.m[key]
	p.used[key] = true
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		p.fail(key, v, "not a boolean (true or false)")
		return def
	}
	return b
}

// Ints returns a list of positive integers separated by 'x' or ',' (a tensor
// shape such as 24x51), or def when absent.
func (p *Params) Ints(key string, def []int) []int {
	v, ok := p.m[key]
	p.used[key] = true
	if !ok || strings.TrimSpace(v) == "" {
		return def
	}
	fields := strings.FieldsFunc(v, func(r rune) bool { return r == 'x' || r == 'X' || r == ',' || r == '×' })
	out := make([]int, 0, len(fields))
	for _, f := range fields {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			p.fail(key, v, "must be positive integers separated by x, as in 24x51")
			return def
		}
		out = append(out, n)
	}
	return out
}

// Check records a range error for key when ok is false; the message says what
// the valid range is.
func (p *Params) Check(ok bool, key, rule string) {
	if !ok {
		p.fail(key, p.m[key], "%s", rule)
	}
}

// Err returns the first parse or range error, or an error naming every key
// no getter asked for.
func (p *Params) Err() error {
	if p.err != nil {
		return p.err
	}
	var unknown []string
	for k := range p.m {
		if !p.used[k] {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		known := make([]string, 0, len(p.used))
		for k := range p.used {
			known = append(known, k)
		}
		sort.Strings(known)
		return fmt.Errorf("method %s: unknown parameter %s (known: %s)", p.method, strings.Join(unknown, ", "), strings.Join(known, ", "))
	}
	return nil
}
