"""Serving admission: at most as many inline requests compute at once as the process has cores, and a caller keeps
its place for a quantum of consecutive requests.

    gate = serving_gate(slots, spin_us)     # process-wide, one per (slots, spin): PADDLE_EXEC_SERVING_SLOTS / _SPIN
    ticket = gate.local.ticket              # a direct inline lane, each request (lanes.py), no lock:
    if ticket.until <= clock():             #   this thread holds a place until `until`
        ticket = gate.enter(ticket)         #   else it asks again (and may wait)

Why. An inline-policy request that is one compiled segment (the serving lane, lanes.py) is pure computation: ~1.5
us of Python under the GIL, then the segment with the GIL released. With more caller threads than cores, every
request hands the GIL to a thread that was asleep waiting for it: each hand-over wakes a sleeper, and the woken
thread must take a core from one that was computing. Measured on this 2-core machine (a 2-vCPU VM, where a wake is
expensive), speed_check's serving tower cost 7.5 us of CPU a request from one thread and 15-18 us from eight;
perf put half the eight threads' CPU in the GIL's futex waits and wakes. Admitting only `cores` callers at a time
keeps the others asleep on the gate instead: the admitted ones pass the GIL between two threads, which rarely
sleep (0.03 voluntary context switches a request from two threads, against 0.3-0.5 from eight), and the sleepers
are woken once a quantum, not once a request. Requests beyond the cores could only time-slice them. Measured from
8 callers against the gate off (docs/policies.md): 12.4-15.7 against 13.7-20.5 us of CPU a request, requests/s
0.97-1.34x, p99 latency 82-107 us against 1.6-1.9 ms; the price is the far tail (p99.9 8 ms against 5 ms: a
caller beyond the cores waits whole quanta of the others).

Rules.
- A place is held for QUANTUM (2 ms: a few hundred serving requests) from when it was granted. When it ends, the
  thread's next request asks again: with nobody waiting it keeps its place; else the place goes to the oldest
  waiter (first come, first served) and the thread waits behind the others.
- Every slow path (a caller whose quantum ended, a new caller, a waiter as soon as it could have happened) takes
  over any place whose holder let a whole quantum pass after its end without asking again (the holder is idle,
  gone, or inside one long request), and gives every free place to the oldest waiters. Nothing deadlocks on a
  holder that stopped calling, the callers of a new burst of threads take the places of the last burst's within a
  quantum or two, and a long request (longer than the quantum, where the GIL's hand-overs no longer matter) lets
  one more caller in while it runs.
- Only direct inline lanes pass the gate (lanes.py): requests that are one compiled segment, no Python op, no reader,
  so an admitted request never waits for another caller's request. Every other run is not gated.
- The admitted threads take the GIL in turns (serving_turn.py): a thread gives its turn up before it waits here.
- PADDLE_EXEC_SERVING_SLOTS (executor/config.py): the number of places (default: the usable cores), or `off`;
  PADDLE_EXEC_SERVING_SPIN the turns' budget.
"""
from __future__ import annotations

import collections
import threading
import time

from .serving_turn import release, serving_turn

__all__ = ['AdmissionGate', 'Ticket', 'serving_gate', 'QUANTUM', 'clock']

QUANTUM = 0.002             # seconds a granted place lasts (see the module docstring)
PATIENCE = 4                # quanta a waiter sleeps at most before it looks for places whose holders stopped asking
clock = time.perf_counter


class Ticket:
    """A thread's place at the gate: `until`, the clock time its quantum ends; `held`, whether it still holds a
    place (False once handed over or taken over)."""
    __slots__ = ('until', 'held')

    def __init__(self, until: float, held: bool):
        self.until = until
        self.held = held


_EXPIRED = Ticket(float('-inf'), False)     # what a thread that never asked holds: its first request asks


class _Waiter:
    """A thread waiting for a place: it blocks on `wake`, acquired when made; the granter sets `ticket` first."""
    __slots__ = ('wake', 'ticket')

    def __init__(self):
        self.wake = threading.Lock()
        self.wake.acquire()
        self.ticket: Ticket | None = None


class _Local(threading.local):
    ticket = _EXPIRED


