"""What a counterexample search returns (:class:`SearchResult`), and the papers' proven
guarantees it is compared with (:func:`guarantee`)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coschedule.model import CoSchedule, MoldableInstance
from coschedule.results import ExactResult, Status
from coschedule.rigid import FailureScenario, RigidInstance
from coschedule.schedule import Schedule

from .engine import Improvement


def guarantee(heuristic: str, priority: str | None = None, P: int | None = None) -> float | None:
    """The proven worst-case ratio of a heuristic, where the papers give one.

    * ``r-list-0`` with any priority: ``2 - 1/P`` (Prop. 2);
    * ``r-list-1`` and ``r-list-q`` with LJF: ``3 - 4/(P+1)`` (Prop. 1);
    * ``pack-approx`` (p-in-p): 3 (Thm 1.6 of the co-scheduling paper);
    * ``None`` otherwise (the shelf heuristics have none: Props. 3-4).

    >>> guarantee("r-list-0", "LPT", 4), guarantee("r-list-q", "LJF", 3), guarantee("r-shelf-b")
    (1.75, 2.0, None)
    """
    h = heuristic.lower()
    if h == "pack-approx":
        return 3.0
    if P is None:
        return None
    if h == "r-list-0":
        return 2.0 - 1.0 / P
    if h in ("r-list-1", "r-list-q") and priority is not None and priority.upper() == "LJF":
        return 3.0 - 4.0 / (P + 1)
    return None


@dataclass(frozen=True)
class SearchResult:
    """The worst instance a search found, with both validated schedules.

    Attributes
    ----------
    kind
        ``"rigid"`` (:func:`search_worst`) or ``"kinp"`` (:func:`search_worst_kinp`).
    ratio
        ``heuristic_makespan / exact.objective``: a certified lower bound on the true ratio
        (the objective is the makespan of a validated schedule, so it is ``>= OPT``).
    ratio_upper
        ``heuristic_makespan / (proved lower bound on OPT)``; equal to ``ratio`` when the
        optimum is proved with zero tolerance.
    instance, scenario
        The (shrunk) worst instance and, for rigid jobs, its failure scenario.
    heuristic_schedule, optimal_schedule
        A :class:`~coschedule.schedule.Schedule` (rigid) or a
        :class:`~coschedule.model.CoSchedule` (k-in-p), both validated.
    exact
        The solver's result on the instance (its status says what was proved).
    evaluations, solves
        Distinct candidates evaluated and exact solves made.
    history
        Every improvement of the best ratio, in order (search, then shrink).
    """

    kind: str
    heuristic: str
    priority: str | None
    k: int | None
    ratio: float
    ratio_upper: float
    instance: RigidInstance | MoldableInstance
    scenario: FailureScenario | None
    heuristic_schedule: Schedule | CoSchedule
    heuristic_makespan: float
    optimal_schedule: Schedule | CoSchedule
    exact: ExactResult
    evaluations: int
    solves: int
    history: tuple[Improvement, ...]
    seed: int | None
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def proved(self) -> bool:
        """Whether the optimum of the final instance is proved (``ratio`` is then exact up to
        the solver's tolerance)."""
        return self.exact.status is Status.OPTIMAL

    @property
    def guarantee(self) -> float | None:
        size = self.instance.P if isinstance(self.instance, RigidInstance) else None
        return guarantee(self.heuristic, self.priority, size)

    def compact(self) -> str:
        """One line: ``P=3 | (p,t,f): (1,4,0) (2,3,1)`` (rigid) or the profiles (k-in-p)."""
        inst = self.instance
        if isinstance(inst, RigidInstance):
            assert self.scenario is not None
            jobs = " ".join(
                f"({job.procs},{_num(job.time)},{f})" for job, f in zip(inst.jobs, self.scenario.failures)
            )
            return f"P={inst.P} | (p,t,f): {jobs}"
        profiles = " ".join("[" + ",".join(_num(t) for t in task.times[: inst.p]) + "]" for task in inst.tasks)
        return f"p={inst.p} k={self.k} | t(i,1..p): {profiles}"

    def describe(self) -> str:
        """Two lines for a terminal: the ratio with what was proved, and :meth:`compact`."""
        what = "makespan" if self.kind == "rigid" else "cost"
        if self.proved and math.isclose(self.ratio, self.ratio_upper, rel_tol=1e-12):
            ratio = f"ratio {self.ratio:.6g} (optimum proved)"
        else:
            ratio = (f"ratio in [{self.ratio:.6g}, {self.ratio_upper:.6g}] "
                     f"(optimum {self.exact.status.value}; the lower end is certified)")
        g = self.guarantee
        bound = f"; proven guarantee {g:.6g}" if g is not None else ""
        name = self.heuristic + (f" ({self.priority})" if self.priority else f" (k = {self.k})")
        return (f"{name}: {what} {self.heuristic_makespan:.6g}, optimum {self.exact.objective:.6g}, "
                f"{ratio}{bound}\n{self.compact()}")

    def to_dict(self) -> dict[str, Any]:
        """The summary written to ``summary.json``."""
        inst = self.instance
        return {
            "kind": self.kind,
            "heuristic": self.heuristic,
            "priority": self.priority,
            "k": self.k,
            "n": inst.n,
            "P": inst.P if isinstance(inst, RigidInstance) else inst.p,
            "ratio": self.ratio,
            "ratio_upper": self.ratio_upper,
            "proved": self.proved,
            "guarantee": self.guarantee,
            "heuristic_makespan": self.heuristic_makespan,
            "optimum": self.exact.to_dict(),
            "instance": self.compact(),
            "failures": list(self.scenario.failures) if self.scenario is not None else None,
            "evaluations": self.evaluations,
            "solves": self.solves,
            "seed": self.seed,
            "options": self.options,
            "history": [imp._asdict() for imp in self.history],
        }

    def write(self, directory: str | Path) -> list[Path]:
        """Write the instance, the scenario (rigid), both schedules and ``summary.json``.

        Rigid: ``instance.json``, ``scenario.json``, ``heuristic-schedule.json``,
        ``optimum-schedule.json`` (formats of :mod:`coschedule.io`). k-in-p:
        ``instance.json``, ``heuristic-coschedule.json``, ``optimum-coschedule.json``.
        Returns the paths written.
        """
        from coschedule.io import (
            coschedule_to_dict,
            save_instance,
            save_json,
            save_rigid_instance,
            save_scenario,
            save_schedule,
        )

        out = Path(directory)
        out.mkdir(parents=True, exist_ok=True)
        paths = [out / "instance.json"]
        if isinstance(self.instance, RigidInstance):
            assert self.scenario is not None
            assert isinstance(self.heuristic_schedule, Schedule)
            assert isinstance(self.optimal_schedule, Schedule)
            save_rigid_instance(self.instance, paths[0])
            save_scenario(self.scenario, out / "scenario.json", instance=self.instance)
            save_schedule(self.heuristic_schedule, out / "heuristic-schedule.json", instance=self.instance,
                          extra={"heuristic": self.heuristic, "priority": self.priority})
            save_schedule(self.optimal_schedule, out / "optimum-schedule.json", instance=self.instance,
                          extra={"result": self.exact.to_dict()})
            paths += [out / "scenario.json", out / "heuristic-schedule.json", out / "optimum-schedule.json"]
        else:
            assert isinstance(self.heuristic_schedule, CoSchedule)
            assert isinstance(self.optimal_schedule, CoSchedule)
            save_instance(self.instance, paths[0])
            save_json(coschedule_to_dict(self.instance, self.heuristic_schedule, k=self.k,
                                         extra={"heuristic": self.heuristic}),
                      out / "heuristic-coschedule.json")
            save_json(coschedule_to_dict(self.instance, self.optimal_schedule, k=self.k,
                                         extra={"result": self.exact.to_dict()}),
                      out / "optimum-coschedule.json")
            paths += [out / "heuristic-coschedule.json", out / "optimum-coschedule.json"]
        save_json(self.to_dict(), out / "summary.json")
        paths.append(out / "summary.json")
        return paths


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else f"{x:.6g}"
