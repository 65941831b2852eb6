"""kernels/segment/: every numba function that generated segment code calls equals the per-op kernel it stands
for (bit for bit) and its numpy twin (bit for bit where the arithmetic is the same; exp and log to the last
place, as the C library's float32 functions and a float64 evaluation rounded once may differ there). The per-op
kernels are checked against numpy references and finite differences in the other kernel tests, so these
comparisons carry those checks over."""
import numpy as np
import pytest

from paddle_exec.framework.dtype import VarType
from paddle_exec.kernels import elementwise as KE
from paddle_exec.kernels import loss as KL
from paddle_exec.kernels import optimizer as KO
from paddle_exec.kernels import reduce as KR
from paddle_exec.kernels import unary as KU
from paddle_exec.kernels.segment import activation as SA
from paddle_exec.kernels.segment import blas as SB
from paddle_exec.kernels.segment import elementwise as SE
from paddle_exec.kernels.segment import loss as SL
from paddle_exec.kernels.segment import optimizer as SO
from paddle_exec.kernels.segment import tensor as ST
from paddle_exec.ops.fused import _coalesce_kernel

CODE = SB.bind()
F32 = np.float32


@pytest.fixture
def rng():
    return np.random.RandomState(0)


def same(a, b):
    assert a.shape == b.shape and a.dtype == b.dtype, (a.shape, b.shape, a.dtype, b.dtype)
    np.testing.assert_array_equal(a, b)


# --- blas -------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('m, k, n', [(32, 13, 1), (1, 784, 256), (8, 32, 64), (1, 5, 1), (3, 0, 4), (7, 3, 5)])
@pytest.mark.parametrize('ta', [False, True])
@pytest.mark.parametrize('tb', [False, True])
def test_matmul_calls_the_same_blas_routine_in_both_tiers(m, k, n, ta, tb, rng):
    a = rng.rand(*((k, m) if ta else (m, k))).astype(F32)
    b = rng.rand(*((n, k) if tb else (k, n))).astype(F32)
    got = SB.matmul(a, b, ta, tb, CODE)
    same(got, SB.matmul_ref(a, b, ta, tb, CODE))
    np.testing.assert_allclose(got, (a.T if ta else a) @ (b.T if tb else b), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(SB.matmul(a, b, ta, tb, SB.LOOPS), got, rtol=1e-4, atol=1e-4)
    if (m == 1) != (n == 1) and k:
        same(got, (a.T if ta else a) @ (b.T if tb else b))       # a matrix-vector product, as numpy's matmul


def test_mul_takes_2d_operands_of_any_layout_as_rows(rng):
    """A C-contiguous 2-D X goes to the product as it is, any other layout as a contiguous copy: same bits."""
    x, y = rng.rand(8, 13).astype(F32), rng.rand(13, 6).astype(F32)
    want = SB.mul_ref(x, y, 1, CODE)
    np.testing.assert_allclose(want, x @ y, rtol=1e-5)
    for xv in (x, np.asfortranarray(x), np.ascontiguousarray(x[::-1])[::-1], x[:, :][:, ::1]):
        same(SB.mul(xv, y, 1, CODE), want)
    x3 = np.stack([x, x[::-1]])
    same(SB.mul(x3, y, 2, CODE)[0], want)


def test_mul_and_its_gradient(rng):
    x, y = rng.rand(5, 4, 13).astype(F32), rng.rand(13, 3).astype(F32)
    same(SB.mul(x, y, 2, CODE), SB.mul_ref(x, y, 2, CODE))
    np.testing.assert_allclose(SB.mul(x, y, 2, CODE), x @ y, rtol=1e-5)
    d = rng.rand(5, 4, 3).astype(F32)
    for got, want in zip(SB.mul_grad(x, y, d, 2, True, True, CODE), SB.mul_grad_ref(x, y, d, 2, True, True, CODE)):
        same(got, want)
    dx, dy = SB.mul_grad(x, y, d, 2, False, True, CODE)
    assert dx.size == 0 and dy.shape == y.shape
    with pytest.raises(ValueError, match='x_num_col_dims'):
        SB.mul(x, y, 1, CODE)


# --- elementwise --------------------------------------------------------------------------------------------------

SHAPES = [((4, 5), (4, 5), -1), ((4, 5), (5,), -1), ((4, 5), (4,), 0), ((2, 3, 4, 5), (3, 4), 1),
          ((4, 5), (1,), -1), ((4, 1), (4, 5), -1), ((6, 5), (6, 1), -1), ((2, 3, 4), (3,), 1)]
FORWARD = [KE.elementwise_add_forward, KE.elementwise_sub_forward, KE.elementwise_mul_forward,
           KE.elementwise_div_forward, KE.elementwise_max_forward, KE.elementwise_min_forward]
BACKWARD = [KE.elementwise_add_backward, KE.elementwise_sub_backward, KE.elementwise_mul_backward,
            KE.elementwise_div_backward, KE.elementwise_max_backward, KE.elementwise_min_backward]


@pytest.mark.parametrize('xs, ys, axis', SHAPES)
@pytest.mark.parametrize('op', range(6))
def test_binary_ops_and_gradients_are_the_per_op_kernels(xs, ys, axis, op, rng):
    x = rng.randn(*xs).astype(F32)
    y = (rng.randn(*ys) + (3 if op == SE.DIV else 0)).astype(F32)
    want = FORWARD[op](x, y, axis)
    same(SE.binary(x, y, op, axis), want)
    same(SE.binary_ref(x, y, op, axis), want)
    d = rng.randn(*want.shape).astype(F32)
    wx, wy = BACKWARD[op](x, y, d, axis)
    gx, gy = SE.binary_grad(x, y, d, op, axis, True, True)
    rx, ry = SE.binary_grad_ref(x, y, d, op, axis, True, True)
    same(gx, wx)
    same(gy, wy)
    np.testing.assert_allclose(rx, wx, rtol=1e-6, atol=0)
    np.testing.assert_allclose(ry, wy, rtol=1e-6, atol=0)
    gx, gy = SE.binary_grad(x, y, d, op, axis, False, True)
    assert gx.size == 0


SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1e-45, -1e38, 3.5])


