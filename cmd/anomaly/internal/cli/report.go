package cli

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"github.com/kernelad/anomaly/bench"
	aplot "github.com/kernelad/anomaly/plot"
)

// reportCSS lays the report out for a phone (tables scroll sideways in
// their own box, pictures shrink to the width) and for print (no boxes cut
// across pages where avoidable).
const reportCSS = `body{font:15px/1.45 system-ui,sans-serif;margin:0 auto;max-width:1100px;padding:12px;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}h3{font-size:1.05em}
.scroll{overflow-x:auto;-webkit-overflow-scrolling:touch;margin:.5em 0}
table{border-collapse:collapse;font-size:.9em}th,td{border:1px solid #ddd;padding:3px 7px;text-align:right;white-space:nowrap}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
img{max-width:100%;height:auto}figure{margin:1em 0;break-inside:avoid}figcaption{font-size:.85em;color:#555}
.curves{display:grid;grid-template-columns:repeat(auto-fill,minmax(320px,1fr));gap:8px}
p.meta{color:#555;font-size:.9em}
@media print{body{max-width:none}.scroll{overflow:visible}h2{break-after:avoid}}`

// writeReport writes the self-contained HTML report of a bench run: the
// protocol, the AUC matrix, the long table, the statistics with their
// pictures and the ROC and PR curves, every picture inlined as SVG, no
// script and nothing fetched.
func writeReport(w io.Writer, res *bench.Result, mem string) error {
	var b strings.Builder
	esc := html.EscapeString
	b.WriteString("<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>anomaly bench report</title>\n<style>")
	b.WriteString(reportCSS)
	b.WriteString("</style></head><body>\n<h1>anomaly bench report</h1>\n")
	for _, l := range benchHeader(res, mem) {
		fmt.Fprintf(&b, "<p class=\"meta\">%s</p>\n", esc(l))
	}
	table := func(head []string, rows [][]string) {
		b.WriteString("<div class=\"scroll\"><table><thead><tr>")
		for _, h := range head {
			fmt.Fprintf(&b, "<th>%s</th>", esc(h))
		}
		b.WriteString("</tr></thead><tbody>\n")
		for _, r := range rows {
			b.WriteString("<tr>")
			for _, c := range r {
				fmt.Fprintf(&b, "<td>%s</td>", esc(c))
			}
			b.WriteString("</tr>\n")
		}
		b.WriteString("</tbody></table></div>\n")
	}

	// The AUC matrix, data sets by methods.
	b.WriteString("<h2>Median AUC-ROC</h2>\n<p>Over the seeds (and classes); “flat”: a vector method on the flattened rows of tensor data; blank: a tensor method on vector data (not run).</p>\n")
	rows := aucMatrix(res)
	table(append([]string{"data"}, res.Methods...), rows)

	b.WriteString("<h2>Every cell</h2>\n")
	rows = rows[:0]
	for i := range res.Cells {
		c := &res.Cells[i]
		rows = append(rows, []string{c.Data, c.Method, c.Input, fmtFloat(c.AUC, 3), fmtFloat(c.AP, 3),
			fmtSeconds(c.FitSeconds), fmtSeconds(c.ScoreSeconds), fmtMB(c.PeakBytes), cellRuns(c)})
	}
	table([]string{"data", "method", "input", "AUC", "AP", "fit s", "score s", "peak MB", "runs"}, rows)

	// Statistics.
	cmps := res.Stats
	if cmps == nil {
		cmps = bench.Compare(res)
	}
	b.WriteString("<h2>Statistics</h2>\n")
	cd, bars, err := statsPictures(cmps)
	if err != nil {
		return err
	}
	if cd != nil {
		if err := figure(&b, cd, aplot.Width, aplot.CDHeight(len(cmps[0].Methods)), "Critical-difference diagram of AUC-ROC: methods joined by a bar are not told apart by Nemenyi's test."); err != nil {
			return err
		}
		if err := figure(&b, bars, aplot.Width, aplot.Height, "Average ranks per metric (1 = best), as Figure 3 of the R1STM paper."); err != nil {
			return err
		}
	}
	for _, c := range cmps {
		fmt.Fprintf(&b, "<h3>%s</h3>\n", esc(c.Metric))
		if c.Err != "" {
			fmt.Fprintf(&b, "<p>No statistics: %s.</p>\n", esc(c.Err))
			continue
		}
		fr := c.Friedman
		fmt.Fprintf(&b, "<p>Average ranks over %d data sets (1 = best). Friedman χ²<sub>F</sub> = %s, p = %s; Iman–Davenport F = %s, p = %s; Nemenyi critical difference %.3f at α = %g.",
			fr.N, fmtStat(fr.ChiSq), fmtStat(fr.P), fmtF(fr.F), fmtStat(fr.PF), c.CD, bench.Alpha)
		if len(c.Dropped) > 0 {
			fmt.Fprintf(&b, " Not ranked (no figure on every data set): %s.", esc(strings.Join(c.Dropped, ", ")))
		}
		b.WriteString("</p>\n")
		rows = rows[:0]
		for _, i := range rankOrder(fr.AvgRank) {
			rows = append(rows, []string{c.Methods[i], strconv.FormatFloat(fr.AvgRank[i], 'f', 2, 64)})
		}
		table([]string{"method", "average rank"}, rows)
		rows = rows[:0]
		for _, pr := range c.Pairs {
			rows = append(rows, []string{c.Methods[pr.I], c.Methods[pr.J], strconv.FormatFloat(pr.WPlus, 'f', -1, 64),
				strconv.FormatFloat(pr.WMinus, 'f', -1, 64), fmtStat(pr.P), fmtStat(pr.PHolm)})
		}
		b.WriteString("<p>Wilcoxon signed-rank tests: W+ sums the ranks of the data sets where the first method's figure is higher, W− where it is lower; p two-sided, Holm-adjusted over all pairs.</p>\n")
		table([]string{"method", "vs", "W+", "W−", "p", "p (Holm)"}, rows)
	}

	// Curves.
	if cs := benchCurves(res); len(cs) > 0 {
		b.WriteString("<h2>ROC and precision-recall curves</h2>\n<div class=\"curves\">\n")
		for _, c := range cs {
			roc, err := aplot.ROC("ROC: "+c.title, c.series)
			if err != nil {
				return dataErr(err)
			}
			pr, err := aplot.PR("Precision-recall: "+c.title, c.series)
			if err != nil {
				return dataErr(err)
			}
			for _, pl := range []*gplot.Plot{roc, pr} {
				if err := figure(&b, pl, aplot.Width, aplot.Height, ""); err != nil {
					return err
				}
			}
		}
		b.WriteString("</div>\n")
	}
	b.WriteString("</body></html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// figure appends a plot as an inline SVG image with a caption.
func figure(b *strings.Builder, p *gplot.Plot, w, h vg.Length, caption string) error {
	var buf bytes.Buffer
	if err := aplot.Write(&buf, "svg", w, h, p); err != nil {
		return internalErr(err)
	}
	fmt.Fprintf(b, "<figure><img alt=\"%s\" src=\"data:image/svg+xml;base64,%s\">", html.EscapeString(p.Title.Text), base64.StdEncoding.EncodeToString(buf.Bytes()))
	if caption != "" {
		fmt.Fprintf(b, "<figcaption>%s</figcaption>", html.EscapeString(caption))
	}
	b.WriteString("</figure>\n")
	return nil
}
