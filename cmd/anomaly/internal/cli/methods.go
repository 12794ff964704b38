package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/kernelad/anomaly/detector"
	"github.com/kernelad/anomaly/internal/output"
	"github.com/kernelad/anomaly/param"
	"github.com/spf13/cobra"
)

type methodsOptions struct {
	json bool
}

type methodInfo struct {
	Name    string        `json:"name"`
	Summary string        `json:"summary"`
	Version int           `json:"version"`
	Params  []param.Param `json:"params"`
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
			params = []param.Param{}
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

// unknownMethod is the usage error of a method name this build does not
// have, with detector's suggestion (detector.UnknownMethodError).
func unknownMethod(prefix, name string) error {
	_, err := detector.New(name, nil)
	return usagef("%s%v", prefix, err)
}
