"""Shared by the gen_*.py scripts: interned outcomes and the golden file layout.

Layout (compact: a few thousand distinct outcomes repeat across many cells):
  header keys (framework, version, device, ...), "dtypes" (the framework's names, the
  order every table indexes), any extra keys, "outcomes" (each distinct outcome once: a
  dtype name, "object", or {"error": class, "message": text}), then either "tables"
  (name -> nested lists of outcome indices) or "configs" (name -> {"tables": ...}).
One line per outcome and per table, so a new framework release gives a small diff.
"""
import json


class Outcomes:
    """Interns outcomes: each distinct one is stored once and cells hold its index."""

    def __init__(self):
        self.items, self.index = [], {}

    def add(self, o):
        key = json.dumps(o, sort_keys=True)
        if key not in self.index:
            self.index[key] = len(self.items)
            self.items.append(o)
        return self.index[key]


def _tables_text(tables):
    return ",\n".join(f"{json.dumps(k)}: {json.dumps(v, separators=(',', ':'))}"
                      for k, v in tables.items())


def write_golden(out, header, dtypes, outcomes, tables=None, configs=None, extra=None):
    w = out.write
    w("{\n")
    for k, v in header.items():
        w(f"{json.dumps(k)}: {json.dumps(v)},\n")
    w(f'"dtypes": {json.dumps(dtypes)},\n')
    for k, v in (extra or {}).items():
        w(f'{json.dumps(k)}: {json.dumps(v, separators=(",", ":"))},\n')
    w('"outcomes": [\n')
    w(",\n".join(json.dumps(o, sort_keys=True) for o in outcomes.items))
    if configs is None:
        w('\n],\n"tables": {\n' + _tables_text(tables) + "\n}\n}\n")
        return
    w('\n],\n"configs": {\n')
    w(",\n".join(f'{json.dumps(name)}: {{"tables": {{\n{_tables_text(t)}\n}}}}'
                 for name, t in configs.items()))
    w("\n}\n}\n")
