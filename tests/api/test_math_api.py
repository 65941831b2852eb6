"""The math, activation and reduce builders: fluid.layers (op sequences, attributes and names checked side by side
with fluid 1.8.5), paddle.* and paddle.nn.functional (Paddle 2.4's, from its source; 1.8 has none of these
names), and the Variable operators of framework/variable_ops.py; plus the numbers of small programs they build."""
import contextlib
import math
import sys

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.nn.functional as F
from paddle_exec.framework import unique_name
from paddle_exec.framework.dtype import VarType

L = fluid.layers
IGNORED_ATTRS = {'op_role', 'op_role_var', 'op_namescope', 'op_callstack', 'use_mkldnn', 'use_cudnn',
                 'x_data_format', 'y_data_format', 'Scale_out', 'Scale_x', 'Scale_y', 'force_fp32_output',
                 'fused_reshape_Out', 'fused_transpose_Out', 'head_number', 'use_quantizer', 'data_format',
                 'is_test', 'in_dtype', 'out_dtype', 'str_value', 'force_cpu'}


class Built:
    def __init__(self):
        self.main, self.startup = fluid.Program(), fluid.Program()

    def ops(self, keep=()):
        """(type, inputs, outputs, attrs) of every op, empty slots and the ignored attributes left out."""
        return [(op.type, {k: v for k, v in op.inputs.items() if v}, {k: v for k, v in op.outputs.items() if v},
                 {k: v for k, v in op.attrs.items() if k not in IGNORED_ATTRS or k in keep})
                for op in self.main.global_block().ops]

    def run(self, feed, fetch):
        exe = fluid.Executor(fluid.CPUPlace())
        return exe.run(self.main, feed=feed, fetch_list=fetch, scope=fluid.Scope())


@contextlib.contextmanager
def build():
    b = Built()
    with unique_name.guard(), fluid.program_guard(b.main, b.startup):
        yield b


def data(name, shape, dtype='float32', append_batch_size=True):
    return L.data(name=name, shape=shape, dtype=dtype, append_batch_size=append_batch_size)


@pytest.fixture
def rng():
    return np.random.RandomState(9)


# --- fluid.layers: what 1.8.5 appends ---------------------------------------------------------------------------

def test_matmul_mul_and_their_names():
    with build() as b:
        x, y = data('x', [3, 4], append_batch_size=False), data('y', [5, 4], append_batch_size=False)
        out = L.matmul(x, y, transpose_y=True, alpha=0.5)
        m = L.mul(data('a', [2, 3, 4]), data('w', [4, 5], append_batch_size=False), x_num_col_dims=3, name='mm')
    assert b.ops()[0] == ('matmul', {'X': ['x'], 'Y': ['y']}, {'Out': ['matmul_0.tmp_0']},
                          {'transpose_X': False, 'transpose_Y': True, 'alpha': 0.5})
    assert (out.name, out.shape) == ('matmul_0.tmp_0', (3, 5))
    assert b.ops()[1] == ('mul', {'X': ['a'], 'Y': ['w']}, {'Out': ['mm.tmp_0']},
                          {'x_num_col_dims': 3, 'y_num_col_dims': 1, 'scale_out': 1.0, 'scale_x': 1.0,
                           'scale_y': [1.0]})
    assert m.shape == (-1, 2, 3, 5)


def test_matmul_builder_checks_shapes_like_1_8():
    with build():
        with pytest.raises(ValueError, match="Input X's width should be equal to Y's width"):
            L.matmul(data('x', [3, 4], append_batch_size=False), data('y', [5, 4], append_batch_size=False))
        with pytest.raises(ValueError, match='higher dimensional values of the two matrices need to be equal'):
            L.matmul(data('a', [2, 3, 4], append_batch_size=False), data('b', [3, 4, 5], append_batch_size=False))