@pytest.mark.parametrize('xs', [(8, 64), (1, 256), (3, 2, 5), (2, 2, 3, 4)])
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_the_bias_add_and_in_place_relu_fast_paths_are_the_per_op_kernels(xs, dtype, rng):
    """binary's ADD of a vector along the last dimension (fc's bias) and forward_inplace's RELU have loops of
    their own (the general ones run unvectorized there): same bits, special values included."""
    x = rng.randn(*xs).astype(dtype)
    x.reshape(-1)[:SPECIAL.size] = SPECIAL[:x.size]
    y = rng.randn(xs[-1]).astype(dtype)
    y[:2] = [np.nan, -0.0] if xs[-1] > 1 else y[:2]
    for xv in (x, np.asfortranarray(x), x[..., ::-1][..., ::-1]):
        same(SE.binary(xv, y, SE.ADD, -1), KE.elementwise_add_forward(x, y, -1))
        same(SE.binary(xv, y, SE.ADD, len(xs) - 1), KE.elementwise_add_forward(x, y, -1))
    want = KU.forward(KU.RELU, x, 0.0, 0.0, 0.0)
    inplace = x.copy()
    out = SA.forward_inplace(inplace, KU.RELU, 0.0, 0.0, 0.0)
    same(out, want)
    same(inplace, want)
    assert not np.signbit(want[want == 0]).any()           # -0.0 and NaN become +0.0, as the opcode loop has it


@pytest.mark.parametrize('xs, ys, axis', SHAPES)
@pytest.mark.parametrize('op', range(6))
def test_binary_inplace_is_binary_written_into_x_when_the_result_has_its_shape(xs, ys, axis, op, rng):
    x = rng.randn(*xs).astype(F32)
    y = (rng.randn(*ys) + (3 if op == SE.DIV else 0)).astype(F32)
    want = FORWARD[op](x, y, axis)
    buf = x.copy()
    got = SE.binary_inplace(buf, y, op, axis)
    same(got, want)
    into_x = want.shape == x.shape and (xs == ys or (op == SE.ADD and len(ys) == 1 and ys[0] > 1
                                                      and ys[0] == xs[-1]))
    assert np.shares_memory(got, buf) == into_x
    same(SE.binary_inplace(np.asfortranarray(x), y, op, axis), want)       # not C-contiguous: a new array
    same(SE.binary_inplace(x.astype(np.float64), y, op, axis), FORWARD[op](x.astype(np.float64), y, axis))


