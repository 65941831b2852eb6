"""Math ops (ops/math.py) run through one-op programs on the Executor: forward against numpy references written
from Paddle's definitions, gradients from append_backward against finite differences of the same program,
compile-time shapes (the matmul table was recorded with fluid 1.8.5).

The helpers at the top (`run_op`, `check_op_grad`, `op_grads`) are shared by the other op test modules."""
import numpy as np
import pytest

from paddle_exec.backward import gradients
from paddle_exec.executor import Executor
from paddle_exec.framework import CPUPlace, Program, Scope, SelectedRows, program_guard, registry
from paddle_exec.framework.dtype import VarType
from tests.kernels.gradcheck import check_grad, numeric_grad, projection

# --- the oracle: one op in a program, run by the Executor -----------------------------------------------------------


class OpProgram:
    """`op_type` applied to fed variables named after their slots (`x`, `y`, `x_1` for a list slot's second)."""

    def __init__(self, op_type, inputs, attrs=None, outputs=('Out',), stop_gradient=()):
        self.prog = Program()
        self.feed = {}
        self.vars = {}
        block = self.prog.global_block()
        wired = {}
        for slot, value in inputs.items():
            values = value if isinstance(value, list) else [value]
            names = []
            for i, v in enumerate(values):
                name = slot.lower() + ('_%d' % i if i else '')
                sparse = isinstance(v, SelectedRows)
                var = block.create_var(name=name, shape=(v.height, v.values.shape[1]) if sparse else v.shape,
                                       dtype=(v.values if sparse else v).dtype, stop_gradient=slot in stop_gradient,
                                       type=VarType.SELECTED_ROWS if sparse else VarType.LOD_TENSOR)
                self.feed[name] = v
                self.vars[name] = var
                names.append(var)
            wired[slot] = names
        self.outs = {slot: block.create_var(name='out' if slot == 'Out' else 'out_' + slot.lower())
                     for slot in outputs}
        with program_guard(self.prog):
            self.op = block.append_op(op_type, wired, {s: [v] for s, v in self.outs.items()}, attrs or {})
        self.exe = Executor(CPUPlace())
        self.scope = Scope()

    def run(self, fetch, feed=None, return_numpy=True):
        return self.exe.run(self.prog, feed=feed or self.feed, fetch_list=fetch, scope=self.scope,
                            return_numpy=return_numpy)


def run_op(op_type, inputs, attrs=None, outputs=('Out',)):
    """The op's outputs (a list, in `outputs` order) for numpy inputs."""
    p = OpProgram(op_type, inputs, attrs, outputs)
    return p.run([p.outs[s] for s in outputs])


def op_grads(op_type, inputs, wrt, attrs=None, output='Out', outputs=('Out',), seed=0, stop_gradient=()):
    """(analytic, numeric) gradients of sum(output * w) for the fed variables named in `wrt`: the analytic ones
    from the grad ops (gradients() seeded with w), the numeric ones by central differences of the forward run."""
    p = OpProgram(op_type, inputs, attrs, outputs, stop_gradient)
    out_var = p.outs[output]
    out_value = p.run([out_var])[0]
    w_value = projection(out_value.shape, seed).astype(out_value.dtype)
    block = p.prog.global_block()
    w = block.create_var(name='w', shape=w_value.shape, dtype=w_value.dtype, stop_gradient=True)
    with program_guard(p.prog):
        grads = gradients([out_var], [p.vars[n] for n in wrt], target_gradients=[w])
    feed = dict(p.feed, w=w_value)
    analytic = p.run(grads, feed)
    names = list(p.feed)

    def loss(*arrays):   # the program holds the grad ops too (the Executor runs them all): w stays fed
        return float(np.sum(p.run([out_var], dict(zip(names, arrays), w=w_value))[0] * w_value))
    numeric = [numeric_grad(loss, [p.feed[n] for n in names], names.index(n), eps=1e-5) for n in wrt]
    return analytic, numeric, p


def check_op_grad(op_type, inputs, wrt=('x',), attrs=None, output='Out', outputs=('Out',), rtol=1e-5, atol=1e-7):
    analytic, numeric, p = op_grads(op_type, inputs, wrt, attrs, output, outputs)
    for name, a, n in zip(wrt, analytic, numeric):
        check_grad(a, n, rtol=rtol, atol=atol, name='%s: d/d%s' % (op_type, name))
    return p


def grad_op_of(prog, op_type):
    ops = [op for op in prog.global_block().ops if op.type == op_type]
    assert ops, 'no %s op in the program' % op_type
    return ops[0]


