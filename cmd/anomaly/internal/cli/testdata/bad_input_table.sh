#!/bin/bash
# Builds the "Bad input" table of docs/bad-input.md from the real binary:
#   make bad-input        # runs this script and splices its rows into docs/bad-input.md
# or by hand: bash cmd/anomaly/internal/cli/testdata/bad_input_table.sh > rows.md
# Each case: description | command (as the user types it) ; the script runs it
# in a scratch directory and records the exit code and stderr.
set -u
ROOT=$(cd "$(dirname "$0")/../../../../.." && pwd)
SHARED=$ROOT/../shared/data
W=$(mktemp -d)
BIN=$W/anomaly-build
(cd "$ROOT" && go build -o "$BIN" ./cmd/anomaly) || exit 1
cd "$W"
printf 'a,b,label\n1,2,0\n2,3,0\n3,1,0\n2,2,0\n1,1,0\n3,3,1\n' > train.csv
printf 'a,b\n1,2\n3\n' > ragged.csv
printf 'a,b\n1,2\n3,x\n' > text.csv
printf 'a,b\n1,NaN\n' > nan.csv
printf 'a,b\n1,2\ninf,2\n' > inf.csv
printf 'a,b\n' > empty.csv
: > zero.csv
printf 'a,b,c\n1,2,3\n' > wide.csv
printf 'a,b,label\n1,2,0\n2,2,0\n' > oneclass.csv
printf 'a,b\n1,2\n' > train.xyz
mkdir dir.csv
printf 'a;b\n1;2\n' > semicolon.csv
printf ',a,b\n0,1,2\n1,2,3\n2,3,1\n3,2,2\n' > pdindex.csv
printf 'a,,b\n1,2,3\n' > unnamed.csv
printf 'id,a,b\nr1,1,2\nr2,2,3\nr3,3,1\nr4,2,2\n' > ids.csv
printf '0 1:1 2:2 3:0.5\n0 1:1.5 2:2 3:0.4\n0 1:1.1 2:2.1 3:0.45\n1 1:3 2:1 3:2\n' > tr.libsvm
printf '0 1:1\n1 1:9 2:1\n' > short.libsvm
printf 'a,b,label\n1,2,7\n' > badlabel.csv
printf 'a,b\n1,2\n2,1\n' > nolabel.csv
printf '\x93NUMPY\x01\x00\x10\x00{"descr": "<f8"}  \n' > bad.npy
printf 'PK\x03\x04garbage' > bad.npz
/usr/bin/python3 -c "import numpy as np; np.savez('noX.npz', Z=np.zeros((3,2)))"
/usr/bin/python3 -c "import numpy as np; np.save('cplx.npy', np.zeros((3,2), dtype=np.complex128))"
/usr/bin/python3 -c "import numpy as np; np.save('three.npy', np.zeros((4,3,2)))"
# a header declaring 5 rows before the data of 10
/usr/bin/python3 -c "import numpy as np, io; b = io.BytesIO(); np.save(b, np.arange(30.).reshape(10, 3)); open('short.npy', 'wb').write(b.getvalue().replace(b'(10, 3)', b'(5, 3) '))"
# a 1.6 GB .npy, sparse on disk: a header of 2,000,000 × 100 float64
/usr/bin/python3 - <<'PY'
h = "{'descr': '<f8', 'fortran_order': False, 'shape': (2000000, 100), }"
h += ' ' * (63 - (10 + len(h)) % 64) + '\n'
with open('huge.npy', 'wb') as f:
    f.write(b'\x93NUMPY\x01\x00' + len(h).to_bytes(2, 'little') + h.encode())
    f.truncate(f.tell() + 2000000 * 100 * 8)
PY
printf '1 1:0.5 2:x\n' > bad.svm
printf '1 0:0.5\n' > zeroidx.svm
printf '@relation r\n@attribute a string\n@data\nfoo\n' > str.arff
/usr/bin/python3 - <<'PY'
import random
random.seed(17)
rows = [[random.gauss(0, 1) for _ in range(3)] for _ in range(60)]
for name, unit in (('big.csv', 1e300), ('tiny.csv', 1e-300), ('e20.csv', 1e20)):
    with open(name, 'w') as f:
        f.write('a,b,c\n')
        for r in rows:
            f.write(','.join(repr(v * unit) for v in r) + '\n')
with open('big100k.csv', 'w') as f:
    f.write('a,b\n')
    for i in range(100000):
        f.write('%.6f,%.6f\n' % (random.random() * 3, random.random() * 3))
with open('const.csv', 'w') as f:
    f.write('a,b\n' + '1,2\n' * 20)
