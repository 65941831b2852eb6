"""Indexing ops (gather_nd, scatter, scatter_nd_add, index_select, flip, roll, tril_triu, cumsum) through their
fluid.layers (1.8) and paddle.* (2.x) builders: the ops and attributes each builder appends, forward values against
numpy, gradients against finite differences, negative axes, duplicate indices, empty results and index errors.

Values marked 'Paddle 1.8.5' / 'Paddle 2.6.2' were recorded with those versions (static mode, CPU)."""
import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.backward import append_backward
from paddle_exec.executor import Executor
from paddle_exec.framework import CPUPlace, Program, program_guard, unique_name
from tests.ops.test_tensor_ops import grad_through_program, run_one, shapes_of

L = fluid.layers
F32 = np.float32
X234 = np.arange(24, dtype=F32).reshape(2, 3, 4)


@pytest.fixture
def rng():
    return np.random.RandomState(11)


def build_and_run(build, feeds):
    """(ops as (type, inputs, outputs, attrs without op_role*), fetched outputs) of build(data vars)."""
    prog, startup = Program(), Program()
    with program_guard(prog, startup), unique_name.guard():
        vs = {n: L.data(name=n, shape=list(v.shape), dtype=str(v.dtype), append_batch_size=False)
              for n, v in feeds.items()}
        out = build(vs)
    outs = list(out) if isinstance(out, (list, tuple)) else [out]
    ops = [(op.type, {k: list(v) for k, v in op.inputs.items() if v}, {k: list(v) for k, v in op.outputs.items()},
            {k: v for k, v in op.attrs.items() if not k.startswith('op_')}) for op in prog.global_block().ops]
    got = Executor(CPUPlace()).run(prog, feed=feeds, fetch_list=outs)
    return ops, got, outs


# =================================================================================================================
# gather_nd
# =================================================================================================================

def test_gather_nd_builders_append_one_op_and_pick_rows_like_numpy():
    idx = np.array([[1, 2], [0, 0]], np.int64)
    for build in (lambda v: L.gather_nd(v['x'], v['i']), lambda v: paddle.gather_nd(v['x'], v['i'])):
        ops, got, outs = build_and_run(build, {'x': X234, 'i': idx})
        assert ops == [('gather_nd', {'X': ['x'], 'Index': ['i']}, {'Out': ['gather_nd_0.tmp_0']}, {})]
        assert tuple(outs[0].shape) == (2, 4)
        np.testing.assert_array_equal(got[0], X234[idx[:, 0], idx[:, 1]])


def test_gather_nd_partial_and_empty_index_depth():
    # Paddle 1.8.5 and 2.6.2: a [2, 0] index repeats the whole tensor: shape (2, 2, 3, 4); [0, 2]: shape (0,)
    got, _ = run_one('gather_nd', {'X': ('x', X234), 'Index': ('i', np.array([[1], [0]], np.int32))}, {'Out': 'o'})
    np.testing.assert_array_equal(got['o'], X234[[1, 0]])
    got, _ = run_one('gather_nd', {'X': ('x', X234), 'Index': ('i', np.zeros((2, 0), np.int64))}, {'Out': 'o'})
    np.testing.assert_array_equal(got['o'], np.stack([X234, X234]))
    got, _ = run_one('gather_nd', {'X': ('x', X234[0]), 'Index': ('i', np.zeros((0, 2), np.int64))}, {'Out': 'o'})
    assert got['o'].shape == (0,)
    assert shapes_of(lambda v: L.gather_nd(v['x'], v['i']),
                     {'x': ([-1, 3, 4], 'float32'), 'i': ([5, 7, 2], 'int64')}) == [(5, 7, 4)]


def test_gather_nd_never_wraps_negative_or_large_indices():
    # Paddle 2.6.2: "The value of Input(index) must be no less than 0" / "Input(index[-1)] has wrong value, it is [3]"
    with pytest.raises(ValueError, match='must be no less than 0'):
        run_one('gather_nd', {'X': ('x', X234), 'Index': ('i', np.array([[0, -1]], np.int64))}, {'Out': 'o'})
    with pytest.raises(ValueError, match=r'has wrong value, it is \[3\]'):
        run_one('gather_nd', {'X': ('x', X234), 'Index': ('i', np.array([[0, 3]], np.int64))}, {'Out': 'o'})