def infer(op_type, shapes: dict, attrs=None, dtype='float32', outputs=('Out',)):
    """Compile-time output shape(s) of `op_type` for input variables of these shapes (-1 = unknown)."""
    prog = Program()
    block = prog.global_block()
    wired = {slot: [block.create_var(name=slot.lower(), shape=s, dtype=dtype)] for slot, s in shapes.items()}
    outs = {slot: [block.create_var(name='o_' + slot)] for slot in outputs}
    block.append_op(op_type, wired, outs, attrs or {})
    res = [tuple(outs[s][0].shape) for s in outputs]
    return res[0] if len(res) == 1 else res


@pytest.fixture
def rng():
    return np.random.RandomState(7)


def f64(rng, *shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(np.float64)


def f32(rng, *shape, lo=-2.0, hi=2.0):
    return rng.uniform(lo, hi, shape).astype(np.float32)


# --- elementwise -------------------------------------------------------------------------------------------------

def _bcast(y, x_ndim, axis):
    """Paddle's alignment of a lower-rank y against x at `axis` (-1: trailing)."""
    if y.ndim == x_ndim:
        return y
    start = x_ndim - y.ndim if axis == -1 else axis
    return y.reshape((1,) * start + y.shape + (1,) * (x_ndim - start - y.ndim))


ELEMENTWISE_REF = {
    'elementwise_add': np.add, 'elementwise_sub': np.subtract, 'elementwise_mul': np.multiply,
    'elementwise_div': np.divide, 'elementwise_max': np.maximum, 'elementwise_min': np.minimum,
    'elementwise_pow': np.power,
}
BROADCASTS = [((2, 3, 4), (2, 3, 4), -1), ((2, 3, 4), (3,), 1), ((2, 3, 4), (4,), -1), ((2, 3, 4), (3, 1), 1),
              ((2, 3, 4), (1,), -1), ((2, 3), (4, 2, 3), -1)]


@pytest.mark.parametrize('op_type', sorted(ELEMENTWISE_REF))
@pytest.mark.parametrize('xs,ys,axis', BROADCASTS)
def test_elementwise_forward(op_type, xs, ys, axis, rng):
    x = f32(rng, *xs, lo=0.5, hi=2.0)
    y = f32(rng, *ys, lo=0.5, hi=2.0) * np.where(rng.rand(*ys) > 0.5, 1, -1).astype(np.float32)
    if op_type == 'elementwise_pow':
        y = np.abs(y)
    out, = run_op(op_type, {'X': x, 'Y': y}, {'axis': axis})
    if len(ys) > len(xs):
        want = ELEMENTWISE_REF[op_type](_bcast(x, len(ys), axis), y)
    else:
        want = ELEMENTWISE_REF[op_type](x, _bcast(y, len(xs), axis))
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, want, rtol=1e-6)


@pytest.mark.parametrize('op_type', sorted(ELEMENTWISE_REF))
@pytest.mark.parametrize('xs,ys,axis', [((2, 3), (2, 3), -1), ((2, 3, 4), (3,), 1), ((2, 3, 4), (1,), -1)])
def test_elementwise_grad(op_type, xs, ys, axis, rng):
    x, y = f64(rng, *xs, lo=0.5), f64(rng, *ys, lo=0.5)
    if op_type in ('elementwise_max', 'elementwise_min'):
        y = y + 0.05       # keep away from ties, where the gradient has a kink
    check_op_grad(op_type, {'X': x, 'Y': y}, ('x', 'y'), {'axis': axis})


def test_elementwise_grad_ops_read_what_paddle_reads(rng):
    """1.8: add/sub/mul/max/min/pow grads read X, Y, Out@GRAD; div's also reads Out."""
    _, _, p = op_grads('elementwise_add', {'X': f64(rng, 2, 3), 'Y': f64(rng, 2, 3)}, ('x',))
    assert sorted(grad_op_of(p.prog, 'elementwise_add_grad').inputs) == ['Out@GRAD', 'X', 'Y']
    _, _, p = op_grads('elementwise_div', {'X': f64(rng, 2, 3), 'Y': f64(rng, 2, 3, lo=1.0)}, ('x',))
    assert sorted(grad_op_of(p.prog, 'elementwise_div_grad').inputs) == ['Out', 'Out@GRAD', 'X', 'Y']


