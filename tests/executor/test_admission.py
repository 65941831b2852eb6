"""Serving admission (policies/admission.py): at most `slots` callers hold a place at once, a place lasts a
quantum and is kept while nobody waits, handed to the oldest waiter when its quantum ends, and taken over when its
holder stops asking; inline serving lanes pass the gate, other runs do not (lanes.py, runner.py);
PADDLE_EXEC_SERVING_SLOTS sizes it or turns it off (executor/config.py)."""
from __future__ import annotations

import threading
import time

import pytest

from paddle_exec.executor import lanes as lanes_module
from paddle_exec.executor.config import SERVING_SPIN_US, usable_cores
from paddle_exec.executor.policies import admission
from paddle_exec.executor.policies.admission import AdmissionGate, clock, serving_gate

QUANTUM = 0.02          # long enough that a busy test machine does not end a quantum between two lines


def ask(gate: AdmissionGate):
    """What a serving lane does before its run: this thread's ticket, asked for again when it has ended."""
    ticket = gate.local.ticket
    if ticket.until <= clock():
        ticket = gate.enter(ticket)
    return ticket


def in_thread(fn):
    """`fn()` on a new thread, started; (thread, box) where box[0] receives its result."""
    box = []
    thread = threading.Thread(target=lambda: box.append(fn()), daemon=True)
    thread.start()
    return thread, box


def test_a_place_is_kept_while_nobody_waits():
    gate = AdmissionGate(1, QUANTUM)
    first = ask(gate)
    assert first.held and gate.holders == [first]
    assert ask(gate) is first                       # within its quantum: no lock, same ticket
    time.sleep(QUANTUM * 1.5)
    renewed = ask(gate)
    assert renewed is first and renewed.until > clock() and gate.holders == [first]


def test_a_caller_beyond_the_places_waits_for_the_end_of_a_quantum_then_takes_the_place():
    gate = AdmissionGate(1, QUANTUM)
    mine = ask(gate)
    waiting, box = in_thread(lambda: ask(gate))
    waiting.join(QUANTUM / 2)
    assert waiting.is_alive() and len(gate.waiters) == 1          # no place free: it waits
    time.sleep(max(0.0, mine.until - clock()))
    # my quantum ended and someone waits: the place goes to them, and I wait behind them (until they let their
    # quantum pass without asking: their thread has ended)
    again = ask(gate)
    waiting.join(5)
    assert box and box[0] is not mine and not mine.held
    assert box[0].until < again.until and again.held and gate.holders == [again]


def test_waiters_are_granted_places_in_the_order_they_came():
    gate = AdmissionGate(1, QUANTUM)
    mine = ask(gate)
    order, threads = [], []
    for k in range(3):
        def waiter(k=k):
            ticket = ask(gate)
            order.append(k)
            time.sleep(max(0.0, ticket.until - clock()))
            ask(gate)                           # hands the place on to the next one
            return ticket
        threads.append(in_thread(waiter)[0])
        while len(gate.waiters) < k + 1:        # each queued before the next one comes
            time.sleep(0.001)
    time.sleep(max(0.0, mine.until - clock()))
    ask(gate)
    for t in threads:
        t.join(5)
    assert order == [0, 1, 2]


def test_the_place_of_a_holder_that_stopped_asking_is_taken_over():
    gate = AdmissionGate(1, QUANTUM)
    gone, box = in_thread(lambda: ask(gate))        # takes the place and ends without asking again
    gone.join(5)
    abandoned = box[0]
    start = clock()
    mine = ask(gate)                                # waits, then takes the place over
    assert mine.held and gate.holders == [mine] and not abandoned.held
    assert clock() - start >= QUANTUM / 2           # not before the holder let its quantum end


def test_a_new_caller_takes_a_place_left_stale_at_once():
    gate = AdmissionGate(1, QUANTUM)
    gone, box = in_thread(lambda: ask(gate))
    gone.join(5)
    time.sleep(QUANTUM * 2.5)                       # its holder let a whole quantum pass after its end
    mine = ask(gate)
    assert mine.held and gate.holders == [mine] and not box[0].held and not gate.waiters