def test_binary_ops_refuse_shapes_that_do_not_broadcast(rng):
    x, y = rng.randn(4, 5).astype(F32), rng.randn(3).astype(F32)
    with pytest.raises(ValueError, match='Broadcast'):
        SE.binary(x, y, SE.ADD, -1)
    with pytest.raises(ValueError, match='Broadcast'):
        SE.binary_ref(x, y, SE.ADD, -1)


@pytest.mark.parametrize('xs, ys, axis', [((4, 5), (5,), -1), ((4, 5), (4, 5), -1), ((2, 3, 4, 5), (3,), 1),
                                          ((4, 5), (1,), -1)])
@pytest.mark.parametrize('act', [KU.RELU, KU.SIGMOID, KU.TANH, KU.SCALE])
def test_fused_add_activation_is_add_then_activation(xs, ys, axis, act, rng):
    x, y = rng.randn(*xs).astype(F32), rng.randn(*ys).astype(F32)
    consts = (0.5, 0.1, 1.0)
    want = KU.forward(act, KE.elementwise_add_forward(x, y, axis), *consts)
    same(SE.add_act(x, y, axis, act, *consts), want)
    np.testing.assert_allclose(SE.add_act_ref(x, y, axis, act, *consts), want, rtol=2e-7)
    d = rng.randn(*xs).astype(F32)
    wx, wy = KE.elementwise_add_backward(x, y, KU.backward(act, want, d, *consts), axis)
    gx, gy = SE.act_add_grad(want, d, x, y, act, axis, True, True, *consts)
    rx, ry = SE.act_add_grad_ref(want, d, x, y, act, axis, True, True, *consts)
    same(gx, wx)
    same(gy, wy)
    np.testing.assert_allclose(rx, wx, rtol=1e-6)
    np.testing.assert_allclose(ry, wy, rtol=1e-6)


# --- activations ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('op', sorted(SA.REFERENCED))
@pytest.mark.parametrize('dtype', [np.float32, np.float64])
def test_activations_and_gradients_are_the_opcode_loops(op, dtype, rng):
    x = (rng.randn(2000) * 3).astype(dtype)
    if op in (KU.SQRT, KU.RSQRT, KU.RECIPROCAL):
        x = np.abs(x) + 0.1
    consts = (-1.0, 1.0, 0.0) if op == KU.CLIP else (0.5, 2.0, 0.0)
    want = KU.forward(op, x, *consts)
    same(SA.forward(x, op, *consts), want)
    ref = SA.forward_ref(x, op, *consts)
    np.testing.assert_allclose(ref, want, rtol=3e-7 if dtype == np.float32 else 1e-15)
    name = next(k for k, v in vars(KU).items() if v == op and k.isupper()).lower()
    dep = want if KU.GRAD_DEPENDENCY[name] == 'out' else x
    d = rng.randn(2000).astype(dtype)
    same(SA.backward(dep, d, op, *consts), KU.backward(op, dep, d, *consts))
    same(SA.backward_ref(dep, d, op, *consts), KU.backward(op, dep, d, *consts))
    inplace = x.copy()
    same(SA.forward_inplace(inplace, op, *consts), want)
    same(inplace, want)


# --- tensor ops -------------------------------------------------------------------------------------------------