def test_elementwise_grad_only_of_the_wanted_operand(rng):
    analytic, numeric, p = op_grads('elementwise_mul', {'X': f64(rng, 2, 3), 'Y': f64(rng, 3)}, ('x',),
                                    stop_gradient=('Y',))
    op = grad_op_of(p.prog, 'elementwise_mul_grad')
    assert op.output('X@GRAD') == ['x@GRAD'] and not [n for n in op.output('Y@GRAD') if n != '@EMPTY@']
    check_grad(analytic[0], numeric[0])


def test_floordiv_and_mod_follow_paddle_on_integers():
    x = np.array([7, -7, 7, -7, 6], np.int64)
    y = np.array([2, 2, -2, -2, 3], np.int64)
    floordiv, = run_op('elementwise_floordiv', {'X': x, 'Y': y})
    mod, = run_op('elementwise_mod', {'X': x, 'Y': y})
    np.testing.assert_array_equal(floordiv, [3, -3, -3, 3, 2])     # truncation, as Paddle <= 2.4
    np.testing.assert_array_equal(mod, np.mod(x, y))                 # remainder with the divisor's sign
    assert 'elementwise_floordiv' not in registry.GRAD_RULES and 'elementwise_mod' not in registry.GRAD_RULES


def test_integer_elementwise_div_truncates():
    out, = run_op('elementwise_div', {'X': np.array([7, -7], np.int64), 'Y': np.array([2, 2], np.int64)})
    np.testing.assert_array_equal(out, [3, -3])


@pytest.mark.parametrize('xs,ys,axis,want', [
    ((-1, 3, 4), (3,), 1, (-1, 3, 4)),
    ((-1, 3, 4), (4,), -1, (-1, 3, 4)),
    ((-1, 3, 4), (-1, 3, 4), -1, (-1, 3, 4)),
    ((-1, 1), (1, 5), -1, (-1, 5)),
    ((-1, 3), (-1, 1), -1, (-1, 3)),
    ((3,), (-1, 2, 3), -1, (-1, 2, 3)),
    ((-1, 3, 4), (3, 1), 1, (-1, 3, 4)),
])
def test_elementwise_compile_time_shape(xs, ys, axis, want):
    assert infer('elementwise_add', {'X': xs, 'Y': ys}, {'axis': axis}) == want


def test_elementwise_shape_mismatch_names_both_shapes():
    with pytest.raises(ValueError, match=r'Broadcast dimension mismatch.*\[2, 3\].*\[4\]'):
        infer('elementwise_add', {'X': (2, 3), 'Y': (4,)})


# --- comparisons and logical ops ------------------------------------------------------------------------------------

COMPARE_REF = {'less_than': np.less, 'less_equal': np.less_equal, 'greater_than': np.greater,
               'greater_equal': np.greater_equal, 'equal': np.equal, 'not_equal': np.not_equal}


@pytest.mark.parametrize('op_type', sorted(COMPARE_REF))
def test_compare_forward(op_type, rng):
    x = rng.randint(0, 3, (3, 4)).astype(np.float32)
    y = rng.randint(0, 3, (4,)).astype(np.float32)
    out, = run_op(op_type, {'X': x, 'Y': y})
    assert out.dtype == np.bool_
    np.testing.assert_array_equal(out, COMPARE_REF[op_type](x, y))
    assert op_type not in registry.GRAD_RULES
    assert infer(op_type, {'X': (-1, 4), 'Y': (4,)}) == (-1, 4)


def test_equal_on_floats_has_paddles_tolerance():
    x = np.array([1.0, 1.0, np.inf], np.float64)
    y = np.array([1.0 + 1e-9, 1.0 + 1e-6, np.inf], np.float64)
    out, = run_op('equal', {'X': x, 'Y': y})
    np.testing.assert_array_equal(out, [True, False, True])


@pytest.mark.parametrize('op_type,ref', [('logical_and', np.logical_and), ('logical_or', np.logical_or),
                                         ('logical_xor', np.logical_xor)])
def test_logical_forward(op_type, ref, rng):
    x, y = rng.rand(2, 3) > 0.5, rng.rand(2, 3) > 0.5
    out, = run_op(op_type, {'X': x, 'Y': y})
    np.testing.assert_array_equal(out, ref(x, y))
    out, = run_op('logical_not', {'X': x})
    np.testing.assert_array_equal(out, ~x)


# --- mul ------------------------------------------------------------------------------------------------------------