with open('wide.libsvm', 'w') as f:
    for i in range(300):
        idx = sorted(random.sample(range(1, 10_000_001), 5))
        if i == 0:
            idx[-1] = 10_000_000
        f.write('0 ' + ' '.join('%d:%.6f' % (j, random.random()) for j in idx) + '\n')
PY
mkfifo scores.fifo
printf 'old\n' > private.csv; chmod 600 private.csv
mkdir elsewhere; printf 'old\n' > elsewhere/target.csv; ln -s elsewhere/target.csv scores.lnk
ln train.csv hard.csv
ln -s /proc/self/fd/1 so.lnk
cp $BIN anomaly-bin
./anomaly-bin fit --method expose --data train.csv --out model.bin --set features=16 2>/dev/null
./anomaly-bin fit --method kpca --data train.csv --out poly.bin --set kernel=poly 2>/dev/null
printf 'a,b\n2,1\n1e300,1e300\n' > far.csv
/usr/bin/python3 - <<'PY'
b = open('model.bin','rb').read()
open('trunc.bin','wb').write(b[:len(b)-100])
c = bytearray(b); c[len(c)//2] ^= 0xff; open('corrupt.bin','wb').write(bytes(c))
import struct, zlib, json
# Envelope format 2: magic, header length and JSON header, then the shared
# state and the method state, each with its length, then a CRC-32.
hl = struct.unpack('<I', b[14:18])[0]
h = json.loads(b[18:18+hl])
off = 18 + hl
bl = struct.unpack('<Q', b[off:off+8])[0]; base = b[off+8:off+8+bl]; off += 8 + bl
sl = struct.unpack('<Q', b[off:off+8])[0]; state = b[off+8:off+8+sl]
def env(h, base, state):
    hb = json.dumps(h, separators=(',',':')).encode()
    body = b'ANOMALY-MODEL\n' + struct.pack('<I', len(hb)) + hb
    for sec in (base, state):
        body += struct.pack('<Q', len(sec)) + sec
    return body + struct.pack('<I', zlib.crc32(body))
h2 = dict(h); h2['version'] = 99; open('v2.bin','wb').write(env(h2, base, state))
h3 = dict(h); h3['format'] = 1; open('fmt2.bin','wb').write(env(h3, base, state))
h4 = dict(h); h4['method'] = 'nosuchmethod'; open('othermethod.bin','wb').write(env(h4, base, state))
h5 = dict(h); h5['params'] = dict(h['params'], features='0'); open('badparams.bin','wb').write(env(h5, base, state))
open('garbagestate.bin','wb').write(env(h, base, b'\x00\x01garbage'))
open('empty.bin','wb').write(b'')
PY
run() { # desc, command line (uses "anomaly"), optional ulimit -v in KB
  local desc="$1"; shift
  local lim=""
  if [ $# -eq 2 ] && [ -n "${2##*[!0-9]*}" ]; then lim=$2; set -- "$1"; fi
  local cmd="$*"
  local out
  if [ -n "$lim" ]; then
    out=$( (ulimit -v "$lim"; eval "./anomaly-bin ${cmd#anomaly }") 2>&1 >/dev/null); local rc=$?
    cmd="(ulimit -v $lim; $cmd)"
  else
    out=$(eval "./anomaly-bin ${cmd#anomaly }" 2>&1 >/dev/null); local rc=$?
  fi
  out=$(echo "$out" | head -3 | tr '\n' ' ' | sed 's/ *$//; s/|/\\|/g')
  echo "| $desc | \`$cmd\` | $rc | \`$out\` |"
}
echo "| bad input | command | exit | what the user sees (stderr) |"
echo "|---|---|---|---|"
run "missing file" anomaly fit --method expose --data nofile.csv --out m.bin
run "unreadable file (a directory)" anomaly fit --method expose --data dir.csv --out m.bin
run "unknown extension" anomaly fit --method expose --data train.xyz --out m.bin
run "empty file" anomaly fit --method expose --data zero.csv --out m.bin
run "ragged CSV" anomaly fit --method expose --data ragged.csv --out m.bin
run "non-numeric CSV" anomaly fit --method expose --data text.csv --out m.bin
run "wrong CSV delimiter" anomaly fit --method expose --data semicolon.csv --out m.bin
run "CSV column without a name" anomaly fit --method expose --data unnamed.csv --out m.bin
run "pandas' row index (unnamed first column: not read; not an error)" anomaly fit --method kde --data pdindex.csv --out m.bin
run "a column named id (a row identifier: not read; not an error)" anomaly fit --method kde --data ids.csv --out m.bin
./anomaly-bin fit --method ocsvm --data tr.libsvm --out sv.bin 2>/dev/null
run "LIBSVM rows without the model's last features (implicitly zero: scored)" anomaly score --model sv.bin --data short.libsvm --out s.csv
printf '0 1:1 2:2\n0 1:1 4:7\n' > past.libsvm
run "a LIBSVM row with an index past the model's features" anomaly score --model sv.bin --data past.libsvm --out s.csv
cp train.csv same.csv
echo "| output file is the one standard input is redirected from | \`anomaly fit --method kde --data - --out same.csv < same.csv\` | $(./anomaly-bin fit --method kde --data - --out same.csv < same.csv 2>e.txt; echo $?) | \`$(head -1 e.txt)\` |"
rm -f e.txt
run "label out of range" anomaly eval --model model.bin --data badlabel.csv
run "NaN" anomaly fit --method expose --data nan.csv --out m.bin
run "Inf" anomaly score --model model.bin --data inf.csv
run "no data rows" anomaly fit --method expose --data empty.csv --out m.bin
run "corrupt .npy header" anomaly fit --method expose --data bad.npy --out m.bin
run "unsupported .npy dtype" anomaly fit --method expose --data cplx.npy --out m.bin
run ".npy header declaring fewer rows than the file holds" anomaly fit --method expose --data short.npy --out m.bin
run "corrupt .npz" anomaly fit --method expose --data bad.npz --out m.bin
run ".npz without X" anomaly fit --method expose --data noX.npz --out m.bin
run "non-numeric LIBSVM value" anomaly fit --method expose --data bad.svm --out m.bin
run "LIBSVM index 0" anomaly fit --method expose --data zeroidx.svm --out m.bin
run "ARFF string attribute" anomaly fit --method expose --data str.arff --out m.bin
run "wrong feature count" anomaly score --model model.bin --data wide.csv
run "unknown method" anomaly fit --method nope --data train.csv --out m.bin
run "unknown parameter" anomaly fit --method expose --data train.csv --out m.bin --set gama=0.5
run "non-numeric parameter" anomaly fit --method expose --data train.csv --out m.bin --set features=many
run "out-of-range parameter" anomaly fit --method expose --data train.csv --out m.bin --set features=0
run "invalid choice" anomaly fit --method expose --data train.csv --out m.bin --set solver=adam
run "out-of-range nu" anomaly fit --method ocsvm --data train.csv --out m.bin --set nu=1.5
run "out-of-range contamination" anomaly fit --method expose --data train.csv --out m.bin --contamination 0.7
run "malformed --set" anomaly fit --method expose --data train.csv --out m.bin --set gamma
run "missing required flag" anomaly fit --method expose --data train.csv
run "malformed --shape" anomaly fit --method expose --data train.csv --out m.bin --shape 2xq
run "--shape for a method without a sample shape" anomaly fit --method expose --data train.csv --out m.bin --shape 3x2
run "--shape whose product is not the row length" anomaly fit --method r1stm --data train.csv --out m.bin --shape 3x3
run "3-d array for a vector method (flattened; not an error)" anomaly fit --method expose --data three.npy --out m.bin
T=natops.npz
[ -f $SHARED/tensor/natops.npz ] && ln -s $SHARED/tensor/natops.npz natops.npz
if [ -f $T ]; then
  ./anomaly-bin fit --method expose --data $T --out nat.bin --normal-class 0 --set features=64 2>/dev/null
  run "class-indexed tensor file, no --normal-class (eval)" anomaly eval --model nat.bin --data $T
  run "--normal-class absent from the file" anomaly fit --method expose --data $T --out m2.bin --normal-class 99
  run "--shape disagreeing with an N-d file" anomaly fit --method r1stm --data $T --out m2.bin --normal-class 0 --shape 5x5
  /usr/bin/python3 -c "import numpy as np; z = np.load('$T'); np.savez('transposed.npz', X=z['X'].reshape(len(z['X']), 51, 24), y=z['y'])"
  ./anomaly-bin fit --method r1stm --data $T --out r1.bin --normal-class 0 2>/dev/null
  run "tensor file whose samples have another shape than the model's (same row length)" anomaly score --model r1.bin --data transposed.npz
  run "tensor model scoring flat data" anomaly score --model nat.bin --data train.csv
fi
# models that cannot be used, each scored on train.csv
while IFS='|' read -r model desc; do
  run "$desc" anomaly score --model $model --data train.csv </dev/null
done <<'MODELS'
corrupt.bin|corrupt model
trunc.bin|truncated model
empty.bin|empty model file
v2.bin|other-version model
fmt2.bin|older envelope format (1)
othermethod.bin|model of a method not in this build
badparams.bin|model with invalid parameters
garbagestate.bin|model with undecodable state
train.csv|not a model
none.bin|missing model
MODELS
run "output directory missing" anomaly score --model model.bin --data train.csv --out no/s.csv
run "output path is a directory" anomaly fit --method expose --data train.csv --out dir.csv
run "fit --out onto its own training data" anomaly fit --method kde --data train.csv --out train.csv
run "score --out onto its own data" anomaly score --model model.bin --data train.csv --out train.csv
run "score --out onto its own model" anomaly score --model model.bin --data train.csv --out model.bin
run "score --out a hard link to its data" anomaly score --model model.bin --data train.csv --out hard.csv
run "export --out onto its own model" anomaly export --model model.bin --out model.bin
ln -s train.csv train.png
run "plot --out onto its own data (train.png a link to it)" anomaly plot roc --data train.csv --methods kde --out train.png
run "bench --plot naming a file, not a directory" anomaly bench --methods kde --plot train.csv
run "bench on a file without labels" anomaly bench --methods kde --data nolabel.csv
run "score --out /dev/full (device written in place; ENOSPC)" anomaly score --model model.bin --data train.csv --out /dev/full
run "score --out /dev/null (device written in place)" anomaly score --model model.bin --data train.csv --out /dev/null
( cat scores.fifo > fifo.got & ); sleep 0.2
run "score --out a named pipe with a reader (written in place)" anomaly score --model model.bin --data train.csv --out scores.fifo
sleep 0.2; echo "| the pipe afterwards | \`test -p scores.fifo; wc -l < fifo.got\` | $(test -p scores.fifo; echo $?) | \`$(wc -l < fifo.got) lines reached the reader; scores.fifo is still a FIFO\` |"
run "score --out a symbolic link into another directory" anomaly score --model model.bin --data train.csv --out scores.lnk
echo "| the link afterwards | \`test -L scores.lnk; head -1 elsewhere/target.csv\` | $(test -L scores.lnk; echo $?) | \`link kept; target starts $(head -1 elsewhere/target.csv)\` |"
run "score --out a link to /proc/self/fd/1 (written in place)" anomaly score --model model.bin --data train.csv --out so.lnk
run "score --out a private (0600) file" anomaly score --model model.bin --data train.csv --out private.csv
echo "| its mode afterwards | \`stat -c %a private.csv\` | 0 | \`$(stat -c %a private.csv)\` |"
run "score --out - (standard output)" anomaly score --model model.bin --data train.csv --out -
./anomaly-bin score --model model.bin --data big100k.csv 2>epipe.err | head -c 1 >/dev/null; rc=${PIPESTATUS[0]}
echo "| standard output closed early (EPIPE) | \`anomaly score --model model.bin --data big100k.csv \\| head -c 1\` | $rc | \`$(head -1 epipe.err)\` |"
run "expose with features=10^9 (memory estimate, before any allocation)" anomaly fit --method expose --data train.csv --out m.bin --set map=rff --set features=1000000000
run "r1svm with features=10^9" anomaly fit --method r1svm --data train.csv --out m.bin --set features=1000000000
run "kpca nystrom with landmarks=10^9 (capped at the rows: fits)" anomaly fit --method kpca --data train.csv --out m.bin --set method=nystrom --set landmarks=1000000000
run "a 6 KB LIBSVM file whose highest index is 10^7: expose" anomaly fit --method expose --data wide.libsvm --out m.bin
run "the same file: kde" anomaly fit --method kde --data wide.libsvm --out m.bin
run "the same file: ocsvm (sparse kernel rows: fits)" anomaly fit --method ocsvm --data wide.libsvm --out m.bin
run "the same file under a 6 GB address-space limit: svdd (fits)" "anomaly fit --method svdd --data wide.libsvm --out m.bin" 6000000
run "--max-memory below what the fit needs" anomaly fit --method kde --data train.csv --out m.bin --max-memory 1KB
run "a 1.6 GB .npy with --max-memory 1GB: kde, which holds its rows, is refused from the header before reading and offered a sample" anomaly fit --method kde --data huge.npy --out m.bin --max-memory 1GB
run "the same file with expose: its batch fit reads the file in passes and holds no rows (the file is all zeros: warned)" anomaly fit --method expose --data huge.npy --out m.bin --max-memory 1GB
run "a 100,000-row CSV with --max-memory 1MB (refused from the rows read so far)" anomaly fit --method expose --data big100k.csv --out m.bin --max-memory 1MB
run "malformed --max-memory" anomaly fit --method kde --data train.csv --out m.bin --max-memory lots
for m in kde expose ocsvm svdd kpca r1svm; do
  run "every feature ×1e300, scale=none: $m" anomaly fit --method $m --data big.csv --out m.bin --set scale=none
done
for m in kde ocsvm r1svm; do
  run "every feature ×1e-300, scale=none: $m" anomaly fit --method $m --data tiny.csv --out m.bin --set scale=none
done
run "every feature ×1e20, scale=none, kernel=linear: svdd (x·x passes the float32 kernel cache)" anomaly fit --method svdd --data e20.csv --out m.bin --set scale=none --set kernel=linear
run "a row far outside the training data, kernel=poly (its kernel values overflow)" anomaly score --model poly.bin --data far.csv
run "every feature ×1e300 at the defaults (scale=standard): fits" anomaly fit --method ocsvm --data big.csv --out m.bin
run "every feature ×1e-300 at the defaults: fits" anomaly fit --method kde --data tiny.csv --out m.bin
run "×1e-300 with scale=robust: fits" anomaly fit --method kde --data tiny.csv --out m.bin --set scale=robust
run "kde bandwidth=1e-300 (log space: finite scores)" anomaly fit --method kde --data train.csv --out m.bin --set bandwidth=1e-300
run "constant data: every training score equal (warning)" anomaly fit --method kde --data const.csv --out m.bin
run "--contamination 0" anomaly fit --method kde --data train.csv --out m.bin --contamination 0
run "--set contamination=0" anomaly fit --method kde --data train.csv --out m.bin --set contamination=0
run "kpca components above n−1" anomaly fit --method kpca --data train.csv --out m.bin --set components=100000
run "kpca components and variance both" anomaly fit --method kpca --data train.csv --out m.bin --set components=3 --set variance=0.5
run "svdd C below 1/n" anomaly fit --method svdd --data train.csv --out m.bin --set c=1e-300
run "features × chunk past int64 (the estimate must not wrap round)" anomaly fit --method expose --data train.csv --out m.bin --set map=rff --set features=20000000 --set chunk=57646075227 --max-memory 500MB
run "r1svm nu=1e-320 (νn < 1 fits as νn = 1)" anomaly fit --method r1svm --data train.csv --out m.bin --set nu=1e-320
run "r1svm gamma=median, gamma_factor putting γ at 0" anomaly fit --method r1svm --data train.csv --out m.bin --set gamma=median --set gamma_factor=5e-324
run "r1svm gamma_factor=1.79e308 at the default rule scale_scott (γ = 1.6e308 here: warned; a γ past float64's range is refused as above)" anomaly fit --method r1svm --data train.csv --out m.bin --set gamma_factor=1.79e308
run "tensor method without a sample shape" anomaly fit --method r1stm --data train.csv --out m.bin
run "svdd c and nu both" anomaly fit --method svdd --data train.csv --out m.bin --set c=0.5 --set nu=0.5
run "--shape disagreeing with the file's sample shape (3x2 samples)" anomaly fit --method r1stm --data three.npy --out m.bin --shape 2x3
run "CP rank above the smallest side" anomaly fit --method r1stm --data three.npy --out m.bin --set rank=5
run "gamma not a number" anomaly fit --method ocsvm --data train.csv --out m.bin --set gamma=wide
run "gamma another method's rule word" anomaly fit --method kde --data train.csv --out m.bin --set bandwidth=median
run "scale rule unknown" anomaly fit --method kde --data train.csv --out m.bin --set scale=zscore
run "precomputed kernel with a scale stage" anomaly fit --method ocsvm --data train.csv --out m.bin --set kernel=precomputed --set scale=standard
run "labels of one class" anomaly eval --model model.bin --data oneclass.csv
run "eval without labels" anomaly eval --model model.bin --data nolabel.csv
# Cases of the third hostile-input sweep (2026-11-27).
printf '\xef\xbb\xbf"a","b"\n1,2\n2,3\n3,1\n2,2\n' > bom.csv
printf 'a,b\r1,2\r2,3\r' > cr.csv
/usr/bin/python3 -c "open('longline.csv', 'w').write('a,b\n1,2\n' + '1' * 600000 + ',2\n')"
/usr/bin/python3 -c "import gzip; open('padded.csv.gz', 'wb').write(gzip.compress(open('train.csv', 'rb').read()) + bytes(512))"
printf 'a,b\n0,0\n-1.7976931348623157e308,0\n' > farthest.csv
cat model.bin model.bin > joined.bin
./anomaly-bin fit --method gauss --data train.csv --out gauss.bin 2>/dev/null
run "UTF-8 BOM before a quoted header (Excel, R): read" anomaly fit --method kde --data bom.csv --out m.bin
run "CR-only line endings" anomaly fit --method kde --data cr.csv --out m.bin
run "a line longer than a quarter of --max-memory (refused as it is read)" anomaly fit --method kde --data longline.csv --out m.bin --max-memory 1MB
run ".csv.gz with zero padding after the gzip stream (read, as gzip -d reads it)" anomaly fit --method kde --data padded.csv.gz --out m.bin
run "a row at -1.8e308: scored (+Inf for gauss), not refused" anomaly score --model gauss.bin --data farthest.csv --out -
run "two models joined into one file" anomaly score --model joined.bin --data train.csv --out s.csv
run "--contamination past float64's range" anomaly fit --method kde --data train.csv --out m.bin --contamination 1e999
run "a shape with an empty side" anomaly fit --method r1stm --data three.npy --out m.bin --shape 3x2x
run "one data file given twice to bench" anomaly bench --methods kde --data train.csv,train.csv
# Cases of the fourth sweep (2026-11-27, second session).
printf '0 1:1 2:2\r1 1:3 2:1\r' > cr.libsvm
printf 'a,b,label\n1,2,no\n2,3,no\n3,1,1\n' > mixed.csv
/usr/bin/python3 -c "import numpy as np; r = np.random.default_rng(1); y = np.zeros(40, dtype=np.int64); y[:4] = 1; np.savez('tens.npz', X=r.normal(size=(40, 3, 4)), y=y)"
./anomaly-bin fit --method r1stm --data tens.npz --out tens.bin 2>/dev/null
LONG=$(printf 's%.0s' $(seq 1 246)).csv
run "CR-only line endings in a LIBSVM file" anomaly fit --method kde --data cr.libsvm --out m.bin
run "LIBSVM text on standard input without --data-format" anomaly fit --method kde --data - --out m.bin '<' tr.libsvm
run "a label column mixing words and numbers" anomaly fit --method kde --data mixed.csv --out m.bin
run "a tensor .npz whose y is 0/1 anomaly labels, without --label" anomaly eval --model tens.bin --data tens.npz
run "the same with --label y (y read as anomaly labels)" anomaly eval --model tens.bin --data tens.npz --label y
run "--out a 250-byte file name (written; the temporary name is cut to fit)" anomaly score --model model.bin --data train.csv --out $LONG
echo "| the file afterwards | \`test -f s…s.csv\` | $(test -f $LONG; echo $?) | \`$(wc -l < $LONG) lines\` |"
rm -f $LONG
run "help to a full disk" anomaly --help '>' /dev/full
/usr/bin/python3 -c "
import random
random.seed(9)
print('a,b,label')
for i in range(100):
    o = i < 8
    print(f'{random.gauss(6 if o else 0, 1)},{random.gauss(6 if o else 0, 1)},{-1 if o else 1}')" > pm1.csv
run "CSV labels 1/-1 in scikit-learn's convention (1 normal, -1 outlier), semi-supervised fit: read as such, with a note" anomaly fit --method svdd --labeled --data pm1.csv --out m.bin
# Column names (2026-11-27): a model keeps the names of the columns it was
# fitted on, and score and eval compare them with the data's.
printf 'a,b,c\n1,2,3\n2,1,3\n3,3,1\n1,1,2\n2,3,2\n3,2,1\n' > abc.csv
printf 'c,b,a\n3,2,1\n' > cba.csv
printf 'x1,x2,x3\n1,2,3\n' > x123.csv
./anomaly-bin fit --method kde --data abc.csv --out abc.bin 2>/dev/null
./anomaly-bin fit --method kde --data tr.libsvm --out lib.bin 2>/dev/null
run "the model's columns in another order (fitted on a,b,c; the file's header is c,b,a)" anomaly score --model abc.bin --data cba.csv
run "other column names, as many (fitted on a,b,c; the file's header is x1,x2,x3)" anomaly score --model abc.bin --data x123.csv
run "a model without column names (fitted on LIBSVM) scoring a named file (not checked: accepted)" anomaly score --model lib.bin --data cba.csv
printf 'x,y,label\n1,2,0\n2,1,0\n3,3,0\n1,1,0\n2,3,1\n' > xyl.csv
printf 'x,y\n1,2\n5,5\n' > xy.csv
./anomaly-bin fit --method kde --data xyl.csv --out xy.bin 2>/dev/null
run "a model fitted on x, y beside a label scoring a file of x, y (y is the model's feature, not the file's labels)" anomaly score --model xy.bin --data xy.csv
/usr/bin/python3 -c "
print('a,b')
for i in range(3000): print(f'{i % 97},{i % 89}')" > d3k.csv
run "exact kpca over the memory budget: the lighter setting the method declares is offered" anomaly fit --method kpca --data d3k.csv --out m.bin --max-memory 100MB
run "--seed to a method that makes no random choice (noted, fits)" anomaly fit --method kde --data train.csv --out m.bin --seed 3
run "scale=channel for a method that reads vector rows" anomaly fit --method ocsvm --data train.csv --out m.bin --set scale=channel
run "standard input redirected from a directory, --data-format npy" anomaly fit --method gauss --data - --data-format npy --out m.bin '<' /
# Cases of the plot and bench sweep (2026-11-27, third session).
/usr/bin/python3 - <<'PY'
import random
random.seed(5)
with open('lab.csv', 'w') as f:
    f.write('a,b,label\n')
    for i in range(100):
        f.write('%r,%r,0\n' % (random.gauss(0, 1), random.gauss(0, 1)))
    for i in range(10):
        f.write('%r,%r,1\n' % (random.gauss(6, 1), random.gauss(6, 1)))
PY
sed 's/,1$/,0/' lab.csv > allnorm.csv
cp lab.csv 'a|b.csv'
mkdir -p plots/lab_roc.png
S26=$(printf '2x%.0s' $(seq 25))2
run "plot cpals with a rank far above the smallest side (built the tensor first: out of memory)" anomaly plot cpals --rank 1000000000 --out c.png
run "plot cpals of 26 modes of side 2 (estimated 2.15 GB, peaked at 7.29 GB)" anomaly plot cpals --shape $S26 --rank 2 --max-memory 3GB --out c.png
run "plot map past the memory budget (the message names what to lower)" anomaly plot map --method kde --n 3000000000 --out map.png
run "bench where every run fails (labels all 0)" anomaly bench --methods kde,gauss --data allnorm.csv --seeds 1
run "bench --plot where a picture cannot be written (DIR/lab_roc.png a directory)" anomaly bench --methods gauss --data lab.csv --seeds 1 --plot plots
./anomaly-bin bench --methods gauss --data lab.csv --seeds 1 --plot plots > bench.out 2>/dev/null; rc=$?
echo "| the same: its results on standard output (they were lost) | \`anomaly bench --methods gauss --data lab.csv --seeds 1 --plot plots > bench.out\` | $rc | \`bench.out: $(wc -l < bench.out) lines; $(grep gauss bench.out | tr -s ' ')\` |"
rm -f bench.out
echo "| a \\| in a data file's name, bench --format markdown | \`anomaly bench --methods gauss --data 'a\|b.csv' --seeds 1 --format markdown \| tail -1\` | 0 | \`$(./anomaly-bin bench --methods gauss --data 'a|b.csv' --seeds 1 --format markdown 2>/dev/null | tail -1 | cut -d'|' -f1-6 | sed 's/|/\\|/g') …\` |"
# Cases of the fifth sweep (2026-11-27, files and formats).
/usr/bin/python3 - <<'PY'
import zipfile
s = 'a,b,label\r\n1,2,0\r\n2,3,0\r\n3,1,1\r\n'
open('u16.csv', 'wb').write(b'\xff\xfe' + s.encode('utf-16-le'))
with zipfile.ZipFile('book.csv', 'w') as z:
    z.writestr('[Content_Types].xml', '<Types/>')
    z.writestr('xl/workbook.xml', '<workbook/>')
import random
random.seed(3)
open('rand.csv', 'wb').write(bytes(random.randrange(256) for _ in range(4096)))
PY
run "UTF-16 text with CRLF line ends (Excel's \"Unicode text\") named .csv" anomaly fit --method kde --data u16.csv --out m.bin
run "an Excel workbook (.xlsx, a zip archive) named .csv" anomaly fit --method kde --data book.csv --out m.bin
run "random bytes named .csv" anomaly fit --method kde --data rand.csv --out m.bin
/usr/bin/python3 -c "import numpy as np; np.savetxt('X.txt', np.arange(6.).reshape(3, 2))"
run "a table written by numpy.savetxt as .txt (.txt is read as LIBSVM)" anomaly fit --method kde --data X.txt --out m.bin
printf '# exported 2026-11-27\na,b\n1,2\n2,3\n' > comment.csv
run "a comment line before the CSV header" anomaly fit --method kde --data comment.csv --out m.bin
run "a one-value flag given twice (refused; pflag alone would keep the last value)" anomaly fit --method kde --data train.csv --out a.bin --out b.bin
run "scikit-learn's name for a method" anomaly fit --method OneClassSVM --data train.csv --out m.bin
printf 'a b\n1 2\n2 3\n' > spaced.csv
run "a .csv whose fields are separated by spaces" anomaly fit --method kde --data spaced.csv --out m.bin
printf '"a"\t"b"\n"1"\t"2"\n' > quoted.tsv
run "a .tsv with quotes (R's write.table default)" anomaly fit --method kde --data quoted.tsv --out m.bin
printf 'sep=;\na;b\n1;2\n' > excelsep.csv
run "Excel's separator line naming semicolons in a .csv (sep=, is skipped)" anomaly fit --method kde --data excelsep.csv --out m.bin
printf '@relation r\n@attribute a numeric\n@attribute b numeric\n@attribute class {p,q,r}\n@data\n1,2,p\n2,3,q\n3,1,r\n' > tri.arff
run "eval on an ARFF of three classes (no anomaly labels)" anomaly eval --model model.bin --data tri.arff
run "bench --report naming a file that is not .html (it wrote HTML over the model)" anomaly bench --methods kde --data lab.csv --seeds 1 --report model.bin
cp train.csv test.csv; cp model.bin model.csv
run "fit --out an existing data file (the model replaced it)" anomaly fit --method kde --data train.csv --out test.csv
run "a model given as data" anomaly score --model model.bin --data model.csv
cp model.bin other.bin
run "score --out another model file (the scores replaced it)" anomaly score --model model.bin --data train.csv --out other.bin
./anomaly-bin plot cpals --shape 300x300x300 --out sig.png 2>sig.err &
pid=$!; sleep 1; kill -INT $pid; wait $pid; rc=$?
echo "| Ctrl-C during plot | \`anomaly plot cpals --shape 300x300x300 --out sig.png\`, SIGINT after 1 s | $rc | \`$(head -1 sig.err)\` (sig.png exists: $( [ -e sig.png ] && echo yes || echo no ); temporaries: $(ls -A | grep -c tmp)) |"
rm -f sig.err
# Ctrl-C during a long fit: SIGINT 3 s after the start.
if [ -f $SHARED/adbench/16_http.npz ]; then
  ./anomaly-bin fit --method expose --data $SHARED/adbench/16_http.npz --out h.bin --set map=rff --set features=16384 2>sig.err &
  pid=$!; sleep 1; t0=$(date +%s.%N); kill -INT $pid; wait $pid; rc=$?; t1=$(date +%s.%N)
  echo "| Ctrl-C during fit | \`anomaly fit --method expose --data 16_http.npz --out h.bin --set map=rff --set features=16384\`, SIGINT after 1 s | $rc | \`$(head -1 sig.err)\` (exited $(echo "$t1 - $t0" | bc | sed 's/^\./0./') s after the signal; h.bin exists: $( [ -e h.bin ] && echo yes || echo no ); temporaries: $(ls -A | grep -c tmp)) |"
  rm -f sig.err
fi
# Cases of the numerical sweep (2026-11-27, sweep-num).
/usr/bin/python3 -c "
print('a,b,c')
for i in range(59): print('1,1,1')
print('2,3,4')" > dup59.csv
/usr/bin/python3 -c "
import random
random.seed(3)
print('a,b,c')
for i in range(100): print(','.join(repr(random.gauss(0, 1)) for _ in range(3)))" > g100.csv
./anomaly-bin fit --method ocsvm --data dup59.csv --out dup.bin 2>/dev/null
echo "| 59 identical rows and one other, ocsvm: scoring the training file flags the other (it flagged all 60) | \`anomaly score --model dup.bin --data dup59.csv --out - \\| grep -c ',1\$'\` | 0 | \`$(./anomaly-bin score --model dup.bin --data dup59.csv --out - | grep -c ',1$') row flagged\` |"
run "kde threshold_rows=1: the threshold is one row's score (warning)" anomaly fit --method kde --data g100.csv --out m.bin --set threshold_rows=1
run "expose solver=sgd stage_rows=1 (the threshold is one sampled row's score: warning)" anomaly fit --method expose --data g100.csv --out m.bin --set solver=sgd --set iterations=1 --set stage_rows=1
run "ocsvm gamma=1000 on standardised rows (every kernel value between two rows is 0 to rounding: warning)" anomaly fit --method ocsvm --data g100.csv --out m.bin --set gamma=1000
run "kpca variance=1 (every training row reconstructed: the threshold is rounding; warning)" anomaly fit --method kpca --data g100.csv --out m.bin --set variance=1
run "ocsvm max_iter=1 (the solver stops unconverged: warning)" anomaly fit --method ocsvm --data g100.csv --out m.bin --set max_iter=1
/usr/bin/python3 -c "
import random
random.seed(4)
print('a,b,c')
for i in range(60): print(','.join(repr(random.gauss(0, 1) if (i, j) != (10, 1) else 1e15) for j in range(3)))" > spike.csv
run "one value of 1e15 in a column, scale=none: the width follows it and 59 of 60 rows tie (warning)" anomaly fit --method ocsvm --data spike.csv --out m.bin --set scale=none
run "iforest samples=2 (every tree one split deep: every score 0.5; warning)" anomaly fit --method iforest --data g100.csv --out m.bin --set samples=2
printf 'a,b,label\n1,2,1\n2,3,1\n3,1,1\n2,2,0\n' > majority.csv
run "eval on labels whose 1s (anomalies) are the majority (note; evaluated)" anomaly eval --model model.bin --data majority.csv
echo
echo "files left in the scratch directory after all cases (no temporaries: successful fits wrote m.bin):"
ls -A | tr '\n' ' '; echo
rm -rf "$W"