def test_gather_nd_grad_sums_duplicates(rng):
    x = rng.randn(3, 4, 2).astype(F32)
    idx = np.array([[2, 1], [0, 3], [2, 1]], np.int64)
    grad_through_program(lambda v: L.gather_nd(v['x'], v['i']), {'x': x, 'i': idx}, ['x'],
                         lambda a: a[idx[:, 0], idx[:, 1]], rng)


# =================================================================================================================
# scatter, scatter_nd_add
# =================================================================================================================

def test_scatter_overwrite_and_accumulate_with_duplicate_ids():
    x, ids, upd = np.ones((3, 2), F32), np.array([2, 1, 2], np.int64), np.arange(6, dtype=F32).reshape(3, 2)
    builds = [lambda v: L.scatter(v['x'], v['i'], v['u']), lambda v: L.scatter(v['x'], v['i'], v['u'], overwrite=False),
              lambda v: paddle.scatter(v['x'], v['i'], v['u']),
              lambda v: paddle.scatter(v['x'], v['i'], v['u'], overwrite=False)]
    # Paddle 1.8.5 and 2.6.2 alike: the last duplicate wins; without overwrite the rows are zeroed, then summed
    want = {True: [[1, 1], [2, 3], [4, 5]], False: [[1, 1], [2, 3], [4, 6]]}
    for k, build in enumerate(builds):
        ops, got, _ = build_and_run(build, {'x': x, 'i': ids, 'u': upd})
        overwrite = k % 2 == 0
        assert ops == [('scatter', {'X': ['x'], 'Ids': ['i'], 'Updates': ['u']}, {'Out': ['scatter_0.tmp_0']},
                        {'overwrite': overwrite})]
        np.testing.assert_array_equal(got[0], want[overwrite])


def test_scatter_index_errors_are_index_errors_with_paddles_wording():
    x, upd = np.zeros((3, 4), F32), np.ones((1, 4), F32)
    with pytest.raises(IndexError, match=r'less than 1st-dim size \(3\) of input, but received \[3\]'):
        run_one('scatter', {'X': ('x', x), 'Ids': ('i', np.array([3], np.int64)), 'Updates': ('u', upd)},
                {'Out': 'o'})
    with pytest.raises(IndexError, match=r'greater than or equal to 0, but received \[-1\]'):
        run_one('scatter', {'X': ('x', x), 'Ids': ('i', np.array([-1], np.int64)), 'Updates': ('u', upd)},
                {'Out': 'o'})


def test_scatter_grad_zeroes_scattered_rows_of_x_and_gathers_updates(rng):
    x, upd = rng.randn(4, 3).astype(F32), rng.randn(3, 3).astype(F32)
    ids = np.array([3, 0, 3], np.int64)

    def ref_accumulate(a, u):
        out = a.copy()
        out[ids] = 0
        np.add.at(out, ids, u)
        return out
    grad_through_program(lambda v: L.scatter(v['x'], v['i'], v['u'], overwrite=False),
                         {'x': x, 'i': ids, 'u': upd}, ['x', 'u'], ref_accumulate, rng)
    unique = np.array([3, 0], np.int64)

    def ref_overwrite(a, u):
        out = a.copy()
        out[unique] = u
        return out
    grad_through_program(lambda v: L.scatter(v['x'], v['i'], v['u']), {'x': x, 'i': unique, 'u': upd[:2]},
                         ['x', 'u'], ref_overwrite, rng)


