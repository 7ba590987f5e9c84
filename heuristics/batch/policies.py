"""Every batch policy by name: the backfilling policies (:mod:`.backfilling`) and node stealing
(:mod:`.stealing`), in one registry that the run (:mod:`.run`), the CLI and the campaigns read;
and a user's own policy, named ``file.py:Class``, ``module:Class`` or by an installed package's
entry point (:mod:`coschedule.plugins`, docs/own-policy.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from coschedule import plugins
from coschedule.errors import InvalidInstance, unknown_name
from coschedule.sim.policy import PROTOCOL

from .backfilling import BACKFILLING_POLICIES, QueuePolicy
from .stealing import STEALING_POLICIES

__all__ = ["BATCH_POLICIES", "PROTOCOL", "batch_policy_source", "get_batch_policy", "user_policy"]

#: policy name -> class: ``fcfs``, ``easy``, ``conservative`` / ``baseline``, ``sfsj``,
#: ``h111`` ... ``h323``
BATCH_POLICIES: dict[str, type[QueuePolicy]] = {**BACKFILLING_POLICIES, **STEALING_POLICIES}


#: the options :func:`~.run.run_batch` gives every policy by name, and their values when not asked for
_DEFAULTS: dict[str, Any] = {"knows_downtime": False, "release": "resubmission", "reservations": None}


def batch_policy_source(name: str, *, base: str | Path = ".") -> plugins.PolicySource | None:
    """``name`` as a user's policy (:func:`coschedule.plugins.resolve`), None for a built-in name
    (or an unknown one). A built-in name wins over a registered one."""
    if not isinstance(name, str) or name.lower() in BATCH_POLICIES:
        return None
    return plugins.resolve(name, "batch", base=base)


def user_policy(src: plugins.PolicySource, **options: Any) -> Any:
    """A new policy object of ``src``'s class: ``options`` that its constructor takes are given to
    it; one that it does not take is an error unless it has its default value. The object must
    have the engine's methods (:data:`PROTOCOL`); without a ``name``, it is named ``src.ref``."""
    policy = plugins.instantiate(src, options, _DEFAULTS, PROTOCOL, "a batch policy has reset(sim), "
                                 "job_failed(sim, job, node) and decide(sim, instant)")
    if not isinstance(getattr(policy, "name", None), str) or not policy.name:
        try:
            policy.name = src.ref
        except AttributeError:
            raise InvalidInstance(f"policy {src.ref!r}: its name attribute is not a string") from None
    return policy


def get_batch_policy(name: str, *, base: str | Path = ".", **options: object) -> Any:
    """A new policy by name (case-insensitive): ``fcfs``, ``easy``, ``conservative`` or its
    alias ``baseline``, and node stealing ``sfsj`` (= ``h111``), ``h111`` ... ``h323``
    (:mod:`.stealing`); ``options`` go to its constructor (``knows_downtime``, and for node
    stealing ``victim_tiebreak``). The policy reports the name it was asked by. A user's policy
    (``file.py:Class``, ``module:Class``, a registered name; ``base``: where a relative file is
    read from) is made by :func:`user_policy`."""
    src = batch_policy_source(name, base=base)
    if src is not None:
        return user_policy(src, **options)
    try:
        cls = BATCH_POLICIES[name.lower()]
    except KeyError:
        shown = [k for k in BATCH_POLICIES if not (len(k) == 4 and k[0] == "h" and k[1:].isdigit())]
        err = unknown_name("batch policy", name, [*shown, "h111..h323"])
        raise type(err)(f"{err}; or your own: FILE.py:CLASS, MODULE:CLASS (coschedule policies)") from None
    policy = cls(**options)  # type: ignore[arg-type]
    if name.lower() == "sfsj":
        policy.name = "sfsj"
    return policy
