"""A campaign's results as files: every cell's row as CSV or JSON, the same for every simulator
(the rows come from :class:`~coschedule.campaign.store.ResultStore`; ``coschedule report --csv`` and
``--json``)."""

from __future__ import annotations

import csv
import json
from collections.abc import Sequence
from typing import Any, TextIO

from .store import ResultStore

__all__ = ["export_csv", "export_json"]


def export_csv(store: ResultStore, out: TextIO) -> int:
    """Every cell's row (its scalar columns: :data:`~coschedule.campaign.store.COLUMNS` for a
    rigid campaign; no arrays, no JSON) as CSV with a header; returns the number of rows."""
    w = csv.writer(out, lineterminator="\n")
    columns = store.columns
    w.writerow(columns)
    k = 0
    for row in store.rows():
        w.writerow([_csv_value(row[c]) for c in columns])
        k += 1
    return k


def _csv_value(v: Any) -> Any:
    if isinstance(v, float):
        return repr(v)  # shortest round-tripping text
    return "" if v is None else v


def export_json(store: ResultStore, out: TextIO, groups: Sequence[Any] | None = None, *,
                extra: dict[str, Any] | None = None) -> int:
    """``{"spec": ..., <extra keys>, "cells": [...], "groups": [...]}``, written row by row
    (``coschedule report --json`` adds ``grid_cells``, ``done_cells``, ``missing_cells``)."""
    out.write('{"spec": ')
    json.dump(store.spec_dict, out, sort_keys=True)
    for key, value in (extra or {}).items():
        out.write(f", {json.dumps(key)}: ")
        json.dump(value, out)
    out.write(', "cells": [')
    k = 0
    for row in store.rows():
        out.write(",\n" if k else "\n")
        json.dump(row, out, allow_nan=False)
        k += 1
    out.write('\n], "groups": ')
    json.dump([g.to_dict() for g in (groups or [])], out)
    out.write("}\n")
    return k
