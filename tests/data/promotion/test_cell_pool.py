"""cell_pool.run_cells with a fake cell runner that poisons its process the way a CUDA
device-side assert does: after a poisoned cell, every later cell in that process would come out
wrong. Every outcome must be the cell's own, each poisoned cell recorded as such, and a log must
let a cut-off run resume without running its cells again. Run: python3 test_cell_pool.py"""
import json
import os
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cell_pool import read_log, run_cells  # noqa: E402

STATE = {"poisoned": False, "warm": False}


def warm_up():
    STATE["warm"] = True


def fake_cell(k):
    """Cells k % 7 == 3 poison the process: those = 3 (mod 14) fail themselves, those = 10 (mod
    14) return a good outcome and leave the poison behind (as a kernel launched before a Python
    exception does on CUDA)."""
    if STATE["poisoned"]:
        return "garbage: an earlier cell poisoned this process", True
    if not STATE["warm"]:
        return "garbage: run before warm-up", False
    if k % 7 == 3:
        STATE["poisoned"] = True
    return expected(k), STATE["poisoned"]


def expected(k):
    return {"error": "AcceleratorError", "message": f"device-side assert in cell {k}"} if k % 14 == 3 else k * k


class RunCells(unittest.TestCase):
    def test_every_cell_gets_its_own_outcome_despite_poisoned_processes(self):
        for workers, spares, chunk in ((1, 0, 5), (3, 2, 4), (4, 1, 64)):
            got = run_cells(200, fake_cell, warm_up, workers=workers, spares=spares, chunk=chunk)
            self.assertEqual(got, [expected(k) for k in range(200)], (workers, spares, chunk))

    def test_a_log_resumes_a_cut_off_run_without_running_its_cells_again(self):
        with tempfile.TemporaryDirectory() as d:
            log = os.path.join(d, "cells.jsonl")
            with open(log, "w") as f:
                for k in range(0, 50):
                    f.write(json.dumps([k, "from the log"]) + "\n")
                f.write('[50, "cut off mid-wri')  # the line a killed run left half-written
            got = run_cells(120, fake_cell, warm_up, workers=2, spares=1, chunk=8, log=log)
            self.assertEqual(got[:50], ["from the log"] * 50)
            self.assertEqual(got[50:], [expected(k) for k in range(50, 120)])
            self.assertEqual(read_log(log), dict(enumerate(got)))

    def test_a_worker_that_dies_without_an_outcome_is_an_error_naming_the_cell(self):
        def dies_at_9(k):
            if k == 9:
                os._exit(3)
            return k, False

        with self.assertRaisesRegex(RuntimeError, "died at cell 9 without an outcome"):
            run_cells(20, dies_at_9, workers=2, spares=1, chunk=4, describe=lambda k: f"cell {k}")


if __name__ == "__main__":
    unittest.main()
