"""The one event queue of the online simulators.

Events sit in a heap ordered by ``(time, kind rank, sequence)``:

* **time** first;
* at one instant, by the **rank of their kind** (:data:`EVENT_ORDER`): what frees resources
  before what takes them, and every change of state before the scheduler decides --

  1. ``END``: a job (or an attempt) completes; its nodes are free at that instant. A job that
     ends at the very instant one of its nodes fails has completed: the failure then hits a
     node that is no longer running it.
  2. ``REDISTRIBUTION_END``: processors moved between applications are in place.
  3. ``CHECKPOINT``: a checkpoint completes (the work before it is safe).
  4. ``RECOVERY``: a node that was down is back.
  5. ``FAILURE``: a node fails.
  6. ``SUBMIT``: a job is submitted; every submission of the instant is known before a decision.
  7. ``START``: a start planned for this instant (e.g. a reservation that falls due) -- after
     every change of state, so the policy sees them all.

* among events of one kind at one instant, by **sequence**: the order in which they were pushed
  (first in, first out), so a run is the same on every machine.

An event can be cancelled (a job end that a failure makes void); it is then skipped by
:meth:`EventQueue.pop` without being searched for in the heap (lazy deletion).
"""

from __future__ import annotations

import enum
import heapq
import math
from dataclasses import dataclass, field
from typing import Any

__all__ = ["EVENT_ORDER", "Event", "EventKind", "EventQueue"]


class EventKind(enum.IntEnum):
    """Kinds of events; the value is the rank that orders events of one instant."""

    END = 1
    REDISTRIBUTION_END = 2
    CHECKPOINT = 3
    RECOVERY = 4
    FAILURE = 5
    SUBMIT = 6
    START = 7


#: the kinds in the order they are handled at one instant
EVENT_ORDER: tuple[EventKind, ...] = tuple(sorted(EventKind))


@dataclass(frozen=True, order=True)
class Event:
    """One event: ``kind`` at ``time``, with what it is about in ``data`` (a job, a node...)."""

    time: float
    kind: EventKind
    seq: int
    data: Any = field(default=None, compare=False)


class EventQueue:
    """A heap of :class:`Event` s with deterministic ties (see the module docstring).

    Time never goes back: pushing an event earlier than the last one popped is an error, as is
    a time that is negative, infinite or NaN.

    >>> q = EventQueue()
    >>> _ = q.push(5.0, EventKind.SUBMIT, "J2")
    >>> _ = q.push(5.0, EventKind.END, "J1")
    >>> _ = q.push(1.0, EventKind.SUBMIT, "J1")
    >>> [(e.time, e.kind.name, e.data) for e in q.pop_instant()]
    [(1.0, 'SUBMIT', 'J1')]
    >>> [(e.time, e.kind.name, e.data) for e in q.pop_instant()]
    [(5.0, 'END', 'J1'), (5.0, 'SUBMIT', 'J2')]
    """

    def __init__(self) -> None:
        # entries (time, kind rank, sequence, event): tuples compare in C, and the sequence is
        # unique, so the event itself is never compared
        self._heap: list[tuple[float, int, int, Event]] = []
        self._seq = 0
        self._pending: set[int] = set()  # sequence numbers of the events still to come
        self._cancelled: set[int] = set()  # cancelled, still in the heap
        self.now = 0.0

    def __len__(self) -> int:
        """Events still to come (cancelled ones excluded)."""
        return len(self._pending)

    def push(self, time: float, kind: EventKind, data: Any = None) -> Event:
        """Schedule ``kind`` at ``time``; returns the event (keep it to cancel it)."""
        t = float(time)
        if not math.isfinite(t) or t < 0:
            raise ValueError(f"event time must be a finite number >= 0, got {time!r}")
        if t < self.now:
            raise ValueError(f"event at {t!r} is in the past (now = {self.now!r})")
        event = Event(t, kind if type(kind) is EventKind else EventKind(kind), self._seq, data)
        self._seq += 1
        heapq.heappush(self._heap, (t, int(event.kind), event.seq, event))
        self._pending.add(event.seq)
        return event

    def cancel(self, event: Event) -> None:
        """Make a pushed event void; cancelling one already handled or cancelled is an error."""
        if event.seq not in self._pending:
            raise ValueError(f"event {event.seq} ({event.kind.name} at {event.time}) is not pending")
        self._pending.discard(event.seq)
        self._cancelled.add(event.seq)

    def _drop_cancelled(self) -> None:
        heap, cancelled = self._heap, self._cancelled
        while heap and heap[0][2] in cancelled:
            cancelled.discard(heapq.heappop(heap)[2])

    def peek_time(self) -> float | None:
        """The time of the next event, or ``None`` when none is left."""
        self._drop_cancelled()
        return self._heap[0][0] if self._heap else None

    def pop(self) -> Event:
        """The next event (``IndexError`` when none is left); the clock moves to its time."""
        self._drop_cancelled()
        if not self._heap:
            raise IndexError("pop from an empty event queue")
        event = heapq.heappop(self._heap)[3]
        self._pending.discard(event.seq)
        self.now = event.time
        return event

    def pop_instant(self) -> list[Event]:
        """Every event of the next instant, in handling order (empty when none is left).

        Events pushed *while* handling them, at that same instant, are not included: they come
        back at the next call (and are still ordered by kind among themselves).
        """
        self._drop_cancelled()
        heap = self._heap
        out: list[Event] = []
        if not heap:
            return out
        t = heap[0][0]
        cancelled, pending, pop = self._cancelled, self._pending, heapq.heappop
        while heap and heap[0][0] == t:  # one pass: no peek between pops
            seq, event = pop(heap)[2:]
            if seq in cancelled:
                cancelled.discard(seq)
                continue
            pending.discard(seq)
            out.append(event)
        self.now = t
        return out
