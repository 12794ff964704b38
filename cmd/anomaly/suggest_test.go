package main

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/kernelad/anomaly/cmd/anomaly/internal/cli"
)

// TestUnknownMethodSuggestion: an unknown method name that is a registered
// one in another case, a near miss, or scikit-learn's or PyOD's name for
// one gets a "did you mean"; other names only the list (fifth sweep: every
// unknown name got only the list).
func TestUnknownMethodSuggestion(t *testing.T) {
	for _, tc := range []struct{ args, want string }{
		{"fit --method OCSVM", `unknown method "OCSVM"; did you mean ocsvm?`},
		{"fit --method ocsv", `did you mean ocsvm?`},
		{"fit --method OneClassSVM", `did you mean ocsvm?`},
		{"fit --method IsolationForest", `did you mean iforest?`},
		{"fit --method iforset", `did you mean iforest?`},
		{"fit --method KernelDensity", `did you mean kde?`},
		{"bench --methods kde,IForest", `--methods: unknown method "IForest"; did you mean iforest?`},
		{"fit --method knn", `unknown method "knn" (available: `},
		{"fit --method nope", `unknown method "nope" (available: `},
	} {
		var stdout, stderr bytes.Buffer
		args := append(strings.Fields(tc.args), "--data", "x.csv", "--out", "m.bin")
		if strings.HasPrefix(tc.args, "bench") {
			args = strings.Fields(tc.args)
		}
		code := cli.Run(context.Background(), args, &stdout, &stderr)
		if code != cli.ExitUsage || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q; want %d and %q", tc.args, code, stderr.String(), cli.ExitUsage, tc.want)
		}
	}
}
