#!/usr/bin/env python3
"""Golden tables of PyTorch's elementwise ops with Python scalars *of given values*, for
core/promote/torch_engine (its value checks; gen_torch.py records the default scalars only).

For add, sub, mul and div and every dtype this records torch.OP(t, v), torch.OP(v, t) and
torch.OP(z, v) for each literal v of VALUES, with t a dimensioned tensor and z a zero-dim tensor
of that dtype: the result dtype, or the exception and its exact message. What values change:
Python ints past int64 (PyTorch wraps an int in [2**63, 2**64) as a uint64 scalar, and refuses
ints beyond), never a float's or a complex's magnitude.

Run: python3 tests/data/promotion/gen_torch_values.py > tests/data/promotion/torch_values_cpu.json
     (torch 2.15.0 from PyPI)
     /usr/bin/python3 tests/data/promotion/gen_torch_values.py > .../torch1.13_values_cpu.json
     (Debian 12's python3-torch 1.13.1+dfsg-4)
     python3 tests/data/promotion/gen_torch_values.py --autocast-cpu > .../torch_values_autocast_cpu.json
     (inside torch.autocast("cpu", dtype=torch.bfloat16), which leaves these ops alone)
Layout: gen_torch.py's, with tables "OP:tensor,pyvalue", "OP:pyvalue,tensor" and
"OP:zerodim,pyvalue" indexed [dtype][value] and the literals under "values".
"""
import sys

import torch

from gen_torch import DT, ELEMENTWISE, NAMES, outcome, tensor
from golden_io import Outcomes, write_golden

# The literals gen_numpy.py asks NumPy about (its VALUES), and False.
VALUES = ["True", "False", "2", "-1", "200", "300", "-300", "70000", "2**33", "2**63", "2.5", "1e10",
          "1e300", "2.5+1j", "1e300j", "127", "128", "-129", "255", "256", "32768", "65536", "2**32",
          "18446744073709551615", "-2**63", "-0.0", "65520.0", "1e39", "-1e999", "1e-50",
          "2**64", "-9223372036854775809", "2**100", "-2**100"]
ORDERS = {
    "tensor,pyvalue": lambda fn, n, v: fn(tensor(n, (2,)), v),
    "pyvalue,tensor": lambda fn, n, v: fn(v, tensor(n, (2,))),
    "zerodim,pyvalue": lambda fn, n, v: fn(tensor(n, ()), v),
}


def write_tables(header):
    outcomes = Outcomes()
    tables = {}
    for op, fn in ELEMENTWISE.items():
        for order, call in ORDERS.items():
            tables[f"{op}:{order}"] = [[outcomes.add(outcome(lambda: call(fn, n, eval(v)))) for v in VALUES]
                                       for n in NAMES]
    write_golden(sys.stdout, {"framework": "torch", "version": torch.__version__.split("+")[0], "device": "cpu",
                              **header}, NAMES, outcomes, tables=tables, extra={"values": VALUES})


def main():
    assert all(n in DT for n in NAMES)
    if "--autocast-cpu" in sys.argv[1:]:
        with torch.autocast("cpu", dtype=torch.bfloat16):
            write_tables({"autocast": "cpu", "autocast_dtype": "bfloat16"})
    else:
        write_tables({})


if __name__ == "__main__":
    main()
