"""Runs a golden table's cells in forked worker processes that a cell can poison.

On CUDA a kernel's device-side assert is the outcome of its cell (what the user's op does), and
it leaves the process's CUDA context unusable: every later call fails the same way. The cell
runner says whether its cell left the process so (run_cell returns the outcome and that); the
worker that met it ends, and the rest of its chunk goes to a spare that has already made its
context (warm_up) and waits, parked: a poisoned cell costs a hand-over, not a context start
(about two seconds each on an H100 machine, and the autocast tables hold over a thousand such
cells). Chunks are handed out as workers ask, so the shares that hold many poisoned cells do
not keep the others waiting.

Every outcome is appended to a log (one JSON line [cell, outcome]) as it arrives. A run cut off
by a time limit resumes from its log: the cells already there are not run again.

No torch here: gen_torch.py passes its cell runner in, and test_cell_pool.py checks this with a
fake one that poisons its process.
"""
import collections
import json
import multiprocessing
import multiprocessing.connection
import os
import sys


def read_log(path):
    """The outcomes a log holds, by cell. A last line cut off mid-write is ignored."""
    done = {}
    if path and os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    k, o = json.loads(line)
                except ValueError:
                    continue
                done[k] = o
    return done


def _worker(conn, run_cell, warm_up):
    warm_up()
    while True:
        conn.send(("ready",))
        chunk = conn.recv()
        if chunk is None:
            return
        for k in chunk:
            o, poisoned = run_cell(k)
            conn.send(("cell", k, o, poisoned))
            if poisoned:
                return  # this process can run nothing more; the parent hands the rest on


def run_cells(count, run_cell, warm_up=lambda: None, workers=4, spares=2, chunk=64, log=None,
              describe=str):
    """The outcome of cells 0 .. count-1, as a list: run_cell(k) -> (outcome, whether the cell
    left its process unusable), in forked workers, at most `workers` at a time, with up to
    `spares` more started and parked for poisoned ones. describe(k) names a cell in messages."""
    mp = multiprocessing.get_context("fork")
    done = read_log(log)
    resumed = len(done)
    pending = [k for k in range(count) if k not in done]
    queue = collections.deque(pending[i:i + chunk] for i in range(0, len(pending), chunk))
    log_file = open(log, "a") if log else None
    if log_file and log_file.tell() > 0:
        log_file.write("\n")  # ends a line a killed run left half-written (read_log skips it)
    procs = {}   # the parent's end of a pipe -> [process, chunk it runs or None]
    parked = []  # pipes of processes that are ready and wait for a chunk
    poisoned = 0

    def spawn():
        parent, child = mp.Pipe()
        p = mp.Process(target=_worker, args=(child, run_cell, warm_up))
        p.start()
        child.close()
        procs[parent] = [p, None]

    def retire(conn):
        p, _ = procs.pop(conn)
        conn.close()
        p.join()

    def busy():
        return sum(1 for _, c in procs.values() if c is not None)

    def balance():
        while queue and parked and busy() < workers:
            conn = parked.pop()
            procs[conn][1] = queue.popleft()
            conn.send(procs[conn][1])
        if queue or busy():
            while len(procs) < workers + spares and len(procs) - busy() < spares + len(queue):
                spawn()
        else:
            while parked:
                conn = parked.pop()
                conn.send(None)
                retire(conn)

    balance()
    try:
        while procs:
            for conn in multiprocessing.connection.wait(list(procs)):
                if conn not in procs:
                    continue
                try:
                    msg = conn.recv()
                except EOFError:
                    chunk_left = [k for k in (procs[conn][1] or []) if k not in done]
                    where = describe(chunk_left[0]) if chunk_left else "start-up"
                    raise RuntimeError(f"a worker died at {where} without an outcome")
                if msg[0] == "ready":
                    procs[conn][1] = None
                    parked.append(conn)
                else:
                    _, k, o, cell_poisoned = msg
                    done[k] = o
                    if log_file:
                        log_file.write(json.dumps([k, o]) + "\n")
                        log_file.flush()
                    if cell_poisoned:
                        poisoned += 1
                        print(f"poisoned cell {poisoned}: {describe(k)}", file=sys.stderr, flush=True)
                        c = procs[conn][1]
                        rest = c[c.index(k) + 1:]
                        if rest:
                            queue.appendleft(rest)
                        retire(conn)
                balance()
    finally:
        for conn in list(procs):
            procs[conn][0].kill()
            retire(conn)
        if log_file:
            log_file.close()
    print(f"{count} cells: {resumed} from the log, {poisoned} poisoned ones this run, each handed "
          f"on to a spare process", file=sys.stderr)
    return [done[k] for k in range(count)]
