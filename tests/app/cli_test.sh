#!/usr/bin/env bash
# Runs the real precision-lab binary ($PL) and checks what a user sees: values, JSON keys,
# and exit status 2 with a clear message for bad input.
#   cli_test.sh            every check, one line each
#   cli_test.sh NAME       that check alone (CTest runs each as its own entry, cli.NAME)
#   cli_test.sh --list     the checks' names
# A check that reads what an earlier one wrote names that one in `needs`, which runs first when
# the check runs alone.
set -u
fails=0
passes=0
only=${1:-}
if [[ $only == --list ]]; then
  grep -oE '^\s*check [a-z0-9.-]+' "$0" | awk '{print $2}'
  exit 0
fi
declare -A needs=(
  [explore-out-files]=explore-out [explore-out-json]=explore-out [explore-out-refused-first]=explore-out [bench-throughput-files]=bench-throughput-save [matmul-out]=matmul-files
  [run-setup-reruns]=run-config [run-csv]=run-config [run-sum-reruns]=run-sum
  [run-throughput-figures]=run-throughput [run-cast-figures]=run-cast [mlp-figure]=mlp-save [mlp-rerun]=mlp-save
  [run-framework-files]=run-framework-raises [run-framework-fix-reruns]=run-framework-raises
  [run-framework-fixes-figure]=run-framework-raises
  [matmul-torch-save-files]=matmul-torch-save [scenario-export-files]=scenario-export
  [scenario-export-story]=scenario-export [scenario-export-rerun]=scenario-export
  [scan-part-b]=scan-part-a [scan-merge]=scan-part-b [scan-merge-overlap]=scan-part-a [scan-out-refused]=scan-part-a)
chain=" $only "  # the check asked for and what it needs, transitively
step=$only
while [[ -n $step && -n ${needs[$step]:-} ]]; do step=${needs[$step]}; chain+="$step "; done
# Whether any of the named checks runs: a fixture that takes a process to make (python3, the
# binary) is made only for the checks that read it, so that running one check alone stays quick.
needed() {
  [[ -z $only ]] && return 0
  local name; for name; do [[ $chain == *" $name "* ]] && return 0; done
  return 1
}
check() {  # check NAME EXPECTED_STATUS PATTERN -- COMMAND...
  local name=$1 want=$2 pattern=$3; shift 4
  [[ -z $only || $chain == *" $name "* ]] || return 0
  local out; out=$("$@" 2>&1); local rc=$?
  if [[ $rc -ne $want ]] || ! grep -qE -- "$pattern" <<<"$out"; then
    echo "FAIL $name: status $rc (want $want), pattern '$pattern' in:"; echo "$out" | head -20
    fails=$((fails + 1))
  else
    echo "ok   $name"
    passes=$((passes + 1))
  fi
}
# "same" when two result folders' result.json agree in everything but their timings (any key
# named "seconds" or ending in "_seconds"), else the first key path where they differ.
same_result() {
  python3 - "$1/result.json" "$2/result.json" <<'PY'
import json, sys
def strip(v):
    if isinstance(v, dict):
        return {k: strip(x) for k, x in v.items() if k != "seconds" and not k.endswith("_seconds")}
    if isinstance(v, list):
        return [strip(x) for x in v]
    return v
def first_difference(a, b, path="$"):
    if type(a) is not type(b):
        return path
    if isinstance(a, dict):
        for k in sorted(set(a) | set(b)):
            if k not in a or k not in b:
                return path + "." + k
            if (d := first_difference(a[k], b[k], path + "." + k)):
                return d
        return None
    if isinstance(a, list):
        if len(a) != len(b):
            return path + " (length)"
        for i, (x, y) in enumerate(zip(a, b)):
            if (d := first_difference(x, y, "%s[%d]" % (path, i))):
                return d
        return None
    return None if a == b else path
a, b = (strip(json.load(open(f))) for f in sys.argv[1:3])
d = first_difference(a, b)
print("same" if d is None else "differs at " + d)
PY
}
export -f same_result  # (for the checks' bash -c)
check formats-text 0 'float8_e4m3fn +8 +4 +3 +7 +448' -- "$PL" formats
check formats-json 0 '"unit_roundoff": 0.0625' -- "$PL" formats --json
check formats-json-keys 0 '"min_subnormal"' -- "$PL" formats --json
# A format without subnormals lists none (it repeated its smallest normal, 5.8775e-39).
check formats-no-subnormals 0 'float8_e8m0fnu +8 +8 +0 +127 +1[.]7014[.][.][.]e\+38 +5[.]8774[.][.][.]e-39 +- ' -- "$PL" formats
# Each limit by its own leading digits: to nearest, float64's largest read 1.7977e+308, which
# overflows float64, and float16's epsilon 0.0009766, above 2^-10.
check formats-own-digits 0 'float64 +64 +11 +52 +1023 +1[.]7976[.][.][.]e\+308 +2[.]22507[.][.][.]e-308' -- "$PL" formats
check formats-own-digits-f16 0 'float16 +16 +5 +10 +15 +65504 +6[.]1035[.][.][.]e-05 +5[.]9604[.][.][.]e-08 +0[.]00097656[.][.][.] ' -- "$PL" formats
# Bug: --all listed bool as an "integer".
check formats-all-bool 0 '^bool +8 bool' -- "$PL" formats --all
# Bug: the integer rows gave no range (the JSON had it); they say it.
check formats-all-int-range 0 '^int4 +4 integer, -8 to 7$' -- "$PL" formats --all
check formats-json-no-subnormals 0 '"min_subnormal": null' -- "$PL" formats --json
check cast-fp16 0 'bits +0x2e66' -- "$PL" cast --to float16 0.1
check cast-hexfloat 0 'value +12' -- "$PL" cast --to bfloat16 0x1.8p+3
# float8_e8m0fnu's 8 bits are all exponent: no sign field was printed with its value 0.
check cast-e8m0-layout 0 '\(exponent 8 bits; no sign, no mantissa\)$' -- "$PL" cast --to float8_e8m0fnu 3
check cast-e8m0-no-sign 0 '^class +normal  exponent field 129$' -- "$PL" cast --to float8_e8m0fnu 3
check cast-fp4-one-bit 0 '\(sign \| exponent 2 bits \| mantissa 1 bit\)$' -- "$PL" cast --to float4_e2m1fn 3
check cast-path-bad 2 'sideways not in \{direct,via-float32\}' -- "$PL" cast --to float16 --path sideways 1
# A float64 target was never narrowed through float32 (1e300 stayed 1e300) under a heading that
# said "path via-float32": refused. To float32 itself the two routes are one.
check cast-path-wider-than-float32 2 'via-float32 is for formats narrower than float32; a cast to float64 rounds once' -- \
  "$PL" cast --to float64 --path via-float32 1e300
check cast-path-float32 0 'value +inf' -- "$PL" cast --to float32 --path via-float32 1e300
check cast-int-overflow-bad 2 'clamp not in \{wrap,saturate\}' -- "$PL" cast --to int8 --int-overflow clamp 300
check mlp-rounding-bad 2 'nope not in \{rne,rna,rtz,up,down,stochastic\}' -- "$PL" mlp --layers 1 --width 4 --batch 2 --rounding nope
check cast-negative 0 'value +-inf' -- "$PL" cast --to float16 -65520
check cast-neg-inf 0 '"value": "-inf"' -- "$PL" cast --to float16 --json -inf
check cast-nan-json 0 '"value": "nan"' -- "$PL" cast --to float8_e4m3fn --json nan
check cast-minus-zero 0 'bits +0x80 ' -- "$PL" cast --to float8_e4m3fn -0
check cast-stash-lookalike 2 "malformed number '-9#x'" -- "$PL" cast --to float16 '-9#x'
check cast-saturate 0 'value +448' -- "$PL" cast --to float8_e4m3fn --saturate 1000
# Options the target's cast does not read are refused, never ignored.
check cast-int-saturate-refused 2 'a cast to int8 takes --int-overflow saturate' -- "$PL" cast --to int8 --saturate 300
check cast-int-rounding-refused 2 '--rounding is for float targets' -- "$PL" cast --to int8 --rounding up 3.5
check cast-float-int-overflow-refused 2 '--int-overflow is for integer targets, not float16' -- "$PL" cast --to float16 --int-overflow saturate 1.5
check cast-seed-without-stochastic 2 '--seed is for --rounding stochastic' -- "$PL" cast --to float16 --seed 5 1
check cast-bool-rounding-refused 2 'a cast to bool is true for every nonzero value' -- "$PL" cast --to bool --rounding rtz 0.5
check cast-bad-target-first 2 "unknown dtype 'in8'" -- "$PL" cast --to in8 --int-overflow saturate 1
check cast-seed-stochastic 0 'rounding stochastic' -- "$PL" cast --to float16 --rounding stochastic --seed 5 0.1
check cast-no-saturate 0 'value +nan' -- "$PL" cast --to float8_e4m3fn 1000
# NumPy 1.x's min_scalar_type counts a float by magnitude, not digits: 65504 (exact in float16)
# counts as float32, 0.1 (not in float16) as float16. The rule said "the smallest type holding
# its value".
check promote-numpy1-min-scalar 0 'counts as float32 [(]np[.]min_scalar_type: a float counts as float16 below 65000' -- "$PL" promote --framework numpy1 --op add float16 float64 --b-kind zerodim --b-value 65504
check promote-numpy1-min-scalar-inf 0 'counts as float16 [(]np[.]min_scalar_type: a float counts as float16 below 65000 in magnitude, inf and NaN too' -- "$PL" promote --framework numpy1 --op add float32 float64 --b-kind zerodim --b-value inf
# A format without NaN makes a NaN the zero of its sign here, where ml_dtypes gives the other
# sign's: the note says so (recorded in tests/data/casts/cast_paths.json).
check cast-frameworks-nan 0 'frameworks nan: ml_dtypes 0[.]6[.]0 and 0[.]7[.]0 give the zero of the other sign [(][+]nan becomes -0, -nan [+]0[)]' -- "$PL" cast --to float4_e2m1fn nan
check cast-frameworks-nan-json 0 '"frameworks_nan": "ml_dtypes 0[.]6[.]0 and 0[.]7[.]0 give the zero of the other sign' -- "$PL" cast --to float6_e3m2fn --json nan
# The format's rule gives nan there, but PyTorch 2.15's own cast saturates: the note says which
# framework does what (recorded in tests/data/casts/cast_paths.json).
check cast-frameworks-past-largest 0 'frameworks past the largest finite: PyTorch 2[.]15 saturates to the largest finite, inf too; ml_dtypes 0[.]6[.]0 and 0[.]7[.]0 give nan' -- "$PL" cast --to float8_e4m3fn 480
check cast-frameworks-past-largest-json 0 '"frameworks_past_largest": "PyTorch 2[.]15 saturates' -- "$PL" cast --to float8_e4m3fn --json inf
check cast-rtz 0 'value +65504' -- "$PL" cast --to float16 --rounding rtz 1e6
check cast-via-note 0 'through float32 first' -- "$PL" cast --to float8_e4m3fn 1.0625000000001
check cast-stochastic 0 '"bits"' -- "$PL" cast --to float16 --rounding stochastic --seed 3 --json 0.1
check cast-custom 0 'e5m7b15:ieee' -- "$PL" cast --to e5m7 3.14159
check cast-int8-wrap 0 'int8 -56' -- "$PL" cast --to int8 200
check cast-int8-sat 0 'int8 127' -- "$PL" cast --to int8 --int-overflow saturate 200
check decode 0 '0x7e = 0 1111 110 +normal +448' -- "$PL" decode --format float8_e4m3fn 0x7e
check decode-nan 0 'nan' -- "$PL" decode --format float8_e4m3fnuz 0x80
check decode-past-64-bits 2 'has more than 64 bits' -- "$PL" decode --format float64 0x1ffffffffffffffff
check explore-interval 0 'interval   \[0\.099945068359375, 0\.100006103515625\]' -- "$PL" explore 0.1 --format float16
check explore-e4m3-top 0 'interval   \[432, 464\]' -- "$PL" explore 448 --format float8_e4m3fn
check explore-overflow 0 'interval   \(464, \+inf\]' -- "$PL" explore 500 --format float8_e4m3fn
# 0 is finite: in a format without a zero it rounds to NaN ("0 is not a rounding of a finite
# number" said otherwise).
check explore-no-zero 0 'interval   none \(0 rounds to nan\)' -- "$PL" explore 0 --format float8_e8m0fnu
check explore-inf 0 'interval   none \(inf is not a finite number\)' -- "$PL" explore inf --format float16
check explore-saturate 0 'interval   \[432, \+inf\]' -- "$PL" explore 448 --format float8_e4m3fn --saturate
check explore-neighbours 0 'above      1\.0009765625 \(0x3c01\)  gap 0\.0009765625 = 2\^-10' -- "$PL" explore 1 --format float16
check explore-json 0 '"text": "\[0\.96875, 1\.0625\]"' -- "$PL" explore 1 --format float8_e4m3fn --json
check explore-custom 0 'e5m7b15:ieee' -- "$PL" explore 3.14159 --format e5m7
check explore-nan 0 'interval   none' -- "$PL" explore nan --format float16
# A float64 subnormal's rounding interval ends in ~750 digits: 21 in the text, every one in JSON.
# (Each end rounded toward the inside: ...382141|28... up to ...382142, ...362868|54... down.)
check explore-long-ends 0 'interval   \[9\.99741834359762382142e-321, 1\.00023590000560362868e-320\]  \(ends to 21 digits' -- "$PL" explore 1e-320 --format float64
check explore-long-ends-json 0 '99974183435976238214128695236884594698069851059008616081517262854' -- "$PL" explore 1e-320 --format float64 --json
check explore-bad-format 2 "did you mean 'float16'" -- "$PL" explore 1 --format flaot16
# A format named twice printed its section twice, and --out wrote its files over each other.
check explore-format-twice 2 "error: --format: 'torch.float16' names float16 twice" -- \
  "$PL" explore 1.5 --format float16 --format torch.float16
check explore-bad-number 2 "malformed number 'abc'" -- "$PL" explore abc
ex=$(mktemp -d)
check explore-out 0 'wrote 2 number lines' -- "$PL" explore 0.1 --format float16 --format float4_e2m1fn --out "$ex"
check explore-out-files 0 'number-line-float4_e2m1fn.pdf' -- ls "$ex"
# The window's export writes explore.json beside the number lines; so does --out.
check explore-out-json 0 '"overflow": "default"' -- cat "$ex/explore.json"
# A folder it may not write is refused before the numbers are printed, not after.
check explore-out-refused-first 2 '^first line: error: .* is not empty' -- bash -c \
  'out=$("$0" explore 0.1 --format float16 --out "$1" 2>&1); rc=$?; echo "first line: ${out%%$'"'"'\n'"'"'*}"; exit $rc' "$PL" "$ex"