@pytest.mark.parametrize('kwargs,attrs,shape', [
    ({}, {'dim': [0], 'keep_dim': False, 'reduce_all': True}, (1,)),
    ({'dim': -1}, {'dim': [-1], 'keep_dim': False, 'reduce_all': False}, (-1, 3)),
    ({'dim': [0, 1, 2]}, {'dim': [0, 1, 2], 'keep_dim': False, 'reduce_all': False}, (1,)),
    ({'dim': [1], 'keep_dim': True}, {'dim': [1], 'keep_dim': True, 'reduce_all': False}, (-1, 1, 4)),
    ({'dim': []}, {'dim': [0], 'keep_dim': False, 'reduce_all': True}, (1,)),
])
@pytest.mark.parametrize('op_type', ['reduce_sum', 'reduce_mean', 'reduce_max', 'reduce_min', 'reduce_prod'])
def test_reduce_layers(op_type, kwargs, attrs, shape):
    with build() as b:
        out = getattr(L, op_type)(data('x', [3, 4]), **kwargs)
    assert b.ops() == [(op_type, {'X': ['x']}, {'Out': [op_type + '_0.tmp_0']}, attrs)]
    assert out.shape == shape


def test_elementwise_layer_with_axis_and_act():
    with build() as b:
        out = L.elementwise_add(data('x', [3, 4]), data('y', [3], append_batch_size=False), axis=1, act='relu')
    assert b.ops() == [
        ('elementwise_add', {'X': ['x'], 'Y': ['y']}, {'Out': ['elementwise_add_0.tmp_0']}, {'axis': 1}),
        ('relu', {'X': ['elementwise_add_0.tmp_0']}, {'Out': ['elementwise_add_0.tmp_1']}, {})]
    assert out.shape == (-1, 3, 4)


def test_comparison_layers():
    with build() as b:
        x, y = data('x', [3]), data('y', [3])
        lt = L.less_than(x, y)
        L.less_than(x, y, force_cpu=True)
        cond = L.create_tensor(dtype='bool')
        same = L.equal(x, y, cond=cond)
    assert b.ops(keep={'force_cpu'}) == [
        ('less_than', {'X': ['x'], 'Y': ['y']}, {'Out': ['less_than_0.tmp_0']}, {'axis': -1, 'force_cpu': False}),
        ('less_than', {'X': ['x'], 'Y': ['y']}, {'Out': ['less_than_1.tmp_0']}, {'axis': -1, 'force_cpu': True}),
        ('equal', {'X': ['x'], 'Y': ['y']}, {'Out': [cond.name]}, {'axis': -1, 'force_cpu': False})]
    assert lt.dtype == VarType.BOOL and lt.stop_gradient and same is cond


def test_sums_sum_increment_and_logical_layers():
    with build() as b:
        x, y = data('x', [3]), data('y', [3])
        s = L.sums([x, y])
        L.sum(x)
        counter = L.fill_constant([1], 'int64', 0)
        inc = L.increment(counter, value=2.0)
        inc2 = L.increment(counter, in_place=False)
        flag = L.logical_not(L.logical_and(data('p', [3], 'bool'), data('q', [3], 'bool')))
    ops = b.ops()
    assert ops[0] == ('sum', {'X': ['x', 'y']}, {'Out': ['sum_0.tmp_0']}, {})
    assert ops[1] == ('sum', {'X': ['x']}, {'Out': ['sum_1.tmp_0']}, {})
    assert ops[3] == ('increment', {'X': [counter.name]}, {'Out': [counter.name]}, {'step': 2.0})
    assert inc is counter and inc2.name == 'increment_1.tmp_0' and s.name == 'sum_0.tmp_0'
    assert [op[0] for op in ops[-2:]] == ['logical_and', 'logical_not']
    assert flag.name == 'logical_not_0.tmp_0' and flag.dtype == VarType.BOOL


def test_clip_and_clamp_layers():
    with build() as b:
        x = data('x', [3])
        c = L.clip(x, min=-1.0, max=2.0)
        named = L.clip(x, -1.0, 2.0, name='bounded')
        L.clamp(x, max=2.0)
    assert [o[2]['Out'][0] for o in b.ops()] == ['clip_0.tmp_0', 'bounded', 'clamp_0.tmp_0']
    assert b.ops()[0][3] == {'min': -1.0, 'max': 2.0}
    assert b.ops()[2][3] == {'min': sys.float_info.min, 'max': 2.0}      # 1.8's default for an unset min
    assert c.name == 'clip_0.tmp_0' and named.name == 'bounded'