def test_fill_reshape_concat_and_sum(rng):
    for dtype, code in ST.DTYPE_CODES.items():
        same(ST.fill((2, 3), 1, code), ST.fill_ref((2, 3), 1, code))
        assert ST.fill((2, 3), 1, code).dtype == dtype
    x = rng.randn(4, 6, 5).astype(F32)
    for target in [(0, -1), (-1, 5), (4, 30), (2, 2, 30)]:
        same(ST.reshape(x, target, len(target)), ST.reshape_ref(x, target, len(target)))
    with pytest.raises(ValueError, match='shape'):
        ST.reshape(x, (7, -1), 2)
    xs = ST.xshape_of(x)
    assert xs.shape == (0, 4, 6, 5)
    same(ST.reshape_grad(xs, x.reshape(4, 30)), x)
    parts = (x, x[:, :2].copy(), x[:, :1].copy())
    same(ST.concat(parts, 1, 3), np.concatenate(parts, axis=1))
    same(ST.concat_ref(parts, 1, 3), np.concatenate(parts, axis=1))
    d = rng.randn(4, 9, 5).astype(F32)
    for a, b in zip(ST.concat_grad(parts, d, 1), ST.concat_grad_ref(parts, d, 1)):
        same(a, b)
    same(ST.add_n(parts[:1] * 3), KR.sum_forward([x, x, x]))
    same(ST.add_n_ref(parts[:1] * 3), KR.sum_forward([x, x, x]))


def test_coalesce_lays_the_arrays_end_to_end_as_coalesce_tensors_kernel(rng):
    class Spec:
        attrs = {'dtype': int(VarType.FP32), 'copy_data': True, 'set_constant': False, 'constant': 0.0}

        def attr(self, name, default=None):
            return self.attrs.get(name, default)
    w, b, frozen = rng.randn(5, 3).astype(F32), rng.randn(3).astype(F32), rng.randn(2, 2, 2).astype(F32)
    frozen.setflags(write=False)
    views, fused = _coalesce_kernel(Spec())([w, b, frozen])
    same(ST.coalesce((w, b, frozen)), fused)
    same(ST.coalesce_ref((w, b, frozen)), fused)
    same(ST.coalesce((b,)), b)
    x64 = rng.randn(2, 3)
    same(ST.coalesce((x64, x64)), np.concatenate([x64.ravel(), x64.ravel()]))


def test_tuple_kernels_take_a_read_only_array_among_writeable_ones(rng):
    # a broadcast gradient handed from another segment arrives read-only: the tuple's arrays then differ in type
    x = rng.randn(4, 6, 5).astype(F32)
    frozen = rng.randn(4, 6, 5).astype(F32)
    frozen.setflags(write=False)
    y = rng.randn(4, 6, 5).astype(F32)
    same(ST.add_n((x, frozen, y)), KR.sum_forward([x, frozen, y]))
    same(ST.add_n((frozen, x)), KR.sum_forward([frozen, x]))
    same(ST.add_n((frozen,)), frozen)
    part = frozen[:, :2].copy()
    part.setflags(write=False)
    parts = (x, part)
    same(ST.concat(parts, 1, 3), np.concatenate(parts, axis=1))
    d = rng.randn(4, 8, 5).astype(F32)
    for a, b in zip(ST.concat_grad(parts, d, 1), ST.concat_grad_ref(parts, d, 1)):
        same(a, b)


@pytest.mark.parametrize('op', [ST.SUM, ST.MEAN])
@pytest.mark.parametrize('d0, d1, keep', [(1, 1, False), (1, 2, True), (0, 0, False), (0, 2, False), (2, 2, True)])
def test_reductions_are_the_per_op_kernels(op, d0, d1, keep, rng):
    x = rng.randn(4, 6, 5).astype(F32)
    rank = 3 if keep else max(3 - (d1 - d0 + 1), 1)
    per_op = (KR.reduce_sum_forward, KR.reduce_sum_backward) if op == ST.SUM else \
        (KR.reduce_mean_forward, KR.reduce_mean_backward)
    want = per_op[0](x, list(range(d0, d1 + 1)), keep, False)
    same(ST.reduce(x, op, d0, d1, keep, rank), want)
    np.testing.assert_allclose(ST.reduce_ref(x, op, d0, d1, keep, rank), want, rtol=1e-7)
    d = rng.randn(*want.shape).astype(F32)
    dwant = per_op[1](x, d, list(range(d0, d1 + 1)), keep, False)
    same(ST.reduce_grad(x, d, op, d0, d1), dwant)
    same(ST.reduce_grad_ref(x, d, op, d0, d1), dwant)


