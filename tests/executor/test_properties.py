"""Property tests (hypothesis): random small programs and random feeds (shapes, empty batches, NaN and Inf) run on
every policy and on 1, 2 and 4 places give the plain Executor's results, or every run raises the same clear error.

The programs are chains of row-wise ops (activations, scale, elementwise with the input, fc, softmax, a per-row
reduce), so a batch split over places and merged back must equal the whole batch run on one place."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name

L = fluid.layers
POLICIES = {'sequential': None, 'native': 'USE_NORMAL_EXECUTOR', 'inline': 'USE_INLINE_EXECUTOR',
            'cost_model': 'USE_COST_MODEL_EXECUTOR'}

# each op: (name, builder(prev, x) -> Variable); all keep one row per input row
OPS = [
    ('relu', lambda h, x: L.relu(h)),
    ('tanh', lambda h, x: L.tanh(h)),
    ('sigmoid', lambda h, x: L.sigmoid(h)),
    ('scale', lambda h, x: L.scale(h, scale=-1.5, bias=0.25)),
    ('add_x', lambda h, x: L.elementwise_add(h, x) if h.shape[-1] == x.shape[-1] else L.scale(h, 2.0)),
    ('mul_x', lambda h, x: L.elementwise_mul(h, x) if h.shape[-1] == x.shape[-1] else L.abs(h)),
    ('fc', lambda h, x: L.fc(h, 3)),
    ('softmax', lambda h, x: L.softmax(h)),
    ('row_sum', lambda h, x: L.reduce_sum(h, dim=1, keep_dim=True)),
    ('square', lambda h, x: L.square(h)),
]

program_spec = st.tuples(st.integers(1, 4), st.lists(st.integers(0, len(OPS) - 1), min_size=1, max_size=5))
feed_spec = st.tuples(st.sampled_from([0, 1, 3, 5, 8]), st.integers(0, 2 ** 31 - 1),
                      st.sampled_from(['normal', 'nan', 'inf', 'huge']))


def build(width: int, op_ids: list):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, width], 'float32')
        h = x
        for k in op_ids:
            h = OPS[k][1](h, x)
    return main, startup, h


def make_feed(width: int, batch: int, seed: int, kind: str) -> dict:
    rng = np.random.RandomState(seed)
    x = rng.standard_normal((batch, width)).astype('float32')
    if batch and kind == 'nan':
        x[rng.randint(batch), rng.randint(width)] = np.nan
    elif batch and kind == 'inf':
        x[rng.randint(batch), rng.randint(width)] = np.inf * rng.choice([-1, 1])
    elif kind == 'huge':
        x *= 1e30
    return {'x': x}


def outcome(run):
    """('ok', array) or ('error', type name, message)."""
    try:
        with np.errstate(all='ignore'):
            return ('ok', run())
    except Exception as exc:  # noqa: BLE001 - the outcome is compared across executors
        return ('error', type(exc).__name__, str(exc))


def same(got, want, where: str) -> None:
    assert got[0] == want[0], '%s: %r vs the plain Executor %r' % (where, got[:3], want[:3])
    if want[0] == 'ok':
        np.testing.assert_allclose(got[1], want[1], rtol=2e-5, atol=1e-6, equal_nan=True, err_msg=where)
    else:
        assert got[1:] == want[1:], where


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(program_spec, feed_spec)
def test_every_policy_and_place_count_matches_the_plain_executor(program, feed):
    width, op_ids = program
    batch, seed, kind = feed
    main, startup, out = build(width, op_ids)
    scope = fluid.Scope()
    plain = fluid.Executor(fluid.CPUPlace())
    plain.run(startup, scope=scope)
    data = make_feed(width, batch, seed, kind)
    want = outcome(lambda: plain.run(main, feed=data, fetch_list=[out], scope=scope)[0])
    for name, policy in POLICIES.items():
        es = None
        if policy is not None:
            es = fluid.ExecutionStrategy()
            es.num_threads = 2
            es.executor_policy = policy
        exe = fluid.Executor(fluid.CPUPlace(), exec_strategy=es)
        same(outcome(lambda: exe.run(main, feed=data, fetch_list=[out], scope=scope)[0]), want, name)
        exe.close()
        for places in (2, 4):
            es = fluid.ExecutionStrategy()
            es.num_threads = 2
            if policy is not None:
                es.executor_policy = policy
            bs = fluid.BuildStrategy()
            bs.enable_sequential_execution = policy is None
            compiled = fluid.CompiledProgram(main).with_data_parallel(exec_strategy=es, build_strategy=bs,
                                                                      places=fluid.cpu_places(places))
            got = outcome(lambda: plain.run(compiled, feed=data, fetch_list=[out], scope=scope)[0])
            if batch == 0 and got[0] == 'ok':
                # an empty batch gives every place an empty chunk: the merge is empty too
                assert got[1].shape[0] == 0 and (want[0] != 'ok' or want[1].shape[0] == 0)
            else:
                same(got, want, '%s on %d places' % (name, places))
            compiled._executor.close()
    plain.close()


@pytest.mark.parametrize('places', [2, 4])
def test_a_batch_smaller_than_the_places_runs_an_inference_program_on_fewer_places(places):
    main, startup, out = build(2, [0, 6])
    scope = fluid.Scope()
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup, scope=scope)
    data = make_feed(2, 1, 0, 'normal')
    want, = exe.run(main, feed=data, fetch_list=[out], scope=scope)
    compiled = fluid.CompiledProgram(main).with_data_parallel(places=fluid.cpu_places(places))
    got, = exe.run(compiled, feed=data, fetch_list=[out], scope=scope)
    np.testing.assert_allclose(got, want, rtol=1e-6)