rm -rf "$ex"
# The PDFs' dates: a SOURCE_DATE_EPOCH that is not whole seconds is refused before any work,
# and nothing is written.
check explore-out-bad-date 2 "SOURCE_DATE_EPOCH is 'soon', not a whole number of seconds" -- \
  env SOURCE_DATE_EPOCH=soon "$PL" explore 0.1 --format float16 --out "$ex"
check explore-out-bad-date-nothing 2 'No such file' -- ls "$ex"
check bad-format 2 "did you mean 'float16'" -- "$PL" cast --to flaot16 1
check bad-number 2 "malformed number 'abc'" -- "$PL" cast --to float16 abc
check bad-bits 2 'does not fit float8_e4m3fn' -- "$PL" decode --format float8_e4m3fn 0x100
check bad-bits-text 2 'malformed bit pattern' -- "$PL" decode --format float16 0xzz
check bad-rounding 2 '^error: --rounding: sideways not in \{rne,rna,rtz,up,down,stochastic\}' -- "$PL" cast --to float16 --rounding sideways 1
check bad-custom 2 'invalid custom format' -- "$PL" cast --to e3m0:ieee 1
# (std::stoi threw on these digits, and the CLI ended in std::terminate.)
check bad-custom-digits 2 'invalid custom format' -- "$PL" cast --to e99999999999m2 1
# Custom formats are experiment dtypes and accumulators too (core/dtype/custom_dtype.h).
check matmul-custom 0 'A \(8 x 32\) e5m7b15:ieee, none  x  B \(32 x 8\) e3m4b3:finite, none -> e5m7b15:ieee' -- \
  "$PL" matmul --m 8 --n 8 --k 32 --input-dtype e5m7 --weight-dtype e3m4:finite --output-dtype e5m7 --accumulate e6m9:pairwise:8
check dot-custom 0 'e4m3b9:fnuz kahan rne' -- "$PL" dot --k 16 --trials 4 --a-dtype e5m7 --accumulate e6m9:sequential,e4m3b9:fnuz:kahan
check matmul-custom-framework 2 'torch has no e5m7b15:ieee \(a custom format: leave the framework out' -- \
  "$PL" matmul --m 4 --n 4 --k 8 --input-dtype e5m7 --weight-dtype float32 --framework torch
# A Python scalar the result cannot hold is said (uint8 + 1000 -> uint8 wraps).
check promote-scalar-not-held 0 'note: 1000 is not a torch.uint8 value \(0 to 255\): the result cannot hold it' -- "$PL" promote uint8 int64 --b-kind scalar --b-value 1000
check promote-scalar-not-held-json 0 '"value_not_held": "1000 is not a torch.uint8 value \(0 to 255\): the result cannot hold it"' -- "$PL" promote uint8 int64 --b-kind scalar --b-value 1000 --json
check promote-custom 2 'e5m7b15:ieee is not a torch 2.15.0 dtype \(a custom format: no framework has one\)' -- "$PL" promote e5m7 float32
check promote-help-ops 0 "numpy, numpy1, numpy-ml_dtypes0.7: add subtract multiply true_divide matmul dot astype" -- "$PL" promote --help
# ml_dtypes 0.7.0 keeps a bfloat16 array's dtype with a Python float; 0.6.0 gives float32.
check promote-ml-dtypes-0.7 0 '^  -> ml_dtypes.bfloat16$' -- "$PL" promote bfloat16 float32 --framework numpy-ml_dtypes0.7 --b-kind scalar
check promote-ml-dtypes-0.6 0 '^  -> np.float32$' -- "$PL" promote bfloat16 float32 --framework numpy --b-kind scalar
many=$(for b in $(seq 20 30); do for m in $(seq 1 20); do printf 'e6m%db%d:sequential,' "$m" "$b"; done; done)
check custom-capacity 2 'too many custom formats' -- "$PL" dot --k 4 --trials 1 --accumulate "${many%,}"
check no-subcommand-arg 2 'required' -- "$PL" cast 1
# The argument parser's own refusals are one line as every other error (they took two, without
# "error:"), with the help of the command being read.
one_line() { local out rc; out=$("$PL" "$@" 2>&1); rc=$?; echo "status $rc, $(wc -l <<<"$out") line: $out"; }
check parse-error-one-line 0 \
  '^status 2, 1 line: error: --rounding: foo not in \{rne,.*\} \(see precision-lab cast --help\)$' \
  -- one_line cast 1 --to float16 --rounding foo
check parse-error-lowercase 2 '^error: the following argument was not expected: --bogus \(see precision-lab matmul' \
  -- "$PL" matmul --bogus
# In the order typed (CLI11 listed them last first), a control character escaped.
check parse-error-extras-in-order 2 \
  '^error: the following arguments were not expected: --lengths 16,256 a\\x1bb \(see precision-lab dot --help\)$' \
  -- "$PL" dot --lengths 16,256 $'a\eb'
# What the user typed, quoted back in an error, with its control characters escaped.
check typed-number-escaped 2 "^error: malformed number 'x\\\\x1bb'" -- "$PL" cast --to float16 $'x\eb'
check typed-path-escaped 2 '^error: /tmp/no\\x1bpe does not exist$' -- "$PL" scan $'/tmp/no\epe'
check typed-choice-escaped 2 '^error: --rounding: r\\x1b not in' -- "$PL" cast --to float16 --rounding $'r\e' 1
# Every message goes out through standard error's filter: what no call site escaped is too.
check typed-command-escaped 2 "^error: unknown command 'fr\\\\x1bob'" -- "$PL" $'fr\eob'
check typed-expression-escaped 2 "^error: '1/x\\\\x1b' is not NUMBER/NUMBER" -- "$PL" cast --to float16 $'1/x\e'
check typed-c1-escaped 2 "^error: unknown command 'a\\\\u009bb'" -- "$PL" $'a\xc2\x9bb'
check parse-error-subcommand 0 \
  '^status 2, 1 line: error: a subcommand is required \(see precision-lab scenario --help\)$' -- one_line scenario
check unknown-subcommand 2 "unknown command 'frobnicate'; commands: formats" -- "$PL" frobnicate
# (CLI11 said only "A subcommand is required", hiding the typo)
check mistyped-subcommand 2 "did you mean 'promote'?" -- "$PL" promot float16 bfloat16
check bench-small 0 'convert GB/s' -- "$PL" bench --backend cpu --elements 100000 --reps 2 --formats float16,e5m7
check bench-matmul 0 'bfloat16 +64 ' -- "$PL" bench --op matmul --dtypes bfloat16,float8_e4m3fn --sizes 64 --reps 1
check bench-matmul-json 0 '"blas_calls"' -- "$PL" bench --op matmul --sizes 32 --reps 1 --accumulate f16:sequential --json
# Bug: the JSON named only the backend asked for ("auto"), not where the products ran.
check bench-matmul-json-where 0 '"product_backend": "cpu"' -- "$PL" bench --op matmul --backend cpu --sizes 32 --reps 1 --json
check bench-matmul-bad-dtype 2 "unknown dtype 'nope'" -- "$PL" bench --op matmul --dtypes nope
check bench-matmul-threads 0 'core [A-Za-z0-9]+, 1 thread' -- "$PL" bench --op matmul --sizes 64 --reps 1 --threads 1
# Bug: these named the experiment file's keys ('threads', 'm'), which the command line never gave.
check bench-matmul-threads-range 2 "bfloat16 at 64.3: --threads: must be an integer from 0" -- "$PL" bench --op matmul --sizes 64 --threads 99999
check bench-matmul-bad-size 2 "bfloat16 at 0.3: --sizes: must be a positive integer" -- "$PL" bench --op matmul --sizes 0
check bench-matmul-huge-size 2 'm = 16777217: every dimension must lie' -- "$PL" bench --op matmul --sizes 16777217
# Bug: --sizes' items were converted as they came, so -1 and 2^64 + 1 wrapped (to 2^64 - 1 and 1).
check bench-sizes-negative 2 "'-1' is not a whole number" -- "$PL" bench --op matmul --sizes 8,-1
# Bug: matmul's --k was left out of the whole-number options: 2^64 + 1 was "not a positive integer".
check matmul-k-past-64-bits 2 "--k: .18446744073709551617. is not a whole number" -- "$PL" matmul --k 18446744073709551617
check dot-k-list-still-taken 0 "4096" -- "$PL" dot --k 256,4096 --trials 2
check bench-sizes-past-64-bits 2 "'18446744073709551617' is not a whole number" -- "$PL" bench --op matmul --sizes 18446744073709551617
check bench-throughput 0 'bfloat16 +[0-9]+ +[0-9.]+ \([0-9.]+-[0-9.]+\) +bfloat16 values in sgemm .*emulation' -- "$PL" bench --op throughput --backend cpu --dtypes float32,bfloat16,int8 --sizes 64 --seconds 0.5
check bench-throughput-json 0 '"gflops_median"' -- "$PL" bench --op throughput --backend cpu --dtypes float16 --sizes 32 --seconds 0.2 --json
# Bug: the device's description was under "library"; it is "device", as bench --op product names it.
check bench-throughput-json-device 0 '"device": "[^"]+"' -- "$PL" bench --op throughput --backend cpu --dtypes float16 --sizes 32 --seconds 0.2 --json
# --seconds is a least time: a dtype the time ran out before was printed as "0 (0-0)" from 0
# samples (exit 0). Any rate above zero passes: a first sample on a loaded machine can take
# 0.127 GOP/s, and a test asserts no speed.
check bench-throughput-each-sampled 0 'int8 +1 +(0\.0*[1-9]|[1-9])[0-9.]* \(' -- \
  "$PL" bench --op throughput --backend cpu --dtypes float32,bfloat16,float16,int8 --sizes 64 --seconds 1e-300
check bench-throughput-bad-dtype 2 'bool: products are timed for float dtypes' -- "$PL" bench --op throughput --dtypes bool
check bench-throughput-two-sizes 2 'one size in' -- "$PL" bench --op throughput --sizes 64,128
check bench-product 0 'bfloat16 +64 +[0-9.]+ +[0-9.]+ +- +f32 OpenBLAS sgemm; steady_clock' -- "$PL" bench --op product --backend cpu --dtypes bfloat16,int8 --sizes 64 --reps 2
check bench-product-json 0 '"tflops"' -- "$PL" bench --op product --backend cpu --dtypes float32 --sizes 32 --reps 1 --json
# Without a published peak (a CPU) the share is unknown: null, not a measured 0.
check bench-product-json-no-peak 0 '"percent_of_peak": null' -- "$PL" bench --op product --backend cpu --dtypes float32 --sizes 32 --reps 1 --json
# What the probes did not find is null, not the report's 0 and -1.
check probe-json-none-found 0 '"extra_bits": null' -- "$PL" accumulation-probe --backend cpu --json
check bench-product-model 0 'bf16 sequential rne; steady_clock' -- "$PL" bench --op product --backend cpu --dtypes bfloat16 --accumulate bf16:sequential --sizes 32 --reps 1
check bench-product-refused 2 'error: nothing was timed: cpu cannot run the product asked for' -- "$PL" bench --op product --backend cpu --dtypes float16 --accumulate f16:blas --sizes 32 --reps 1
check bench-matmul-refused 2 'bfloat16 x 32: OpenBLAS has no float16 GEMM' -- "$PL" bench --op matmul --backend cpu --accumulate f16:blas --sizes 32 --reps 1
# Bug: float64's 53 bits read "no dtype has 53 bits of precision"; the f64 model is float64's.
check probe-f64-model 0 'as a model: --accumulate f64 ' -- "$PL" accumulation-probe --backend cpu --dtype float32 --accumulate f64:blas
# Bug: a NaN into float4 read "rounds to 0 (0x0) (exact)" with zero's interval [0, 0.25], and an
# overflow's ulp read "nan".
check explore-nan-no-nan-format 0 'rounds to  0 \(0x0\)  \(NaN: the format has none' -- "$PL" explore nan --format float4_e2m1fn
check explore-nan-no-interval 0 'interval   none \(nan is not a finite number\)' -- "$PL" explore nan --format float4_e2m1fn
check explore-overflow-ulp 0 'ulp        none \(x rounds to inf or nan\)' -- "$PL" explore 70000 --format float16
# Bug: the casts' rounding was printed after the reference ("reference: OpenBLAS dgemm ...;
# rounding stochastic"), as if the float64 reference were rounded so.
check matmul-casts-line 0 '^casts:      operands and output rounded stochastic \(seed 7\)' -- "$PL" matmul --m 8 --n 8 --k 32 --rounding stochastic --seed 7
# Bug: a NaN into an integer read "out of range"; it is a NaN.
check cast-int-nan-said 0 '^nan -> int8 0  \(C cast, x86-64, NaN input\)' -- "$PL" cast --to int8 nan
# Bug: without a known part the footnote read "the published dense rate of no known part".
check bench-product-no-peak 0 '^% peak: - \(no published peak for this device' -- "$PL" bench --op product --backend cpu --dtypes float32 --sizes 32 --reps 1
# Bug: under stochastic rounding "rounds to" showed one draw as if it were the rounding.
check explore-stochastic-one-draw 0 'rounding stochastic \("rounds to" is one draw, seed 0' -- "$PL" explore 0.3 --format bfloat16 --rounding stochastic
# Bug: "overflow default" said nothing of what it does, and "no-saturate" into fp4 (no Inf, no NaN)
# read as if it did not clamp. The codec says what a value past the largest becomes, the rounding
# included (toward zero it stays the largest finite).
check cast-overflow-said 0 'overflow no-saturate \(one ulp past the largest finite: 6\)' -- "$PL" cast 100 --to float4_e2m1fn --no-saturate
check cast-overflow-rtz-said 0 'rounding rtz, overflow default \(one ulp past the largest finite: 65504\)' -- "$PL" cast 1e6 --to float16 --rounding rtz
check cast-overflow-down-said 0 'rounding down, overflow default \(one ulp past the largest finite: -inf\)' -- "$PL" cast --to float16 --rounding down -- -1e300
check probe-refused 2 'error: OpenBLAS has no float16 GEMM' -- "$PL" accumulation-probe --backend cpu --accumulate f16:blas
# Bug: a model the CPU cannot run passes the config's check and fails in the product: it was taken
# for the machine's failure (exit 1). It is the setup's (exit 2), as bench and the probe say.
check matmul-model-refused 2 'error: OpenBLAS has no float16 GEMM' -- "$PL" matmul --m 8 --n 8 --k 8 --accumulate f16:blas
check probe-int8-f32 2 'the probes need a float input dtype' -- "$PL" accumulation-probe --backend cpu --dtype int8
# f32:blas over float64 values was found after the output: bench printed float32's row (exit 1),
# the probe ran its probes through sgemm and said "not run" at the end (exit 0). Both refuse first.
check bench-product-f32-blas-float64 2 '^error: float64 x 8: f32:blas, the float32 library product .*takes float32 values' -- \
  "$PL" bench --op product --dtypes float32,float64 --sizes 8 --reps 1 --backend cpu --accumulate f32:blas
