package cli

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"

	"github.com/KimMachineGun/automemlimit/memlimit"
	"github.com/pbnjay/memory"

	"github.com/kernelad/anomaly/bench"
	"github.com/kernelad/anomaly/dataset"
	"github.com/kernelad/anomaly/detector"
	kit "github.com/kernelad/anomaly/detector/method"
)

// budgetShare is the share of the memory available to the process (the
// container's limit, the address-space limit or the machine's memory,
// whichever is smallest) that a run may plan to use by default: the rest
// is left to the data already loaded, the Go runtime and the system.
const budgetShare = 0.75

// memoryBudget returns the bytes a run may plan to allocate: --max-memory
// when given, otherwise budgetShare of the smallest of the cgroup memory
// limit (read by automemlimit), the address-space limit (RLIMIT_AS) and the
// machine's total memory (pbnjay/memory). It also sets the budget as Go's
// soft memory limit, unless GOMEMLIMIT is set, so the collector works
// harder before the process reaches it. source says where the figure came
// from, for messages.
// addressSpaceInUse returns the process's address space (VmSize of
// /proc/self/status), 0 where that cannot be read.
func addressSpaceInUse() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

func memoryBudget(flag string) (budget int64, source string, err error) {
	if flag != "" {
		b, err := parseBytes(flag)
		if err != nil {
			return 0, "", usagef("--max-memory %q: %v (as in 4GB, 512MiB or 2e9)", flag, err)
		}
		setSoftLimit(b)
		return b, "--max-memory", nil
	}
	avail, source := int64(memory.TotalMemory()), "the machine's memory"
	if lim, err := memlimit.FromCgroup(); err == nil && lim > 0 && lim < math.MaxInt64 && int64(lim) < avail {
		avail, source = int64(lim), "the container's memory limit"
	}
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_AS, &rl); err == nil && rl.Cur != ^uint64(0) && rl.Cur < math.MaxInt64 {
		// The address space the process holds already — the Go runtime
		// reserves about 1.2 GB at start, nearly all of it never
		// touched — counts against the limit too: under ulimit -v 4 GB,
		// 75% of the limit let a plot estimated at 2.43 GB start and die
		// with a runtime trace.
		if free := int64(rl.Cur) - addressSpaceInUse(); free < avail {
			avail, source = max(free, 1), "the address-space limit (ulimit -v) less what the process holds"
		}
	}
	if avail <= 0 {
		return math.MaxInt64, "no known limit", nil
	}
	b := int64(float64(avail) * budgetShare)
	setSoftLimit(b)
	return b, fmt.Sprintf("%.0f%% of %s", 100*budgetShare, source), nil
}

func setSoftLimit(b int64) {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(b)
	}
}

