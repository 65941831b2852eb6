"""The paddle.* names of issue 12 that golden numbers cannot pin down: random draws (shapes, dtypes, ranges,
distributions, seeding), the in-place `*_` functions' static-mode behaviour, declined names, process-wide settings
(default dtype, rng state, grad mode, print options), dtype names and finfo / iinfo, and argument errors in
Paddle's wording. Values marked 'Paddle 2.6.2' were read from it."""
import warnings

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
from paddle_exec.framework import unique_name


def run(build, feeds=None, seed=None):
    """(fetched values, ops) of build(data vars) in a fresh program."""
    feeds = feeds or {}
    if seed is not None:
        paddle.seed(seed)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup), unique_name.guard():
        vs = {k: paddle.static.data(k, list(np.shape(v)), str(np.asarray(v).dtype)) for k, v in feeds.items()}
        outs = build(vs)
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    exe = paddle.static.Executor(paddle.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feeds, fetch_list=outs), main.global_block().ops


# --- random ----------------------------------------------------------------------------------------------------------

def test_bernoulli_draws_zeros_and_ones_with_the_given_probabilities():
    p = np.tile(np.array([0.0, 0.25, 1.0], 'float32'), (4000, 1))
    (out,), ops = run(lambda v: paddle.bernoulli(v['p']), {'p': p}, seed=3)
    assert [op.type for op in ops] == ['bernoulli'] and out.dtype == np.float32 and out.shape == p.shape
    assert set(np.unique(out)) <= {0.0, 1.0}
    np.testing.assert_allclose(out.mean(0), [0.0, 0.25, 1.0], atol=0.03)


def test_multinomial_with_and_without_replacement():
    probs = np.array([[0.0, 3.0, 1.0], [1.0, 1.0, 2.0]], 'float32')
    (a, b), ops = run(lambda v: [paddle.multinomial(v['p'], 2000, replacement=True),
                                 paddle.multinomial(v['p'], 3)], {'p': probs[1:].repeat(2, 0)}, seed=5)
    assert ops[0].attrs['num_samples'] == 2000 and ops[0].attrs['replacement'] is True
    assert a.dtype == np.int64 and a.shape == (2, 2000)
    np.testing.assert_allclose(np.bincount(a[0], minlength=3) / 2000.0, [0.25, 0.25, 0.5], atol=0.04)
    assert b.shape == (2, 3) and all(sorted(row) == [0, 1, 2] for row in b)     # without replacement: each once
    (c,), _ = run(lambda v: paddle.multinomial(v['p'], 500, True), {'p': probs[:1]}, seed=5)
    assert 0 not in c                                                           # a zero probability never drawn
    with pytest.raises(ValueError, match='non-zero categories'):
        run(lambda v: paddle.multinomial(v['p'], 3), {'p': probs[:1]})


def test_poisson_randperm_randint_like():
    rate = np.full((3000,), 4.0, 'float64')
    (draws, perm, ints), ops = run(lambda v: [paddle.poisson(v['r']), paddle.randperm(7),
                                              paddle.randint_like(v['r'], 2, 5)], {'r': rate}, seed=11)
    assert [op.type for op in ops] == ['poisson', 'randperm', 'shape', 'randint', 'cast']
    assert abs(draws.mean() - 4.0) < 0.15 and abs(draws.var() - 4.0) < 0.4 and draws.dtype == np.float64
    assert sorted(perm) == list(range(7)) and perm.dtype == np.int64
    assert ints.dtype == np.float64 and ints.min() >= 2 and ints.max() <= 4
    with pytest.raises(ValueError, match='greater than 0'):
        paddle.randperm(0)