def test_activation_layers_names_and_attributes():
    with build() as b:
        x = data('x', [3, 4])
        L.relu(x)
        L.softmax(x, name='sm', axis=1)
        L.leaky_relu(x)
        L.gelu(x, approximate=True)
        L.softshrink(x, alpha=0.3)
        L.thresholded_relu(x)
        L.selu(x)
        L.hard_sigmoid(x)
        L.sigmoid(x, name='gate')
    assert b.ops(keep={'use_cudnn'}) == [
        ('relu', {'X': ['x']}, {'Out': ['relu_0.tmp_0']}, {'use_cudnn': False}),
        ('softmax', {'X': ['x']}, {'Out': ['sm.tmp_0']}, {'axis': 1, 'use_cudnn': False}),
        ('leaky_relu', {'X': ['x']}, {'Out': ['leaky_relu_0.tmp_0']}, {'alpha': 0.02}),
        ('gelu', {'X': ['x']}, {'Out': ['gelu_0.tmp_0']}, {'approximate': True, 'use_cudnn': False}),
        ('softshrink', {'X': ['x']}, {'Out': ['softshrink_0.tmp_0']}, {'lambda': 0.3}),
        ('thresholded_relu', {'X': ['x']}, {'Out': ['thresholded_relu_0.tmp_0']}, {'threshold': 1.0}),
        ('selu', {'X': ['x']}, {'Out': ['selu_0.tmp_0']},
         {'scale': 1.0507009873554805, 'alpha': 1.6732632423543772}),
        ('hard_sigmoid', {'X': ['x']}, {'Out': ['hard_sigmoid_0.tmp_0']}, {'slope': 0.2, 'offset': 0.5}),
        ('sigmoid', {'X': ['x']}, {'Out': ['gate.tmp_0']}, {'use_cudnn': False})]


def test_log_softmax_layer_is_softmax_then_log(rng):
    with build() as b:
        x = data('x', [4])
        out = L.log_softmax(x)
    assert [(o[0], o[2]['Out'][0]) for o in b.ops()] == [('softmax', 'log_softmax_0.tmp_0'),
                                                         ('log', 'log_softmax_0.tmp_1')]
    xv = rng.randn(2, 4).astype(np.float32)
    got, = b.run({'x': xv}, [out])
    np.testing.assert_allclose(got, xv - np.log(np.exp(xv).sum(1, keepdims=True)), rtol=1e-5, atol=1e-6)


def test_swish_layer_ignores_beta_as_fluid_1_8_does(rng):
    """fluid 1.8.5 passes beta as an attribute `slope` swish does not have: the op runs with beta=1."""
    with build() as b:
        out = L.swish(data('x', [4]), beta=2.0)
    assert b.ops()[0][3] == {'beta': 1.0}
    xv = rng.randn(2, 4).astype(np.float32)
    got, = b.run({'x': xv}, [out])
    np.testing.assert_allclose(got, xv / (1 + np.exp(-xv)), rtol=1e-5)


def test_pow_layer_with_a_factor_variable(rng):
    with build() as b:
        x = data('x', [3])
        factor = L.fill_constant([1], 'float32', 3.0)
        out = L.pow(x, factor=factor)
    assert b.ops()[-1][:2] == ('pow', {'X': ['x'], 'FactorTensor': [factor.name]}) and factor.stop_gradient
    xv = rng.uniform(0.5, 2, (2, 3)).astype(np.float32)
    got, = b.run({'x': xv}, [out])
    np.testing.assert_allclose(got, xv ** 3, rtol=1e-6)


def test_layer_dtype_checks_use_paddles_wording():
    with build():
        with pytest.raises(TypeError, match=r"The data type of 'x' in relu must be"):
            L.relu(data('i', [3], 'int64'))
        with pytest.raises(TypeError, match=r"The data type of 'x' in logical_and must be"):
            L.logical_and(data('f', [3]), data('g', [3]))