def test_mul_forward_and_grad(rng):
    x, y = f64(rng, 2, 3, 4), f64(rng, 12, 5)
    out, = run_op('mul', {'X': x, 'Y': y}, {'x_num_col_dims': 1})
    np.testing.assert_allclose(out, x.reshape(2, 12) @ y)
    x2, y2 = f64(rng, 2, 3, 4), f64(rng, 4, 5)
    out, = run_op('mul', {'X': x2, 'Y': y2}, {'x_num_col_dims': 2})
    assert out.shape == (2, 3, 5)
    check_op_grad('mul', {'X': x2, 'Y': y2}, ('x', 'y'), {'x_num_col_dims': 2})
    assert infer('mul', {'X': (-1, 3, 4), 'Y': (12, 5)}) == (-1, 5)
    with pytest.raises(ValueError, match='flattened width'):
        infer('mul', {'X': (-1, 3, 4), 'Y': (10, 5)})
    with pytest.raises(ValueError, match="X's dimensions of MulOp should be larger than x_num_col_dims"):
        infer('mul', {'X': (3, 4), 'Y': (4, 5)}, {'x_num_col_dims': 2})


# --- matmul (1.x) ---------------------------------------------------------------------------------------------------

# (x shape, y shape, attrs, output shape recorded with fluid 1.8.5)
MATMUL_CASES = [
    ((3, 4), (4, 5), {}, (3, 5)),
    ((4, 3), (4, 5), {'transpose_X': True}, (3, 5)),
    ((3, 4), (5, 4), {'transpose_Y': True, 'alpha': 0.5}, (3, 5)),
    ((4, 3), (5, 4), {'transpose_X': True, 'transpose_Y': True}, (3, 5)),
    ((2, 3, 4), (2, 4, 5), {}, (2, 3, 5)),
    ((2, 3, 4), (4, 5), {}, (2, 3, 5)),
    ((3, 4), (2, 4, 5), {}, (2, 3, 5)),
    ((2, 4, 3), (5, 4), {'transpose_X': True, 'transpose_Y': True}, (2, 3, 5)),
    ((4,), (4, 5), {}, (5,)),
    ((3, 4), (4,), {}, (3,)),
    ((4,), (4,), {}, (1,)),
    ((2, 3, 4), (4,), {}, (2, 3)),
    ((4,), (2, 4, 5), {}, (2, 5)),
    ((4,), (5, 4), {'transpose_Y': True}, (5,)),
    ((4,), (1, 5), {'transpose_X': True}, (4, 5)),
    ((2, 2, 3, 4), (2, 2, 4, 5), {}, (2, 2, 3, 5)),
]


def ref_matmul(x, y, transpose_X=False, transpose_Y=False, alpha=1.0):
    """Paddle 1.8: a 1-D X is a row [1, K], a 1-D Y a column [K, 1]; transposes apply after that."""
    a = x[None, :] if x.ndim == 1 else x
    b = y[:, None] if y.ndim == 1 else y
    a = np.swapaxes(a, -1, -2) if transpose_X else a
    b = np.swapaxes(b, -1, -2) if transpose_Y else b
    return np.einsum('...ik,...kj->...ij', a, b) * alpha


@pytest.mark.parametrize('xs,ys,attrs,want_shape', MATMUL_CASES)
def test_matmul_forward_shape_and_grad(xs, ys, attrs, want_shape, rng):
    assert infer('matmul', {'X': xs, 'Y': ys}, attrs) == want_shape
    x, y = f64(rng, *xs), f64(rng, *ys)
    out, = run_op('matmul', {'X': x, 'Y': y}, attrs)
    assert out.shape == want_shape
    np.testing.assert_allclose(out.ravel(), ref_matmul(x, y, **attrs).ravel(), rtol=1e-12)
    check_op_grad('matmul', {'X': x, 'Y': y}, ('x', 'y'), attrs)


@pytest.mark.parametrize('xs,ys,want', [((-1, 3, 4), (4, 5), (-1, 3, 5)), ((-1, 3, 4), (-1, 4, 5), (-1, 3, 5)),
                                        ((3, -1), (4, 5), (3, 5))])
def test_matmul_compile_time_shape_with_unknown_dims(xs, ys, want):
    assert infer('matmul', {'X': xs, 'Y': ys}) == want


def test_matmul_errors_name_the_shapes(rng):
    with pytest.raises(ValueError, match=r"width should be equal.*\[3, 4\].*\[5, 6\]"):
        infer('matmul', {'X': (3, 4), 'Y': (5, 6)})
    with pytest.raises(Exception, match='batch sizes'):
        run_op('matmul', {'X': f32(rng, 2, 3, 4), 'Y': f32(rng, 3, 4, 5)})