def test_scatter_grad_of_overwritten_duplicates_matches_paddle_2():
    # Paddle 2.6.2 (the same program): every duplicate gets the gathered gradient, even the overwritten one
    prog, startup = Program(), Program()
    with program_guard(prog, startup):
        x = paddle.static.data('x', [3, 2], 'float32')
        u = paddle.static.data('u', [3, 2], 'float32')
        i = paddle.static.data('i', [3], 'int64')
        w = paddle.static.data('w', [3, 2], 'float32')
        x.stop_gradient = u.stop_gradient = False
        loss = paddle.add(paddle.sum(paddle.multiply(paddle.scatter(x, i, u, overwrite=False), w)),
                          paddle.sum(paddle.multiply(paddle.scatter(x, i, u), paddle.multiply(w, w))))
        append_backward(loss)
    gx, gu = Executor(CPUPlace()).run(prog, feed={'x': np.ones((3, 2), F32), 'u': np.ones((3, 2), F32),
                                                  'i': np.array([2, 0, 2], np.int64),
                                                  'w': np.arange(1, 7, dtype=F32).reshape(3, 2)},
                                      fetch_list=['x@GRAD', 'u@GRAD'])
    np.testing.assert_array_equal(gx, [[0, 0], [12, 20], [0, 0]])
    np.testing.assert_array_equal(gu, [[30, 42], [2, 6], [30, 42]])


def test_scatter_nd_add_accumulates_duplicates_and_accepts_empty_updates():
    idx, upd = np.array([[1, 2], [1, 2], [0, 0]], np.int64), np.ones((3, 4), F32)
    for build in (lambda v: L.scatter_nd_add(v['x'], v['i'], v['u']),
                  lambda v: paddle.scatter_nd_add(v['x'], v['i'], v['u'])):
        ops, got, _ = build_and_run(build, {'x': X234, 'i': idx, 'u': upd})
        assert [op[0] for op in ops] == ['scatter_nd_add']
        want = X234.copy()
        np.add.at(want, (idx[:, 0], idx[:, 1]), upd)
        np.testing.assert_array_equal(got[0], want)       # Paddle 1.8.5 / 2.6.2: the [1, 2] row gets 2 added
    got, _ = run_one('scatter_nd_add', {'X': ('x', X234[0]), 'Index': ('i', np.zeros((0, 2), np.int64)),
                                        'Updates': ('u', np.zeros((0,), F32))}, {'Out': 'o'})
    np.testing.assert_array_equal(got['o'], X234[0])
    with pytest.raises(IndexError, match=r'less than \[4\] and greater or equal to 0, but received \[-1\]'):
        run_one('scatter_nd_add', {'X': ('x', X234[0]), 'Index': ('i', np.array([[1, -1]], np.int64)),
                                   'Updates': ('u', np.ones((1,), F32))}, {'Out': 'o'})
    with pytest.raises(ValueError, match='Input\\(Updates\\) of operator scatter_nd_add'):
        shapes_of(lambda v: L.scatter_nd_add(v['x'], v['i'], v['u']),
                  {'x': ([3, 4], 'float32'), 'i': ([2, 1], 'int64'), 'u': ([2, 3], 'float32')})


def test_scatter_nd_add_grad(rng):
    x, upd = rng.randn(3, 4).astype(F32), rng.randn(3).astype(F32)
    idx = np.array([[2, 1], [0, 3], [2, 1]], np.int64)

    def ref(a, u):
        out = a.copy()
        np.add.at(out, (idx[:, 0], idx[:, 1]), u)
        return out
    grad_through_program(lambda v: L.scatter_nd_add(v['x'], v['i'], v['u']), {'x': x, 'i': idx, 'u': upd},
                         ['x', 'u'], ref, rng)


# =================================================================================================================
# index_select
# =================================================================================================================

def test_index_select_negative_dim_duplicates_and_empty_index():
    idx = np.array([3, 0, 3], np.int64)
    for build in (lambda v: L.index_select(v['x'], v['i'], dim=-1), lambda v: paddle.index_select(v['x'], v['i'], -1)):
        ops, got, outs = build_and_run(build, {'x': X234, 'i': idx})
        assert ops == [('index_select', {'X': ['x'], 'Index': ['i']}, {'Out': ['index_select_0.tmp_0']}, {'dim': -1})]
        assert tuple(outs[0].shape) == (2, 3, 3)
        np.testing.assert_array_equal(got[0], X234[..., idx])
    got, _ = run_one('index_select', {'X': ('x', X234), 'Index': ('i', np.zeros(0, np.int64))}, {'Out': 'o'},
                     {'dim': 1})
    assert got['o'].shape == (2, 0, 4)