class AdmissionGate:
    """`slots` places for callers, each held for `quantum` seconds (see the module docstring).

    turn      the serving turn's word (serving_turn.py) the gated lanes take turns with, or None; a thread gives
              its turn up before it waits here
    holders   the tickets holding a place (at most `slots`)
    waiters   threads waiting for one, oldest first
    local     each thread's ticket (`local.ticket`; _EXPIRED before its first request)
    """

    def __init__(self, slots: int, quantum: float | None = None, turn: int | None = None):
        if slots < 1:
            raise ValueError('an admission gate needs at least one place, got %d' % slots)
        self.slots = slots
        self.turn = turn            # the serving turn's word its lanes take turns with (serving_turn.py), or None
        self.quantum = QUANTUM if quantum is None else quantum
        self.patience = PATIENCE * self.quantum
        self.holders: list[Ticket] = []
        self.waiters: collections.deque[_Waiter] = collections.deque()
        self.local = _Local()
        self._lock = threading.Lock()

    def enter(self, ticket: Ticket) -> Ticket:
        """A place for the calling thread, whose `ticket` has ended (or never was): kept when nobody waits, else
        handed to the oldest waiter and asked for again behind it. Returns the thread's new ticket (also its
        `local.ticket`)."""
        now = clock()
        with self._lock:
            self._reclaim(now)
            if ticket.held:
                if not self.waiters:
                    ticket.until = now + self.quantum
                    return ticket
                self._release(ticket, now)          # someone waits: the oldest one gets the place
            elif len(self.holders) < self.slots and not self.waiters:
                ticket = self._grant(now)
                self.local.ticket = ticket
                return ticket
            waiter = _Waiter()
            self.waiters.append(waiter)
        release(self.turn)              # asleep here, this thread must not keep the admitted ones spinning
        try:
            ticket = self._wait(waiter)
        except BaseException:           # interrupted while waiting (KeyboardInterrupt): leave no place behind
            self._abandon(waiter)
            raise
        self.local.ticket = ticket
        return ticket

    def _abandon(self, waiter: _Waiter) -> None:
        """`waiter` stops waiting: out of the queue, or its place (granted meanwhile) to the next waiter."""
        with self._lock:
            if waiter.ticket is None:
                self.waiters.remove(waiter)
            elif waiter.ticket.held:
                self._release(waiter.ticket, clock())

    def _reclaim(self, now: float) -> None:
        """The places whose holders let a whole quantum pass after their end without asking are freed, then every
        free place goes to a waiter (the gate's lock held). Every slow path runs it first: a place left by a thread
        that stopped calling must not sit out of use while the callers that remain hand one place back and forth
        (they never wait long enough to look for it themselves)."""
        for stale in [t for t in self.holders if t.until + self.quantum < now]:
            self._free(stale)
        self._fill(now)

    def _free(self, ticket: Ticket) -> None:
        ticket.held = False
        self.holders.remove(ticket)

    def _fill(self, now: float) -> None:
        """The free places to the oldest waiters (the gate's lock held)."""
        while self.waiters and len(self.holders) < self.slots:
            waiter = self.waiters.popleft()
            waiter.ticket = self._grant(now)
            waiter.wake.release()

    def _grant(self, now: float) -> Ticket:
        ticket = Ticket(now + self.quantum, True)
        self.holders.append(ticket)
        return ticket

    def _release(self, ticket: Ticket, now: float) -> None:
        """`ticket`'s place to the oldest waiter, or free when nobody waits (the gate's lock held)."""
        self._free(ticket)
        self._fill(now)

    def _wait(self, waiter: _Waiter) -> Ticket:
        """Blocks until `waiter` is granted a place. It sleeps until the first holder could have let a whole
        quantum pass after its end (at least a quarter quantum, at most PATIENCE quanta), then takes over the places
        whose holders did."""
        timeout = self.patience
        while not waiter.wake.acquire(timeout=timeout):
            with self._lock:
                if waiter.ticket is None:
                    now = clock()
                    self._reclaim(now)
                    first = min((t.until for t in self.holders), default=now) + self.quantum - now
                    timeout = min(self.patience, max(self.quantum / 4, first))
                if waiter.ticket is not None:       # granted: as the wait ended, or just now
                    break
        return waiter.ticket


_GATES: dict[tuple, AdmissionGate] = {}
_GATES_LOCK = threading.Lock()


def serving_gate(slots: int, spin_us: float | None = None) -> AdmissionGate:
    """The process's gate with `slots` places whose lanes take serving turns with a `spin_us` budget (None: no
    turns); one per (slots, spin_us), normally one: the cores' and the default budget."""
    key = (slots, spin_us)
    gate = _GATES.get(key)
    if gate is None:
        with _GATES_LOCK:
            gate = _GATES.get(key)
            if gate is None:
                gate = _GATES[key] = AdmissionGate(slots, turn=serving_turn(spin_us))
    return gate