def test_matmul_float32_alpha_is_a_float32_factor(rng):
    x, y = f32(rng, 3, 4), f32(rng, 4, 2)
    out, = run_op('matmul', {'X': x, 'Y': y}, {'alpha': 0.1})
    assert out.dtype == np.float32
    np.testing.assert_allclose(out, (x @ y) * np.float32(0.1), rtol=1e-6)


# --- matmul_v2 (2.x) --------------------------------------------------------------------------------------------------

MATMUL_V2_CASES = [
    ((3, 4), (4, 5), False, False, (3, 5)),
    ((4, 3), (5, 4), True, True, (3, 5)),
    ((2, 3, 4), (4, 5), False, False, (2, 3, 5)),
    ((3, 4), (2, 4, 5), False, False, (2, 3, 5)),
    ((2, 1, 3, 4), (3, 4, 5), False, False, (2, 3, 3, 5)),   # 2.4 said [2, 1, 3, 5] at compile time
    ((2, 3, 4), (2, 5, 4), False, True, (2, 3, 5)),
    ((4,), (4,), False, False, (1,)),
    ((4,), (2, 4, 5), False, False, (2, 5)),
    ((2, 3, 4), (4,), False, False, (2, 3)),
    ((4,), (5, 4), False, True, (5,)),
]


@pytest.mark.parametrize('xs,ys,tx,ty,want_shape', MATMUL_V2_CASES)
def test_matmul_v2_forward_shape_and_grad(xs, ys, tx, ty, want_shape, rng):
    attrs = {'trans_x': tx, 'trans_y': ty}
    assert infer('matmul_v2', {'X': xs, 'Y': ys}, attrs) == want_shape
    x, y = f64(rng, *xs), f64(rng, *ys)
    out, = run_op('matmul_v2', {'X': x, 'Y': y}, attrs)
    a = np.swapaxes(x, -1, -2) if tx and x.ndim > 1 else x
    b = np.swapaxes(y, -1, -2) if ty and y.ndim > 1 else y
    assert out.shape == want_shape
    np.testing.assert_allclose(out.ravel(), np.asarray(np.matmul(a, b)).ravel(), rtol=1e-12)
    check_op_grad('matmul_v2', {'X': x, 'Y': y}, ('x', 'y'), attrs)


def test_matmul_v2_compile_time_batch_dims():
    assert infer('matmul_v2', {'X': (-1, 3, 4), 'Y': (4, 5)}) == (-1, 3, 5)
    assert infer('matmul_v2', {'X': (-1, 1, 3, 4), 'Y': (1, 6, 4, 5)}) == (-1, 6, 3, 5)
    with pytest.raises(ValueError, match='must be equal'):
        infer('matmul_v2', {'X': (3, 4), 'Y': (5, 6)})


# --- scale, sign, increment ----------------------------------------------------------------------------------------

@pytest.mark.parametrize('attrs,ref', [
    ({'scale': 2.0, 'bias': 1.0}, lambda x: 2 * x + 1),
    ({'scale': 2.0, 'bias': 1.0, 'bias_after_scale': False}, lambda x: 2 * (x + 1)),
])
def test_scale_forward_and_grad(attrs, ref, rng):
    x = f64(rng, 2, 3)
    out, = run_op('scale', {'X': x}, attrs)
    np.testing.assert_allclose(out, ref(x))
    p = check_op_grad('scale', {'X': x}, ('x',), attrs)
    grad = [op for op in p.prog.global_block().ops if op.type == 'scale'][-1]
    assert grad.attr('scale') == 2.0 and grad.attr('bias') == 0.0      # the gradient is a scale without bias


def test_scale_casts_attributes_to_the_input_dtype_first():
    """Paddle's static_cast<T>(scale): scale 0.5 on an int tensor multiplies by 0; float attributes are float32."""
    out, = run_op('scale', {'X': np.array([4, 5], np.int64)}, {'scale': 0.5, 'bias': 3.0})
    np.testing.assert_array_equal(out, [3, 3])
    x = np.array([1.0], np.float64)
    out, = run_op('scale', {'X': x}, {'scale': 0.1})
    assert out[0] == np.float64(np.float32(0.1))