def test_index_select_rejects_out_of_range_indices_like_paddle():
    # Paddle 1.8.5 and 2.6.2, word for word
    for bad in (5, -1):
        with pytest.raises(ValueError, match=r'Variable value \(index\) of OP\(index_select\) expected >= 0 and < 3, '
                                             r'but got %d' % bad):
            run_one('index_select', {'X': ('x', X234[0]), 'Index': ('i', np.array([bad], np.int64))}, {'Out': 'o'})


def test_index_select_grad_sums_duplicates(rng):
    x = rng.randn(2, 5, 3).astype(F32)
    idx = np.array([4, 1, 4, 4], np.int64)
    grad_through_program(lambda v: paddle.index_select(v['x'], v['i'], axis=1), {'x': x, 'i': idx}, ['x'],
                         lambda a: a[:, idx], rng)


# =================================================================================================================
# flip (the op lives in ops/slicing.py; fluid.layers.flip is new)
# =================================================================================================================

def test_fluid_flip_sets_dims_and_paddle_flip_sets_axis(rng):
    ops, got, _ = build_and_run(lambda v: L.flip(v['x'], dims=[0, -1]), {'x': X234})
    assert ops[0][0] == 'flip' and ops[0][3]['dims'] == [0, -1]        # Paddle 1.8.5: attrs {'dims': [0, -1]}
    np.testing.assert_array_equal(got[0], X234[::-1, :, ::-1])
    ops, got, _ = build_and_run(lambda v: paddle.flip(v['x'], axis=[0, -1]), {'x': X234})
    assert ops[0][3]['axis'] == [0, -1]                                  # Paddle 2.6.2: attrs {'axis': [0, -1]}
    np.testing.assert_array_equal(got[0], X234[::-1, :, ::-1])
    with pytest.raises(TypeError, match="'dims' in flip must be"):
        build_and_run(lambda v: L.flip(v['x'], dims=1), {'x': X234})
    x = rng.randn(3, 4).astype(F32)
    grad_through_program(lambda v: L.flip(v['x'], dims=[1]), {'x': x}, ['x'], lambda a: a[:, ::-1], rng)


# =================================================================================================================
# roll
# =================================================================================================================

def test_roll_with_axes_negative_shifts_and_shifts_beyond_the_dim():
    ops, got, _ = build_and_run(lambda v: L.roll(v['x'], shifts=[1, -1], dims=[0, 2]), {'x': X234})
    # Paddle 1.8.5: the roll op, then an in-place reshape2 back to the input shape
    assert [op[0] for op in ops] == ['roll', 'reshape2']
    assert ops[0][3]['dims'] == [0, 2] and ops[0][3]['shifts'] == [1, -1]
    assert ops[1][1]['X'] == ops[1][2]['Out'] == ['roll_0.tmp_0']
    np.testing.assert_array_equal(got[0], np.roll(X234, (1, -1), (0, 2)))
    ops, got, _ = build_and_run(lambda v: paddle.roll(v['x'], shifts=[-5, 9], axis=[0, -1]), {'x': X234[0]})
    assert ops == [('roll', {'X': ['x']}, {'Out': ['roll_0.tmp_0']}, {'shifts': [-5, 9], 'axis': [0, -1], 'dims': []})]
    # Paddle 2.6.2
    np.testing.assert_array_equal(got[0], [[11, 8, 9, 10], [3, 0, 1, 2], [7, 4, 5, 6]])


