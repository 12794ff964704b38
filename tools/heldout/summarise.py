#!/usr/bin/python3
"""Mean AUC-ROC and average precision per held-out family and over the
families, from 'anomaly bench --format json' runs on build.py's files:
each family's figure is the mean over its classes, draws and split seeds
(every trial of its files), the overall figure the mean of the family
means (README). Arguments are JSON files, each optionally =LABEL to name
its method (the runs of one file with --set):

    summarise.py runs.json nystrom.json="expose nystrom m=1000"

It prints a Markdown table.
"""
import json, sys, collections, re
def fam(p):
    b = p.split("/")[-1]
    return re.sub(r"(_c\d+)?(_s\d+)?\.npz$", "", b)
res = collections.OrderedDict()
for a in sys.argv[1:]:
    p, _, l = a.partition("=")
    d = json.load(open(p))
    for c in d["cells"]:
        m = l or c["method"]
        for t in c["trials"]:
            o = t["outcome"]
            if "auc" not in o: continue
            res.setdefault(m, collections.defaultdict(list))[fam(c["ref"])].append((o["auc"], o["ap"], o["fit_seconds"] + o["score_seconds"]))
names = list(res)
fams = sorted(next(iter(res.values())))
print("| family | " + " | ".join(f"{n} AUC / AP" for n in names) + " |")
print("|---|" + "---|" * len(names))
means = {n: [0, 0] for n in names}
for f in fams:
    cells = []
    for n in names:
        v = res[n][f]; a = sum(x[0] for x in v) / len(v); p = sum(x[1] for x in v) / len(v)
        means[n][0] += a / len(fams); means[n][1] += p / len(fams)
        cells.append(f"{a:.3f} / {p:.3f}")
    print(f"| {f} ({len(res[names[0]][f])} runs) | " + " | ".join(cells) + " |")
print("| **mean of the families** | " + " | ".join(f"**{means[n][0]:.4f} / {means[n][1]:.4f}**" for n in names) + " |")