def test_normal_with_tensor_mean_and_std():
    mean = np.array([[0.0, 100.0], [-50.0, 5.0]], 'float32')
    std = np.array([[1.0, 0.0], [0.0, 2.0]], 'float32')
    (out,), ops = run(lambda v: paddle.normal(v['m'], v['s']), {'m': mean, 's': std}, seed=2)
    # Paddle 2.6.2's op sequence: shape, reshape2 (std to mean's shape), shape, gaussian_random, mul, add
    assert [op.type for op in ops] == ['shape', 'reshape2', 'shape', 'gaussian_random', 'elementwise_mul',
                                       'elementwise_add']
    assert out[0, 1] == 100.0 and out[1, 0] == -50.0 and out.shape == (2, 2)


def test_seeded_programs_repeat_and_rng_state_restores_the_stream():
    build = lambda v: [paddle.randperm(10), paddle.bernoulli(paddle.full([5], 0.5))]  # noqa: E731
    first, _ = run(build, seed=7)
    again, _ = run(build, seed=7)
    for a, b in zip(first, again):
        np.testing.assert_array_equal(a, b)
    paddle.seed(9)
    state = paddle.get_rng_state()
    x, _ = run(build)
    paddle.set_rng_state(state)
    y, _ = run(build)
    np.testing.assert_array_equal(x[0], y[0])
    with pytest.raises(ValueError, match='cpu device'):
        paddle.set_rng_state(state * 2)


# --- in-place functions and declined names -------------------------------------------------------------------------

def test_in_place_functions_warn_and_build_the_out_of_place_ops():
    x = np.array([[0.5, -1.0]], 'float32')
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter('always')
        (a, b, c), ops = run(lambda v: [paddle.tanh_(v['x']), paddle.reshape_(v['x'], [2, 1]),
                                        paddle.scale(v['x'], 2.0)], {'x': x})
    # Paddle 2.6.2: tanh_ appends `tanh`, reshape_ `reshape2`, with this warning
    assert [op.type for op in ops] == ['tanh', 'reshape2', 'scale']
    assert [str(w.message) for w in caught[:2]] == [
        'In static graph mode, tanh_() is the same as tanh() and does not perform inplace operation.',
        'In static graph mode, reshape_() is the same as reshape() and does not perform inplace operation.']
    np.testing.assert_allclose(a, np.tanh(x), rtol=1e-6)
    np.testing.assert_array_equal(c, x * 2)            # x itself is unchanged
    assert len([n for n in dir(paddle) if n.endswith('_') and not n.startswith('_')]) >= 65


@pytest.mark.parametrize('name', ['view', 'view_as', 'as_strided', 'tolist', 'unfold', 'normal_', 'cauchy_',
                                  'geometric_', 'grad', 'CUDAPinnedPlace', 'DataParallel', 'get_cuda_rng_state',
                                  'set_cuda_rng_state'])
def test_declined_names_raise_attribute_error_saying_why(name):
    assert not hasattr(paddle, name)
    with pytest.raises(AttributeError, match=r'^paddle\.%s is declined by paddle_exec: ' % name):
        getattr(paddle, name)
    with pytest.raises(AttributeError, match="has no attribute 'no_such_name'$"):
        paddle.no_such_name  # noqa: B018


# --- settings, dtypes ---------------------------------------------------------------------------------------------

def test_finfo_iinfo_and_dtype_names_match_paddle():
    # Paddle 2.6.2's reprs
    assert repr(paddle.finfo(paddle.float32)) == ('paddle.finfo(min=-3.40282e+38, max=3.40282e+38, eps=1.19209e-07, '
                                                  'resolution=1e-06, smallest_normal=1.17549e-38, tiny=1.17549e-38, '
                                                  'bits=32, dtype=float32)')
    assert repr(paddle.finfo(paddle.bfloat16)) == ('paddle.finfo(min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, '
                                                   'resolution=0.01, smallest_normal=1.17549e-38, tiny=1.17549e-38, '
                                                   'bits=16, dtype=bfloat16)')
    assert repr(paddle.finfo('float16')).startswith('paddle.finfo(min=-65504, max=65504, eps=0.000976562')
    assert paddle.finfo(paddle.complex64).dtype == 'float32' and paddle.finfo('float64').bits == 64
    assert repr(paddle.iinfo(paddle.uint8)) == 'paddle.iinfo(min=0, max=255, bits=8, dtype=uint8)'
    assert paddle.iinfo('int64').max == 2 ** 63 - 1
    with pytest.raises(TypeError):
        paddle.iinfo('float32')
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        z = paddle.complex(paddle.static.data('a', [2], 'float64'), paddle.static.data('b', [2], 'float64'))
        assert z.dtype == paddle.complex128 and paddle.is_complex(z) and not paddle.is_floating_point(z)
        assert paddle.is_integer(paddle.static.data('i', [2], 'int32'))
        assert paddle.float32 != paddle.bfloat16