def test_fluid_layers_numbers(rng):
    with build() as b:
        x = data('x', [3, 4])
        y = data('y', [4], append_batch_size=False)
        outs = [L.reduce_sum(x, dim=1), L.reduce_max(x), L.matmul(x, x, transpose_y=True),
                L.elementwise_max(x, y), L.scale(x, scale=2.0, bias=1.0), L.clip(x, -0.5, 0.5),
                L.softmax(x), L.tanh(x)]
    xv, yv = rng.randn(2, 3, 4).astype(np.float32), rng.randn(4).astype(np.float32)
    got = b.run({'x': xv, 'y': yv}, outs)
    wants = [xv.sum(1), [xv.max()], xv @ xv.transpose(0, 2, 1), np.maximum(xv, yv), 2 * xv + 1,
             np.clip(xv, -0.5, 0.5), np.exp(xv) / np.exp(xv).sum(-1, keepdims=True), np.tanh(xv)]
    for g, w in zip(got, wants):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


def test_sign_layer_takes_a_numpy_array():
    with build() as b:
        out = L.sign(np.array([-2.0, 0.0, 3.0], np.float32))
    assert [o[0] for o in b.ops()] == ['assign_value', 'sign']
    got, = b.run({}, [out])
    np.testing.assert_array_equal(got, [-1, 0, 1])


# --- paddle.* (2.x) ------------------------------------------------------------------------------------------------

def test_paddle_elementwise_names_its_output_exactly(rng):
    with build() as b:
        x, y = paddle.static.data('x', [None, 3]), paddle.static.data('y', [3])
        z = paddle.add(x, y, name='z')
        w = paddle.multiply(x, y)
        outs = [z, w, paddle.subtract(x, y), paddle.divide(x, y), paddle.maximum(x, y), paddle.minimum(x, y)]
    assert b.ops()[0] == ('elementwise_add', {'X': ['x'], 'Y': ['y']}, {'Out': ['z']}, {'axis': -1})
    assert z.name == 'z' and w.name == 'elementwise_mul_0.tmp_0'
    xv, yv = rng.randn(2, 3).astype(np.float32), rng.uniform(1, 2, 3).astype(np.float32)
    got = b.run({'x': xv, 'y': yv}, outs)
    for g, want in zip(got, [xv + yv, xv * yv, xv - yv, xv / yv, np.maximum(xv, yv), np.minimum(xv, yv)]):
        np.testing.assert_allclose(g, want, rtol=1e-6)


def test_paddle_integer_floor_divide_and_remainder():
    with build() as b:
        x, y = paddle.static.data('x', [4], 'int64'), paddle.static.data('y', [4], 'int64')
        outs = [paddle.floor_divide(x, y), paddle.remainder(x, y)]
    got = b.run({'x': np.array([7, -7, 8, 9]), 'y': np.array([2, 2, -3, 3])}, outs)
    np.testing.assert_array_equal(got[0], [3, -3, -2, 3])
    np.testing.assert_array_equal(got[1], np.mod([7, -7, 8, 9], [2, 2, -3, 3]))


def test_paddle_matmul_is_matmul_v2(rng):
    with build() as b:
        x, y = paddle.static.data('x', [None, 3, 4]), paddle.static.data('y', [5, 4])
        out = paddle.matmul(x, y, transpose_y=True)
    assert b.ops() == [('matmul_v2', {'X': ['x'], 'Y': ['y']}, {'Out': ['matmul_v2_0.tmp_0']},
                        {'trans_x': False, 'trans_y': True})]
    assert out.shape == (-1, 3, 5)
    xv, yv = rng.randn(2, 3, 4).astype(np.float32), rng.randn(5, 4).astype(np.float32)
    got, = b.run({'x': xv, 'y': yv}, [out])
    np.testing.assert_allclose(got, xv @ yv.T, rtol=1e-5)


