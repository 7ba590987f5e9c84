"""The statistics every campaign report shares: a mean with its 95 % Student-t confidence
interval (``mean ± t_{0.975, k-1} · s / √k``) over the runs of a point."""

from __future__ import annotations

import math
from collections.abc import Sequence

__all__ = ["student_ci", "t975"]


#: t_{0.975, df} for df = 1 .. 30 (two-sided 95 %)
_T975 = (12.7062, 4.3027, 3.1824, 2.7764, 2.5706, 2.4469, 2.3646, 2.3060, 2.2622, 2.2281, 2.2010, 2.1788,
         2.1604, 2.1448, 2.1314, 2.1199, 2.1098, 2.1009, 2.0930, 2.0860, 2.0796, 2.0739, 2.0687, 2.0639,
         2.0595, 2.0555, 2.0518, 2.0484, 2.0452, 2.0423)


def t975(df: int) -> float:
    """The 0.975 quantile of Student's t with ``df`` degrees of freedom (a table to 30, then the
    Cornish-Fisher expansion around the normal quantile, within 1e-4)."""
    if df < 1:
        return math.nan
    if df <= len(_T975):
        return _T975[df - 1]
    z = 1.959964
    return (z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)
            + (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / (384 * df**3))


def student_ci(xs: Sequence[float | None]) -> tuple[float, float]:
    """``(mean, half-width of the 95 % confidence interval)`` of the numbers of ``xs`` (``None``
    skipped); ``(nan, nan)`` for none, half-width ``nan`` for one."""
    got = [float(x) for x in xs if x is not None and math.isfinite(x)]
    n = len(got)
    if not n:
        return math.nan, math.nan
    mu = math.fsum(got) / n
    if n < 2:
        return mu, math.nan
    s = math.sqrt(math.fsum((x - mu) ** 2 for x in got) / (n - 1))
    return mu, t975(n - 1) * s / math.sqrt(n)
