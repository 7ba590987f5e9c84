"""Every batch policy by name: the backfilling policies (:mod:`.backfilling`) and node stealing
(:mod:`.stealing`), in one registry that the run (:mod:`.run`), the CLI and the campaigns read."""

from __future__ import annotations

from coschedule.errors import unknown_name

from .backfilling import BACKFILLING_POLICIES, QueuePolicy
from .stealing import STEALING_POLICIES

__all__ = ["BATCH_POLICIES", "get_batch_policy"]

#: policy name -> class: ``fcfs``, ``easy``, ``conservative`` / ``baseline``, ``sfsj``,
#: ``h111`` ... ``h323``
BATCH_POLICIES: dict[str, type[QueuePolicy]] = {**BACKFILLING_POLICIES, **STEALING_POLICIES}


def get_batch_policy(name: str, **options: object) -> QueuePolicy:
    """A new policy by name (case-insensitive): ``fcfs``, ``easy``, ``conservative`` or its
    alias ``baseline``, and node stealing ``sfsj`` (= ``h111``), ``h111`` ... ``h323``
    (:mod:`.stealing`); ``options`` go to its constructor (``knows_downtime``, and for node
    stealing ``victim_tiebreak``). The policy reports the name it was asked by."""
    try:
        cls = BATCH_POLICIES[name.lower()]
    except KeyError:
        shown = [k for k in BATCH_POLICIES if not (len(k) == 4 and k[0] == "h" and k[1:].isdigit())]
        raise unknown_name("batch policy", name, shown + ["h111..h323"]) from None
    policy = cls(**options)  # type: ignore[arg-type]
    if name.lower() == "sfsj":
        policy.name = "sfsj"
    return policy
