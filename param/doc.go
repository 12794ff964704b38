// Package param declares a method's parameters once and derives everything
// else from that one declaration, in the spirit of pflag's FloatVar: each
// field of a configuration struct is bound to a name, a default, a range
// (or a list of choices) and a help text by the configuration's own
// Bind(*Set) method.
//
// From the bindings come:
//
//   - the parameter list that `anomaly methods` prints (Set.Params);
//   - parsing of key=value text, what the command line's --set gives
//     (Set.Apply), with one error per unknown key, unparsable value or value
//     out of range, naming the key, the value and what is allowed;
//   - defaults and validation for a configuration a Go caller built by hand
//     (Set.Resolve): a field left at its zero value takes the declared
//     default, and a field that is set is checked against its range;
//   - the text form of the parameters a model was fitted with, saved beside
//     it and read back by Apply (Set.Values).
//
// # Unset is not zero
//
// In a Go configuration the zero value of a field means "unset", and Resolve
// gives it the default. On the command line an explicit value is never
// swapped for the default: Apply parses the text and checks it against the
// declared range, so contamination=0 is an error (the range is (0, 0.5]),
// not the default 0.1. Parameters for which zero is a meaningful value of
// its own either have 0 as their default or are declared optional
// (OptionalFloat), where 0 means "not given". A parameter whose default
// depends on another (svdd's nu only applies when c is not set) is declared
// by a Bind that looks at the other field.
//
// Shared groups of parameters are reusable binders: kernel.Spec.Bind (kernel
// and width), smo.Settings.Bind (the solver), method.Common
// (contamination and the scale stage) and Seed (a seeded random source).
package param