def test_paddle_reductions(rng):
    with build() as b:
        x = paddle.static.data('x', [None, 3])
        outs = [paddle.sum(x), paddle.sum(x, axis=[0, 1]), paddle.sum(x, axis=1, dtype='float64'),
                paddle.mean(x), paddle.mean(x, axis=1, keepdim=True), paddle.max(x), paddle.min(x, axis=-1),
                paddle.prod(x, axis=0)]
    ops = b.ops(keep={'in_dtype', 'out_dtype'})
    defaults = {'in_dtype': -1, 'out_dtype': -1}
    assert ops[0] == ('reduce_sum', {'X': ['x']}, {'Out': ['sum_0.tmp_0']},
                      {'dim': [0], 'keep_dim': False, 'reduce_all': True, **defaults})
    assert ops[1][3] == {'dim': [0, 1], 'keep_dim': False, 'reduce_all': True, **defaults}
    assert ops[2][3] == {'dim': [1], 'keep_dim': False, 'reduce_all': False, 'in_dtype': int(VarType.FP32),
                         'out_dtype': int(VarType.FP64)}
    assert ops[3] == ('reduce_mean', {'X': ['x']}, {'Out': ['mean_0.tmp_0']},
                      {'dim': [0], 'keep_dim': False, 'reduce_all': True, **defaults})
    assert ops[5] == ('reduce_max', {'X': ['x']}, {'Out': ['max_0.tmp_0']},
                      {'dim': [], 'keep_dim': False, 'reduce_all': True, **defaults})
    assert ops[7][0] == 'reduce_prod' and ops[7][2] == {'Out': ['reduce_prod_0.tmp_0']}
    assert [o.shape for o in outs] == [(1,), (1,), (-1,), (1,), (-1, 1), (1,), (-1,), (3,)]
    assert outs[2].dtype == VarType.FP64
    xv = rng.uniform(0.5, 1.5, (4, 3)).astype(np.float32)
    got = b.run({'x': xv}, outs)
    wants = [[xv.sum()], [xv.sum()], xv.astype(np.float64).sum(1), [xv.mean()], xv.mean(1, keepdims=True),
             [xv.max()], xv.min(-1), xv.prod(0)]
    for g, w in zip(got, wants):
        np.testing.assert_allclose(g, w, rtol=1e-5)
    assert got[2].dtype == np.float64


def test_paddle_pow_clip_and_unary(rng):
    with build() as b:
        x, y = paddle.static.data('x', [None, 3]), paddle.static.data('y', [3])
        top = paddle.static.data('top', [1])
        outs = [paddle.pow(x, 2), paddle.pow(x, y), paddle.clip(x, min=0.5), paddle.clip(x, max=top),
                paddle.exp(x), paddle.sqrt(x), paddle.square(x), paddle.abs(x), paddle.scale(x, 3.0, 1.0)]
    ops = b.ops()
    assert ops[0] == ('pow', {'X': ['x']}, {'Out': ['pow_0.tmp_0']}, {'factor': 2.0})
    assert ops[1][0] == 'elementwise_pow'
    assert ops[2][3] == {'min': 0.5, 'max': float(np.finfo(np.float32).max)}
    assert ops[3][1] == {'X': ['x'], 'Max': ['top']} and top.stop_gradient
    xv, yv = rng.uniform(0.5, 2, (2, 3)).astype(np.float32), rng.uniform(0.5, 2, 3).astype(np.float32)
    got = b.run({'x': xv, 'y': yv, 'top': np.array([1.0], np.float32)}, outs)
    wants = [xv ** 2, xv ** yv, np.maximum(xv, 0.5), np.minimum(xv, 1.0), np.exp(xv), np.sqrt(xv), xv * xv,
             np.abs(xv), 3 * xv + 1]
    for g, w in zip(got, wants):
        np.testing.assert_allclose(g, w, rtol=1e-5)


def test_paddle_comparisons_and_logical_ops(rng):
    with build() as b:
        x, y = paddle.static.data('x', [None, 3]), paddle.static.data('y', [None, 3])
        outs = [paddle.less_than(x, y), paddle.greater_equal(x, y), paddle.equal(x, 1.0), paddle.not_equal(x, y)]
        both = paddle.logical_and(outs[0], outs[1])
    ops = b.ops()
    assert ops[0] == ('less_than', {'X': ['x'], 'Y': ['y']}, {'Out': ['less_than_0.tmp_0']}, {'axis': -1})
    assert [o[0] for o in ops[2:4]] == ['fill_constant', 'equal']
    assert all(o.dtype == VarType.BOOL and o.stop_gradient for o in outs)
    xv = rng.randint(0, 3, (2, 3)).astype(np.float32)
    yv = rng.randint(0, 3, (2, 3)).astype(np.float32)
    got = b.run({'x': xv, 'y': yv}, outs + [both])
    for g, w in zip(got, [xv < yv, xv >= yv, xv == 1.0, xv != yv, np.zeros((2, 3), bool)]):
        np.testing.assert_array_equal(g, w)