check bench-product-f32-blas-float64-nothing-printed 2 '^error' -- \
  bash -c '"$0" bench --op product --dtypes float32,float64 --sizes 8 --reps 1 --backend cpu --accumulate f32:blas 2>&1 | head -1; exit "${PIPESTATUS[0]}"' "$PL"
check probe-f32-blas-float64 2 'f32:blas, the float32 library product, takes float32 values: float64 has more bits' -- \
  "$PL" accumulation-probe --backend cpu --dtype float64
check bench-option-of-another-op 2 'error: --save does not apply to --op convert \(it is for throughput\)' -- "$PL" bench --save "${TMPDIR:-/tmp}/pl-never-written-$$"
check bench-formats-not-matmul 2 'error: --formats does not apply to --op matmul \(it is for convert\)' -- "$PL" bench --op matmul --formats float16
check bench-figure-size-not-convert 2 'error: --size does not apply to --op convert' -- "$PL" bench --size 500x400
check bench-force-without-save 2 'error: --force is for the figures --save writes: give --save DIR too' -- "$PL" bench --op throughput --force --seconds 0.1
check bench-size-without-save 2 'error: --size is for the figures --save writes' -- "$PL" bench --op throughput --size 500x400 --seconds 0.1
check bench-dtypes-not-convert 2 'error: --dtypes does not apply to --op convert \(it is for matmul, product, throughput\)' -- "$PL" bench --dtypes float16
check bench-product-bad-dtype 2 "unknown dtype 'nope'" -- "$PL" bench --op product --backend cpu --dtypes nope --sizes 32
check probe-cpu 0 'rounding of a sum .* +to nearest' -- "$PL" accumulation-probe --backend cpu --dtype float16
check probe-cpu-json 0 '"accumulator_bits": 24' -- "$PL" accumulation-probe --backend cpu --dtype bfloat16 --json
check probe-model 0 'as a model: --accumulate f32:sequential' -- "$PL" accumulation-probe --backend cpu --dtype float16
check probe-normalisation 0 'normalisation of partial sums .* +not run' -- "$PL" accumulation-probe --backend cpu --dtype bfloat16
check probe-json-block 0 '"block_terms": null' -- "$PL" accumulation-probe --backend cpu --dtype bfloat16 --json
check dot-multiterm 0 'f32 multi-term\(16 \+ sum, 2 extra bits\) rtz' -- "$PL" dot --k 64 --trials 2 --a-dtype bfloat16 --b-dtype bfloat16 --accumulate f32:multiterm:16:2:rtz
check dot-sum-b-dtype-refused 2 '--b-dtype is for dot products' -- "$PL" dot --sum --k 16 --b-dtype float32
# Bug: a multi-term model's name overran its column and every number sat under the header to its
# right; and max ulp counted each row in its own dtype's ulps without saying which.
check dot-multiterm-columns 0 'f16 multi-term\(16 \+ sum, 0 extra bits\) rne +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.e+-]+ +[0-9.]+ +[0-9.e+-]+ f16 ' -- "$PL" dot --sum --k 100 --a-dtype float16 --accumulate float16:multiterm --trials 2
# Each number ends under its header's last letter, whatever the models' and the dtypes' names.
check dot-columns-aligned 0 'aligned' -- bash -c '"$0" dot --k 64 --trials 2 --accumulate float16:multiterm,e5m7b15:fnuz:sequential,f32:sequential | python3 -c "
import re, sys
lines = sys.stdin.read().splitlines()
head = next(l for l in lines if \"accumulation\" in l)
ends = [head.index(h) + len(h) for h in (\"bound\", \"estimate\", \"mean bits\", \"max ulp\", \"NaN/Inf\")]
rows = [l for l in lines if re.match(r\" +[0-9]+  \", l)]
ok = rows and all(r[e - 1] != \" \" and (e == len(r) or r[e] == \" \") for r in rows for e in ends)
print(\"aligned\" if ok else \"misaligned:\\n\" + \"\\n\".join([head] + rows))"' "$PL"
# Bug: the fixes' table took 28 characters for a fix's code: TensorFlow's two casts (56) pushed
# that row's numbers out from under their headers. The column is as wide as its longest code.
check matmul-fix-columns-aligned 0 'aligned' -- bash -c '"$0" matmul --linear --framework tf --input-dtype float16 --weight-dtype float32 --m 16 --n 16 --k 32 | python3 -c "
import sys
lines = sys.stdin.read().splitlines()
head = next(l for l in lines if l.strip().startswith(\"fix \"))
at = head.index(\"computes\")
rows = lines[lines.index(head) + 1:]
ok = len(rows) >= 3 and all(r[at - 1] == \" \" and r[at] != \" \" for r in rows if r.strip())
print(\"aligned\" if ok else \"misaligned:\\n\" + \"\\n\".join([head] + rows))"' "$PL"
check dot-multiterm-bad 2 'more than float64.s 53' -- "$PL" dot --k 64 --accumulate f32:multiterm:16:24
check probe-int8 2 'integer sums are exact' -- "$PL" accumulation-probe --backend cpu --dtype int8 --accumulate i32
check probe-bad-dtype 2 "error: .*flaot16" -- "$PL" accumulation-probe --backend cpu --dtype flaot16
check probe-bad-backend 2 "'tpu': expected cpu, cuda or auto" -- "$PL" accumulation-probe --backend tpu
# --check-model: candidate models against the device's product, one line each
check probe-check-model 0 'f32:pairwise:32 +[0-9]+ of 4096 elements bit-identical' -- "$PL" accumulation-probe --backend cpu --dtype bfloat16 --check-model f32:sequential --check-model f32:pairwise:32
check probe-check-model-names-both 0 "the device's f32:blas product against the model f32:sequential" -- \
  "$PL" accumulation-probe --backend cpu --dtype bfloat16 --check-model f32:sequential
check probe-check-model-json 0 '"model": "f32:multiterm:16:2:rtz"' -- "$PL" accumulation-probe --backend cpu --dtype bfloat16 --check-model f32:multiterm:16:2:rtz --json
check probe-check-model-bad 2 'error: --check-model f32:sideways' -- "$PL" accumulation-probe --backend cpu --dtype bfloat16 --check-model f32:sideways
check bench-throughput-bad-seconds 2 'seconds must lie' -- "$PL" bench --op throughput --seconds 0
tp=$(mktemp -d)
check bench-throughput-save 0 'GFLOP/s' -- "$PL" bench --op throughput --dtypes float32 --sizes 32 --seconds 0.2 --save "$tp"
check bench-throughput-files 0 'throughput-by-dtype.svg' -- ls "$tp"
rm -rf "$tp"
check bench-formats-repeated 2 'error: --formats names float16 twice' -- "$PL" bench --formats float16,bfloat16,float16
# The format before the device: a CUDA note came first, on a second line of stderr.
check bench-formats-bad-first 2 "^error: 'int8' is not a floating-point format" -- \
  bash -c '"$0" bench --formats int8 2>&1 | head -1; exit "${PIPESTATUS[0]}"' "$PL"
check bench-dtypes-repeated 2 'error: --dtypes names int8 twice' -- "$PL" bench --op product --dtypes int8,int8 --sizes 32
check bench-sizes-repeated 2 'error: --sizes names 64 twice' -- "$PL" bench --op matmul --sizes 64,64
# --force without the folder it replaces was taken silently, as if one were being replaced.
check force-without-folder 2 'error: --force replaces the folder --save or the file --out names: give one' -- \
  "$PL" matmul --m 2 --n 2 --k 2 --force
# dot's --force also runs a sweep estimated past 10 minutes: it needs no folder.
check dot-force-without-save 0 'f16 sequential rne' -- "$PL" dot --k 4 --trials 1 --accumulate f16:sequential --force
check scenario-force-without-out 2 'error: --force replaces the folder --out names: give --out too' -- \
  "$PL" scenario run 6 --force
# Every size and dtype checked before the first row: a bad one after it left a table (or a whole
# JSON document) above its error.
check bench-product-checks-first 0 '^status 2, 1 line: error: bfloat16 x 0: the product size must lie in' \
  -- one_line bench --op product --sizes 8 0 --reps 1 --backend cpu
check bench-product-dtype-first 0 "^status 2, 1 line: error: --dtypes: unknown dtype 'bogus'; did you mean" \
  -- one_line bench --op product --dtypes float32,bogus --sizes 8 --reps 1 --backend cpu
# Under another of its names too: e5m10 and torch.half are float16.
check bench-formats-repeated-alias 2 'error: --formats names float16 twice' -- "$PL" bench --formats float16,e5m10
check bench-dtypes-repeated-alias 2 'error: --dtypes names float16 twice' -- \
  "$PL" bench --op matmul --dtypes float16,torch.half --sizes 8
# A refusal of the experiment a command builds names the option the user typed, not the file key.
check mlp-bad-layers-option 2 'error: --layers: must be an integer from 1' -- "$PL" mlp --layers 0
check mlp-bad-dtype-option 2 "error: --input-dtype: unknown dtype 'foo'" -- "$PL" mlp --input-dtype foo
check mlp-bad-data-option 2 "error: --data: unknown distribution 'x'" -- "$PL" mlp --data x
check matmul-bad-size-option 2 'error: --m: must be a positive integer' -- "$PL" matmul --m 0
check matmul-bad-recipe-option 2 "error: --weight-scaling: no recipe 'x'" -- "$PL" matmul --weight-scaling x
# --size and --dpi without the folder the figures go to would change nothing.
check dot-size-without-save 2 'error: --size sets the figures dot writes: give --save' -- "$PL" dot --k 8 --size 500x400
check scan-dpi-without-out 2 'error: --dpi sets the figures scan writes: give --out' -- "$PL" scan "${TMPDIR:-/tmp}/pl-no-checkpoint-$$" --dpi 192
check bench-bad-op 2 "unknown --op 'gemv' \\(convert \\| matmul \\| product \\| throughput\\)" -- "$PL" bench --op gemv
check promote-linear-error 0 'expected m1 and m2 to have the same dtype, but got: float != c10::BFloat16' -- "$PL" promote --op linear float32 bfloat16
check promote-linear-fix 0 'x.to\(w.dtype\) .* -> torch.bfloat16' -- "$PL" promote --op linear float32 bfloat16
check promote-conv-bias 0 'Input type \(c10::Half\) and bias type \(float\) should be the same' -- "$PL" promote --op conv2d float16 float16 --bias float32
check promote-conv-small-own-kernel 0 'expected scalar type Float but found Double' -- "$PL" promote --op conv2d float32 float64
check promote-conv-batch-onednn 0 'should be the same or input should be a MKLDNN tensor and weight is a dense tensor' -- "$PL" promote --op conv2d float32 float64 --a-shape 2,1,3,3
check promote-conv-5x5-onednn 0 'MKLDNN tensor' -- "$PL" promote --op conv2d float32 float64 --a-shape 1,3,8,8 --b-shape 4,3,5,5
check promote-conv1d-one-thread 0 'expected scalar type Float but found Double' -- "$PL" promote --op conv1d float32 float64 --a-shape 2,1,8 --b-shape 1,1,1 --torch-threads 1
check promote-conv-shape-json 0 '"groups": 3' -- "$PL" promote --op conv2d float32 float64 --a-shape 1,3,8,8 --b-shape 3,1,3,3 --groups 3 --json
check promote-conv-channels 2 'the input has 3 channels, but a weight of 1 input channels with groups=1 expects 1' -- "$PL" promote --op conv2d float32 float64 --a-shape 2,3,8,8
check promote-conv-bad-dimension 2 "'0' in '2,0,3,3' is not a dimension" -- "$PL" promote --op conv2d float32 float64 --a-shape 2,0,3,3
check promote-shape-not-conv 2 'are for conv1d and conv2d' -- "$PL" promote --op add float32 float64 --groups 2
check promote-shape-cuda 2 'models one convolution shape' -- "$PL" promote --framework torch-cuda --op conv2d float32 float64 --a-shape 2,1,3,3
check promote-help-shapes 0 '--a-shape.*N,C,L or N,C,H,W' -- "$PL" promote --help
check promote-device-linear 0 'but got mat1 is on cpu, different from other tensors on cuda:0 \(when checking argument in method wrapper_CUDA_addmm\)' -- "$PL" promote --op linear --bias float32 --a-device cpu --b-device cuda float32 float32
check promote-device-fix 0 'x.to\(w.device\) +\(x moves to cuda\) +-> torch.float32' -- "$PL" promote --op linear --bias float32 --a-device cpu --b-device cuda float32 float32
# Placed operands name their devices; the heading then names none, which would contradict them.
check promote-device-heading 0 '^torch 2\.15\.0: mm\(a: torch.float32 tensor on cpu, b: torch.float32 tensor on cuda' -- "$PL" promote --op mm --a-device cpu --b-device cuda float32 float32
check promote-device-json 0 '"device": "cuda"' -- "$PL" promote --op mm --b-device cuda --json float32 float32
check promote-device-other 0 'torch.float32 tensor on cpu, b: torch.float32 tensor on cuda' -- "$PL" promote --framework torch-cuda --op mm --a-device cpu float32 float32
check promote-device-depthwise 2 'depthwise convolution of a CUDA input' -- "$PL" promote --op conv2d --a-device cuda --b-device cpu --a-shape 1,4,8,8 --b-shape 4,1,3,3 --groups 4 float32 float32
check promote-device-113 0 'found at least two devices, cpu and cuda:0! \(when checking argument for argument mat2 in method wrapper_mm\)' -- "$PL" promote --framework torch1.13 --op mm --b-device cuda float32 float32
check promote-device-bad 2 '--a-device takes cpu or cuda, not .gpu.' -- "$PL" promote --a-device gpu float32 float32
check promote-device-scalar 2 'a Python scalar has no device' -- "$PL" promote --b-kind scalar --b-device cuda float32 float32
check promote-device-engine 2 'are for the engines that place operands' -- "$PL" promote --framework numpy --a-device cuda float32 float32
check promote-device-not-modelled 2 'int32 tensors on two devices are not modelled' -- "$PL" promote --b-device cuda int32 float32
check promote-help-devices 0 '--a-device' -- "$PL" promote --help
check promote-device-table 0 '^f32 +ERR +ERR +ERR +ERR +n/m ' -- "$PL" promote --op linear --a-device cpu --b-device cuda --table
check train-table 0 'bfloat16:float32 .* never' -- "$PL" train --steps 200
check train-diverged 0 'float16 +nan +- +[0-9]+ of 16 +diverged at step [0-9]+' -- \
  "$PL" train --models float16 --lr 1e30 --steps 20
check train-json 0 '"final_over_best"' -- "$PL" train --models float16 --steps 50 --json
check train-bad-model 2 "'int8' is not a float dtype" -- "$PL" train --models float32,int8
# A scale format's "training" ran to a loss of nan and exited 0.
check train-scale-format 2 "'float8_e8m0fnu' has no sign or no zero: it cannot hold weights" -- \
  "$PL" train --models float8_e8m0fnu --steps 5
# Drawn operands are signed: in float8_e8m0fnu half were NaN, and a dot sweep's table read "-"
# in every column, its NaN/Inf column included (exit 0).
check dot-f16-blas-said-once 2 '^error: f16:blas: float16 library accumulation \(cuBLAS CUBLAS_COMPUTE_16F\) runs' -- \
  "$PL" dot --k 16 --accumulate f16:blas
check dot-scale-format 2 'float8_e8m0fnu has no sign, and the drawn inputs are signed' -- \
  "$PL" dot --k 16 --trials 2 --a-dtype float8_e8m0fnu
check matmul-scale-format 2 'float8_e8m0fnu has no sign, and a drawn weight is signed' -- \
  "$PL" matmul --m 4 --n 4 --k 4 --weight-dtype float8_e8m0fnu
check train-too-big 2 'past 2e9' -- "$PL" train --steps 100000 --samples 1000000
check promote-scalar 0 '^  -> torch\.float32$' -- "$PL" promote --op add --b-kind scalar int32 float64
check promote-zerodim 0 '^  -> torch\.float16$' -- "$PL" promote --op mul --b-kind zerodim float16 float64
check promote-json 0 '"error_type": "RuntimeError"' -- "$PL" promote --op mm --json float32 float64
check promote-table 0 '^bf16 +bf16' -- "$PL" promote --op add --b-kind zerodim --table
check promote-table-json 0 '"cells"' -- "$PL" promote --op matmul --table --json
check promote-bad-framework 2 'unknown framework' -- "$PL" promote --framework caffe float32 float32
check promote-bad-op 2 "unknown op 'conv3d'" -- "$PL" promote --op conv3d float32 float32
check promote-bad-dtype 2 "did you mean 'float64'" -- "$PL" promote float32 flaot64
check promote-not-torch 2 'not a torch 2.15.0 dtype' -- "$PL" promote float32 float6_e2m3fn
check promote-bias-op 2 'takes no bias' -- "$PL" promote --op add --bias float32 float32 float32
check promote-addmm-needs-bias 2 'error: addmm takes a bias: torch.addmm\(bias, x, w\) has no form without one: give --bias' -- "$PL" promote --op addmm float32 float32
check promote-addmm-table-needs-bias 2 'addmm takes a bias' -- "$PL" promote --op addmm --table
check promote-kind-matrix 2 'apply to elementwise ops' -- "$PL" promote --op mm --b-kind zerodim float32 float32
check promote-one-dtype 2 'give two dtypes' -- "$PL" promote float32
check promote-torch113-half-mm 0 "RuntimeError: \"addmm_impl_cpu_\" not implemented for 'Half'" -- "$PL" promote --framework-version 1.13 --op mm float16 float16
check promote-torch113-conv1d-bias 0 'never checked the bias dtype' -- "$PL" promote --framework-version 1.13 --op conv1d --bias float64 float32 float32
check promote-torch113-no-fp8 2 'not a torch 1.13.1 dtype' -- "$PL" promote --framework-version 1.13 float8_e4m3fn float32
check promote-numpy-version 0 'numpy 1\.' -- "$PL" promote --framework numpy --framework-version 1 int8 int64
check promote-bad-version 2 'no torch engine for version 1.7' -- "$PL" promote --framework-version 1.7 float32 float32
check promote-version-not-a-prefix-of-a-number 2 'no torch engine for version 1.1 ' -- \
  "$PL" promote --framework-version 1.1 float32 float32
check promote-precision-high 0 'CUDA \(compute capability >= 8.0\): the float32 operands run as tf32' -- "$PL" promote --op linear --matmul-precision high float32 float32
check promote-precision-conv 0 'cuDNN may still run float32 convolutions on a GPU in TF32' -- "$PL" promote --op conv2d --matmul-precision highest float32 float32
check promote-precision-conv-high 0 'the float32 operands may run as tf32 \(cuDNN picks its kernels\)' -- "$PL" promote --op conv2d --matmul-precision high float32 float32
check promote-precision-high-sums 0 'run as tf32, summed to float32.s 24 bits, truncated' -- "$PL" promote --op mm --matmul-precision high float32 float32
check promote-precision-113 0 'CPU: float32 -- PyTorch 1.13 has no' -- "$PL" promote --framework-version 1.13 --op mm --matmul-precision medium float32 float32
check promote-precision-json 0 '"mkldnn.matmul.fp32_precision": "bf16"' -- "$PL" promote --op mm --matmul-precision medium --json float32 float32
check promote-precision-bad 2 'must be highest, high or medium' -- "$PL" promote --op mm --matmul-precision low float32 float32
check promote-precision-op 2 'setting for matrix products' -- "$PL" promote --op add --matmul-precision high float32 float32
check promote-cuda-conv 0 'Input type \(torch.cuda.FloatTensor\) and weight type \(CUDABFloat16Type\) should be the same' -- "$PL" promote --device cuda --op conv2d float32 bfloat16
check promote-cuda-not-modelled 2 'int32 is not modelled on CUDA' -- "$PL" promote --device cuda --op mm int32 int32
check promote-cuda-table 0 '^f32 +ERR +f32 ' -- "$PL" promote --framework torch-cuda --op conv2d --table
check promote-autocast-cuda 0 '^  -> torch\.float16$' -- "$PL" promote --framework torch-autocast-cuda --op linear float32 float32
check promote-numpy2-overflow 0 'OverflowError: Python integer 300 out of bounds for int8' -- "$PL" promote --framework numpy --b-kind scalar --b-value 300 int8 int64
check promote-numpy1-value 0 '^  -> np\.int16$' -- "$PL" promote --framework numpy1 --b-kind scalar --b-value 300 int8 int64
check promote-numpy-mldtypes 0 '^  -> np\.float32$' -- "$PL" promote --framework numpy bfloat16 float16
check promote-numpy-dot-object 0 '^  -> dtype=object$' -- "$PL" promote --framework numpy --op dot bfloat16 float16
check promote-numpy-fix 0 'x.astype\(w.dtype\) .* -> np.float16' -- "$PL" promote --framework numpy --op dot bfloat16 float16
check promote-numpy-json 0 '"result": "object"' -- "$PL" promote --framework numpy --op dot --json float8_e4m3fn bfloat16
check promote-negative-inf 0 '^  -> np\.float16$' -- "$PL" promote --framework numpy --b-kind scalar --b-value -inf float16 float64
check promote-negative-point 0 'add\(a: Python float -.5, b: np.int8 tensor' -- "$PL" promote --framework numpy --a-kind scalar --a-value -.5 float64 int8
check promote-bad-value 2 "'abc' is not a Python" -- "$PL" promote --framework numpy --b-kind scalar --b-value abc float32 float64
check promote-value-type 2 'is a Python float' -- "$PL" promote --framework numpy --b-kind scalar --b-value 2.5 int8 int64
check promote-value-tensor 2 'zerodim or scalar operand' -- "$PL" promote --framework numpy --b-value 3 int8 int64
# PyTorch's Python-scalar values (recorded: torch_values_cpu.json): an int past int64 is a uint64
# scalar in 2.15, an OverflowError past uint64, and 1.13 knew neither
check promote-value-torch 0 '^  -> torch\.int8$' -- "$PL" promote --b-kind scalar --b-value 300 int8 int64
check promote-value-torch-uint64 0 'attempted to promote Bool and UInt64' -- "$PL" promote --b-kind scalar --b-value 2**63 bool int64
check promote-value-torch-too-big 0 'OverflowError: int too big to convert' -- "$PL" promote --b-kind scalar --b-value 2**64 float32 int64
check promote-value-torch113 0 'Overflow when unpacking long' -- "$PL" promote --framework torch --framework-version 1.13 --b-kind scalar --b-value 2**63 float32 int64
check promote-value-torch-zerodim 2 "never its value" -- "$PL" promote --b-kind zerodim --b-value 3 int8 int64
check promote-value-torch-cuda 2 'recorded on the CPU' -- "$PL" promote --device cuda --b-kind scalar --b-value 3 float16 int64
check promote-jax-fp8 0 '8-bit floats do not support implicit promotion' -- "$PL" promote --framework jax float8_e4m3fn float16
check promote-jax-x64 0 '^  -> jnp\.float64$' -- "$PL" promote --framework jax-x64 float32 float64
check promote-jax-x32 0 '^  -> jnp\.float32$' -- "$PL" promote --framework jax float32 float64
check promote-jax-strict 0 'jax_numpy_dtype_promotion=strict' -- "$PL" promote --framework jax-strict float32 float16
check promote-jax-pet 0 'argument type error: float8_e5m2, float8_e5m2fnuz' -- "$PL" promote --framework jax --op matmul_f32acc float8_e5m2 float8_e5m2fnuz
check promote-jax-overflow 0 'argument path is y' -- "$PL" promote --framework jax --b-kind scalar --b-value 2**40 int8 int64
check promote-tf-no-promotion 0 'cannot compute AddV2 as input #1\(zero-based\) was expected to be a int8 tensor but is a float tensor' -- "$PL" promote --framework tf int8 float32
check promote-tf-fix 0 'tf.cast\(x, w.dtype\) .* -> tf.float32' -- "$PL" promote --framework tf int8 float32
check promote-tf-sparse 0 'SparseMatMul' -- "$PL" promote --framework tf --op matmul float32 bfloat16
check promote-tf-truediv 0 '^  -> tf\.float64$' -- "$PL" promote --framework tf --op truediv int32 int32
check promote-tf-value 2 'engine takes no value: it answers for the defaults, True, 2, 2.5 and 2.5\+1j, when none is given' -- "$PL" promote --framework tf --b-kind scalar --b-value 3 int8 int64
check promote-tf-default-value 2 'engine takes no value' -- "$PL" promote --framework tf --b-kind scalar --b-value 2 int8 int64
check promote-cuda-zerodim-value 2 "the torch-cuda engine reads a zero-dim tensor's dtype, never its value" -- "$PL" promote --framework torch-cuda --a-kind zerodim --a-value 3 int8 int64
# --device names where an engine runs: tf's is "cpu, oneDNN off", jax's "cpu, x64 off".
check promote-tf-device-cpu 0 'tensorflow 2\.21\.0 \(cpu, oneDNN off\): add' -- "$PL" promote --framework tf --device cpu int8 float32
check promote-jax-device-cpu 0 'jax 0\.10\.2 \(cpu, x64 off\): add' -- "$PL" promote --framework jax --device cpu int8 float32
check promote-autocast-device-cpu 0 'torch 2\.15\.0 \(cpu, autocast bfloat16\): linear' -- "$PL" promote --framework torch-autocast-cpu --device cpu --op linear float16 float32
# Another device keeps the autocast (and its dtype), or no engine answers.
check promote-autocast-device-cuda 0 'torch 2\.15\.0 \(cuda, autocast bfloat16\): linear' -- "$PL" promote --framework torch-autocast-cpu --device cuda --op linear float16 float32
check promote-autocast-f16-device-cpu 2 "no torch engine for device cpu with torch-autocast-cuda's autocast float16" -- "$PL" promote --framework torch-autocast-cuda --device cpu --op linear float16 float32
check promote-tf-numpy 0 '^  -> tf\.float32$' -- "$PL" promote --framework tf-numpy int8 float32
check promote-tf-numpy-weak 0 '^  -> tf\.float64$' -- "$PL" promote --framework tf-numpy --op multiply --b-kind scalar int8 float32
check promote-autocast-linear 0 '^  -> torch\.bfloat16$' -- "$PL" promote --framework torch-autocast-cpu --op linear float16 bfloat16 --bias float32
check promote-autocast-f64 0 'c10::BFloat16 != double' -- "$PL" promote --framework torch-autocast-cpu --op linear float32 float64
check dot-table 0 'f16 chunked\(128\) -> f32 rne' -- "$PL" dot --k 16,256 --trials 4
check dot-json 0 '"probabilistic_estimate"' -- "$PL" dot --k 8 --trials 2 --accumulate f32:kahan --json
# A Kahan sum's estimate is its bound: said, not printed as a second number.
check dot-kahan-estimate-is-bound 0 'f16 kahan rne +[0-9.e+-]+ +[0-9.e+-]+ += bound .*= bound: a compensated \(Kahan\) sum' -- bash -c '"$0" dot --k 1024 --trials 2 --accumulate f16:kahan | tr "\n" " "' "$PL"
# "log", not "log10": the bins are octaves and fractions of one, not decades.
check dot-histogram 0 '"scale": "log"' -- "$PL" dot --k 64 --trials 16 --accumulate f16:sequential --json
check dot-bad-model 2 "not a model: f64 \\| i32 \\| f32:blas .*FMT:multiterm" -- "$PL" dot --accumulate f32:sideways
# One reader of sweep lengths: the command line refuses 0 in the window's words.
check dot-zero-length 2 "lengths: '0' is not a length from 1 to 16777216" -- "$PL" dot --k 16,0
# The help lists every model, from the table the parser reads (it once omitted i32).
check matmul-help-models 0 'f64 \| i32 \| f32:blas \| f64:blas \| FMT:sequential' -- "$PL" matmul --help
check matmul-help-recipes 0 'none, per-tensor, delayed, per-channel, per-channel-asymmetric, mx, nvfp4' -- "$PL" matmul --help
check dot-bad-dtype 2 "at most float32 precision" -- "$PL" dot --a-dtype float64
check dot-bad-k 2 "is not a length" -- "$PL" dot --k 16,abc
check dot-k-twice 2 'length 4 is given twice' -- "$PL" dot --k 4,4 --trials 1
check dot-no-gamma 0 'f16 sequential rne +[0-9.e+-]+ +none ' -- "$PL" dot --k 4096 --trials 2 --accumulate f16:sequential
check dot-no-gamma-says-why 0 '^none: the worst-case bound no longer exists at that length: gamma_m = m u / \(1 - m u\) needs m u < 1, m being K' -- "$PL" dot --k 4096 --trials 2 --accumulate f16:sequential
check promote-zerodim-range 2 'error: np.array\(300, dtype=np.int8\) raises OverflowError: Python integer 300 out of bounds for int8' -- "$PL" promote --framework numpy --b-kind zerodim --b-value 300 int8 int8
check promote-zerodim-wraps-numpy1 0 'rule: np.array\(300, dtype=np.int8\) holds 44 \(NumPy 1.x wraps' -- "$PL" promote --framework numpy1 --b-kind zerodim --b-value 300 int8 int8
IO="$PL_DATA/io"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
echo '{"experiment": "conv"}' > "$TMP/conv.json"
check run-unknown-kind 2 "unknown kind 'conv' \\(linear, matmul, mlp, dot, sum, roundtrip, throughput, train, scan\\)" -- "$PL" run "$TMP/conv.json" --out "$TMP/conv"
echo '{"experiment":"train","steps":2}' >"$TMP/train-small.json"
check run-train-backend-refused 2 'train-small.json: --backend: a train experiment runs on the CPU and has no backend to choose' -- "$PL" run "$TMP/train-small.json" --out "$TMP/train-backend" --backend cpu
check matmul-drawn 0 'output rounding' -- "$PL" matmul --m 16 --n 8 --k 64
check matmul-fp8 0 'float8_e4m3fn, per-tensor \(amax' -- "$PL" matmul --linear --m 8 --n 8 --k 64 --input-dtype float8_e4m3fn --weight-dtype float8_e4m3fn --input-scaling per-tensor --weight-scaling per-tensor --accumulate f32:sequential
check matmul-json 0 '"within_deterministic"' -- "$PL" matmul --m 4 --n 4 --k 32 --accumulate f16:chunked:8 --json
check matmul-threads 0 'f16 sequential rne \(own kernels, 1 thread\)' -- "$PL" matmul --m 16 --n 8 --k 64 --accumulate f16:sequential --threads 1
check matmul-threads-blas 0 'OpenBLAS sgemm \(.*, 1 thread' -- "$PL" matmul --m 16 --n 8 --k 64 --threads 1
check matmul-threads-range 2 "--threads: must be an integer from 0 \(all cores\) to 4096" -- "$PL" matmul --m 16 --n 8 --k 64 --threads 4294967297
check mlp-threads 0 '"threads": 1' -- "$PL" mlp --layers 2 --width 16 --batch 4 --threads 1 --json
# float8_e8m0fnu from a file of positive values (powers of two), with no bias, it runs.
if needed matmul-scale-format-from-file; then
python3 -c "
import struct, sys
h = \"{'descr': '<f8', 'fortran_order': False, 'shape': (2, 4), }\"
h = h + ' ' * (63 - (10 + len(h)) % 64) + '\\n'
sys.stdout.buffer.write(b'\\x93NUMPY\\x01\\x00' + struct.pack('<H', len(h)) + h.encode() + struct.pack('<8d', *[2.0 ** i for i in range(8)]))" >"$TMP/powers.npy"
fi
check matmul-scale-format-from-file 0 'float8_e8m0fnu' -- \
  "$PL" matmul --linear --a "$TMP/powers.npy" --b "$TMP/powers.npy" --input-dtype float8_e8m0fnu --weight-dtype float32
check matmul-files 0 'linear: x \(3 x 4\)' -- "$PL" matmul --linear --a "$IO/f64.npy" --b "$IO/model.safetensors:layer.weight@0:2,0:4" --out "$TMP/c.npy"
check matmul-out 0 '\(3, 2\)' -- "$PL" tensors "$TMP/c.npy"
check matmul-raw 0 'bfloat16, none' -- "$PL" matmul --linear --raw --a "$IO/bf16_raw.npy" --b "$IO/bf16_raw.npy" --input-dtype bfloat16 --weight-dtype bfloat16
check matmul-shapes 2 'the input .*/f64.npy \(3, 4\) and the weight .*/f64.npy \(3, 4\) do not fit: a matmul multiplies an m x k input by a k x n weight' -- "$PL" matmul --a "$IO/f64.npy" --b "$IO/f64.npy"
check matmul-one-file 2 'give both the input and the weight' -- "$PL" matmul --a "$IO/f64.npy"
check matmul-bad-tensor 2 "no tensor 'nope' \(the file holds: layer.weight" -- "$PL" matmul --a "$IO/f64.npy" --b "$IO/model.safetensors:nope"
check matmul-bad-dtype 2 "did you mean" -- "$PL" matmul --input-dtype bfloat61
check matmul-bad-recipe 2 'NVFP4 elements are float4_e2m1fn' -- "$PL" matmul --input-scaling nvfp4
check matmul-missing-file 2 'cannot open' -- "$PL" matmul --a "$TMP/none.npy" --b "$TMP/none.npy"
check tensors-list 0 'layer.weight +F32 +\(6, 5\)' -- "$PL" tensors "$IO/model.safetensors"
if needed tensors-none; then
python3 -c "
import struct, sys
h = b'{\"__metadata__\": {\"format\": \"pt\"}}'
sys.stdout.buffer.write(struct.pack('<Q', len(h)) + h)" >"$TMP/meta-only.safetensors"
fi
check tensors-none 0 'meta-only\.safetensors holds no tensors' -- "$PL" tensors "$TMP/meta-only.safetensors"
# Options for drawn operands, given with files, are refused (they were silently ignored).
check matmul-files-drawn-shape 2 "--m is for drawn operands: with --a and --b the shapes and values are the files'" -- "$PL" matmul --linear --m 99 --a "$IO/f64.npy" --b "$IO/f64.npy"
check matmul-files-drawn-data 2 "--weight-data is for drawn operands" -- "$PL" matmul --linear --weight-data uniform --a "$IO/f64.npy" --b "$IO/f64.npy"
# "NAME@" was read as the whole tensor.
check matmul-empty-slice 2 "nothing after '@': give ROWS,COLS" -- \
  "$PL" matmul --linear --a "$IO/f64.npy" --b "$IO/model.safetensors:layer.weight@"
check matmul-files-seed-draws-bias 0 '\+ bias float32' -- "$PL" matmul --linear --seed 3 --bias-dtype float32 --a "$IO/f64.npy" --b "$IO/model.safetensors:layer.weight@0:2,0:4"
# Bug: result.json's config read as a drawn run (normal draws, no file names) for a run of files;
# it names them, and keeps the shape read from them.
check matmul-files-json-config 0 '"input_file": ' -- "$PL" matmul --linear --a "$IO/f64.npy" --b "$IO/model.safetensors:layer.weight@0:2,0:4" --json
check matmul-files-json-shape 0 '"m": 3,' -- "$PL" matmul --linear --a "$IO/f64.npy" --b "$IO/model.safetensors:layer.weight@0:2,0:4" --json
# Bug: --seed with files and nothing drawn changed nothing (not even --rounding stochastic, whose
# stream is the cast's own), and was not refused as the other drawn-only options are.
check matmul-files-seed-changes-nothing 2 "--seed is for drawn operands, a drawn bias, a delayed recipe.s history and --rounding stochastic" -- "$PL" matmul --linear --seed 3 --a "$IO/f64.npy" --b "$IO/model.safetensors:layer.weight@0:2,0:4"
# Bug: stochastic rounding drew the same bits whatever the seed, so --seed was refused here as
# changing nothing; it seeds the rounding, and is taken.
check matmul-files-seed-stochastic 0 'normwise' -- "$PL" matmul --linear --seed 3 --rounding stochastic --a "$IO/f64.npy" --b "$IO/model.safetensors:layer.weight@0:2,0:4"
check matmul-raw-no-files 2 '--raw reads the .npy files of --a and --b as raw codes' -- "$PL" matmul --raw
# Bug: an input of NaNs read as an exact round trip ("max |e| 0.000e+00 ... SQNR 0.0 dB"): the
# statistics take only the elements whose original and round trip are both finite.
if needed roundtrip-all-nan; then
python3 -c 'import sys
h = "{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: (2,), }"
h += " " * (63 - 10 - len(h)) + "\n"
sys.stdout.buffer.write(b"\x93NUMPY\x01\x00" + bytes([len(h), 0]) + h.encode() + b"\x00\x00\xc0\x7f" * 2)' \
  >"$TMP/nan.npy"
fi
check roundtrip-all-nan 0 '^no element to compare: of the 2 values, none is finite with a finite round trip$' -- \
  "$PL" roundtrip --input "$TMP/nan.npy" --dtype float16
# Bug: "(over 3 of 4 values ...)" followed SQNR alone, and read as SQNR's; it covers every figure.
if needed roundtrip-some-nan; then
python3 -c 'import struct, sys
h = "{\x27descr\x27: \x27<f4\x27, \x27fortran_order\x27: False, \x27shape\x27: (4,), }"
h += " " * (63 - 10 - len(h)) + "\n"
sys.stdout.buffer.write(b"\x93NUMPY\x01\x00" + bytes([len(h), 0]) + h.encode() + struct.pack("<4f", 1.0, float("nan"), 3.0, 0.1))' \
  >"$TMP/some-nan.npy"
fi
check roundtrip-some-nan 0 '^over 3 of 4 values \(the others or their round trips are not finite\): max \|e\|' -- \
  "$PL" roundtrip --input "$TMP/some-nan.npy" --dtype float16
check roundtrip-input-rows 2 "--cols is for drawn values: with --input the shape is the tensor's" -- "$PL" roundtrip --input "$IO/f64.npy" --cols 8
check roundtrip-input-data 2 '--data is for drawn values' -- "$PL" roundtrip --input "$IO/f64.npy" --data uniform
# Options and keys that would change nothing are refused, not taken (a --seed with --input was
# even written into setup.json).
check roundtrip-input-seed 2 '--seed is for drawn values, --rounding stochastic' -- \
  "$PL" roundtrip --input "$IO/f64.npy" --dtype float16 --seed 3
check roundtrip-input-seed-stochastic 0 'round trip through float16' -- \
  "$PL" roundtrip --input "$IO/f64.npy" --dtype float16 --seed 3 --rounding stochastic
echo '{"experiment": "roundtrip", "dtype": "float16", "input_file": "'"$IO/f64.npy"'", "seed": 3}' >"$TMP/rt-seed.json"
check run-roundtrip-input-seed 2 "'seed': is for drawn values" -- "$PL" run "$TMP/rt-seed.json" --out "$TMP/rt-seed"
check roundtrip-int-overflow 2 "an overflow policy is for float formats: int8's values are clamped" -- \
  "$PL" roundtrip --dtype int8 --scaling per-tensor --overflow no-saturate
# Bug: an integer dtype ignored --rounding and reported it ("round trip through int8 (per-channel,
# rtz)", "rounding": "rtz" in the JSON) with the statistics of nearest-even.
check roundtrip-int-rounding 2 "--rounding rtz is for float dtypes: int8.s values round to nearest, ties to even" -- \
  "$PL" roundtrip --rows 4 --cols 64 --dtype int8 --scaling per-channel --rounding rtz
check roundtrip-int-rounding-rne 0 "round trip through int8" -- "$PL" roundtrip --rows 4 --cols 64 --dtype int8 --scaling per-channel --rounding rne
# Bug: a run file's integer round trip with "rounding": "rtz" recorded rtz in its result and
# setup, though an integer rounds to nearest, ties to even.
echo '{"experiment": "roundtrip", "dtype": "int8", "scaling": "per-channel", "rounding": "rtz", "rows": 4, "cols": 64}' >"$TMP/rt-int-rtz.json"
check run-roundtrip-int-records-rne 0 '"rounding": "rne"' -- "$PL" run "$TMP/rt-int-rtz.json" --out "$TMP/rt-int-rtz" --json
# Bug: with the rounding recorded as rne, an integer round trip of a file with "stochastic" and
# a seed saved the seed beside it, and its setup.json was then refused ("changes nothing").
echo '{"experiment": "roundtrip", "dtype": "int8", "scaling": "per-channel", "rounding": "stochastic", "input_file": "'"$IO/f64.npy"'"}' >"$TMP/rt-int-sr.json"
check run-roundtrip-int-setup-reruns 0 'round trip' -- bash -c '"$1" run "$2" --out "$3/a" >/dev/null && "$1" run "$3/a/setup.json" --out "$3/b"' _ "$PL" "$TMP/rt-int-sr.json" "$TMP/rt-int-sr"
# Its seed, given, is refused saying why: the message named stochastic rounding as what reads it.
echo '{"experiment": "roundtrip", "dtype": "int8", "scaling": "per-channel", "rounding": "stochastic", "seed": 4, "input_file": "'"$IO/f64.npy"'"}' >"$TMP/rt-int-sr-seed.json"
check run-roundtrip-int-seed-says-why 2 "int8 rounds to nearest, ties to even, whatever the rounding" -- "$PL" run "$TMP/rt-int-sr-seed.json" --out "$TMP/rt-int-sr-seed"
echo '{"experiment": "sum", "b": "float16"}' >"$TMP/sum-b.json"
check run-sum-b 2 "'b': is for a dot product" -- "$PL" run "$TMP/sum-b.json" --out "$TMP/sum-b"
echo '{"experiment": "linear", "m": 4, "n": 4, "k": 4, "bias_data": "uniform"}' >"$TMP/bias-data.json"
check run-bias-data-without-bias 2 "'bias_data': draws a bias" -- "$PL" run "$TMP/bias-data.json" --out "$TMP/bias-data"
check roundtrip-input-delayed-data 0 '\(delayed, rne\), 3 x 4 loaded values' -- "$PL" roundtrip --input "$IO/f64.npy" --data uniform --scaling delayed
cat > "$TMP/exp.json" <<'JSON'
{"experiment": "linear", "m": 8, "n": 8, "k": 64, "input": "float8_e4m3fn", "weight": "float8_e5m2",
 "input_scaling": "mx", "weight_scaling": "mx", "accumulate": "f32:sequential", "bias": "bfloat16",
 "input_data": {"distribution": "outlier-channels", "outlier_gain": 50}}
JSON
check run-config 0 'wrote .*result.json' -- "$PL" run "$TMP/exp.json" --out "$TMP/out"
check run-setup-reruns 0 '^same$' -- bash -c "\"$PL\" run \"$TMP/out/setup.json\" --out \"$TMP/out2\" >/dev/null && same_result \"$TMP/out\" \"$TMP/out2\""
check run-backend-cpu 0 'arithmetic: ' -- "$PL" run "$TMP/exp.json" --out "$TMP/out5" --backend cpu
check run-directory 2 "is a directory, not a file" -- "$PL" run "$TMP" --out "$TMP/out6"
check tensors-directory 2 "is a directory, not a file" -- "$PL" tensors "$TMP"
# Past the memory there is (here an address-space limit, `ulimit -v`): refused before anything
# is allocated, naming the limit -- these ended in std::bad_alloc and std::terminate. A .npy of
# 2^27 float64s (1 GiB, sparse on disk) is listed from its header alone.
big_header="{'descr': '<f8', 'fortran_order': False, 'shape': (8192, 16384), }"
big_header=$(printf '%-117s' "$big_header")
{ printf '\x93NUMPY\x01\x00\x76\x00'; printf '%s\n' "$big_header"; } > "$TMP/big.npy"
truncate -s $((128 + (1 << 30))) "$TMP/big.npy"
limited() { bash -c 'ulimit -v 1500000 && exec "$@"' limited "$@"; }
check matmul-past-memory 2 'the shape needs about 7.5 GiB of working memory; [0-9.]+ GiB is free here \(ulimit -v\)' -- limited "$PL" matmul --m 8192 --n 8192 --k 2048
check roundtrip-past-memory 2 'the array needs about 10.0 GiB of working memory; .*\(ulimit -v\)' -- limited "$PL" roundtrip --rows 16384 --cols 16384
check npy-past-memory 2 "reading $TMP/big.npy needs about 2.0 GiB of working memory" -- limited "$PL" roundtrip --input "$TMP/big.npy"
check bench-past-memory 2 '\-\-elements needs about 4.5 GiB of working memory; .*\(ulimit -v\)' -- limited "$PL" bench --elements 400000000 --reps 1 --formats float16
# (Under the limit: the refusal must come before any operand is drawn -- drawing them needs
# 12 GiB, which the limit would refuse with another message.)
check bench-throughput-gpu-size-on-cpu 1 'a 16384\^3 product would run on the CPU \(no GPU opened\), which takes n up to 4096' -- limited "$PL" bench --op throughput --sizes 16384 --backend auto --dtypes float32
check tensors-header-only 0 '<f8 +\(8192, 16384\)' -- limited "$PL" tensors "$TMP/big.npy"
CKPT="$PL_DATA/checkpoint/sharded"
check scan-sharded 0 '16 tensors scanned .*6 left out' -- "$PL" scan "$CKPT"
# Without PyTorch the capture script says so in a line (exit 1: the environment), not a traceback.
if needed capture-without-torch && ! python3 -c 'import torch' 2>/dev/null; then
  check capture-without-torch 1 '^capture_activations: PyTorch is not installed here' -- \
    python3 "$PL_DATA/../../scripts/capture_activations.py" --help
fi
# On a terminal (script(1) gives one) the scan shows its progress on stderr. Bug: the filter that
# escapes stderr (a stream of its own, with no file descriptor) read as no terminal, and every
# progress line (scan, matmul, dot) stayed silent.
check scan-progress-on-a-terminal 0 'scan: 0 of 16 tensors' -- \
  script -qec "\"$PL\" scan \"$CKPT\" > /dev/null" /dev/null
check scan-index 0 'model.layers.1.mlp.down_proj.weight +exact' -- "$PL" scan "$CKPT/model.safetensors.index.json"
check scan-json 0 '"frontier": \[' -- "$PL" scan "$CKPT" --json --candidates bfloat16,float8_e4m3fn:per-channel
check scan-plan 0 'plan within 6 bits/param: 5\.996 bits/param' -- "$PL" scan "$CKPT" --budget 6
# One tensor (a float8-stored v_proj) holds 99% of the synthetic checkpoint's energy: the pooled
# SQNR says it is mostly that tensor's.
check scan-plan-pooled 0 'pooled: model\.layers\.1\.self_attn\.v_proj\.weight holds 99% of the energy' -- \
  "$PL" scan "$CKPT" --budget 6
# A tensor of NaNs read "exact" under every candidate, without a word: it is named, and not scored.
if needed scan-all-nan-said scan-all-nan-not-exact; then
python3 -c "
import struct, json, sys
h = json.dumps({'a.weight': {'dtype': 'F32', 'shape': [8, 8], 'data_offsets': [0, 256]}}).encode()
sys.stdout.buffer.write(struct.pack('<Q', len(h)) + h + b'\xff' * 256)" >"$TMP/all-nan.safetensors"
fi
check scan-all-nan-said 0 'note: 1 tensor holds Inf or NaN elements, left out of every figure: a\.weight \(all 64: not scored\)' -- \
  "$PL" scan "$TMP/all-nan.safetensors" --candidates float8_e4m3fn:per-tensor,int8:per-channel
check scan-all-nan-not-exact 0 '^a\.weight +- +- *$' -- \
  "$PL" scan "$TMP/all-nan.safetensors" --candidates float8_e4m3fn:per-tensor,int8:per-channel
# Bug: a candidate whose copy overflows to NaN (1e6 in float8_e4m3fn, unscaled) has an SQNR of
# -inf, which the heat map draws at the bottom of its scale: its CSV wrote that bottom value, a
# finite dB the candidate does not have.
if needed scan-heatmap-csv-keeps-minus-inf; then
python3 -c "
import struct, json, sys
h = json.dumps({'a.weight': {'dtype': 'F32', 'shape': [4, 4], 'data_offsets': [0, 64]}}).encode()
sys.stdout.buffer.write(struct.pack('<Q', len(h)) + h + struct.pack('<16f', *([1e6] * 16)))" >"$TMP/big.safetensors"
rm -rf "$TMP/big-scan"
"$PL" scan "$TMP/big.safetensors" --candidates bfloat16,float8_e4m3fn --out "$TMP/big-scan" >/dev/null 2>&1
fi
check scan-heatmap-csv-keeps-minus-inf 0 '^[0-9.]+,-inf$' -- cat "$TMP/big-scan/sqnr-heatmap.csv"
check scan-pin 0 'lm_head.weight +bfloat16 ' -- "$PL" scan "$CKPT" --budget 6 --pin lm_head.weight=bf16
check scan-threads 0 'plan within 6 bits/param: 5\.996 bits/param' -- "$PL" scan "$CKPT" --budget 6 --threads 1
check scan-budget-too-small 2 'a budget of 3 bits per parameter is below the cheapest plan.s 4\.25' -- "$PL" scan "$CKPT" --budget 3
check scan-bad-budget 2 'must be a positive number' -- "$PL" scan "$CKPT" --budget -1
check scan-bad-candidate 2 "candidate 'float8_e4m3fn:sideways': no recipe 'sideways'" -- "$PL" scan "$CKPT" --candidates float8_e4m3fn:sideways
check scan-bad-pin 2 "no scanned tensor 'nope'" -- "$PL" scan "$CKPT" --pin nope=bfloat16
check scan-missing 2 'does not exist' -- "$PL" scan "$TMP/no-checkpoint"
check scan-nothing 2 'name a checkpoint to scan' -- "$PL" scan
check scan-no-match 2 "matches --tensors 'nope'" -- "$PL" scan "$CKPT" --tensors nope
check scan-bad-regex 2 'is not a regular expression' -- "$PL" scan "$CKPT" --tensors '('
check scan-group 0 '\[2\] int8:group:64 +8\.25 to 8\.333 bits/param' -- "$PL" scan "$CKPT" --candidates bfloat16,int8:group:64,uint8:group-asymmetric
check scan-group-size-bad 2 "candidate 'int8:group:1': a group holds 2 to 65536 elements, not 1" -- "$PL" scan "$CKPT" --candidates int8:group:1
check roundtrip-group 0 'round trip through int8 \(group:64, rne\)' -- "$PL" roundtrip --dtype int8 --scaling group:64 --rows 4 --cols 256
check roundtrip-group-unsigned 2 'symmetric groups take a signed integer' -- "$PL" roundtrip --dtype uint8 --scaling group --rows 4 --cols 256
check scan-stochastic 0 '"rounding": "stochastic, seed 5"' -- "$PL" scan "$CKPT" --rounding stochastic --seed 5 --json --candidates float8_e4m3fn:mx
check scan-seed-alone 2 'error: --seed seeds stochastic rounding.s draws: give --rounding stochastic' -- "$PL" scan "$CKPT" --seed 5 --candidates float8_e4m3fn:mx
if needed scan-merge-not-a-scan; then
"$PL" matmul --m 4 --n 4 --k 4 --save "$TMP/not-a-scan" >/dev/null 2>&1
fi
check scan-merge-not-a-scan 2 'not-a-scan/result\.json is not a scan.s result \(no "checkpoint" or "tensors"\)' -- \
  "$PL" scan --merge "$TMP/not-a-scan"
check scan-merge-scan-option 2 '--candidates is for a scan: --merge joins scans already made' -- "$PL" scan --merge "$TMP/none" --candidates bfloat16
check scan-part-a 0 'wrote .*/scan-a: .*plan-frontier.svg, result.json, sqnr-heatmap.csv' -- "$PL" scan "$CKPT" --tensors 'layers\.0\..*proj' --out "$TMP/scan-a"
check scan-part-b 0 '9 tensors scanned' -- "$PL" scan "$CKPT" --tensors 'layers\.1\..*proj|embed|lm_head' --out "$TMP/scan-b"
check scan-merge 0 'plan within 6 bits/param: 5\.996 bits/param' -- "$PL" scan --merge "$TMP/scan-a" "$TMP/scan-b" --budget 6
check scan-merge-overlap 2 'is in more than one part' -- "$PL" scan --merge "$TMP/scan-a" "$TMP/scan-a/result.json"
check scan-out-refused 2 'not empty' -- "$PL" scan "$CKPT" --out "$TMP/scan-a"
ACTS="$PL_DATA/checkpoint/activations.safetensors"
printf '{"experiment": "scan", "checkpoint": "%s", "candidates": "int8:per-channel,float4_e2m1fn:mx", "budget": 6}' "$CKPT" > "$TMP/scan.json"
check run-scan 0 'wrote .*result.json, setup.json, sqnr-heatmap' -- "$PL" run "$TMP/scan.json" --out "$TMP/scan-run"
printf '{"experiment": "scan", "checkpoint": "%s", "budget": 3}' "$CKPT" > "$TMP/scan-cheap.json"
check run-scan-budget-too-small 2 "below the cheapest plan's 4.25" -- "$PL" run "$TMP/scan-cheap.json" --out "$TMP/scan-run2"
check scan-activations 0 'plan within 6 bits/param: 5\.9[0-9]+ bits/param, output SQNR [0-9.]+ dB' -- "$PL" scan "$CKPT" --activations "$ACTS" --budget 6
check scan-activations-json 0 '"scored_by": "layer outputs"' -- "$PL" scan "$CKPT" --activations "$ACTS" --candidates bfloat16 --json
check scan-activations-w8a8 0 'inputs in int8:per-channel' -- "$PL" scan "$CKPT" --activations "$ACTS" --activation-format int8:per-channel --candidates int8:per-channel
check scan-activations-skip 0 '15 tensors scanned .*7 left out \(1 integer, 5 1-D or scalar, 1 without inputs\)' -- "$PL" scan "$CKPT" --activations "$ACTS" --candidates bfloat16
check scan-activation-format-alone 2 '--activation-format needs --activations' -- "$PL" scan "$CKPT" --activation-format int8:per-channel
check scan-activation-format-bad 2 "the activations' format: candidate 'int8:sideways': no recipe 'sideways'" -- "$PL" scan "$CKPT" --activations "$ACTS" --activation-format int8:sideways
check scan-activations-missing 2 'the activations: .*/no-acts does not exist' -- "$PL" scan "$CKPT" --activations "$TMP/no-acts"
check scan-activations-unmatched 2 'has its layer.s inputs in' -- "$PL" scan "$CKPT" --activations "$CKPT/model-00001-of-00002.safetensors"
printf '\x50\0\0\0\0\0\0\0%-80s' '{"lm_head.input":{"dtype":"F32","shape":[1,64],"data_offsets":[0,256]}}' > "$TMP/nan-acts.safetensors"
head -c 256 /dev/zero | tr '\0' '\377' >> "$TMP/nan-acts.safetensors"  # every element a NaN
check scan-activations-nan 2 "inputs 'lm_head.input' hold 64 Inf or NaN elements" -- "$PL" scan "$CKPT" --activations "$TMP/nan-acts.safetensors"
echo '{"experiment": "mlp", "width": 16, "batch": 4, "layers": 2}' > "$TMP/mlp-b.json"
check run-mlp-backend 0 "products: .* on cpu" -- "$PL" run "$TMP/mlp-b.json" --out "$TMP/out7" --backend cpu
check run-backend-bad 2 "'tpu': expected cpu, cuda or auto" -- "$PL" run "$TMP/exp.json" --out "$TMP/out5" --backend tpu
# Whether this machine has no GPU, asked of `devices` once and only by checks that need it.
no_gpu() {
  [[ -n ${no_gpu_here:-} ]] || { "$PL" devices | grep -qE '^cuda +[^u ]' && no_gpu_here=no || no_gpu_here=yes; }
  [[ $no_gpu_here == yes ]]
}
if needed run-backend-cuda-fallback run-backend-cuda-json matmul-backend-cuda-fallback mlp-backend-cuda-fallback \
  scan-backend-cuda-fallback && no_gpu; then  # no GPU here: the product falls back, saying why
  check run-backend-cuda-fallback 0 'note: +cuda unavailable: .*the product ran on the CPU' -- "$PL" run "$TMP/exp.json" --out "$TMP/out6" --backend cuda
  check run-backend-cuda-json 0 '"product_backend": "cpu"' -- "$PL" run "$TMP/exp.json" --out "$TMP/out6" --force --backend cuda --json
  check matmul-backend-cuda-fallback 0 'note: +cuda unavailable: .*the product ran on the CPU' -- "$PL" matmul --m 16 --n 16 --k 16 --backend cuda
  check mlp-backend-cuda-fallback 0 'note: cuda unavailable: .*the product ran on the CPU' -- "$PL" mlp --layers 2 --width 16 --batch 4 --backend cuda
  check scan-backend-cuda-fallback 0 'note: cuda unavailable: .*the CPU rounded the values' -- "$PL" scan "$CKPT" --backend cuda --candidates bfloat16
fi
# Bug: bench's matmul and throughput timed the CPU under --backend cuda with no GPU, exiting 0 (the
# JSON said "backend": "cuda"); its help says every op exits 1 there, as convert and product did.
if needed bench-matmul-cuda-no-gpu bench-throughput-cuda-no-gpu && no_gpu; then
  check bench-matmul-cuda-no-gpu 1 'error: .*cuda' -- "$PL" bench --op matmul --sizes 16 --reps 1 --backend cuda
  check bench-throughput-cuda-no-gpu 1 'error: .*cuda' -- "$PL" bench --op throughput --sizes 16 --seconds 0.1 --backend cuda
fi
check matmul-backend-cpu 0 '"product_backend": "cpu"' -- "$PL" matmul --m 16 --n 16 --k 16 --backend cpu --json
check matmul-backend-bad 2 "'tpu': expected cpu, cuda or auto" -- "$PL" matmul --m 16 --n 16 --k 16 --backend tpu
check mlp-backend-bad 2 "'gpu': expected cpu, cuda or auto" -- "$PL" mlp --layers 2 --width 16 --batch 4 --backend gpu
check dot-backend-bad 2 "'GPU': expected cpu, cuda or auto" -- "$PL" dot --k 16 --backend GPU
check bench-backend-bad 2 "'tpu': expected cpu, cuda or auto" -- "$PL" bench --backend tpu
echo '{"experiment": "dot", "lengths": [16], "backend": "gpu"}' > "$TMP/bad-backend.json"
check run-file-backend-bad 2 "'backend': 'gpu': expected cpu, cuda or auto" -- "$PL" run "$TMP/bad-backend.json" --out "$TMP/o-bb"
check matmul-fast-accum-cpu 0 'no fast accumulation on the CPU' -- "$PL" matmul --m 16 --n 16 --k 16 --input-dtype float8_e4m3fn --weight-dtype float8_e4m3fn --input-scaling per-tensor --weight-scaling per-tensor --backend cpu --fast-accum
check run-csv 0 'arithmetic,ulps' -- cat "$TMP/out/histograms.csv"
echo '{"experiment": "linear", "colour": 3}' > "$TMP/bad.json"
check run-unknown-key 2 "unknown key 'colour'" -- "$PL" run "$TMP/bad.json" --out "$TMP/o3"
echo '{"m": 0}' > "$TMP/bad2.json"
check run-bad-shape 2 "'m': must be a positive integer" -- "$PL" run "$TMP/bad2.json" --out "$TMP/o4"
echo '{"m": ' > "$TMP/bad3.json"
check run-bad-json 2 'not valid JSON' -- "$PL" run "$TMP/bad3.json" --out "$TMP/o5"
echo '{"experiment": "sum", "lengths": [16, 256], "a": "bfloat16", "accumulate": ["bf16:sequential", "f32:pairwise:32"], "trials": 4}' > "$TMP/sum.json"
check run-sum 0 'wrote .*error-vs-k' -- "$PL" run "$TMP/sum.json" --out "$TMP/sum"
check run-sum-reruns 0 '^same$' -- bash -c "\"$PL\" run \"$TMP/sum/setup.json\" --out \"$TMP/sum2\" >/dev/null && same_result \"$TMP/sum\" \"$TMP/sum2\""
check run-dot-json 0 '"probabilistic_estimate"' -- "$PL" run "$TMP/sum.json" --out "$TMP/sum3" --json
echo '{"experiment": "dot", "accumulate": "f32:sideways"}' > "$TMP/baddot.json"
check run-dot-bad-model 2 "'accumulate'" -- "$PL" run "$TMP/baddot.json" --out "$TMP/o6"
echo '{"experiment": "roundtrip", "dtype": "float4_e2m1fn", "scaling": "nvfp4", "rows": 8, "cols": 64, "data": "heavy-tailed"}' > "$TMP/cast.json"
printf '{"experiment": "throughput", "dtypes": ["float32", "bfloat16", "int8"], "n": 32, "repetitions": 2}' > "$TMP/tp.json"
check run-throughput 0 'bfloat16 +[0-9.]+ +[0-9.]+ +989\.4 TFLOP/s x14\.8' -- "$PL" run "$TMP/tp.json" --out "$TMP/tp"
# An integer dtype's datasheet rate is in TOPS, and every rate names its unit (a bare "1978.9 T"
# beside the GOP/s column would read as a thousand of them).
check run-throughput-int8-tops 0 'int8 +[0-9.]+ +[0-9.]+ +1978\.9 TOPS +x29\.6' -- "$PL" run "$TMP/tp.json" --out "$TMP/tp-tops"
check run-throughput-figures 0 'speedup-vs-datasheet\.png' -- ls "$TMP/tp"
printf '{"experiment": "throughput", "datasheet": "H300"}' > "$TMP/tp-bad.json"
check run-throughput-bad-part 2 "'datasheet': no part 'H300' in the peak table" -- "$PL" run "$TMP/tp-bad.json" --out "$TMP/tp-bad"
check run-cast 0 'round trip through float4_e2m1fn \(nvfp4\)' -- "$PL" run "$TMP/cast.json" --out "$TMP/cast"
check run-cast-figures 0 'roundtrip-range.png' -- ls "$TMP/cast"
check run-cast-cpu 0 'rounded on cpu' -- "$PL" run "$TMP/cast.json" --out "$TMP/cast3" --backend cpu
if ! needed run-cast-cuda-fallback roundtrip-cuda-json run-cast-cuda roundtrip-cuda-e8m0; then
  :
elif no_gpu; then  # no GPU here: the CPU rounds, saying why
  check run-cast-cuda-fallback 0 'note: cuda unavailable: .*the CPU rounded the values' -- "$PL" run "$TMP/cast.json" --out "$TMP/cast4" --backend cuda
  check roundtrip-cuda-json 0 '"ran_on": "cpu"' -- "$PL" roundtrip --rows 4 --cols 32 --backend cuda --json
else  # a GPU: every table format but e8m0 is rounded there
  check run-cast-cuda 0 'rounded on cuda \(' -- "$PL" run "$TMP/cast.json" --out "$TMP/cast4" --backend cuda
  check roundtrip-cuda-e8m0 0 'note: cuda failed: no GPU kernel rounds float64 values into float8_e8m0fnu' -- "$PL" roundtrip --rows 4 --cols 32 --dtype float8_e8m0fnu --backend cuda
fi
check roundtrip-backend-bad 2 "'gpu': expected cpu, cuda or auto" -- "$PL" roundtrip --backend gpu
echo "{\"experiment\": \"cast\", \"dtype\": \"bfloat16\", \"input_file\": \"$IO/f64.npy\"}" > "$TMP/castfile.json"
# What matmul refuses in a combination, a file refuses too (the file's shape wins otherwise, silently).
echo "{\"experiment\": \"linear\", \"m\": 4, \"input_file\": \"$IO/f64.npy\", \"weight_file\": \"$IO/f64.npy\"}" > "$TMP/mfile.json"
check run-drawn-key-with-files 2 "'m': is for drawn operands: with input_file and weight_file" -- "$PL" run "$TMP/mfile.json" --out "$TMP/mfile"
check run-cast-file 0 '"rows": 3' -- "$PL" run "$TMP/castfile.json" --out "$TMP/cast2" --json
# The round trip's old kind name ("cast") is still read, with a note naming the new one.
check run-roundtrip-old-name 0 "note: .*castfile.json: 'cast' is the old name of the experiment 'roundtrip'" -- "$PL" run "$TMP/castfile.json" --out "$TMP/cast5"
echo '{"experiment": "roundtrip", "dtype": "bfloat16", "scaling": "mx"}' > "$TMP/badcast.json"
check run-cast-bad-recipe 2 'the MX recipe takes float8/float6/float4 elements' -- "$PL" run "$TMP/badcast.json" --out "$TMP/o7"
check mlp-table 0 'network err' -- "$PL" mlp --layers 3 --width 32 --batch 8
# Every output NaN or Inf: the table shows no error ('-') rather than zeros, and counts them.
echo '{"experiment": "linear", "m": 16, "n": 16, "k": 64, "input": "float16", "weight": "float16",
       "output": "float16", "input_data": {"distribution": "normal", "scale": 60000}}' > "$TMP/allnan.json"
check run-all-nonfinite 0 '^total +- +- +- +- +- +- +-$' -- "$PL" run "$TMP/allnan.json" --out "$TMP/allnan"
check run-all-nonfinite-count 0 'outright: 256 NaN, 0 overflow to Inf \(not in the statistics\)' -- "$PL" run "$TMP/allnan.json" --out "$TMP/allnan2"
check dot-all-overflow 0 '4096  e3m4 sequential rne +- +none .* +- +- +16 of 16$' -- "$PL" dot --k 16,4096 --a-dtype bfloat16 --sum --accumulate float8_e3m4:sequential --trials 16
check mlp-json 0 '"reference_rms"' -- "$PL" mlp --layers 2 --width 16 --batch 4 --activation gelu --json
check mlp-save 0 'layer' -- "$PL" mlp --layers 2 --width 16 --batch 4 --save "$TMP/mlp"
check mlp-figure 0 'error-vs-layer.png' -- ls "$TMP/mlp"
check mlp-rerun 0 '^same$' -- bash -c "\"$PL\" run \"$TMP/mlp/setup.json\" --out \"$TMP/mlp2\" >/dev/null && same_result \"$TMP/mlp\" \"$TMP/mlp2\""
check mlp-bad-activation 2 "relu, gelu or identity" -- "$PL" mlp --activation swish
check dot-save 0 'error-vs-k.svg' -- bash -c "\"$PL\" dot --k 16,64 --trials 2 --save \"$TMP/dot\" >/dev/null && ls \"$TMP/dot\""
check matmul-save-figures 0 'error-heatmap.pdf' -- bash -c "\"$PL\" matmul --m 8 --n 8 --k 16 --save \"$TMP/mm\" >/dev/null && ls \"$TMP/mm\""
# Figures at the size and resolution asked for: 600x350 points at 192 dpi are 1200x700 pixels.
check figure-size-dpi 0 '^1200x700$' -- bash -c "\"$PL\" matmul --m 8 --n 8 --k 16 --save \"$TMP/mm-size\" --size 600x350 --dpi 192 >/dev/null && python3 -c 'import struct,sys; d=open(sys.argv[1],\"rb\").read(24); print(\"%dx%d\" % struct.unpack(\">II\", d[16:24]))' \"$TMP/mm-size/error-attribution.png\""
check figure-size-bad 2 "--size '12x7': expected WIDTHxHEIGHT in pixels at 96 dpi, each 100 to 10000" -- "$PL" matmul --m 8 --n 8 --k 16 --save "$TMP/mm-bad" --size 12x7
check figure-dpi-bad 2 '--dpi 5: expected 24 to 1200' -- "$PL" run "$TMP/sum.json" --out "$TMP/sum-dpi" --dpi 5
check scenario-export-size 0 'wrote ' -- "$PL" scenario export 08 --out "$TMP/sc08-size" --size 1600x900 --dpi 144
check matmul-torch-raises 0 'x.to\(w.dtype\) +f32' -- "$PL" matmul --linear --framework torch --input-dtype float16 --weight-dtype float32 --m 8 --n 8 --k 32
check matmul-torch-ok 0 'the output dtype follows: bfloat16' -- "$PL" matmul --linear --framework torch --m 8 --n 8 --k 32
cat > "$TMP/fw.json" <<'JSON'
{"experiment": "linear", "m": 8, "n": 8, "k": 32, "input": "float16", "weight": "float32", "output": "float32", "framework": "torch"}
JSON
check run-framework-raises 0 'raises RuntimeError: expected m1 and m2 to have the same dtype.*' -- "$PL" run "$TMP/fw.json" --out "$TMP/fw"
check run-framework-files 0 '^fix-1 fix-2 fix-3 .*framework\.json .*setup\.json $' -- bash -c "ls \"$TMP/fw\" | tr '\\n' ' '"
check run-framework-fix-reruns 0 '^same$' -- bash -c "\"$PL\" run \"$TMP/fw/fix-1/setup.json\" --out \"$TMP/fw-fix\" >/dev/null && same_result \"$TMP/fw/fix-1\" \"$TMP/fw-fix\""
# Every figure the window shows for the setup, the fixes' comparison too, and the message says so.
check run-framework-fixes-figure 0 'framework-fixes.png' -- ls "$TMP/fw"
check run-framework-says-figures 0 'wrote .*framework-fixes' -- "$PL" run "$TMP/fw.json" --out "$TMP/fw-says"
check run-lists-figures 0 'wrote .*error-attribution\.\*, arithmetic-vs-bound' -- "$PL" run "$TMP/exp.json" --out "$TMP/out-lists"
echo '{"experiment": "linear", "framework": "caffe"}' > "$TMP/fw-bad.json"
check run-framework-unknown 2 "'framework': unknown framework 'caffe'" -- "$PL" run "$TMP/fw-bad.json" --out "$TMP/fw-bad"
check matmul-torch-save 0 'x.to' -- "$PL" matmul --linear --framework torch --input-dtype float16 --weight-dtype float32 --m 8 --n 8 --k 32 --save "$TMP/fw-save"
check matmul-torch-save-files 0 'error-attribution.svg' -- ls "$TMP/fw-save/fix-1"
check matmul-torch-json 0 '"code": "model.to\(x.dtype\)"' -- "$PL" matmul --linear --framework torch --input-dtype float16 --weight-dtype float32 --m 8 --n 8 --k 32 --json
check matmul-bad-framework 2 "unknown framework 'mxnet'" -- "$PL" matmul --framework mxnet
check matmul-framework-full-name 0 'torch 2.15.0 \(cpu\): linear' -- "$PL" matmul --linear --framework pytorch --m 8 --n 8 --k 8 --input-dtype float16 --weight-dtype float32
check promote-tensorflow-full-name 0 'tensorflow 2.21.0 \(cpu, oneDNN off\): add' -- "$PL" promote --framework tensorflow int8 float32
# An unknown panel is refused naming the window's panels, in tab order.
check window-bad-panel 2 "unknown panel 'nope' \\(panels: formats, promotion, experiment, throughput, log, scenarios, explorer, checkpoint, start\\)" -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --panel nope
check window-bad-setup 2 'unknown key' -- "$PL" --screenshot "$TMP/x.png" --setup "$TMP/bad.json"
check window-look-at-negative 2 "--look-at: '-1' is not a whole number" -- "$PL" --screenshot "$TMP/x.png" --no-settings --scenario 12 --look-at -1
# CLI11's own wording of three parse errors ("--m: At Most 1 required but received 2", "could
# not convert: --lr = 1,5", "--size: 1 required TEXT missing"), said as the others are.
check parse-repeated 2 '^error: --m is given 2 times: give it once \(see precision-lab matmul --help\)' -- \
  "$PL" matmul --m 4 --m 5
check parse-conversion 2 "^error: --lr: '1,5' is not a value it takes" -- "$PL" train --lr 1,5
check parse-missing-value 2 '^error: --merge needs a value' -- "$PL" scan --merge
check window-look-at-alone 2 'give --scenario too' -- "$PL" --screenshot "$TMP/x.png" --no-settings --look-at 1
# A folder named as the screenshot was found only when the frame was written (exit 1), and the
# window's errors began "precision-lab:" where every command's begin "error:".
mkdir -p "$TMP/shot.png"
check window-screenshot-folder 2 '^error: --screenshot .*shot\.png is a folder: name the PNG file' -- \
  "$PL" --screenshot "$TMP/shot.png" --no-settings
# Bug: the picture replaced the run's own --setup file (exit 0, the JSON gone), replaced a
# symbolic link without a word, and a missing folder for it was found only after the frame (exit 1).
check window-screenshot-over-its-setup 2 '^error: --screenshot .*own-setup\.json is --setup, an input of this run' -- \
  bash -c 'echo "{\"experiment\": \"linear\", \"m\": 8, \"n\": 8, \"k\": 16}" > "$1/own-setup.json" &&
    env -u DISPLAY -u WAYLAND_DISPLAY "$0" --no-settings --setup "$1/own-setup.json" --screenshot "$1/own-setup.json"' "$PL" "$TMP"
check window-screenshot-link 2 '^error: --screenshot .*shot-link\.png is a symbolic link: name the file itself' -- \
  bash -c 'ln -sf /dev/null "$1/shot-link.png" && "$0" --no-settings --screenshot "$1/shot-link.png"' "$PL" "$TMP"
check window-screenshot-no-folder 2 '^error: --screenshot .*/nowhere/x\.png: there is no folder .*/nowhere to write it in' -- \
  "$PL" --screenshot "$TMP/nowhere/x.png" --no-settings
check window-error-prefix 2 '^error: --select takes A,B' -- "$PL" --screenshot "$TMP/x.png" --no-settings --select float16
# The Promotion panel starts addmm with a float32 bias (it has no form without one) and names it.
check window-addmm-names-its-bias 0 'promotion: torch 2\.15\.0 \(cpu\): addmm\(torch\.float16, torch\.float32, bias: torch\.float32\) RuntimeError: mat1 and mat2' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --size 1280x800 --no-settings --panel promotion --op addmm --select float16,float32 --verbose
check window-look-at-past 2 '--look-at 3: scenario 12-which-e4m3 has 1 look-at link' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --scenario 12 --look-at 3
check window-figure-only-alone 2 "--figure-only shows the figures of the --scenario given: give --scenario too" -- "$PL" --screenshot "$TMP/x.png" --no-settings --figure-only
# What the window would only have put in its log is refused where it was typed.
check window-open-missing 2 'error: --open nope.npy: no such file or folder' -- "$PL" --screenshot "$TMP/x.png" --no-settings --open nope.npy
check window-checkpoint-missing 2 'error: --checkpoint nope.safetensors: no such file or folder' -- "$PL" --screenshot "$TMP/x.png" --no-settings --checkpoint nope.safetensors
# A named file that could not be opened left its panel as before and still wrote the picture,
# exit 0: a setup given to --open, a file no panel takes, a checkpoint that is not one.
printf '{bad' > "$TMP/broken.json"
printf 'garbage' > "$TMP/broken.safetensors"
: > "$TMP/notes.txt"
check window-open-bad-setup 2 '^error: --open: .*broken\.json is not valid JSON' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --size 640x480 --open "$TMP/broken.json"
# Bug: a tensor file that is no .npy was taken unread: the screenshot showed the last run's results, exit 0.
check window-open-bad-npy 2 '^error: --open: .*not-a\.npy: not a \.npy file' -- \
  bash -c 'printf garbage > "$1/not-a.npy" && env -u DISPLAY -u WAYLAND_DISPLAY "$0" --screenshot "$1/x.png" --no-settings --size 640x480 --open "$1/not-a.npy"' "$PL" "$TMP"
check window-open-unknown-kind 2 "^error: --open: .*notes\.txt: not a file the window opens" -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --size 640x480 --open "$TMP/notes.txt"
check window-checkpoint-bad 2 '^error: checkpoint: .*broken\.safetensors: not a safetensors file' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --size 640x480 --checkpoint "$TMP/broken.safetensors"
# The same with another panel showing: the scan's outcome is taken without the Checkpoint tab
# (left for it, the screenshot would wait a minute, then write the picture, exit 0).
check window-checkpoint-bad-other-panel 2 '^error: checkpoint: .*broken\.safetensors: not a safetensors file' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --size 640x480 --panel formats --checkpoint "$TMP/broken.safetensors"
# A remembered last-setup.json that does not read was only logged, and the window's next save
# wrote over it: it is set aside, as a bad settings.json is.
mkdir -p "$TMP/xdg-bad-setup/precision-lab"
printf '{bad' > "$TMP/xdg-bad-setup/precision-lab/last-setup.json"
check window-bad-last-setup-set-aside 0 '^last-setup\.json\.bad-[0-9]+$' -- bash -c "XDG_CONFIG_HOME=\"$TMP/xdg-bad-setup\" env -u DISPLAY -u WAYLAND_DISPLAY \"$PL\" --screenshot \"$TMP/x.png\" --size 640x480 --panel experiment >/dev/null && ls \"$TMP/xdg-bad-setup/precision-lab\""
check window-value-malformed 2 "error: --value: malformed number 'abc'" -- "$PL" --screenshot "$TMP/x.png" --no-settings --value abc
check window-check-layout-alone 2 'give --screenshot too' -- "$PL" --no-settings --check-layout
check window-figure-unknown 2 '--figure nope: no figure of that name in this view' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --size 640x480 --panel formats --figure nope
# A scenario's figures are named by run ("3: roundtrip-range"); a bare name is the first run's.
check window-open-folder 0 'wrote' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --size 640x480 --open "$PL_DATA/checkpoint/sharded"
check window-figure-and-look-at 2 'give one of them' -- "$PL" --screenshot "$TMP/x.png" --no-settings --scenario 12 --look-at 1 --figure checks
check window-figure-of-a-run 0 'wrote' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL" --screenshot "$TMP/x.png" --no-settings --size 640x480 --scenario 13 --figure roundtrip-range
check dot-sum 0 'sums of bfloat16' -- "$PL" dot --sum --k 16,4096 --trials 4 --accumulate bf16:sequential,f32:sequential
check dot-sum-json 0 '"sum": true' -- "$PL" dot --sum --k 16 --trials 2 --json
check roundtrip-fp8 0 'round trip through float8_e4m3fn' -- "$PL" roundtrip --rows 16 --cols 64
check roundtrip-nvfp4 0 '"scaling": "nvfp4"' -- "$PL" roundtrip --dtype float4_e2m1fn --scaling nvfp4 --rows 8 --cols 64 --json
check roundtrip-file 0 '3 x 4 loaded' -- "$PL" roundtrip --dtype bfloat16 --input "$IO/f64.npy"
check roundtrip-save 0 'roundtrip-range.svg' -- bash -c "\"$PL\" roundtrip --rows 8 --cols 32 --save \"$TMP/rt\" >/dev/null && ls \"$TMP/rt\""
# Its setup.json repeats it: the same result.json from `run`.
check roundtrip-save-reruns 0 '^same$' -- bash -c "\"$PL\" roundtrip --rows 8 --cols 32 --dtype float8_e5m2 --scaling mx --save \"$TMP/rt2\" >/dev/null && \"$PL\" run \"$TMP/rt2/setup.json\" --out \"$TMP/rt2-again\" >/dev/null && cmp -s \"$TMP/rt2/result.json\" \"$TMP/rt2-again/result.json\" && echo same"
check scenario-run-out-says-slides 0 'wrote .*/slides.pdf, slides.html, story.md' -- "$PL" scenario run 6 --out "$TMP/scenario-6"
check roundtrip-bad-recipe 2 'the MX recipe takes float8/float6/float4 elements' -- "$PL" roundtrip --dtype bfloat16 --scaling mx
check scenario-list 0 '06-float16-50-over-49 +50/49 in float16' -- "$PL" scenario list
check scenario-list-json 0 '"checks": 7' -- "$PL" scenario list --json
check scenario-run-number 0 'pass  65520 in float16.*' -- "$PL" scenario run 6
check scenario-run-short-name 0 '13 of 13 checks pass' -- "$PL" scenario run which-e4m3
check scenario-unknown 2 "no scenario 'float17' \(01-numpy" -- "$PL" scenario run float17
# Bug: a FIFO given as input blocked the open until killed; a --setup that is a link to itself
# ended the window's option check in std::terminate (exit 134). Both are refused, exit 2.
mkfifo "$TMP/in.fifo"
check fifo-input-refused 2 'is not a regular file' -- timeout 20 "$PL" tensors "$TMP/in.fifo"
ln -s "$TMP/self-link" "$TMP/self-link"
check window-setup-link-loop 2 'setup .*: Too many levels of symbolic links' -- "$PL" --setup "$TMP/self-link" --no-settings
# Bug: the window's --screenshot never checked its standard output (exit 0 into /dev/full); a
# --merge part that cannot be looked at ended in "unexpected error" (exit 1).
check screenshot-stdout-full 1 'writing to standard output failed' -- bash -c 'env -u DISPLAY -u WAYLAND_DISPLAY "$0" --screenshot "$1/full.png" --no-settings > /dev/full' "$PL" "$TMP"
check scan-merge-link-loop 2 'Too many levels of symbolic links' -- "$PL" scan --merge "$TMP/self-link"
# Bug: a file name that is not UTF-8 made every JSON output throw at the end of the run ("invalid
# UTF-8 byte", exit 1): the results were lost. Such bytes are written as U+FFFD.
cp "$IO/f32_big_endian.npy" "$TMP/"$'\xff'"name.npy"
check non-utf8-name-json 0 '"input_file": ".*name.npy"' -- "$PL" roundtrip --input "$TMP/"$'\xff'"name.npy" --dtype bfloat16 --json
check non-utf8-name-save 0 'rounded on cpu' -- "$PL" roundtrip --input "$TMP/"$'\xff'"name.npy" --dtype bfloat16 --save "$TMP/non-utf8"
check non-utf8-name-saved 0 'result.json' -- bash -c '"$0" roundtrip --input "$1" --dtype bfloat16 --save "$2" >/dev/null && ls "$2"' "$PL" "$TMP/"$'\xff'"name.npy" "$TMP/non-utf8-saved"
# Bug: Ctrl-C during bench --op throughput was acted on only when --seconds (up to an hour) was
# up. It ends the sampling at the next sample: the run below would otherwise take the hour.
check bench-throughput-ctrl-c 0 'status 130' -- bash -c '"$0" bench --op throughput --seconds 3600 --sizes 64 >/dev/null 2>&1 & p=$!; sleep 3; kill -INT $p; timeout 120 tail --pid=$p -f /dev/null || kill -9 $p; wait $p; echo "status $?"' "$PL"
# Bug: a name of 246 bytes ran the whole job, then failed ("File name too long"): the temporary
# beside it added 12 bytes past NAME_MAX. The temporaries cut the name; the outputs keep it.
long=$(printf 'a%.0s' $(seq 246))
check long-name-out 0 'matmul:' -- "$PL" matmul --m 2 --n 2 --k 2 --out "$TMP/$long.npy"
check long-name-save 0 'matmul:' -- "$PL" matmul --m 2 --n 2 --k 2 --save "$TMP/$long"
# Bug: past the file-size limit (ulimit -f) the process died by SIGXFSZ (exit 153, no word),
# leaving a half-written result folder's temporary. The write fails, is said, and leaves nothing.
check file-size-limit 1 'File too large' -- bash -c 'ulimit -f 20; "$0" matmul --m 8 --n 8 --k 8 --save "$1/fsz"' "$PL" "$TMP"
check file-size-limit-leaves-nothing 0 '^none$' -- bash -c 'ulimit -f 20; "$0" matmul --m 8 --n 8 --k 8 --save "$1/fsz2" 2>/dev/null; ls -A "$1" | grep fsz2 || echo none' "$PL" "$TMP"
# Bug: --out naming the folder that holds the scenario's own file, with --force, replaced the
# folder and the scenario with it (a user's scenarios folder held only .json files). Refused.
mkdir -p "$TMP/xdg/precision-lab/scenarios"
sed 's/"name": "06-float16-50-over-49"/"name": "99-mine"/' "$PL_DATA/../../assets/scenarios/06-float16-50-over-49.json" \
  >"$TMP/xdg/precision-lab/scenarios/99-mine.json"
check scenario-export-keeps-its-input 2 'an input of this run' -- env XDG_CONFIG_HOME="$TMP/xdg" "$PL" scenario export 99-mine --out "$TMP/xdg/precision-lab/scenarios" --force
check scenario-file-still-there 0 '99-mine.json' -- bash -c 'XDG_CONFIG_HOME="$1" "$0" scenario export 99-mine --out "$1/precision-lab/scenarios" --force 2>/dev/null; ls "$1/precision-lab/scenarios"' "$PL" "$TMP/xdg"
check scenario-export 0 'wrote .*story.md' -- "$PL" scenario export 13 --out "$TMP/sc13"
check scenario-export-files 0 'roundtrip-error.png' -- ls "$TMP/sc13/evidence-3-float4-e2m1fn-mx-mxfp4"
check scenario-export-story 0 '\| fp4 per-tensor: values rounded to zero \(of 65536\) \| at least 60000 \| 649[0-9][0-9] \|' -- cat "$TMP/sc13/story.md"
check scenario-export-rerun 0 '^same$' -- bash -c "\"$PL\" run \"$TMP/sc13/evidence-3-float4-e2m1fn-mx-mxfp4/setup.json\" --out \"$TMP/sc13-rerun\" >/dev/null && same_result \"$TMP/sc13/evidence-3-float4-e2m1fn-mx-mxfp4\" \"$TMP/sc13-rerun\""
mkdir -p "$TMP/xdg/precision-lab/scenarios"
cat > "$TMP/xdg/precision-lab/scenarios/99-mine.json" <<'JSON'
{"title": "My own", "story": "A user's scenario.", "checks": [
 {"id": "wrong", "label": "65520 in float16", "cast": {"value": "65520", "dtype": "float16"}, "expect": "65504"}]}
JSON
check scenario-user-folder 1 'FAIL  65520 in float16' -- env XDG_CONFIG_HOME="$TMP/xdg" "$PL" scenario run mine
check scenario-list-one-check 0 '99-mine +My own \(1 check\)$' -- env XDG_CONFIG_HOME="$TMP/xdg" "$PL" scenario list
echo '{"title": "bad"' > "$TMP/xdg/precision-lab/scenarios/98-bad.json"
check scenario-bad-file-warns 0 'warning: skipped .*98-bad.json is not valid JSON' -- env XDG_CONFIG_HOME="$TMP/xdg" "$PL" scenario list
check devices-cpu-no-peaks 0 'no published peaks: the peak table holds GPUs' -- "$PL" devices
check devices-cpu-line 0 '^cpu +.+, [0-9]+ threads, [0-9]+\.[0-9] GiB' -- "$PL" devices
check devices-peaks 0 'bfloat16 +tensor cores +989\.4 += 132 SMs x  4096 ops/clock x 1830 MHz' -- "$PL" devices --peaks
check devices-peaks-json 0 '"part": "A100 SXM4"' -- "$PL" devices --peaks --json
check no-display 1 'xvfb-run' -- env -u DISPLAY -u WAYLAND_DISPLAY "$PL"
echo "$passes passed, $fails failed"
if [[ -n $only && $passes -eq 0 && $fails -eq 0 ]]; then echo "check '$only' did not run here (another machine's branch)"; exit 77; fi
[[ $fails -eq 0 ]]