def test_default_dtype_round_trip_and_checks():
    assert paddle.get_default_dtype() == 'float32'
    try:
        paddle.set_default_dtype('float64')
        assert paddle.get_default_dtype() == 'float64'
        with pytest.raises(TypeError, match='set_default_dtype only supports'):
            paddle.set_default_dtype('int32')
    finally:
        paddle.set_default_dtype('float32')


def test_grad_mode_switches_are_static_mode_no_ops():
    assert paddle.is_grad_enabled() is False           # Paddle 2.6.2 outside dygraph

    @paddle.no_grad()
    def f(a):
        return a + 1

    @paddle.no_grad
    def g(a):
        return a * 2
    assert f(1) == 2 and g(3) == 6 and g.__name__ == 'g'
    with paddle.no_grad(), paddle.enable_grad(), paddle.set_grad_enabled(False), paddle.LazyGuard():
        (y,), _ = run(lambda v: paddle.exp(v['x']), {'x': np.zeros(2, 'float32')})
    np.testing.assert_array_equal(y, [1.0, 1.0])
    with pytest.raises(TypeError):
        paddle.set_grad_enabled(1)
    assert paddle.disable_signal_handler() is None


def test_set_printoptions_sets_numpy_print_options():
    saved = np.get_printoptions()
    try:
        paddle.set_printoptions(precision=2, threshold=5, edgeitems=1, sci_mode=False, linewidth=60)
        opts = np.get_printoptions()
        assert (opts['precision'], opts['threshold'], opts['edgeitems'], opts['suppress'], opts['linewidth']) == (
            2, 5, 1, True, 60)
        with pytest.raises(TypeError):
            paddle.set_printoptions(precision=1.5)
    finally:
        np.set_printoptions(**saved)


def test_check_shape_and_tensor_and_create_parameter():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        paddle.check_shape([2, 3], 'foo')
        paddle.check_shape(paddle.static.data('s', [2], 'int64'), 'foo')
        with pytest.raises(TypeError, match="The type of 'element of shape' in foo"):
            paddle.check_shape([2, 1.5], 'foo')
        with pytest.raises(TypeError, match="The data type of 'shape' in foo"):
            paddle.check_shape(paddle.static.data('f', [2], 'float32'), 'foo')
        w = paddle.create_parameter([2, 3], 'float32')
        assert isinstance(w, paddle.Tensor) and w.name == 'create_parameter_0.w_0' and tuple(w.shape) == (2, 3)


# --- argument checks with Paddle's wording ----------------------------------------------------------------------

def test_builder_errors_use_paddles_wording():
    main = paddle.static.Program()
    with paddle.static.program_guard(main, paddle.static.Program()):
        x = paddle.static.data('x', [2, 3], 'float32')
        v = paddle.static.data('v', [3], 'float32')
        # Paddle 2.6.2
        with pytest.raises(ValueError, match=r'The rank \(2\) of X shall be same as rank \(1\) of Y'):
            paddle.atan2(x, v)
        with pytest.raises(TypeError, match="The input of n must be int type"):
            paddle.polygamma(x, 1.5)
        with pytest.raises(ValueError, match='q should be in range'):
            paddle.quantile(x, 1.5)
        with pytest.raises(ValueError, match="Only support valid driver"):
            paddle.linalg.lstsq(x, x, driver='magic')
        with pytest.raises(ValueError, match='Unexpected norm'):
            paddle.fft.fft(x, norm='none')
        with pytest.raises(ValueError, match="expected rotation axes to be different"):
            paddle.rot90(x, axes=[0, 0])
        with pytest.raises(ValueError, match='Expect squared input'):
            paddle.linalg.det(x)
        with pytest.raises(TypeError, match="The data type of 'x' in i0 must be"):
            paddle.i0(paddle.static.data('i', [2], 'int32'))


