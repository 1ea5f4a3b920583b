#!/usr/bin/env python3
"""tf.linalg.matmul's table with oneDNN on (TF_ENABLE_ONEDNN_OPTS=1), both modes.

tf_cpu.json is recorded with oneDNN off; on a CPU where TensorFlow turns it on, the kernel it
replaces is named in matmul's errors. The engine models oneDNN off and says, in the rule of each
cell this table differs in, what the message says instead; tf_promotion_test.cpp checks both
tables against it cell by cell.

Run: python3 tests/data/promotion/gen_tf_onednn.py > tests/data/promotion/tf_onednn_cpu.json
     (runs itself once per mode, as gen_tf.py).
"""
import json
import os
import subprocess
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "1"  # (read when TensorFlow is imported)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from gen_tf import MODES, NAMES, outcome, start_tf, zeros  # noqa: E402
from golden_io import Outcomes, write_golden  # noqa: E402


def table_for(mode):
    tf = start_tf(mode)
    outcomes = Outcomes()
    table = [[outcomes.add(outcome(lambda: tf.linalg.matmul(zeros(tf, a, (2, 3)), zeros(tf, b, (3, 2)))))
              for b in NAMES] for a in NAMES]
    return outcomes.items, table, tf.__version__


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--mode":
        outcomes, table, version = table_for(sys.argv[2])
        json.dump({"version": version, "outcomes": outcomes, "table": table}, sys.stdout)
        return
    merged, configs, version = Outcomes(), {}, None
    for mode in MODES:
        run = subprocess.run([sys.executable, __file__, "--mode", mode], check=True,
                             capture_output=True, text=True)
        part = json.loads(run.stdout)
        version = part["version"]
        remap = [merged.add(o) for o in part["outcomes"]]
        configs[mode] = {"matmul:tensor,tensor": [[remap[x] for x in row] for row in part["table"]]}
    header = {"framework": "tensorflow", "version": version, "device": "cpu, TF_ENABLE_ONEDNN_OPTS=1"}
    write_golden(sys.stdout, header, NAMES, merged, configs=configs)


if __name__ == "__main__":
    main()
