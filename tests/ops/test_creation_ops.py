"""Creation ops and builders: eye, linspace (Paddle 1.8's and 2.x's algorithms), randint, and the fluid.layers
builders uniform_random / gaussian_random / arange; ops, attributes and values of what each builder appends.

Values marked 'Paddle 1.8.5' / 'Paddle 2.6.2' were recorded with those versions (static mode, CPU)."""
import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.kernels import creation as K
from tests.ops.test_indexing_ops import build_and_run
from tests.ops.test_tensor_ops import run_one

L = fluid.layers
F32 = np.float32


def test_eye_builders_and_batch_shape():
    ops, got, outs = build_and_run(lambda v: L.eye(3, 4), {})
    # Paddle 1.8.5 and 2.6.2: eye {} -> eye_0.tmp_0, attrs num_rows / num_columns / dtype
    assert ops == [('eye', {}, {'Out': ['eye_0.tmp_0']}, {'num_rows': 3, 'num_columns': 4, 'dtype': 5})]
    assert tuple(outs[0].shape) == (3, 4) and outs[0].stop_gradient
    np.testing.assert_array_equal(got[0], np.eye(3, 4, dtype=F32))
    ops, got, _ = build_and_run(lambda v: paddle.eye(2, dtype='int64'), {})
    assert ops[0][3] == {'num_rows': 2, 'num_columns': 2, 'dtype': 3}
    assert got[0].dtype == np.int64 and np.array_equal(got[0], np.eye(2))
    ops, got, outs = build_and_run(lambda v: L.eye(2, batch_shape=[2, 3]), {})
    # Paddle 1.8.5: one stack per batch dim, innermost first
    assert [op[0] for op in ops] == ['eye', 'stack', 'stack'] and tuple(outs[0].shape) == (2, 3, 2, 2)
    np.testing.assert_array_equal(got[0], np.broadcast_to(np.eye(2), (2, 3, 2, 2)))
    got, _ = run_one('eye', {}, {'Out': 'o'}, {'num_rows': 0, 'num_columns': 3})
    assert got['o'].shape == (0, 3)
    with pytest.raises(TypeError, match='num_rows should be a non-negative int'):
        build_and_run(lambda v: paddle.eye(-1), {})


def test_fluid_linspace_accumulates_in_the_dtype_like_paddle_1_8():
    ops, got, outs = build_and_run(lambda v: L.linspace(0.1, 1.7, 7, 'float32'), {})
    assert [op[0] for op in ops] == ['fill_constant'] * 3 + ['linspace']
    assert ops[-1][3] == {'dtype': -1} and ops[2][3]['dtype'] == 2      # no dtype attribute in 1.8; Num is int32
    assert tuple(outs[0].shape) == (-1,)
    # Paddle 1.8.5
    np.testing.assert_array_equal(got[0], np.array([0.1, 0.36666667, 0.6333333, 0.9, 1.1666666, 1.4333333,
                                                    1.6999999], F32))


def test_paddle_linspace_is_symmetric_and_exact_at_stop_like_paddle_2():
    ops, got, outs = build_and_run(lambda v: paddle.linspace(0.1, 1.7, 7), {})
    assert ops[-1][0] == 'linspace' and ops[-1][3] == {'dtype': 5} and tuple(outs[0].shape) == (7,)
    assert all(op[3]['force_cpu'] for op in ops[:3])
    # Paddle 2.6.2
    np.testing.assert_array_equal(got[0], np.array([0.1, 0.36666667, 0.6333333, 0.90000004, 1.1666667, 1.4333334,
                                                    1.7], F32))
    _, got, _ = build_and_run(lambda v: paddle.linspace(0, 10, 4, 'int32'), {})
    np.testing.assert_array_equal(got[0], [0, 3, 6, 10])                # Paddle 2.6.2: truncation per half
    _, got, _ = build_and_run(lambda v: paddle.linspace(1, 0, 1, 'float64'), {})
    np.testing.assert_array_equal(got[0], [1.0])
    with pytest.raises(ValueError, match='may cause data type overflows'):
        build_and_run(lambda v: paddle.linspace(v['s'], 1, 3, 'float32'), {'s': np.zeros(1, np.float64)})


