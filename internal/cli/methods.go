package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/output"
	"github.com/spf13/cobra"
)

type methodsOptions struct {
	json bool
}

type methodInfo struct {
	Name    string           `json:"name"`
	Summary string           `json:"summary"`
	Version int              `json:"version"`
	Params  []detector.Param `json:"params"`
}

func newMethodsCmd(out io.Writer) *cobra.Command {
	var o methodsOptions
	c := &cobra.Command{
		Use:   "methods",
		Short: "List the detection methods and their parameters",
		Long: `List every registered detection method with a one-line summary and its
parameters (name, default, meaning); give parameters to fit with --set key=value.`,
		Args: noArgs,
	}
	c.RunE = runE(func(context.Context) error { return runMethods(o, out) })
	c.Flags().BoolVar(&o.json, "json", false, "print JSON: [{name, summary, version, params: [{name, default, help, range, choices}]}]")
	return c
}

func runMethods(o methodsOptions, out io.Writer) error {
	if err := writeMethods(o, out); err != nil {
		// As score names it: `anomaly methods | head` said "write
		// /dev/stdout: broken pipe".
		return &output.PathError{Path: "standard output", Err: output.Unwrap(err)}
	}
	return nil
}

func writeMethods(o methodsOptions, out io.Writer) error {
	var ms []methodInfo
	for _, name := range detector.Names() {
		m, _ := detector.Lookup(name)
		params := m.Params
		if params == nil {
			params = []detector.Param{}
		}
		ms = append(ms, methodInfo{Name: m.Name, Summary: m.Summary, Version: m.Version, Params: params})
	}
	if o.json {
		if ms == nil {
			ms = []methodInfo{}
		}
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(ms)
	}
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	for i, m := range ms {
		if i > 0 {
			fmt.Fprintln(tw)
		}
		fmt.Fprintf(tw, "%s\t%s\n", m.Name, m.Summary)
		for _, p := range m.Params {
			help := p.Help
			if p.Range != "" {
				help += " (" + p.Range + ")"
			}
			fmt.Fprintf(tw, "  %s=%s\t%s\n", p.Name, p.Default, help)
		}
	}
	return tw.Flush()
}

// methodAliases maps the names scikit-learn and PyOD give their detectors
// (lower case, without '-', '_' and spaces) to this build's method.
var methodAliases = map[string]string{
	"oneclasssvm": "ocsvm", "svm": "ocsvm", "ocsvm": "ocsvm",
	"isolationforest": "iforest", "iforest": "iforest", "isoforest": "iforest",
	"kerneldensity": "kde", "kde": "kde",
	"kernelpca": "kpca", "kpca": "kpca",
	"svdd": "svdd", "deepsvdd": "svdd",
	"ellipticenvelope": "gauss", "mahalanobis": "gauss", "gaussian": "gauss", "gauss": "gauss",
}

// unknownMethod is the usage error of a method name this build does not
// have, with a suggestion when the name is a registered one in another
// case, a near miss (one edit in a name of four letters or fewer, two in
// a longer one) or the name scikit-learn or
// PyOD gives one ("OneClassSVM": ocsvm).
func unknownMethod(prefix, name string) error {
	msg := fmt.Sprintf("%sunknown method %q", prefix, name)
	if s := suggestMethod(name); s != "" {
		msg += fmt.Sprintf("; did you mean %s?", s)
	}
	return usagef("%s (available: %s)", msg, strings.Join(detector.Names(), ", "))
}

// suggestMethod returns the registered method name is most likely meant
// for, or "".
func suggestMethod(name string) string {
	key := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == ' ' {
			return -1
		}
		return unicode.ToLower(r)
	}, name)
	if m, ok := methodAliases[key]; ok {
		if _, registered := detector.Lookup(m); registered {
			return m
		}
	}
	best, bestD := "", 3
	for _, m := range detector.Names() {
		limit := 2 // a near miss: one edit in a short name, two in a longer
		if len(m) <= 4 {
			limit = 1
		}
		if d := editDistance(key, m); d <= limit && d < bestD {
			best, bestD = m, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of a and b (bytes).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