// parseBytes reads a byte count: a number with an optional unit (B; K, KB,
// M, MB, G, GB, T, TB in powers of 1000; KiB, MiB, GiB, TiB in powers of
// 1024), case-insensitive.
func parseBytes(s string) (int64, error) {
	t := strings.ToUpper(strings.TrimSpace(s))
	units := []struct {
		suffix string
		mult   float64
	}{{"KIB", 1 << 10}, {"MIB", 1 << 20}, {"GIB", 1 << 30}, {"TIB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
		{"K", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"B", 1}}
	mult := 1.0
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			mult, t = u.mult, strings.TrimSpace(strings.TrimSuffix(t, u.suffix))
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || !(v > 0) || math.IsInf(v, 0) {
		return 0, errors.New("not a positive byte count")
	}
	if v*mult < 1 {
		// 0.5B would be a budget of 0 bytes, which the readers take
		// for no budget at all.
		return 0, errors.New("not a positive byte count (less than one byte)")
	}
	if v*mult >= math.MaxInt64 {
		return math.MaxInt64, nil
	}
	return int64(v * mult), nil
}

// checkMemory refuses a fit or score whose memory estimate passes the
// budget, before it allocates: exit 1 when the method's parameters make
// the estimate (at the method's defaults it would fit the budget), exit 2
// when the data alone does. The message names the estimate, the budget
// and what to change. The estimate is the method's with what withData
// adds (model is the size of a loaded model that scores, 0 for a fit).
func checkMemory(d detector.Detector, op kit.Op, ds *dataset.Dataset, flag, method string, params map[string]string, model int64) error {
	return checkBudget(d, op, kit.SizeOf(ds.X), ds.Source, true, "", flag, method, params, model)
}

// checkBudget is checkMemory on data of size s, named name: loaded says
// the command holds the data (a loaded data set), else it reads it a
// chunk at a time and holds two chunks; bound says s.Rows is a bound on
// the rows (a text file's, from its size), not their count.
func checkBudget(d detector.Detector, op kit.Op, size kit.Size, name string, loaded bool, count, flag, method string, params map[string]string, model int64) error {
	budget, source, err := memoryBudget(flag)
	if err != nil {
		return err
	}
	with := func(est int64) int64 {
		if loaded {
			return withData(est, size, model)
		}
		chunk := sampleSize(size, kit.ChunkRows(size.Cols))
		return saturated(float64(est) + 2*chunk.Bytes() + bench.ProcessBytes + float64(model))
	}
	est, err := fitMemory(d, op, size, sampleRows(params))
	if err != nil {
		return err
	}
	if est = with(est); est <= budget {
		return nil
	}
	what := "fitting"
	if op == kit.ScoreOp {
		what = "scoring"
	}
	about := "about " + dataset.FormatBytes(est)
	if est == math.MaxInt64 { // kit.Memory's ceiling
		about = "more than " + dataset.FormatBytes(est)
	}
	msg := fmt.Sprintf("%s %s%d × %d %s with %s needs %s, over the memory budget of %s (%s)",
		what, count, size.Rows, size.Cols, dataKind(size), method, about, dataset.FormatBytes(budget), source)
	if op != kit.FitOp {
		return dataErr(fmt.Errorf("%s: %s: the data is too large for the method; use fewer rows or columns, or raise --max-memory", name, msg))
	}
	// What would fit: the method's defaults (with its lighter settings
	// when the user chose them), then the lighter settings with the user's
	// parameters, then with the defaults.
	fits := func(p map[string]string) (int64, bool) {
		d, err := detector.New(method, p)
		if err != nil {
			return 0, false
		}
		e, err := fitMemory(d, op, size, sampleRows(p))
		e = with(e)
		return e, err == nil && e <= budget
	}
	light, chosen, sets := lighter(method, params)
	if len(params) > 0 {
		defaults, with := shapeOnly(params), ""
		if chosen {
			maps.Copy(defaults, light)
			with = " with " + strings.Join(sets, " ")
		}
		if e, ok := fits(defaults); ok {
			// Name the parameters whose default lowers the estimate
			// (ocsvm's cache_mb, not its nu or tol), or all when none
			// does alone.
			heavy := map[string]string{}
			for k, v := range params {
				if _, lit := light[k]; lit && chosen {
					continue
				}
				without := maps.Clone(params)
				delete(without, k)
				if e0, _ := fits(without); e0 > 0 && e0 < est {
					heavy[k] = v
				}
			}
			if len(heavy) == 0 {
				heavy = params
			}
			return usagef("%s: %s: the parameters %s make it so; lower them (at the method's defaults%s it needs about %s), or raise --max-memory", name, msg, paramList(heavy), with, dataset.FormatBytes(e))
		}
	}
	if len(light) > 0 && !chosen {
		mine := maps.Clone(params)
		maps.Copy(mine, light)
		if e, ok := fits(mine); ok {
			return usagef("%s: %s: with %s it needs about %s", name, msg, strings.Join(sets, " "), dataset.FormatBytes(e))
		}
		defaults := shapeOnly(params)
		maps.Copy(defaults, light)
		if e, ok := fits(defaults); ok && len(params) > len(shapeOnly(params)) {
			return usagef("%s: %s: with %s and the method's defaults otherwise (not %s) it needs about %s", name, msg, strings.Join(sets, " "), paramList(params), dataset.FormatBytes(e))
		}
	}
	sample := ""
	if n := sampleThatFits(method, params, size, budget, loaded); n > 0 {
		sample = fmt.Sprintf(", fit on a sample (--sample %d fits the budget)", n)
	}
	return dataErr(fmt.Errorf("%s: %s: the data is too large for the method; use fewer rows or columns%s, a method with a smaller footprint (see 'anomaly methods'), or raise --max-memory", name, msg, sample))
}

// saturated returns the bytes b as an int64, math.MaxInt64 from 2⁶³ up
// (a float64 of 2⁶³ or more converts to a negative int64, which passed
// every budget: trees=2^55 fitted and crashed).
func saturated(b float64) int64 {
	if b < math.MaxInt64 {
		return int64(b)
	}
	return math.MaxInt64
}

// sampleRows returns the sample size the parameters ask for (0: every
// row).
func sampleRows(params map[string]string) int {
	n, _ := strconv.Atoi(params["sample"])
	return max(n, 0)
}

// sampleSize returns s with n of its rows (its non-zeros in proportion).
func sampleSize(s kit.Size, n int) kit.Size {
	if n <= 0 || n >= s.Rows {
		return s
	}
	out := s
	out.Rows = n
	out.NonZeros = int64(float64(s.NonZeros) * float64(n) / float64(s.Rows))
	return out
}

// fitMemory is kit.Memory of op on data of size s, for a fit on a
// sample of n rows (n > 0): the method's estimate on the sample's size
// and the sample's own copy.
func fitMemory(d detector.Detector, op kit.Op, s kit.Size, n int) (int64, error) {
	if op != kit.FitOp || n <= 0 || n >= s.Rows {
		return kit.Memory(d, op, s)
	}
	ss := sampleSize(s, n)
	est, err := kit.Memory(d, op, ss)
	if err != nil {
		return 0, err
	}
	return saturated(float64(est) + ss.Bytes()), nil
}

// sampleThatFits returns the largest sample size (at least 1,000 rows,
// rounded down to two significant digits) whose fit the budget admits
// with the method's parameters, or 0 when there is none or the method
// cannot fit on a sample.
func sampleThatFits(method string, params map[string]string, s kit.Size, budget int64, loaded bool) int {
	m, ok := detector.Lookup(method)
	if !ok || !m.Has("sample") || sampleRows(params) > 0 || s.Rows <= 1000 {
		return 0
	}
	d, err := detector.New(method, params)
	if err != nil {
		return 0
	}
	fits := func(n int) bool {
		e, err := fitMemory(d, kit.FitOp, s, n)
		if !loaded { // read a chunk at a time: two chunks, not the data
			chunk := sampleSize(s, kit.ChunkRows(s.Cols))
			return err == nil && float64(e)+2*chunk.Bytes()+bench.ProcessBytes <= float64(budget)
		}
		return err == nil && withData(e, s, 0) <= budget
	}
	lo, hi := 0, s.Rows // fits(lo) or lo = 0; !fits(hi)
	if !fits(1000) {
		return 0
	}
	lo = 1000
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	p := 1
	for lo/p >= 100 {
		p *= 10
	}
	return lo / p * p
}

// lighter returns the method's lighter settings (detector.Method.Lighter:
// kpca's method=nystrom), whether params chose them all already, and
// them as --set flags.
func lighter(method string, params map[string]string) (light map[string]string, chosen bool, sets []string) {
	m, ok := detector.Lookup(method)
	if !ok || len(m.Lighter) == 0 {
		return nil, false, nil
	}
	chosen = true
	for _, k := range slices.Sorted(maps.Keys(m.Lighter)) {
		chosen = chosen && params[k] == m.Lighter[k]
		sets = append(sets, "--set "+k+"="+m.Lighter[k])
	}
	return m.Lighter, chosen, sets
}

// withData adds to a method's estimate what the command holds beside the
// method: the process itself (bench.ProcessBytes), the data matrix (the
// estimates count what the method allocates: 800,000 × 20 rows, 128 MB,
// fitted under a 150 MB budget peaked at 267 MB) and model, the bytes of a
// loaded model that stays resident while it scores (0 for a fit);
// saturating at math.MaxInt64.
func withData(est int64, s kit.Size, model int64) int64 {
	if t := float64(est) + s.Bytes() + bench.ProcessBytes + float64(model); t < math.MaxInt64 {
		return int64(t)
	}
	return math.MaxInt64
}

func dataKind(s kit.Size) string {
	if s.Sparse {
		return fmt.Sprintf("sparse rows (%d non-zeros)", s.NonZeros)
	}
	return "rows"
}

// shapeOnly keeps the parameters that describe the data, not the method:
// the sample shape.
func shapeOnly(params map[string]string) map[string]string {
	out := map[string]string{}
	if v, ok := params["shape"]; ok {
		out["shape"] = v
	}
	return out
}

func paramList(params map[string]string) string {
	var parts []string
	for k, v := range params {
		if k != "shape" && k != "seed" && k != "contamination" {
			parts = append(parts, k+"="+v)
		}
	}
	if len(parts) == 0 {
		return "given"
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}