def test_the_place_of_a_departed_holder_goes_to_callers_that_hand_one_place_back_and_forth():
    # two places: one taken by a thread that ends at once (its place fresh), one by the callers that remain. They
    # hand their place over at every quantum's end, so neither waits long enough to look for stale places itself:
    # the gate's own slow path must find the departed place and give it to the waiter
    gate = AdmissionGate(2, QUANTUM)
    gone, box = in_thread(lambda: ask(gate))
    gone.join(5)
    departed = box[0]
    waits = []
    stop = clock() + QUANTUM * 12

    def caller():
        while clock() < stop:
            before = clock()
            ask(gate)
            waits.append(clock() - before)
            time.sleep(QUANTUM / 10)
    threads = [threading.Thread(target=caller) for _ in range(2)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert not departed.held and departed not in gate.holders and len(gate.holders) == 2
    assert sum(w > QUANTUM / 2 for w in waits) <= 3        # a wait or two at the start, then none


def test_no_more_callers_than_places_run_at_once():
    gate = AdmissionGate(2, 0.05)
    inside, most = [0], [0]
    lock = threading.Lock()
    stop = time.perf_counter() + 0.5

    def caller():
        while time.perf_counter() < stop:
            ask(gate)
            with lock:
                inside[0] += 1
                most[0] = max(most[0], inside[0])
            time.sleep(0.0002)                  # a request, shorter than the quantum
            with lock:
                inside[0] -= 1
    threads = [threading.Thread(target=caller) for _ in range(6)]
    [t.start() for t in threads]
    [t.join() for t in threads]
    assert most[0] == 2


def test_a_caller_interrupted_while_waiting_leaves_the_queue(monkeypatch):
    gate = AdmissionGate(1, QUANTUM)
    ask(gate)

    def interrupted(self, waiter):
        raise KeyboardInterrupt
    monkeypatch.setattr(AdmissionGate, '_wait', interrupted)
    thread, box = in_thread(lambda: pytest.raises(KeyboardInterrupt, ask, gate))
    thread.join(5)
    assert box and not gate.waiters and len(gate.holders) == 1


def test_a_gate_needs_a_place():
    with pytest.raises(ValueError, match='at least one place'):
        AdmissionGate(0)


def test_one_gate_per_slot_count_in_the_process():
    assert serving_gate(3) is serving_gate(3) and serving_gate(3) is not serving_gate(4)


@pytest.mark.parametrize('raw, want', [(None, 'cores'), ('', 'cores'), ('3', 3), ('off', None), ('0', None)])
def test_the_environment_variable_sizes_the_gate(config_with, raw, want):
    slots = config_with('PADDLE_EXEC_SERVING_SLOTS', raw).serving_slots
    assert slots == (usable_cores() if want == 'cores' else want)


@pytest.mark.parametrize('raw', ['many', '-2', '1.5'])
def test_a_malformed_slot_count_is_an_error_naming_the_variable(config_with, raw):
    with pytest.raises(ValueError, match='PADDLE_EXEC_SERVING_SLOTS must be a number of requests'):
        config_with('PADDLE_EXEC_SERVING_SLOTS', raw)


# --- the lanes that pass it ---------------------------------------------------------------------------------------

def test_an_inline_serving_lane_passes_the_gate(served_fc):
    pe, run = served_fc('USE_INLINE_EXECUTOR', '5')
    gate = serving_gate(5, SERVING_SPIN_US)          # the runner's: 5 places, turns with the default budget
    lane = next(iter(pe._compiled_program._executor.lanes.values()))
    assert 'GATE.enter' in lane.__code__.co_names or 'GATE' in lane.__code__.co_freevars

    def request():
        run()
        return gate.local.ticket
    thread, box = in_thread(request)             # a new thread: its first request asks the gate for a place
    thread.join(30)
    assert box and box[0].held and box[0] in gate.holders
    pe.close()


def test_other_policies_and_a_gate_turned_off_do_not_pass_it(monkeypatch, served_fc):
    calls = []
    monkeypatch.setattr(admission.AdmissionGate, 'enter', lambda self, t: calls.append(t))
    for policy, slots in (('USE_NORMAL_EXECUTOR', '6'), ('USE_INLINE_EXECUTOR', 'off')):
        pe, run = served_fc(policy, slots)
        thread, _ = in_thread(run)
        thread.join(30)
        lane = next(iter(pe._compiled_program._executor.lanes.values()))
        assert 'GATE' not in lane.__code__.co_freevars
        pe.close()
    assert calls == []


def test_the_lane_text_asks_the_gate_only_when_gated():
    gated = lanes_module._lane_source(1, 1, None, False, False, True, gated=True)
    plain = lanes_module._lane_source(1, 1, None, False, False, True)
    assert 'GATE.enter(t)' in gated and 'GATE' not in plain