def test_fluid_and_2x_namespaces_share_nothing_they_should_not():
    # the 2.x functions live in paddle_exec.tensor; fluid.layers keeps its own 1.8 builders
    assert paddle.linalg.inv is paddle.inverse and paddle.fft.fft.__module__ == 'paddle_exec.tensor.fft'
    assert fluid.layers.acos.__module__ == 'paddle_exec.layers.activation'


# --- fluid 1.8 sampling and SelectedRows layers -------------------------------------------------------------------

def _fluid_run(build, feeds):
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        vs = {k: fluid.data(k, list(np.shape(v)), str(np.asarray(v).dtype)) for k, v in feeds.items()}
        outs = build(vs)
    exe = fluid.Executor(fluid.CPUPlace())
    exe.run(startup)
    return exe.run(main, feed=feeds, fetch_list=list(outs)), main.global_block().ops


def test_fluid_sampling_layers():
    probs = np.tile(np.array([[0.1, 0.0, 0.9]], 'float32'), (3000, 1))
    (ids, g, u, r, perm), ops = _fluid_run(
        lambda v: [fluid.layers.sampling_id(v['p'], seed=3),
                   fluid.layers.gaussian_random_batch_size_like(v['p'], [-1, 4], mean=2.0, std=0.5, seed=4),
                   fluid.layers.uniform_random_batch_size_like(v['p'], [5, -1], output_dim_idx=1, min=1.0, max=2.0,
                                                               seed=5),
                   fluid.layers.randn([200, 2]), fluid.layers.randperm(5, seed=6)], {'p': probs})
    # Paddle 1.8.5's op types and attributes
    assert [op.type for op in ops] == ['sampling_id', 'gaussian_random_batch_size_like',
                                       'uniform_random_batch_size_like', 'gaussian_random', 'randperm']
    assert ops[1].attrs['shape'] == [-1, 4] and ops[2].attrs['output_dim_idx'] == 1 and ops[4].attrs['seed'] == 6
    assert ops[3].attrs['mean'] == 0.0 and 0 <= ops[3].attrs['seed'] < 100
    assert ids.shape == (3000,) and set(np.unique(ids)) <= {0, 2} and abs((ids == 2).mean() - 0.9) < 0.03
    assert g.shape == (3000, 4) and abs(g.mean() - 2.0) < 0.05 and abs(g.std() - 0.5) < 0.05
    assert u.shape == (5, 3000) and u.min() >= 1.0 and u.max() < 2.0
    assert r.shape == (200, 2) and sorted(perm) == list(range(5))


def test_fluid_selected_rows_layers():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        dense = fluid.data('x', [2, 3], 'float32')
        with pytest.raises(TypeError, match='must be SELECTED_ROWS'):
            fluid.layers.get_tensor_from_selected_rows(dense)
        sparse = main.global_block().create_var(name='rows', shape=[10, 3], dtype='float32',
                                                type=fluid.core.VarDesc.VarType.SELECTED_ROWS)
        merged = fluid.layers.merge_selected_rows(sparse)
        values = fluid.layers.get_tensor_from_selected_rows(merged)
    assert [op.type for op in main.global_block().ops] == ['merge_selected_rows', 'get_tensor_from_selected_rows']
    assert values.dtype == dense.dtype


def test_module_paths_are_not_shadowed_by_the_tensor_submodules():
    import importlib
    for path in ('linalg', 'fft', 'signal'):
        assert getattr(paddle, path) is importlib.import_module('paddle_exec.' + path)
    assert sorted(paddle.linalg.__all__) == paddle.linalg.__all__ and callable(paddle.complex)
