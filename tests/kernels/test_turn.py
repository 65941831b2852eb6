"""The serving turn's word protocol (kernels/segment/turn.py): turn_take claims a free word, waits while another
thread owns it, and claims it anyway once the owner has held it for the budget; turn_end frees only its own turn."""
from __future__ import annotations

import threading
import time

import numpy as np
import pytest

from paddle_exec.executor.policies.serving_turn import ticks_per_us
from paddle_exec.kernels.segment.turn import SUPPORTED, ticks, turn_end, turn_take

pytestmark = pytest.mark.skipif(not SUPPORTED, reason='the serving turn runs on Linux x86-64 only')


def _word(budget_s: float) -> np.ndarray:
    """A turn word [owner, budget ticks] (kept alive by the caller: the functions get its address)."""
    return np.array([0, int(budget_s * 1e6 * ticks_per_us())], np.int64)


def _in_thread(fn):
    box = []
    thread = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    thread.start()
    return thread, box


def test_a_free_turn_is_claimed_and_given_up_by_its_owner_only():
    word = _word(1.0)
    turn_take(word.ctypes.data)
    mine = word[0]
    assert mine != 0
    other, _ = _in_thread(lambda: turn_end(word.ctypes.data))       # not the owner: nothing changes
    other.join(10)
    assert word[0] == mine
    turn_end(word.ctypes.data)
    assert word[0] == 0


def test_a_thread_waits_while_another_owns_the_turn_and_goes_on_when_it_ends():
    word = _word(30.0)                              # a budget no test reaches: only the owner's end lets it go
    turn_take(word.ctypes.data)
    owner = word[0]
    waiter, box = _in_thread(lambda: (turn_take(word.ctypes.data), time.perf_counter())[1])
    waiter.join(0.2)
    assert waiter.is_alive() and word[0] == owner   # spinning, without the GIL (this thread still runs)
    ended = time.perf_counter()
    turn_end(word.ctypes.data)
    waiter.join(10)
    assert box and box[0] >= ended and word[0] not in (0, owner)     # it claimed the turn once it was free


def test_an_owner_that_keeps_the_turn_past_the_budget_is_passed_over():
    budget = 0.05
    word = _word(budget)
    turn_take(word.ctypes.data)                     # and never ends it (asleep, gone, in a long Python part)
    owner = word[0]
    start = time.perf_counter()
    waiter, box = _in_thread(lambda: (turn_take(word.ctypes.data), time.perf_counter())[1])
    waiter.join(10)
    assert box and box[0] - start >= budget * 0.9 and word[0] not in (0, owner)


def test_the_time_stamp_counter_runs_at_the_measured_rate():
    c0, t0 = ticks(), time.perf_counter()
    time.sleep(0.05)
    c1, t1 = ticks(), time.perf_counter()
    assert (c1 - c0) / ((t1 - t0) * 1e6) == pytest.approx(ticks_per_us(), rel=0.25)