def test_scale_with_scale_tensor_forward_and_grad(rng):
    x, s = f64(rng, 2, 3), np.array([3.0])
    out, = run_op('scale', {'X': x, 'ScaleTensor': s}, {'bias': 1.0})
    np.testing.assert_allclose(out, 3 * x + 1)
    analytic, numeric, _ = op_grads('scale', {'X': x, 'ScaleTensor': s}, ('x',), {'bias': 1.0})
    check_grad(analytic[0], numeric[0])


def test_sign_forward_and_zero_gradient_through_a_scale_op(rng):
    x = np.array([-2.0, 0.0, 3.0])
    out, = run_op('sign', {'X': x})
    np.testing.assert_array_equal(out, [-1, 0, 1])
    analytic, _, p = op_grads('sign', {'X': x}, ('x',))
    np.testing.assert_array_equal(analytic[0], np.zeros(3))
    assert grad_op_of(p.prog, 'scale').attr('scale') == 0.0


def test_increment_forward_in_place_and_shape_check():
    out, = run_op('increment', {'X': np.array([3], np.int64)}, {'step': 2.0})
    np.testing.assert_array_equal(out, [5])
    prog = Program()
    block = prog.global_block()
    x = block.create_var(name='x', shape=(1,), dtype='float32', persistable=True)
    block.append_op('increment', {'X': [x]}, {'Out': [x]}, {'step': 1.5})
    scope = Scope()
    scope.var('x').set_value(np.array([1.0], np.float32))
    exe = Executor(CPUPlace())
    exe.run(prog, scope=scope)
    exe.run(prog, scope=scope)
    np.testing.assert_array_equal(scope.find_var('x').value, [4.0])
    with pytest.raises(ValueError, match='must be 1'):
        infer('increment', {'X': (2, 3)})


# --- mean, sum ------------------------------------------------------------------------------------------------------

def test_mean_forward_shape_and_grad(rng):
    x = f64(rng, 3, 4)
    out, = run_op('mean', {'X': x})
    assert out.shape == (1,)
    np.testing.assert_allclose(out, [x.mean()])
    assert infer('mean', {'X': (-1, 4)}) == (1,)
    check_op_grad('mean', {'X': x})


def test_sum_adds_in_order_and_its_gradient_is_one_scale_per_input(rng):
    xs = [f64(rng, 2, 3) for _ in range(3)]
    out, = run_op('sum', {'X': xs})
    np.testing.assert_array_equal(out, (xs[0] + xs[1]) + xs[2])
    analytic, numeric, p = op_grads('sum', {'X': xs}, ('x', 'x_1', 'x_2'))
    for a, n in zip(analytic, numeric):
        check_grad(a, n)
    scales = [op for op in p.prog.global_block().ops if op.type == 'scale']
    assert len(scales) == 3 and all(op.attr('scale') == 1.0 for op in scales)


def test_sum_of_selected_rows_stays_sparse_and_mixed_is_dense(rng):
    a = SelectedRows(np.array([0, 2]), f32(rng, 2, 3), 4)
    b = SelectedRows(np.array([2]), f32(rng, 1, 3), 4)
    p = OpProgram('sum', {'X': [a, b]})
    out, = p.run([p.outs['Out']], return_numpy=False)
    assert isinstance(out, SelectedRows) and out.height == 4
    np.testing.assert_array_equal(out.rows, [0, 2, 2])
    np.testing.assert_array_equal(out.values, np.concatenate([a.values, b.values]))
    dense = f32(rng, 4, 3)
    out, = run_op('sum', {'X': [dense, a]})
    want = dense.copy()
    want[[0, 2]] += a.values
    np.testing.assert_allclose(np.asarray(out), want, rtol=1e-6)


def test_sum_output_type_follows_the_kernel_sparse_only_when_every_input_is():
    from paddle_exec.framework import Program, program_guard
    from paddle_exec.framework.dtype import VarType as VT
    main = Program()
    with program_guard(main, Program()):
        block = main.global_block()
        rows_a = block.create_var(name='a', shape=[10, 4], dtype='float32', type=VT.SELECTED_ROWS)
        rows_b = block.create_var(name='b', shape=[10, 4], dtype='float32', type=VT.SELECTED_ROWS)
        dense = block.create_var(name='d', shape=[10, 4], dtype='float32')
        for name, inputs, want in (('s1', [rows_a, rows_b], VT.SELECTED_ROWS), ('s2', [rows_a, dense], VT.LOD_TENSOR),
                                   ('s3', [dense, rows_a], VT.LOD_TENSOR)):
            out = block.create_var(name=name)
            block.append_op('sum', {'X': inputs}, {'Out': [out]})
            assert out.type == want, name
