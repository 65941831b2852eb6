"""Serving turns (policies/serving_turn.py): a gated inline lane's bound code ends its thread's turn as it starts and
takes the turn back as it ends (codegen.py `turn`, the word's address the table's last entry, bound.py); a thread
gives its turn up before it waits at the gate (admission.py); PADDLE_EXEC_SERVING_SPIN sets the budget or turns the
turns off (executor/config.py)."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from paddle_exec.executor.codegen import segment_source
from paddle_exec.executor.config import SERVING_SPIN_US
from paddle_exec.executor.policies import serving_turn
from paddle_exec.executor.policies.admission import AdmissionGate, clock
from paddle_exec.kernels.segment import blas
from paddle_exec.kernels.segment.turn import SUPPORTED, turn_take

needs_turns = pytest.mark.skipif(not SUPPORTED, reason='the serving turn runs on Linux x86-64 only')


def _word_at(address: int) -> np.ndarray:
    """The turn word [owner, budget ticks] at `address`, as an array (a view: it reads what the word holds now)."""
    return np.ctypeslib.as_array((np.ctypeslib.ctypes.c_int64 * 2).from_address(address))


# --- the code ------------------------------------------------------------------------------------------------------

def _calls():
    from paddle_exec.executor.codegen import Call
    return [Call(nodes=[], kernel=blas.mul, reference=None, ins=[1, 2], outs=[3], args=(1, 1))]


def test_bound_code_ends_the_turn_first_and_takes_it_last_with_the_word_after_the_table():
    source = segment_source(_calls(), [1], [3], 'mul', bound=[(2, np.float32, 2)], into=True, turn=True)
    body = source.split('def segment(')[1].splitlines()
    assert body[1] == '    turn_end(table[3])'         # [address, d0, d1] for the bound matrix, then the word
    assert body[-2:] == ['    turn_take(table[3])', '    return 0']
    plain = segment_source(_calls(), [1], [3], 'mul', bound=[(2, np.float32, 2)], into=True)
    assert 'turn_' not in plain


def test_turns_need_the_table():
    with pytest.raises(ValueError, match='bound parameters'):
        segment_source(_calls(), [1, 2], [3], 'mul', turn=True)


# --- the word --------------------------------------------------------------------------------------------------------

@needs_turns
def test_the_word_carries_the_budget_in_ticks():
    try:
        word = serving_turn.serving_turn(25.0)
        assert _word_at(word)[1] == int(25.0 * serving_turn.ticks_per_us())
        assert serving_turn.serving_turn(None) is None
    finally:
        serving_turn.serving_turn(SERVING_SPIN_US)       # the process's word: back to the budget the gates set


def test_no_turns_without_a_gil_or_with_kernels_holding_it(monkeypatch):
    monkeypatch.setattr(serving_turn.sys, '_is_gil_enabled', lambda: False, raising=False)
    assert serving_turn.serving_turn(SERVING_SPIN_US) is None          # a free-threaded Python
    monkeypatch.setattr(serving_turn.sys, '_is_gil_enabled', lambda: True, raising=False)
    monkeypatch.setattr(serving_turn, 'release_gil', lambda: False)
    assert serving_turn.serving_turn(SERVING_SPIN_US) is None          # PADDLE_EXEC_KERNEL_GIL=hold


@needs_turns
def test_a_thread_gives_its_turn_up_before_it_waits_at_the_gate():
    word_array = np.zeros(2, np.int64)
    word_array[1] = 10 ** 12
    gate = AdmissionGate(1, 0.02, turn=word_array.ctypes.data)
    gate.enter(gate.local.ticket)                   # this thread holds the only place
    seen = []

    def waiter():
        turn_take(word_array.ctypes.data)          # its segment ended: it holds the turn
        seen.append(word_array[0])
        return gate.enter(gate.local.ticket)       # no place: it gives the turn up, then waits
    thread = threading.Thread(target=waiter, daemon=True)
    thread.start()
    deadline = clock() + 5
    while (not gate.waiters or word_array[0] != 0) and clock() < deadline:
        thread.join(0.001)
    assert seen and seen[0] != 0                    # it held the turn ...
    assert gate.waiters and word_array[0] == 0      # ... and gave it up to wait
    thread.join(5)                                  # my place goes stale (I never ask again): it gets it
    assert not thread.is_alive()


# --- the lane ---------------------------------------------------------------------------------------------------------

def _binder(pe):
    return next(iter(pe._compiled_program._executor.lanes.values())).binder


@needs_turns
def test_a_gated_serving_lane_takes_turns_with_the_process_word(served_fc):
    pe, _ = served_fc('USE_INLINE_EXECUTOR', '7', PADDLE_EXEC_SERVING_SPIN=None)
    binder = _binder(pe)
    state = binder.state[0]
    assert binder.turn is not None and state[1] is not None
    assert state[2][-1] == binder.turn                        # the table's last entry: the word
    source = next(iter(binder._codes.values())).source
    assert 'turn_end(table[' in source and 'turn_take(table[' in source
    word = _word_at(binder.turn)
    assert word[0] != 0                     # this thread's last request ended holding the turn
    assert word[1] == int(SERVING_SPIN_US * serving_turn.ticks_per_us())
    pe.close()


def test_turns_off_leave_the_code_as_it_was(served_fc):
    pe, _ = served_fc('USE_INLINE_EXECUTOR', '7', PADDLE_EXEC_SERVING_SPIN='off')
    binder = _binder(pe)
    assert binder.turn is None and binder.state[0][1] is not None
    assert 'turn_' not in next(iter(binder._codes.values())).source
    pe.close()


@pytest.mark.parametrize('raw, want', [(None, SERVING_SPIN_US), ('', SERVING_SPIN_US), ('25', 25.0),
                                       ('2.5', 2.5), ('off', None)])
def test_the_spin_budget_is_read_from_the_environment(config_with, raw, want):
    assert config_with('PADDLE_EXEC_SERVING_SPIN', raw).serving_spin == want


@pytest.mark.parametrize('raw', ['long', '-3'])
def test_a_malformed_spin_budget_is_an_error_naming_the_variable(config_with, raw):
    with pytest.raises(ValueError, match='PADDLE_EXEC_SERVING_SPIN must be microseconds'):
        config_with('PADDLE_EXEC_SERVING_SPIN', raw)