def test_linspace_kernels_and_num_check():
    np.testing.assert_array_equal(K.linspace_v2(np.float32(-1), np.float32(1), 5, np.float32), [-1, -.5, 0, .5, 1])
    np.testing.assert_array_equal(K.linspace_v1(np.float64(2), np.float64(3), 1, np.float64), [2.0])
    with pytest.raises(ValueError, match='num of linspace op should be larger than 0'):
        K.linspace_v2(0.0, 1.0, 0, np.float32)


def test_randint_builders_attrs_range_and_seed():
    ops, got, outs = build_and_run(lambda v: L.randint(0, 5, shape=[200, 3], seed=3), {})
    # Paddle 1.8.5: randint {} attrs low / high / seed / shape / dtype (int64 = 3)
    assert ops[0][0] == 'randint' and ops[0][3] == {'shape': [200, 3], 'low': 0, 'high': 5, 'seed': 3, 'dtype': 3}
    assert got[0].dtype == np.int64 and got[0].shape == (200, 3)
    assert got[0].min() == 0 and got[0].max() == 4
    _, again, _ = build_and_run(lambda v: L.randint(0, 5, shape=[200, 3], seed=3), {})
    np.testing.assert_array_equal(got[0], again[0])                     # a fixed seed repeats
    ops, got, outs = build_and_run(lambda v: paddle.randint(7, dtype='int32'), {})
    # Paddle 2.6.2: randint(high=None) draws from [0, low); shape [1]; stop_gradient
    assert ops[0][3] == {'shape': [1], 'low': 0, 'high': 7, 'seed': 0, 'dtype': 2} and outs[0].stop_gradient
    assert got[0].dtype == np.int32 and 0 <= got[0][0] < 7
    with pytest.raises(ValueError, match="randint's low must less then high"):
        build_and_run(lambda v: L.randint(5, 5), {})
    with pytest.raises(ValueError, match='If high is None, low must be greater than 0'):
        build_and_run(lambda v: paddle.randint(0), {})


def test_randint_shape_tensor_list():
    ops, got, outs = build_and_run(lambda v: paddle.randint(0, 3, shape=[v['n'], 2]), {'n': np.array([4], np.int32)})
    assert 'ShapeTensorList' in ops[-1][1] and tuple(outs[0].shape) == (-1, 2)
    assert got[0].shape == (4, 2)


def test_fluid_uniform_random_sets_no_dtype_so_float32_wins_like_paddle_1_8():
    ops, got, outs = build_and_run(lambda v: L.uniform_random([2, 3], dtype='float64', min=0., max=2., seed=1), {})
    # Paddle 1.8.5: attrs without dtype, the op's default 5 (float32) types and fills the output
    assert ops[0][0] == 'uniform_random' and ops[0][3]['dtype'] == 5
    assert (ops[0][3]['min'], ops[0][3]['max'], ops[0][3]['seed'], ops[0][3]['shape']) == (0.0, 2.0, 1, [2, 3])
    assert str(outs[0].dtype) == 'VarType.FP32' and got[0].dtype == np.float32
    assert got[0].shape == (2, 3) and (got[0] >= 0).all() and (got[0] < 2).all()


def test_fluid_gaussian_random_attrs_and_moments():
    ops, got, outs = build_and_run(lambda v: L.gaussian_random([4000], mean=1., std=2., seed=1, dtype='float64'), {})
    # Paddle 1.8.5: attrs mean / std / seed / dtype / use_mkldnn
    assert ops[0][0] == 'gaussian_random'
    assert {k: ops[0][3][k] for k in ('mean', 'std', 'seed', 'dtype', 'use_mkldnn')} == \
        {'mean': 1.0, 'std': 2.0, 'seed': 1, 'dtype': 6, 'use_mkldnn': False}
    assert got[0].dtype == np.float64
    assert abs(got[0].mean() - 1.0) < 0.15 and abs(got[0].std() - 2.0) < 0.15


def test_fluid_arange_defaults_to_float32():
    ops, got, outs = build_and_run(lambda v: L.arange(5, 1, -1), {})
    # Paddle 1.8.5: three float32 fill_constants and a range op: [5., 4., 3., 2.]
    assert [op[0] for op in ops] == ['fill_constant'] * 3 + ['range']
    assert got[0].dtype == np.float32
    np.testing.assert_array_equal(got[0], [5, 4, 3, 2])
