#!/usr/bin/env python3
"""Golden tables of TensorFlow's elementwise ops with Python scalars *of given values*, for
core/promote/tf_engine (gen_tf.py records the default scalars only).

For tf.add, tf.multiply and tf.math.truediv and every dtype this records op(t, v) and op(v, t)
for each literal v of VALUES, t a 1-d tensor of that dtype, in both of gen_tf.py's modes
("default" and NumPy behaviour "all", each in its own process). Values matter here: an int
becomes int32 or int64 by its size, a float past float32's range cannot become a tensor without
a dtype, and past int64 an int cannot become an integer tensor at all.

Run: python3 tests/data/promotion/gen_tf_values.py > tests/data/promotion/tf_values_cpu.json
     (tensorflow-cpu 2.21.0 from PyPI in a venv: 410 distinct outcomes)
Not read by the tf engine yet: it still refuses a given value and says so. These are the
recordings its value model is to be checked against cell by cell, as the torch engine's are
(Recorded/TorchValues).
Layout: gen_tf.py's ("configs" by mode), with tables "OP:tensor,pyvalue" and "OP:pyvalue,tensor"
indexed [dtype][value] and the literals under "values".
"""
import json
import os
import subprocess
import sys
import warnings

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")
warnings.simplefilter("ignore")

from gen_tf import MODES, NAMES, outcome, start_tf, zeros  # noqa: E402
from golden_io import Outcomes, write_golden  # noqa: E402

# gen_numpy.py's literals, False, and float32's edge: its largest finite (3.4028235e38 reads as
# it), the midpoint to 2**128 (3.4028235677973366e38, which rounds to even: up, to inf), and
# just past the midpoint.
VALUES = ["True", "False", "2", "-1", "200", "300", "-300", "70000", "2**33", "2**63", "2.5", "1e10",
          "1e300", "2.5+1j", "1e300j", "127", "128", "-129", "255", "256", "32768", "65536", "2**32",
          "18446744073709551615", "-2**63", "-0.0", "65520.0", "1e39", "-1e999", "1e-50",
          "2**64", "-9223372036854775809", "2**100", "-2**100", "2**31", "-2**31", "-2147483649",
          "3.4028235e38", "3.4028235677973366e38", "3.402823567797337e38", "-3.402823567797337e38"]


def tables_for(mode, values):
    tf = start_tf(mode)

    def tensor(n):
        return zeros(tf, n, (2,))

    outcomes, tables = Outcomes(), {}
    ops = {"add": tf.add, "multiply": tf.multiply, "truediv": tf.math.truediv}
    for op, f in ops.items():
        tables[f"{op}:tensor,pyvalue"] = [[outcomes.add(outcome(lambda: f(tensor(n), eval(v)))) for v in values]
                                          for n in NAMES]
        tables[f"{op}:pyvalue,tensor"] = [[outcomes.add(outcome(lambda: f(eval(v), tensor(n)))) for v in values]
                                          for n in NAMES]
    return outcomes.items, tables, tf.__version__


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--mode":
        outcomes, tables, version = tables_for(sys.argv[2], [VALUES[int(sys.argv[3])]])
        json.dump({"version": version, "outcomes": outcomes, "tables": tables}, sys.stdout)
        return
    # One process per mode and value: TF 2.21 aborts the process (pywrap_tensor_conversion.h:59,
    # "Check failed: !PyErr_Occurred()", in TFE_TensorHandleCache::Insert) when some conversions
    # follow a failed one in the same process.
    merged, configs, version = Outcomes(), {}, None
    for mode in MODES:
        configs[mode] = {}
        for j in range(len(VALUES)):
            run = subprocess.run([sys.executable, __file__, "--mode", mode, str(j)], check=True,
                                 capture_output=True, text=True)
            part = json.loads(run.stdout)
            version = part["version"]
            remap = [merged.add(o) for o in part["outcomes"]]
            for k, v in part["tables"].items():
                table = configs[mode].setdefault(k, [[] for _ in NAMES])
                for i, row in enumerate(v):
                    table[i].append(remap[row[0]])
    header = {"framework": "tensorflow", "version": version, "device": "cpu"}
    write_golden(sys.stdout, header, NAMES, merged, configs=configs, extra={"values": VALUES})


if __name__ == "__main__":
    main()
