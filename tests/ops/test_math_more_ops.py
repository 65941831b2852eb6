"""Math and logic ops and builders: log1p, erf, logsumexp, dot, bmm, reduce_all / reduce_any, the isfinite family
(1.8's whole-tensor isfinite / isnan / isinf and 2.x's elementwise *_v2), size, rank and is_empty: ops and
attributes of what each builder appends, values against numpy, gradients against finite differences.

Values marked 'Paddle 1.8.5' / 'Paddle 2.6.2' were recorded with those versions (static mode, CPU)."""
import math

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.kernels import reduce as KR
from tests.ops.test_indexing_ops import build_and_run
from tests.ops.test_tensor_ops import grad_through_program, run_one, shapes_of

L = fluid.layers
F32 = np.float32
XS = np.array([[0.5, -0.3, 2.0], [1e-8, 3.0, -0.9]], F32)
SPECIAL = np.array([[1., np.nan, np.inf], [0., -np.inf, 2.]], F32)
BOOLS = np.array([[True, False], [True, True]])


@pytest.fixture
def rng():
    return np.random.RandomState(5)


# =================================================================================================================
# log1p, erf
# =================================================================================================================

def test_log1p_builders_and_small_arguments():
    for build in (lambda v: L.log1p(v['x']), lambda v: paddle.log1p(v['x'])):
        ops, got, _ = build_and_run(build, {'x': XS})
        assert [op[0] for op in ops] == ['log1p'] and ops[0][2] == {'Out': ['log1p_0.tmp_0']}
        # Paddle 2.6.2; log1p(1e-8) is 1e-8 (Paddle 1.8.5 computed log(1 + x) in float32 and gave 0 there)
        np.testing.assert_allclose(got[0], [[0.4054651, -0.35667497, 1.0986123], [1e-8, 1.3862944, -2.3025849]],
                                   rtol=1e-7)
        assert got[0][1, 0] == F32(1e-8)


def test_erf_builders_values():
    for build in (lambda v: L.erf(v['x']), lambda v: paddle.erf(v['x'])):
        ops, got, _ = build_and_run(build, {'x': XS})
        assert ops == [('erf', {'X': ['x']}, {'Out': ['erf_0.tmp_0']}, {})]
        # Paddle 1.8.5 (correctly rounded; 2.6.2's float erf is 2 ulp off at 3.0: 0.99997801)
        np.testing.assert_array_equal(got[0], np.array([[5.2049989e-01, -3.2862678e-01, 9.9532229e-01],
                                                        [1.1283792e-08, 9.9997789e-01, -7.9690820e-01]], F32))


def test_log1p_and_erf_grads(rng):
    x = rng.uniform(-0.5, 2.0, (3, 4)).astype(F32)
    grad_through_program(lambda v: L.log1p(v['x']), {'x': x}, ['x'], np.log1p, rng)
    erf = np.vectorize(math.erf)
    grad_through_program(lambda v: paddle.erf(v['x']), {'x': x}, ['x'], erf, rng)


# =================================================================================================================
# logsumexp
# =================================================================================================================