def test_mean_and_its_gradient(rng):
    x = rng.randn(64, 10).astype(F32)
    same(ST.mean(x), KR.mean_forward(x))
    np.testing.assert_allclose(ST.mean_ref(x), KR.mean_forward(x), rtol=1e-7)
    d = np.array([0.5], F32)
    same(ST.mean_grad(x, d), KR.mean_backward(x, d))
    same(ST.mean_grad_ref(x, d), KR.mean_backward(x, d))


# --- losses -----------------------------------------------------------------------------------------------------

def test_softmax_with_cross_entropy_and_its_gradient(rng):
    x = (rng.randn(64, 10) * 3).astype(F32)
    label = rng.randint(0, 10, (64, 1)).astype(np.int64)
    label[3] = -100
    want_sm, want_loss = KL.softmax_with_cross_entropy_forward(x, label)
    for sm, loss in (SL.softmax_xent(x, label, -100), SL.softmax_xent_ref(x, label, -100)):
        same(sm, want_sm)
        same(loss, want_loss)
    d = rng.randn(64, 1).astype(F32)
    want = KL.softmax_with_cross_entropy_backward(want_sm, label, d)
    same(SL.softmax_xent_grad(label, want_sm, d, -100, False), want)
    same(SL.softmax_xent_grad_ref(label, want_sm, d, -100, False), want)
    with pytest.raises(ValueError, match='but received label value 2[0-9]'):
        SL.softmax_xent_ref(x, label + 20, -100)
    with pytest.raises(ValueError, match='out of range'):
        SL.softmax_xent(x, label + 20, -100)


@pytest.mark.parametrize('normalize', [False, True])
def test_sigmoid_cross_entropy_with_logits_and_its_gradient(normalize, rng):
    x = rng.randn(64, 1).astype(F32)
    z = rng.randint(0, 2, (64, 1)).astype(F32)
    want = KL.sigmoid_cross_entropy_with_logits_forward(x, z, -100, normalize)
    same(SL.sigmoid_xent(x, z, -100, normalize), want)
    same(SL.sigmoid_xent_ref(x, z, -100, normalize), want)
    d = rng.randn(64, 1).astype(F32)
    dwant = KL.sigmoid_cross_entropy_with_logits_backward(x, z, d, -100, normalize)
    same(SL.sigmoid_xent_grad(x, z, d, -100, normalize), dwant)
    same(SL.sigmoid_xent_grad_ref(x, z, d, -100, normalize), dwant)


@pytest.mark.parametrize('shape', [(64, 10), (1, 10), (3, 4, 7)])
def test_softmax_and_its_gradient(shape, rng):
    x = (rng.randn(*shape) * 4).astype(F32)
    want = KR.softmax_forward(x, -1)
    same(SL.softmax(x), want)
    same(SL.softmax_ref(x), want)
    d = rng.randn(*shape).astype(F32)
    same(SL.softmax_grad(want, d), KR.softmax_backward(want, d, -1))
    same(SL.softmax_grad_ref(want, d), KR.softmax_backward(want, d, -1))


# --- optimizers ---------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('scaled', [False, True])
def test_adam_updates_in_place_as_the_per_op_kernel(scaled, rng):
    p, g, m1 = (rng.randn(64, 32).astype(F32) for _ in range(3))
    m2 = np.abs(rng.randn(64, 32)).astype(F32)
    lr = np.array([0.01], F32)

    def pows():
        return np.array([0.9 ** 3], F32), np.array([0.999 ** 3], F32)
    want = KO.adam(p.copy(), g, m1.copy(), m2.copy(), lr, *pows(), 0.9, 0.999, 1e-8, True, scaled)
    for fn in (SO.adam, SO.adam_ref):
        args = [p.copy(), g, lr, m1.copy(), m2.copy(), *pows()]
        got = fn(*args, 0.9, 0.999, 1e-8, True, scaled)
        for a, b in zip(got, want):
            same(a, b)
        assert got[0] is args[0] and got[1] is args[3]          # in place


@pytest.mark.parametrize('nesterov', [False, True])
def test_sgd_and_momentum_update_in_place_as_the_per_op_kernels(nesterov, rng):
    p, g, v = (rng.randn(16, 8).astype(F32) for _ in range(3))
    lr = np.array([0.05], F32)
    want = KO.sgd(p.copy(), g, lr)
    for fn in (SO.sgd, SO.sgd_ref):
        same(fn(p.copy(), lr, g), want)
    wp, wv = KO.momentum(p.copy(), g, v.copy(), lr, np.float32(0.9), nesterov)
    for fn in (SO.momentum, SO.momentum_ref):
        gp, gv = fn(p.copy(), g, v.copy(), lr, float(np.float32(0.9)), nesterov)
        same(gp, wp)
        same(gv, wv)


