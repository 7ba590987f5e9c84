"""OR-Tools, highspy and PuLP load side by side, in either import order.

ortools 9.15 bundles its own HiGHS library under the same file name as highspy's; highspy
1.15 then fails to load (or crashes) depending on which comes first, 1.12.0 works. Each order
runs in a fresh interpreter, since a process keeps whichever library it loaded first.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("highspy") is None, reason="highspy not installed"
)

IMPORT_ORTOOLS = "from ortools.sat.python import cp_model\n"
IMPORT_HIGHS_PULP = "import highspy\nimport pulp\n"

SOLVE_BOTH = textwrap.dedent(
    """
    # HiGHS: min x + y  s.t.  x + 2y >= 3, x, y integer >= 0: 2 (y = 2 or x = y = 1)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    inf = highspy.kHighsInf
    h.addVars(2, [0.0, 0.0], [inf, inf])
    h.changeColsCost(2, [0, 1], [1.0, 1.0])
    h.addRow(3.0, inf, 2, [0, 1], [1.0, 2.0])
    h.changeColsIntegrality(2, [0, 1], [highspy.HighsVarType.kInteger] * 2)
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal, h.getModelStatus()
    assert abs(h.getInfo().objective_function_value - 2.0) < 1e-9

    # CP-SAT: the same problem
    m = cp_model.CpModel()
    x, y = m.new_int_var(0, 10, "x"), m.new_int_var(0, 10, "y")
    m.add(x + 2 * y >= 3)
    m.minimize(x + y)
    s = cp_model.CpSolver()
    assert s.solve(m) == cp_model.OPTIMAL
    assert s.objective_value == 2

    # PuLP imported and usable (its modelling layer; CBC is exercised elsewhere)
    prob = pulp.LpProblem("p", pulp.LpMinimize)
    assert pulp.LpVariable("z", 0, 1) is not None and prob is not None
    print("ok", highspy.__name__, pulp.__version__)
    """
)


@pytest.mark.parametrize(
    "first, second",
    [(IMPORT_ORTOOLS, IMPORT_HIGHS_PULP), (IMPORT_HIGHS_PULP, IMPORT_ORTOOLS)],
    ids=["ortools-first", "highspy-first"],
)
def test_import_order(first, second):
    code = first + second + SOLVE_BOTH
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, f"exit {proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    assert proc.stdout.strip().startswith("ok")
