#!/bin/bash
# Builds the README's "Bad input" table from the real binary:
#   make bad-input        # runs this script and splices its rows into README.md
# or by hand: bash internal/cli/testdata/bad_input_table.sh > rows.md
# Each case: description | command (as the user types it) ; the script runs it
# in a scratch directory and records the exit code and stderr.
set -u
ROOT=$(cd "$(dirname "$0")/../../.." && pwd)
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
printf 'a,b,label\n1,2,7\n' > badlabel.csv
printf 'a,b\n1,2\n2,1\n' > nolabel.csv
printf '\x93NUMPY\x01\x00\x10\x00{"descr": "<f8"}  \n' > bad.npy
printf 'PK\x03\x04garbage' > bad.npz
/usr/bin/python3 -c "import numpy as np; np.savez('noX.npz', Z=np.zeros((3,2)))"
/usr/bin/python3 -c "import numpy as np; np.save('cplx.npy', np.zeros((3,2), dtype=np.complex128))"
/usr/bin/python3 -c "import numpy as np; np.save('three.npy', np.zeros((4,3,2)))"
printf '1 1:0.5 2:x\n' > bad.svm
printf '1 0:0.5\n' > zeroidx.svm
printf '@relation r\n@attribute a string\n@data\nfoo\n' > str.arff
cp $BIN anomaly-bin
./anomaly-bin fit --method expose --data train.csv --out model.bin --set features=16 2>/dev/null
/usr/bin/python3 - <<'PY'
b = open('model.bin','rb').read()
open('trunc.bin','wb').write(b[:len(b)-100])
c = bytearray(b); c[len(c)//2] ^= 0xff; open('corrupt.bin','wb').write(bytes(c))
import struct, zlib, json
hl = struct.unpack('<I', b[14:18])[0]
h = json.loads(b[18:18+hl])
def env(h, state):
    hb = json.dumps(h, separators=(',',':')).encode()
    body = b'ANOMALY-MODEL\n' + struct.pack('<I', len(hb)) + hb + struct.pack('<Q', len(state)) + state
    return body + struct.pack('<I', zlib.crc32(body))
state = b[18+hl+8:-4]
h2 = dict(h); h2['version'] = 2; open('v2.bin','wb').write(env(h2, state))
h3 = dict(h); h3['format'] = 2; open('fmt2.bin','wb').write(env(h3, state))
h4 = dict(h); h4['method'] = 'iforest'; open('othermethod.bin','wb').write(env(h4, state))
h5 = dict(h); h5['params'] = dict(h['params'], features='0'); open('badparams.bin','wb').write(env(h5, state))
open('garbagestate.bin','wb').write(env(h, b'\x00\x01garbage'))
open('empty.bin','wb').write(b'')
PY
run() { # desc, command line (uses "anomaly")
  local desc="$1"; shift
  local cmd="$*"
  local out; out=$(eval "./anomaly-bin ${cmd#anomaly }" 2>&1 >/dev/null); local rc=$?
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
run "label out of range" anomaly eval --model model.bin --data badlabel.csv
run "NaN" anomaly fit --method expose --data nan.csv --out m.bin
run "Inf" anomaly score --model model.bin --data inf.csv
run "no data rows" anomaly fit --method expose --data empty.csv --out m.bin
run "corrupt .npy header" anomaly fit --method expose --data bad.npy --out m.bin
run "unsupported .npy dtype" anomaly fit --method expose --data cplx.npy --out m.bin
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
run "corrupt model" anomaly score --model corrupt.bin --data train.csv
run "truncated model" anomaly score --model trunc.bin --data train.csv
run "empty model file" anomaly score --model empty.bin --data train.csv
run "other-version model" anomaly score --model v2.bin --data train.csv
run "other envelope format" anomaly score --model fmt2.bin --data train.csv
run "model of a method not in this build" anomaly score --model othermethod.bin --data train.csv
run "model with invalid parameters" anomaly score --model badparams.bin --data train.csv
run "model with undecodable state" anomaly score --model garbagestate.bin --data train.csv
run "not a model" anomaly score --model train.csv --data train.csv
run "missing model" anomaly score --model none.bin --data train.csv
run "output directory missing" anomaly score --model model.bin --data train.csv --out no/s.csv
run "output path is a directory" anomaly fit --method expose --data train.csv --out dir.csv
run "labels of one class" anomaly eval --model model.bin --data oneclass.csv
run "eval without labels" anomaly eval --model model.bin --data nolabel.csv
# Ctrl-C during a long fit: SIGINT 3 s after the start.
if [ -f $SHARED/adbench/16_http.npz ]; then
  ./anomaly-bin fit --method expose --data $SHARED/adbench/16_http.npz --out h.bin --set features=16384 2>sig.err &
  pid=$!; sleep 1; t0=$(date +%s.%N); kill -INT $pid; wait $pid; rc=$?; t1=$(date +%s.%N)
  echo "| Ctrl-C during fit | \`anomaly fit --method expose --data 16_http.npz --out h.bin --set features=16384\`, SIGINT after 1 s | $rc | \`$(head -1 sig.err)\` (exited $(echo "$t1 - $t0" | bc | sed 's/^\./0./') s after the signal; h.bin exists: $( [ -e h.bin ] && echo yes || echo no ); temporaries: $(ls -A | grep -c tmp)) |"
  rm -f sig.err
fi
echo
echo "files left in the scratch directory after all cases (no temporaries, no m.bin):"
ls -A | tr '\n' ' '; echo
rm -rf "$W"