def _parts(rng):
    """Gradient parts of mixed ranks (a weight's, a bias's, a Fortran-ordered one) and their coalesced buffer."""
    parts = (rng.randn(6, 5).astype(F32), rng.randn(5).astype(F32), np.asfortranarray(rng.randn(3, 4).astype(F32)))
    return parts, np.concatenate([np.ascontiguousarray(g).reshape(-1) for g in parts])


@pytest.mark.parametrize('opt', ['sgd', 'momentum', 'nesterov', 'adam'])
def test_parts_updates_are_the_update_of_the_coalesced_gradient_bit_for_bit(opt, rng):
    """The *_parts variants (coalesce_tensor + a fused update as one call) read each gradient where it lies and give
    the numbers of the update on the coalesced buffer; their twins too; the buffers are updated in place."""
    parts, flat = _parts(rng)
    n = flat.size
    p, v, m1 = (rng.randn(n).astype(F32) for _ in range(3))
    m2 = np.abs(rng.randn(n)).astype(F32)
    lr = np.array([0.01], F32)

    def pows():
        return np.full(3, 0.9 ** 3, F32), np.full(3, 0.999 ** 3, F32)
    if opt == 'sgd':
        want = (SO.sgd(p.copy(), lr, flat),)
        runs = [(fn, lambda: [p.copy(), lr, parts]) for fn in (SO.sgd_parts, SO.sgd_parts_ref)]
        extra = ()
    elif opt == 'adam':
        want = SO.adam(p.copy(), flat, lr, m1.copy(), m2.copy(), *pows(), 0.9, 0.999, 1e-8, True, False)
        runs = [(fn, lambda: [p.copy(), parts, lr, m1.copy(), m2.copy(), *pows()])
                for fn in (SO.adam_parts, SO.adam_parts_ref)]
        extra = (0.9, 0.999, 1e-8, True, False)
    else:
        extra = (float(np.float32(0.9)), opt == 'nesterov')
        want = SO.momentum(p.copy(), flat, v.copy(), lr, *extra)
        runs = [(fn, lambda: [p.copy(), parts, v.copy(), lr]) for fn in (SO.momentum_parts, SO.momentum_parts_ref)]
    for fn, make in runs:
        args = make()
        got = fn(*args, *extra)
        got = got if isinstance(got, tuple) else (got,)
        for a, b in zip(got, want):
            same(a, b)
        assert got[0] is args[0]                                # in place


def test_parts_update_refuses_gradients_of_another_size_before_writing(rng):
    parts, flat = _parts(rng)
    p = rng.randn(flat.size + 1).astype(F32)
    before = p.copy()
    with pytest.raises(ValueError, match='size of the parameter'):
        SO.sgd_parts(p, np.array([0.1], F32), parts)
    same(p, before)


@pytest.mark.parametrize('layout', ['c', 'fortran', 'strided'])
def test_write_same_copies_a_value_of_the_arrays_shape_and_reports_any_other(layout, rng):
    """kernels/segment/sink.py write_same, the into variant's copy (executor/codegen.py `into`): numpy's copy for a
    value of the destination's shape, in any layout; False and the destination untouched for another shape."""
    from paddle_exec.kernels.segment.sink import write_same
    src = rng.rand(6, 4).astype(F32)
    if layout == 'fortran':
        src = np.asfortranarray(src)
    elif layout == 'strided':
        src = rng.rand(6, 8).astype(F32)[:, ::2]
    dst = np.empty((6, 4), F32)
    assert write_same(dst, src) is True
    np.testing.assert_array_equal(dst, np.array(src))
    before = dst.copy()
    assert write_same(dst, src.reshape(4, 6) if layout == 'c' else src.T) is False      # same size, other shape
    assert write_same(dst, src[:3]) is False
    np.testing.assert_array_equal(dst, before)
