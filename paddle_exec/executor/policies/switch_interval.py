"""The GIL's switch interval while inline-policy executors serve: one process-wide hold, like the BLAS threads'.

    lease = SWITCH_INTERVAL.join(0.0005)       # an inline executor's first run (runner.py)
    lease.release()                            # its close(), or when it is garbage-collected

Why. The inline policy is for many threads calling run() at once (DeepRec's serving executor): each request holds
the GIL for its Python part (~1.5 us of the serving tower's ~6.5 us) and gives it up for its compiled segment, so
the GIL changes hands once per request. CPython passes it on through a condition variable: a release wakes one
waiter, and a waiter that is not woken looks again only when its wait times out, after sys.getswitchinterval()
(5 ms by default). With more serving threads than cores, the woken waiter often finds the GIL already retaken by a
thread that was running, and sleeps again; threads then sit out whole intervals while the GIL is free most of the
time, and every request pays context switches. Measured on this 2-core machine, speed_check's serving tower from 8
threads (per request, same run): 0.57 voluntary context switches and 11.6 us of CPU at 5 ms, 0.09 and 8.5 us at
0.5 ms; 136k against 219k requests/s. Shorter still (0.1 ms) forced so many switches that it lost again.

Rules. The first lease sets the interval only if the process still has Python's default: a program that chose its
own interval keeps it. The last lease ends the hold and puts back the interval it replaced, unless something else
changed it meanwhile. PADDLE_EXEC_SWITCH_INTERVAL (executor/config.py; default SERVING_INTERVAL, 0.5 ms) chooses
the held interval in seconds, or `off` for no hold at all. Only inline-policy executors take a lease: the other
policies run one caller's plan on a pool and were not measured to gain from it.
"""
from __future__ import annotations

import sys
import threading

from .base import Lease

__all__ = ['SWITCH_INTERVAL', 'SwitchIntervalHold', 'PYTHON_DEFAULT']

PYTHON_DEFAULT = 0.005          # CPython's own switch interval (seconds)


def _same(a: float, b: float) -> bool:
    return abs(a - b) < 1e-9        # the interpreter keeps microseconds: a float read back is not always the one set


class SwitchIntervalHold:
    """The leases in force and what the first one replaced (see the module docstring).

    leases     inline executors that ran and are neither closed nor collected
    held       the interval the hold set, None when it set none (no lease, or the program had its own)
    replaced   the interval the first lease found, put back by the last one
    """
    __slots__ = ('leases', 'held', 'replaced', '_lock')

    def __init__(self):
        self.leases = 0
        self.held: float | None = None
        self.replaced: float | None = None
        self._lock = threading.Lock()

    def join(self, interval: float) -> Lease:
        """A lease on the hold; the first one sets `interval` when the process has Python's default."""
        with self._lock:
            if not self.leases:
                current = sys.getswitchinterval()
                if _same(current, PYTHON_DEFAULT) and not _same(current, interval):
                    sys.setswitchinterval(interval)
                    self.held, self.replaced = interval, current
            self.leases += 1
        return Lease(self)

    def _leave(self) -> None:
        with self._lock:
            self.leases -= 1
            if not self.leases:
                if self.held is not None and _same(sys.getswitchinterval(), self.held):
                    sys.setswitchinterval(self.replaced)
                self.held = self.replaced = None


SWITCH_INTERVAL = SwitchIntervalHold()