def _logsumexp(a, axis=None, keepdims=False):
    m = np.max(a, axis=axis, keepdims=True)
    out = np.log(np.sum(np.exp(a - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis=axis)


def test_fluid_logsumexp_is_exp_reduce_sum_log_like_paddle_1_8():
    ops, got, outs = build_and_run(lambda v: L.logsumexp(v['x'], dim=-1, keepdim=True), {'x': XS})
    assert [op[0] for op in ops] == ['exp', 'reduce_sum', 'log']
    assert ops[1][3]['dim'] == [-1] and ops[1][3]['keep_dim'] is True
    np.testing.assert_allclose(got[0], [[2.280196], [3.0676858]], rtol=1e-7)      # Paddle 1.8.5
    ops, got, outs = build_and_run(lambda v: L.logsumexp(v['x']), {'x': XS})
    assert ops[1][3]['reduce_all'] is True and tuple(outs[0].shape) == (1,)


def test_paddle_logsumexp_op_attrs_and_values():
    ops, got, outs = build_and_run(lambda v: paddle.logsumexp(v['x'], axis=-1, keepdim=True), {'x': XS})
    assert ops == [('logsumexp', {'X': ['x']}, {'Out': ['logsumexp_0.tmp_0']},
                    {'axis': [-1], 'keepdim': True, 'reduce_all': False})]
    # Paddle 2.6.2 (computed in float32: the second row differs from the float64 value by one ulp)
    np.testing.assert_array_equal(got[0], np.array([[2.280196], [3.0676856]], F32))
    for axis in (None, [0, 1]):
        ops, got, outs = build_and_run(lambda v: paddle.logsumexp(v['x'], axis=axis), {'x': XS})
        assert ops[0][3]['reduce_all'] is True and tuple(outs[0].shape) == (1,)
        np.testing.assert_allclose(got[0], [3.4426816], rtol=1e-7)               # Paddle 2.6.2 (shape [] there)
    got, _ = run_one('logsumexp', {'X': ('x', np.array([[-np.inf, 1.], [-np.inf, 2.]], F32))}, {'Out': 'o'},
                     {'axis': [0]})
    # Paddle 2.6.2: a column of -inf gives nan (-inf - -inf)
    assert np.isnan(got['o'][0]) and got['o'][1] == F32(2.3132617)


def test_logsumexp_grad_over_non_adjacent_axes(rng):
    x = rng.randn(2, 3, 4).astype(F32)
    grad_through_program(lambda v: paddle.logsumexp(v['x'], axis=[0, 2]), {'x': x}, ['x'],
                         lambda a: _logsumexp(a, axis=(0, 2)), rng)
    grad_through_program(lambda v: paddle.logsumexp(v['x'], axis=1, keepdim=True), {'x': x}, ['x'],
                         lambda a: _logsumexp(a, axis=1, keepdims=True), rng)


# =================================================================================================================
# dot, bmm
# =================================================================================================================

def test_dot_keeps_the_reduced_axis_like_paddle_2_4():
    for build in (lambda v: L.dot(v['x'], v['y']), lambda v: paddle.dot(v['x'], v['y'])):
        ops, got, outs = build_and_run(build, {'x': XS, 'y': XS * 2})
        assert ops == [('dot', {'X': ['x'], 'Y': ['y']}, {'Out': ['dot_0.tmp_0']}, {})]
        assert tuple(outs[0].shape) == (2, 1)                                   # Paddle 1.8.5: (2, 1)
        np.testing.assert_allclose(got[0], [[8.68], [19.619999]], rtol=1e-7)
    _, got, outs = build_and_run(lambda v: L.dot(v['x'], v['y']), {'x': XS[0], 'y': XS[1]})
    assert tuple(outs[0].shape) == (1,)
    np.testing.assert_allclose(got[0], [-2.7], rtol=1e-6)
    with pytest.raises(ValueError, match='should be 1 or 2'):
        shapes_of(lambda v: L.dot(v['x'], v['x']), {'x': ([2, 2, 3], 'float32')})


def test_bmm_builders_and_shape_errors():
    x, y = np.arange(12, dtype=F32).reshape(2, 2, 3), np.arange(24, dtype=F32).reshape(2, 3, 4)
    for build in (lambda v: L.bmm(v['x'], v['y']), lambda v: paddle.bmm(v['x'], v['y'])):
        ops, got, outs = build_and_run(build, {'x': x, 'y': y})
        assert ops == [('bmm', {'X': ['x'], 'Y': ['y']}, {'Out': ['bmm_0.tmp_0']}, {})]
        assert tuple(outs[0].shape) == (2, 2, 4)
        np.testing.assert_array_equal(got[0], x @ y)
    with pytest.raises(ValueError, match="x's width must be equal with y's height"):
        build_and_run(lambda v: L.bmm(v['x'], v['x']), {'x': x})
    with pytest.raises(ValueError, match="x's batch"):
        build_and_run(lambda v: paddle.bmm(v['x'], v['y']), {'x': x, 'y': np.zeros((3, 3, 4), F32)})


def test_dot_and_bmm_grads(rng):
    x, y = rng.randn(3, 4).astype(F32), rng.randn(3, 4).astype(F32)
    grad_through_program(lambda v: paddle.dot(v['x'], v['y']), {'x': x, 'y': y}, ['x', 'y'],
                         lambda a, b: np.sum(a * b, -1, keepdims=True), rng)
    a, b = rng.randn(2, 3, 4).astype(F32), rng.randn(2, 4, 2).astype(F32)
    grad_through_program(lambda v: paddle.bmm(v['a'], v['b']), {'a': a, 'b': b}, ['a', 'b'], np.matmul, rng)


# =================================================================================================================
# reduce_all / reduce_any
# =================================================================================================================

def test_reduce_all_any_builders_attrs_and_values():
    cases = [
        # Paddle 1.8.5
        (lambda v: L.reduce_all(v['b']), 'reduce_all', 'reduce_all_0.tmp_0', [0], False, True, [False]),
        (lambda v: L.reduce_all(v['b'], dim=[1], keep_dim=True), 'reduce_all', 'reduce_all_0.tmp_0', [1], True,
         False, [[False], [True]]),
        (lambda v: L.reduce_any(v['b'], dim=0), 'reduce_any', 'reduce_any_0.tmp_0', [0], False, False, [True, True]),
        # Paddle 2.4 builds dim [0] for axis None (2.6.2 writes dim [] and a 0-D result)
        (lambda v: paddle.all(v['b']), 'reduce_all', 'all_0.tmp_0', [0], False, True, [False]),
        (lambda v: paddle.any(v['b'], axis=-1), 'reduce_any', 'any_0.tmp_0', [-1], False, False, [True, True]),
    ]
    for build, op_type, out_name, dim, keep, reduce_all, want in cases:
        ops, got, outs = build_and_run(build, {'b': BOOLS})
        assert ops[0][:3] == (op_type, {'X': ['b']}, {'Out': [out_name]})
        assert (ops[0][3]['dim'], ops[0][3]['keep_dim'], ops[0][3]['reduce_all']) == (dim, keep, reduce_all)
        assert str(outs[0].dtype) == 'VarType.BOOL'
        np.testing.assert_array_equal(got[0], want)


def test_bool_reductions_on_empty_and_non_adjacent_dims():
    empty = np.zeros((2, 0), bool)
    got, _ = run_one('reduce_all', {'X': ('x', empty)}, {'Out': 'o'}, {'dim': [1]})
    np.testing.assert_array_equal(got['o'], [True, True])
    got, _ = run_one('reduce_any', {'X': ('x', empty)}, {'Out': 'o'}, {'dim': [1]})
    np.testing.assert_array_equal(got['o'], [False, False])
    b = np.random.RandomState(0).rand(2, 3, 4) > 0.3
    np.testing.assert_array_equal(KR.bool_reduce_forward(b, True, (0, 2)), b.all(axis=(0, 2)))
    np.testing.assert_array_equal(KR.bool_reduce_forward(b, False, (0, 2), keep_dim=True),
                                  b.any(axis=(0, 2), keepdims=True))
    with pytest.raises(TypeError, match="'x' in all must be"):
        build_and_run(lambda v: paddle.all(v['x']), {'x': XS})


# =================================================================================================================
# isfinite family
# =================================================================================================================

def test_fluid_isfinite_has_nan_has_inf_reduce_the_whole_tensor():
    for build, op_type, want_special, want_plain in (
            (lambda v: L.isfinite(v['x']), 'isfinite', False, True),
            (lambda v: L.has_nan(v['x']), 'isnan', True, False),
            (lambda v: L.has_inf(v['x']), 'isinf', True, False)):
        for x, want in ((SPECIAL, want_special), (XS, want_plain)):
            ops, got, outs = build_and_run(build, {'x': x})
            assert ops == [(op_type, {'X': ['x']}, {'Out': [op_type + '_0.tmp_0']}, {})]
            assert tuple(outs[0].shape) == (1,)
            np.testing.assert_array_equal(got[0], [want])        # Paddle 1.8.5
    got, _ = run_one('isnan', {'X': ('x', np.array([[1., np.nan]], F32))}, {'Out': 'o'})
    np.testing.assert_array_equal(got['o'], [True])
    got, _ = run_one('isinf', {'X': ('x', np.array([[1., np.nan]], F32))}, {'Out': 'o'})
    np.testing.assert_array_equal(got['o'], [False])
    got, _ = run_one('isfinite', {'X': ('x', np.array([3, 4], np.int64))}, {'Out': 'o'})
    np.testing.assert_array_equal(got['o'], [True])


def test_paddle_isfinite_isnan_isinf_are_elementwise_v2_ops():
    for build, op_type, want in (
            (lambda v: paddle.isfinite(v['x']), 'isfinite_v2', [[True, False, False], [True, False, True]]),
            (lambda v: paddle.isnan(v['x']), 'isnan_v2', [[False, True, False], [False, False, False]]),
            (lambda v: paddle.isinf(v['x']), 'isinf_v2', [[False, False, True], [False, True, False]])):
        ops, got, outs = build_and_run(build, {'x': SPECIAL})
        assert ops == [(op_type, {'X': ['x']}, {'Out': [op_type + '_0.tmp_0']}, {})]
        assert tuple(outs[0].shape) == (2, 3) and str(outs[0].dtype) == 'VarType.BOOL'
        np.testing.assert_array_equal(got[0], want)              # Paddle 2.6.2
    ops, got, _ = build_and_run(lambda v: paddle.isinf(v['x']), {'x': np.array([1, 2], np.int32)})
    np.testing.assert_array_equal(got[0], [False, False])


# =================================================================================================================
# size, rank, is_empty
# =================================================================================================================

def test_size_rank_is_empty_builders():
    ops, got, outs = build_and_run(lambda v: L.size(v['x']), {'x': XS})
    assert ops == [('size', {'Input': ['x']}, {'Out': ['size_0.tmp_0']}, {})] and str(outs[0].dtype) == 'VarType.INT64'
    np.testing.assert_array_equal(got[0], [6])                  # Paddle 1.8.5
    for build in (lambda v: L.rank(v['x']), lambda v: paddle.rank(v['x'])):
        ops, got, outs = build_and_run(build, {'x': XS})
        # Paddle 1.8.5 and 2.6.2: assign_value of an int32 of shape [], fetched as array(2)
        assert ops[0][0] == 'assign_value' and ops[0][3]['shape'] == [] and ops[0][3]['int32_values'] == [2]
        assert got[0].shape == () and got[0] == 2 and got[0].dtype == np.int32
    ops, got, outs = build_and_run(lambda v: L.is_empty(v['x']), {'x': np.zeros((0, 3), F32)})
    assert ops == [('is_empty', {'X': ['x']}, {'Out': ['is_empty_0.tmp_0']}, {})] and outs[0].stop_gradient
    np.testing.assert_array_equal(got[0], [True])
    ops, got, _ = build_and_run(lambda v: L.is_empty(v['x'], cond=L.fill_constant([1], 'bool', False)), {'x': XS})
    np.testing.assert_array_equal(got[0], [False])
    with pytest.raises(TypeError, match='cond of is_empty'):
        build_and_run(lambda v: L.is_empty(v['x'], cond=L.fill_constant([2], 'bool', False)), {'x': XS})