def test_roll_without_axes_rolls_the_flattened_tensor():
    ops, got, _ = build_and_run(lambda v: L.roll(v['x'], shifts=5), {'x': X234})
    # Paddle 1.8.5: reshape2 to [-1, 1], roll on dim 0, reshape2 back
    assert [(op[0], op[3].get('shape')) for op in ops] == [('reshape2', [-1, 1]), ('roll', None),
                                                          ('reshape2', [2, 3, 4])]
    np.testing.assert_array_equal(got[0], np.roll(X234, 5))
    ops, got, _ = build_and_run(lambda v: paddle.roll(v['x'], 5), {'x': X234})
    assert [op[0] for op in ops] == ['roll'] and ops[0][3]['axis'] == []     # Paddle 2.6.2: one op, axis []
    np.testing.assert_array_equal(got[0], np.roll(X234, 5))


def test_roll_shift_tensor_and_errors():
    got, _ = run_one('roll', {'X': ('x', X234[0]), 'ShiftsTensor': ('s', np.array([2], np.int64))}, {'Out': 'o'},
                     {'axis': [1]})
    np.testing.assert_array_equal(got['o'], np.roll(X234[0], 2, 1))
    with pytest.raises(ValueError, match='axis is out of range'):
        build_and_run(lambda v: paddle.roll(v['x'], 1, axis=3), {'x': X234})
    with pytest.raises(ValueError, match='should be equal to shifts.size'):
        run_one('roll', {'X': ('x', X234)}, {'Out': 'o'}, {'axis': [0, 1], 'shifts': [1]})


def test_roll_grad(rng):
    x = rng.randn(3, 4).astype(F32)
    grad_through_program(lambda v: paddle.roll(v['x'], [1, -3], [0, 1]), {'x': x}, ['x'],
                         lambda a: np.roll(a, (1, -3), (0, 1)), rng)
    grad_through_program(lambda v: paddle.roll(v['x'], 7), {'x': x}, ['x'], lambda a: np.roll(a, 7), rng)


# =================================================================================================================
# tril / triu
# =================================================================================================================

def test_tril_triu_builders_name_the_output_after_the_helper():
    for build, lower in ((lambda v: L.tril(v['x'], diagonal=-1), True), (lambda v: paddle.tril(v['x'], -1), True),
                         (lambda v: L.triu(v['x'], diagonal=-1), False), (lambda v: paddle.triu(v['x'], -1), False)):
        ops, got, _ = build_and_run(build, {'x': X234})
        name = 'tril_0' if lower else 'triu_0'       # Paddle 1.8.5 and 2.6.2: Out=['tril_0']
        assert ops == [('tril_triu', {'X': ['x']}, {'Out': [name]}, {'diagonal': -1, 'lower': lower})]
        np.testing.assert_array_equal(got[0], np.tril(X234, -1) if lower else np.triu(X234, -1))
    ops, _, outs = build_and_run(lambda v: paddle.triu(v['x'], name='upper'), {'x': X234})
    assert outs[0].name == 'upper'


def test_tril_triu_diagonal_beyond_the_matrix_and_errors():
    got, _ = run_one('tril_triu', {'X': ('x', X234[0])}, {'Out': 'o'}, {'diagonal': 10, 'lower': True})
    np.testing.assert_array_equal(got['o'], X234[0])
    got, _ = run_one('tril_triu', {'X': ('x', X234[0])}, {'Out': 'o'}, {'diagonal': 10, 'lower': False})
    np.testing.assert_array_equal(got['o'], np.zeros((3, 4)))
    with pytest.raises(ValueError, match='must be at least 2-D'):
        build_and_run(lambda v: paddle.tril(v['x']), {'x': np.zeros(3, F32)})
    with pytest.raises(TypeError, match='diagonal in tril must be a python Int'):
        build_and_run(lambda v: paddle.tril(v['x'], 1.0), {'x': X234})


def test_tril_triu_grad(rng):
    x = rng.randn(2, 3, 3).astype(F32)
    grad_through_program(lambda v: L.triu(v['x'], 1), {'x': x}, ['x'], lambda a: np.triu(a, 1), rng)


# =================================================================================================================
# cumsum
# =================================================================================================================