# --- paddle.nn.functional ----------------------------------------------------------------------------------------

def test_functional_activations_ops_and_names():
    with build() as b:
        x = paddle.static.data('x', [None, 4])
        F.leaky_relu(x)
        F.softmax(x)
        F.log_softmax(x, axis=0)
        F.hardswish(x)
        F.hardsigmoid(x)
        F.hardtanh(x)
        F.log_sigmoid(x)
        F.swish(x)
        F.softmax(x, dtype='float64')
    assert b.ops(keep={'use_cudnn'}) == [
        ('leaky_relu', {'X': ['x']}, {'Out': ['leaky_relu_0.tmp_0']}, {'alpha': 0.01}),
        ('softmax', {'X': ['x']}, {'Out': ['softmax_0.tmp_0']}, {'axis': -1, 'use_cudnn': True}),
        ('log_softmax', {'X': ['x']}, {'Out': ['log_softmax_0.tmp_0']}, {'axis': 0}),
        ('hard_swish', {'X': ['x']}, {'Out': ['hardswish_0.tmp_0']}, {'threshold': 6.0, 'scale': 6.0, 'offset': 3.0}),
        ('hard_sigmoid', {'X': ['x']}, {'Out': ['hardsigmoid_0.tmp_0']}, {'slope': 0.1666667, 'offset': 0.5}),
        ('brelu', {'X': ['x']}, {'Out': ['hardtanh_0.tmp_0']}, {'t_min': -1.0, 't_max': 1.0}),
        ('logsigmoid', {'X': ['x']}, {'Out': ['log_sigmoid_0.tmp_0']}, {'use_cudnn': False}),
        ('swish', {'X': ['x']}, {'Out': ['swish_0.tmp_0']}, {'beta': 1.0}),
        ('cast', {'X': ['x']}, {'Out': ['softmax_1.tmp_0']}, {}),
        ('softmax', {'X': ['softmax_1.tmp_0']}, {'Out': ['softmax_1.tmp_1']}, {'axis': -1, 'use_cudnn': True})]


def test_functional_argument_errors():
    with build():
        x = paddle.static.data('x', [None, 4])
        with pytest.raises(ValueError, match='The threshold must be no less than zero'):
            F.softshrink(x, -1.0)
        with pytest.raises(ValueError, match='The scale must be greater than 1.0'):
            F.selu(x, scale=0.5)


def test_functional_numbers(rng):
    with build() as b:
        x = paddle.static.data('x', [None, 4])
        outs = [F.relu(x), F.gelu(x), F.silu(x), F.relu6(x), F.elu(x, 0.5), F.softplus(x), F.log_softmax(x),
                F.sigmoid(x), F.tanh(x)]
    xv = rng.uniform(-3, 3, (3, 4)).astype(np.float32)
    x64 = xv.astype(np.float64)
    erf = np.vectorize(math.erf)
    wants = [np.maximum(x64, 0), 0.5 * x64 * (1 + erf(x64 / math.sqrt(2))), x64 / (1 + np.exp(-x64)),
             np.clip(x64, 0, 6), np.where(x64 > 0, x64, 0.5 * (np.exp(x64) - 1)), np.log1p(np.exp(x64)),
             x64 - np.log(np.exp(x64).sum(1, keepdims=True)), 1 / (1 + np.exp(-x64)), np.tanh(x64)]
    for g, w in zip(b.run({'x': xv}, outs), wants):
        np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6)


# --- Variable operators (framework/variable_ops.py), checked against fluid 1.8.5 -----------------------------------

def test_operators_with_numbers_are_scale_ops():
    with build() as b:
        x = data('x', [3])
        x + 2
        1 - x
        x / 4
        -x
        3 * x
    assert [o[3] for o in b.ops()] == [{'scale': 1.0, 'bias': 2.0, 'bias_after_scale': True},
                                       {'scale': -1.0, 'bias': 1.0, 'bias_after_scale': True},
                                       {'scale': 0.25, 'bias': 0.0, 'bias_after_scale': True},
                                       {'scale': -1.0, 'bias': 0.0, 'bias_after_scale': True},
                                       {'scale': 3.0, 'bias': 0.0, 'bias_after_scale': True}]
    assert [o[2]['Out'][0] for o in b.ops()] == ['tmp_0', 'tmp_1', 'tmp_2', 'tmp_3', 'tmp_4']


