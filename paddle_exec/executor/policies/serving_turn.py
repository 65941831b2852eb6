"""The serving turn: admitted serving threads take the GIL in turns, spinning without it, instead of sleeping on it.

    word = serving_turn(10.0)      # the process's turn word, its budget 10 us (None: unsupported or off)
    # a gated lane's bound segment (codegen.py `turn`) starts with turn_end(word) and ends with turn_take(word)
    release(word)                  # from Python, before a thread blocks elsewhere (the gate's wait)

Why. A serving request (the serving lane, lanes.py) is ~1.5-4 us of Python under the GIL, then its compiled segment
with the GIL released (~5 us for speed_check's tower). Two admitted threads (policies/admission.py) alternate: when
one's segment ends while the other runs its Python part, CPython's GIL makes it sleep on a futex, and the holder
wakes it when it next releases the GIL. On this machine (a 2-vCPU VM: a wake crosses the hypervisor) the wake
takes longer than the holder's whole segment, so the holder has taken the GIL back before the sleeper runs: the
sleeper sleeps again, and is let in only by the switch interval. Measured on speed_check's tower from two threads:
one core busy, 0.02-0.17 voluntary context switches a request, 2 threads answering x0.7-1.3 of one thread's
requests while bare numba threads gained x1.4-1.8.

The turn. One process-wide word says which serving thread is in its Python part: a thread claims it as its segment
ends (turn_take, still without the GIL) and gives it up as its next segment starts (turn_end, the GIL already
released). A thread whose segment ends while another holds the turn spins (pause) until the turn is free, so its
reacquire of the GIL finds the GIL free and nobody sleeps: the threads' Python parts run one after the other while
their segments overlap. The spin is bounded: after `budget` microseconds on one owner (asleep, descheduled by the
host, blocked in the gate, or running a long Python part of its own) the thread claims the turn anyway and takes
the GIL the usual way. Correctness never depends on the word: a wrong claim costs one GIL hand-over as before.

Measured (speed_check's tower in one process, inline PEs built with each budget and bare numba threads, paired
rounds of 0.5 s windows; the gain of N threads over one as a share of bare numba's gain in the same round, medians
of 10 and 8 rounds): 2 threads 0.76 without turns, 0.98 with the default 10 us (1.04 at 3 us, 0.93 at 30 us);
8 threads 0.79 without, 1.01 with (1.08, 0.99). The price: a waiting thread burns its core for up to the budget,
and when the host runs both vCPUs on one CPU (some windows on this machine) the spin takes time from the thread it
waits for; PADDLE_EXEC_SERVING_SPIN=off turns the turns off.

Rules. Only gated lanes (admission.py) whose segment binds its parameters (bound.py) take turns; threads that do not
take part are never waited for longer than the budget. The word is process-wide (the GIL is); the budget is the
last one set (executor/config.py: PADDLE_EXEC_SERVING_SPIN, microseconds, default 10). Linux on x86-64 only
(kernels/segment/turn.py), only while kernels release the GIL (PADDLE_EXEC_KERNEL_GIL=hold would spin with it),
and only with a GIL (a free-threaded Python has none to take turns for).
"""
from __future__ import annotations

import functools
import sys
import time

import numpy as np

from ...kernels.jit import release_gil
from ...kernels.segment.turn import SUPPORTED, ticks, turn_end

__all__ = ['serving_turn', 'release', 'ticks_per_us']

_WORD = np.zeros(2, np.int64)           # [owner, budget ticks] (kernels/segment/turn.py)


@functools.lru_cache(maxsize=1)
def ticks_per_us() -> float:
    """The time-stamp counter's rate, measured once against time.perf_counter over ~2 ms."""
    ticks()                                 # compiled (or loaded) before the measurement
    t0, c0 = time.perf_counter(), ticks()
    while time.perf_counter() - t0 < 0.002:
        pass
    t1, c1 = time.perf_counter(), ticks()
    return max(1.0, (c1 - c0) / ((t1 - t0) * 1e6))


def _gil_enabled() -> bool:
    check = getattr(sys, '_is_gil_enabled', None)        # Python 3.13+; a GIL always before
    return True if check is None else bool(check())


def serving_turn(budget_us: float | None) -> int | None:
    """The process's turn word (its address), its budget set to `budget_us`; None when the turn is off (None), the
    platform is not one the turn runs on (kernels/segment/turn.py), kernels hold the GIL, or there is no GIL (a
    free-threaded Python)."""
    if budget_us is None or not SUPPORTED or not release_gil() or not _gil_enabled():
        return None
    _WORD[1] = int(budget_us * ticks_per_us())
    turn_end(_WORD.ctypes.data)         # compiled (or loaded) now, not in the first thread that waits at the gate
    return _WORD.ctypes.data


def release(word: int | None) -> None:
    """Gives up the calling thread's turn, if it holds it (before it blocks outside a segment)."""
    if word is not None:
        turn_end(word)
