"""A STAND-IN for the authors' C++ simulator: same command line, same files, same output.

It is NOT the authors' code and says nothing about its speed or its results: it lets the tests
check our side of the exchange (the files :mod:`coschedule.baseline` writes, the command it
runs, the output it parses) without the C++ binary. Interface (see coschedule/baseline.py):

    standin_authors_simulator.py INSTANCE FAILURES COUNT

prints ``MAKESPAN BOUND FAILURES`` per scenario (6 significant digits, like C++'s ``cout``) and
the scenario's index on stderr. It implements the list scheduler without reservations (R-List-0)
and the shelves (R-Shelf-B/NB) in a few lines of plain Python, independently of coschedule.
"""

from __future__ import annotations

import heapq
import random
import sys

PRIORITY = {
    "length": lambda t, p: t, "rlength": lambda t, p: -t,
    "procs": lambda t, p: p, "rprocs": lambda t, p: -p,
    "area": lambda t, p: t * p, "rarea": lambda t, p: -t * p,
}


def simulate(jobs, P, key, naive, shelf, fails):
    if key is None:  # "rand": one draw per job, from the clock's seed like the authors' code
        draws = {jobs_j: random.random() for jobs_j in set(jobs)}
        key = lambda t, p: draws[(t, p)]
    queue = sorted(range(len(jobs)), key=lambda j: -key(*jobs[j]))  # highest priority first
    attempts = [0] * len(jobs)
    running, free, now = [], P, 0.0

    def round_():
        nonlocal free
        for j in list(queue):
            t, p = jobs[j]
            if p <= free:
                queue.remove(j)
                free -= p
                heapq.heappush(running, (now + t, j))
            elif naive:
                break

    round_()
    while running:
        now, j = heapq.heappop(running)
        free += jobs[j][1]
        if attempts[j] < fails[j]:  # this attempt failed
            attempts[j] += 1
            queue.append(j)
            queue.sort(key=lambda i: -key(*jobs[i]))
        if not shelf or not running:
            round_()
    return now


def main(argv):
    inst_path, fail_path, count = argv[1], argv[2], int(argv[3])
    with open(inst_path) as fh:
        head = fh.readline().split()
        P, prio, batch, naive, shelf = int(head[1]), head[3], int(head[4]), int(head[5]), int(head[6])
        jobs = []
        for line in fh:
            _name, kind, t, p = line.split()
            assert kind == "rgd"
            jobs.append((float(t), int(p)))
    assert batch == 0, "the stand-in has no batch mode"
    with open(fail_path) as fh:
        numbers = [int(x) for x in fh.read().split()]
    n = len(jobs)
    for s in range(count):
        print(s, file=sys.stderr)
        fails = numbers[s * n:(s + 1) * n]
        makespan = simulate(jobs, P, PRIORITY.get(prio), naive, shelf, fails)
        area = sum(t * p * (f + 1) for (t, p), f in zip(jobs, fails)) / P
        longest = max(t * (f + 1) for (t, _), f in zip(jobs, fails))
        print(f"{makespan:g} {max(area, longest):g} {sum(fails)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
