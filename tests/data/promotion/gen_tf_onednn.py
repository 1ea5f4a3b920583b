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
import sys

os.environ["TF_ENABLE_ONEDNN_OPTS"] = "1"  # (read when TensorFlow is imported)
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "3")

from gen_tf import NAMES, outcome, start_tf, write_modes, zeros  # noqa: E402
from golden_io import Outcomes  # noqa: E402


def tables_for(mode):
    tf = start_tf(mode)
    outcomes = Outcomes()
    table = [[outcomes.add(outcome(lambda: tf.linalg.matmul(zeros(tf, a, (2, 3)), zeros(tf, b, (3, 2)))))
              for b in NAMES] for a in NAMES]
    return outcomes.items, {"matmul:tensor,tensor": table}, tf.__version__


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--mode":
        outcomes, tables, version = tables_for(sys.argv[2])
        json.dump({"version": version, "outcomes": outcomes, "tables": tables}, sys.stdout)
        return
    write_modes(__file__, "cpu, TF_ENABLE_ONEDNN_OPTS=1")


if __name__ == "__main__":
    main()