def test_fluid_cumsum_attrs_and_exclusive_reverse():
    ops, got, _ = build_and_run(lambda v: L.cumsum(v['x'], axis=-1, exclusive=True, reverse=True), {'x': X234})
    assert ops[0][0] == 'cumsum' and ops[0][3] == {'axis': -1, 'exclusive': True, 'reverse': True, 'flatten': False}
    # Paddle 1.8.5: [[6, 5, 3, 0], [18, 13, 7, 0], [30, 21, 11, 0]] for the first block
    np.testing.assert_array_equal(got[0][0], [[6, 5, 3, 0], [18, 13, 7, 0], [30, 21, 11, 0]])
    ops, got, _ = build_and_run(lambda v: L.cumsum(v['x']), {'x': X234})
    assert ops[0][3]['axis'] == -1                     # 1.8: axis None means the last axis
    np.testing.assert_array_equal(got[0], np.cumsum(X234, -1))


def test_paddle_cumsum_flattens_for_axis_none_and_casts_for_dtype():
    ops, got, outs = build_and_run(lambda v: paddle.cumsum(v['x']), {'x': X234})
    assert ops[0][3]['flatten'] is True and tuple(outs[0].shape) == (24,)
    np.testing.assert_array_equal(got[0], np.cumsum(X234))
    ops, got, outs = build_and_run(lambda v: paddle.cumsum(v['x'], axis=1, dtype='float64'), {'x': X234})
    # Paddle 2.6.2: cast (5 -> 6), then cumsum with axis 1
    assert [op[0] for op in ops] == ['cast', 'cumsum'] and ops[1][3]['axis'] == 1
    assert got[0].dtype == np.float64
    np.testing.assert_array_equal(got[0], np.cumsum(X234, 1))
    ops, got, _ = build_and_run(lambda v: paddle.cumsum(v['x'], 0), {'x': np.arange(6, dtype=np.int32).reshape(2, 3)})
    np.testing.assert_array_equal(got[0], [[0, 1, 2], [3, 5, 7]])     # ints accumulate as ints
    assert got[0].dtype == np.int32


def test_cumsum_grad_is_a_reversed_cumsum_and_flatten_restores_the_shape(rng):
    x = rng.randn(3, 4).astype(F32)
    prog = grad_through_program(lambda v: L.cumsum(v['x'], axis=0, exclusive=True), {'x': x}, ['x'],
                                lambda a: np.concatenate([np.zeros((1, 4)), np.cumsum(a, 0)[:-1]]), rng)
    grad_ops = [op for op in prog.global_block().ops if op.type == 'cumsum']
    # Paddle 1.8.5: the gradient is a `cumsum` of Out@GRAD with reverse flipped
    assert len(grad_ops) == 2 and grad_ops[1].attrs['reverse'] is True and grad_ops[1].attrs['exclusive'] is True
    grad_through_program(lambda v: L.cumsum(v['x'], axis=1, reverse=True), {'x': x}, ['x'],
                         lambda a: np.cumsum(a[:, ::-1], 1)[:, ::-1], rng)
    prog = grad_through_program(lambda v: paddle.cumsum(v['x']), {'x': x}, ['x'], lambda a: np.cumsum(a), rng)
    # Paddle 2.6.2: cumsum_grad(X, Out@GRAD) for the flattened form
    assert 'cumsum_grad' in [op.type for op in prog.global_block().ops]


def test_cumsum_starts_from_zero_not_from_the_first_element():
    # an infinite first element must not turn into inf - inf = nan
    got, _ = run_one('cumsum', {'X': ('x', np.array([np.inf, 1., 2.], F32))}, {'Out': 'o'}, {'axis': 0})
    np.testing.assert_array_equal(got['o'], [np.inf, np.inf, np.inf])
    got, _ = run_one('cumsum', {'X': ('x', np.array([np.inf, 1., 2.], F32))}, {'Out': 'o'},
                     {'axis': 0, 'exclusive': True})
    np.testing.assert_array_equal(got['o'], [0, np.inf, np.inf])