def test_operators_between_variables_use_axis_0_for_a_batch_dim_as_1_8():
    with build() as b:
        x, y = data('x', [3]), data('y', [3])
        v = data('v', [3], append_batch_size=False)
        x + y
        x * v
        lt = x < y
    assert b.ops() == [('elementwise_add', {'X': ['x'], 'Y': ['y']}, {'Out': ['tmp_0']}, {'axis': 0}),
                       ('elementwise_mul', {'X': ['x'], 'Y': ['v']}, {'Out': ['tmp_1']}, {'axis': -1}),
                       ('less_than', {'X': ['x'], 'Y': ['y']}, {'Out': ['tmp_2']}, {'axis': 0})]
    assert lt.dtype == VarType.BOOL


def test_operators_fill_a_tensor_for_other_numbers(rng):
    with build() as b:
        x = data('x', [3])
        p = x ** 2
        c = x < 1.0
        r = 4 / x
    ops = b.ops()
    assert ops[0] == ('fill_constant', {}, {'Out': ['tmp_0']}, {'shape': [1], 'dtype': int(VarType.FP32),
                                                                 'value': 2.0})
    assert ops[1] == ('elementwise_pow', {'X': ['x'], 'Y': ['tmp_0']}, {'Out': ['tmp_1']}, {'axis': -1})
    assert ops[3] == ('less_than', {'X': ['x'], 'Y': ['tmp_2']}, {'Out': ['tmp_3']}, {'axis': -1})
    assert ops[4] == ('fill_constant_batch_size_like', {'Input': ['x']}, {'Out': ['tmp_4']},
                      {'shape': [-1, 3], 'dtype': int(VarType.FP32), 'value': 4.0, 'input_dim_idx': 0,
                       'output_dim_idx': 0})
    assert ops[5] == ('elementwise_div', {'X': ['tmp_4'], 'Y': ['x']}, {'Out': ['tmp_5']}, {'axis': 0})
    xv = rng.uniform(0.5, 2, (2, 3)).astype(np.float32)
    got = b.run({'x': xv}, [p, c, r])
    for g, w in zip(got, [xv ** 2, xv < 1.0, 4 / xv]):
        np.testing.assert_allclose(g, w, rtol=1e-6)


def test_integer_operators(rng):
    with build() as b:
        x = data('x', [3], 'int64')
        half = x / 2
        fdiv = x // 2
        plus = x + 1.5
        shifted = x + 2.0
    types = [o[0] for o in b.ops()]
    assert types == ['fill_constant', 'elementwise_div', 'fill_constant', 'elementwise_floordiv', 'cast', 'scale',
                     'scale']
    assert half.dtype == VarType.INT64 and plus.dtype == VarType.FP32 and shifted.dtype == VarType.INT64
    xv = np.array([[7, -7, 4]])
    got = b.run({'x': xv}, [half, fdiv, plus, shifted])
    np.testing.assert_array_equal(got[0], [[3, -3, 2]])       # integer division truncates (1.8's elementwise_div)
    np.testing.assert_array_equal(got[1], [[3, -3, 2]])
    np.testing.assert_allclose(got[2], xv + 1.5)
    np.testing.assert_array_equal(got[3], xv + 2)


def test_matmul_operator_is_matmul_v2(rng):
    with build() as b:
        x, y = data('x', [3, 4], append_batch_size=False), data('y', [4, 5], append_batch_size=False)
        out = x @ y
    assert b.ops() == [('matmul_v2', {'X': ['x'], 'Y': ['y']}, {'Out': ['tmp_0']},
                        {'trans_x': False, 'trans_y': False})]
    assert out.shape == (3, 5)


def test_operator_gradients_flow(rng):
    with build() as b:
        x = data('x', [3])
        x.stop_gradient = False
        loss = L.mean((x * 3 - 1) / 2 + x * x)
        grad, = fluid.gradients([loss], [x])
    xv = rng.randn(2, 3).astype(np.float32)
    got, = b.run({'x': xv}, [grad])
    np.testing.assert_allclose(got, (1.5 + 2 * xv) / xv.size, rtol=1e-5)
