package cli

import "github.com/kernelad/anomaly/internal/setflag"

// parseSet turns repeated --set key=value flags into a parameter map
// (setflag.Parse); a malformed or repeated flag is a usage error.
func parseSet(sets []string) (map[string]string, error) {
	m, err := setflag.Parse(sets)
	if err != nil {
		return nil, usageErr(err)
	}
	return m, nil
}

// addParam adds a parameter that a dedicated flag gives (--seed,
// --contamination, --shape); giving it with --set as well is a usage error
// (setflag.Add).
func addParam(m map[string]string, key, val, flag string) error {
	if err := setflag.Add(m, key, val, flag); err != nil {
		return usageErr(err)
	}
	return nil
}
