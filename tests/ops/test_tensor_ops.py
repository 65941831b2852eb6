"""The tensor family's ops through small programs: forward against numpy, gradients against finite differences
(append_backward on mean(out * w), X@GRAD compared with the numeric gradient of the numpy reference),
compile-time shapes with unknown (-1) dims, runtime attribute tensors, and errors. Values marked 'Paddle 1.8.5'
were recorded with paddlepaddle 1.8.5."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.backward import append_backward
from paddle_exec.executor import Executor
from paddle_exec.framework import CPUPlace, Program, program_guard, registry
from paddle_exec.framework.dtype import VarType
from tests.kernels.gradcheck import check_grad, numeric_grad

L = fluid.layers
F32 = np.float32


@pytest.fixture
def rng():
    return np.random.RandomState(7)


class Case:
    """One program: fed variables, raw ops appended with Paddle's slot and attribute names, and a run."""

    def __init__(self):
        self.prog = Program()
        self.block = self.prog.global_block()
        self.feed = {}

    def var(self, name, value, shape=None, stop_gradient=True):
        value = np.asarray(value)
        self.feed[name] = value
        return self.block.create_var(name=name, shape=value.shape if shape is None else shape, dtype=value.dtype,
                                     stop_gradient=stop_gradient)

    def op(self, type, inputs, outputs, attrs=None):
        """Appends `type`; `outputs` maps slot -> name or list of names (created here). Returns the outputs."""
        outs = {}
        for slot, names in outputs.items():
            names = [names] if isinstance(names, str) else names
            outs[slot] = [self.block.create_var(name=n) for n in names]
        self.block.append_op(type, inputs, outs, attrs or {})
        return outs

    def run(self, fetch):
        return Executor(CPUPlace()).run(self.prog, feed=self.feed, fetch_list=fetch)


def run_one(type, inputs, outputs, attrs=None):
    """inputs: slot -> (name, value) or [(name, value), ...]; returns {output name: value}."""
    c = Case()
    slots = {}
    for slot, spec in inputs.items():
        items = spec if isinstance(spec, list) else [spec]
        slots[slot] = [c.var(n, v) for n, v in items]
    outs = c.op(type, slots, outputs, attrs)
    names = [v.name for vs in outs.values() for v in vs]
    return dict(zip(names, c.run(names))), c


def grad_through_program(build, feeds, wrt, ref, rng, rtol=1e-4, atol=1e-6):
    """build(vars) -> output Variable in a program fed `feeds`; checks d mean(out * w) / d x for x in `wrt`
    against the numeric gradient of `ref(*wrt arrays)` (other feeds are the test's constants)."""
    prog, startup = Program(), Program()
    with program_guard(prog, startup):
        vs = {n: L.data(name=n, shape=list(np.shape(v)), dtype=str(np.asarray(v).dtype), append_batch_size=False)
              for n, v in feeds.items()}
        for n in wrt:
            vs[n].stop_gradient = False
        out = build(vs)
        want = ref(*[np.asarray(feeds[n], np.float64) for n in wrt])
        w_value = rng.standard_normal(np.shape(want)).astype(F32)
        w = L.data(name='w_proj', shape=list(w_value.shape), dtype='float32', append_batch_size=False)
        loss = L.mean(L.elementwise_mul(L.cast(out, 'float32') if out.dtype != VarType.FP32 else out, w))
        append_backward(loss)
    got = Executor(CPUPlace()).run(prog, feed={**feeds, 'w_proj': w_value},
                                   fetch_list=[out] + [n + '@GRAD' for n in wrt])
    np.testing.assert_allclose(got[0], want, rtol=1e-6, atol=1e-6)
    arrays = [np.asarray(feeds[n], np.float64) for n in wrt]
    for k, n in enumerate(wrt):
        num = numeric_grad(lambda *a: float(np.mean(ref(*a) * w_value)), arrays, k)
        check_grad(got[1 + k], num, rtol=rtol, atol=atol, name=n + '@GRAD')
    return prog


def shapes_of(build, feeds_shapes):
    """Compile-time shape(s) of build(vars) with data vars of the given (possibly -1) shapes."""
    prog = Program()
    with program_guard(prog, Program()):
        vs = {n: L.data(name=n, shape=list(s), dtype=d, append_batch_size=False)
              for n, (s, d) in feeds_shapes.items()}
        out = build(vs)
    outs = out if isinstance(out, (list, tuple)) else [out]
    return [tuple(o.shape) for o in outs]


# =================================================================================================================
# reshape2, squeeze2, unsqueeze2, flatten2, flatten_contiguous_range, transpose2
# =================================================================================================================

def test_reshape2_copies_zero_dims_and_infers_minus_one(rng):
    x = rng.randn(2, 3, 4).astype(F32)
    got, _ = run_one('reshape2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'shape': [0, -1, 2]})
    np.testing.assert_array_equal(got['out'], x.reshape(2, 6, 2))
    assert got['xs'].shape == (0, 2, 3, 4) and got['xs'].size == 0


def test_reshape2_one_plan_reshapes_many_batch_sizes(rng):
    # the kernel remembers the attribute's target for the last few input shapes; older ones are recomputed
    c = Case()
    x = c.var('x', np.zeros((1, 6), F32), shape=(-1, 6))
    c.op('reshape2', {'X': [x]}, {'Out': 'out', 'XShape': 'xshape'}, {'shape': [0, -1, 2]})
    exe = Executor(CPUPlace())
    for n in list(range(1, 40)) + [1, 2, 3]:
        value = rng.standard_normal((n, 6)).astype(F32)
        out, = exe.run(c.prog, feed={'x': value}, fetch_list=['out'])
        np.testing.assert_array_equal(out, value.reshape(n, 3, 2))


def test_reshape2_shape_tensor_and_shape_tensor_list_override_the_attribute(rng):
    x = rng.randn(2, 3, 4).astype(F32)
    got, _ = run_one('reshape2', {'X': ('x', x), 'Shape': ('s', np.array([4, -1], np.int32))},
                     {'Out': 'out', 'XShape': 'xs'}, {'shape': [24]})
    np.testing.assert_array_equal(got['out'], x.reshape(4, 6))
    got, _ = run_one('reshape2', {'X': ('x', x), 'ShapeTensor': [('a', np.array([0], np.int32)),
                                                                 ('b', np.array([12], np.int32))]},
                     {'Out': 'out', 'XShape': 'xs'}, {'shape': [0, -1]})
    np.testing.assert_array_equal(got['out'], x.reshape(2, 12))


def test_reshape2_compile_shapes_like_paddle():
    # Paddle 1.8.5: reshape(x[-1, 3, 4], [0, 0, 2, -1]) -> (-1, 3, 2, -1); [-1, 12] -> (-1, 12); [4, 6] -> (4, 6)
    assert shapes_of(lambda v: [L.reshape(v['x'], [0, 0, 2, -1]), L.reshape(v['x'], [-1, 12]),
                                L.reshape(v['x'], [4, 6])], {'x': ([-1, 3, 4], 'float32')}) == \
        [(-1, 3, 2, -1), (-1, 12), (4, 6)]
    assert shapes_of(lambda v: L.reshape(v['x'], [0, -1, 4]), {'x': ([-1, 6, 8], 'float32')}) == [(-1, -1, 4)]


def test_reshape2_errors_name_the_sizes():
    with pytest.raises(ValueError, match=r"divisible by known capacity of 'shape'.*X's size = 24.*\[-1, 5\]"):
        shapes_of(lambda v: L.reshape(v['x'], [-1, 5]), {'x': ([2, 3, 4], 'float32')})
    x = np.zeros((2, 3, 4), F32)
    with pytest.raises(ValueError, match="must be equal to the capacity of 'shape'"):
        run_one('reshape2', {'X': ('x', x), 'Shape': ('s', np.array([5, 5], np.int32))},
                {'Out': 'out', 'XShape': 'xs'}, {'shape': [24]})


def test_reshape2_grad(rng):
    x = rng.randn(2, 3, 4).astype(F32)
    grad_through_program(lambda v: L.reshape(v['x'], [4, -1]), {'x': x}, ['x'], lambda a: a.reshape(4, 6), rng)


def test_reshape2_of_a_parameter_is_a_copy_not_a_view():
    # optimizers update parameters in place: a view would change under a fetched result
    from paddle_exec.framework import Scope, scope_guard
    c = Case()
    w = c.block.create_var(name='w', shape=(2, 3), dtype='float32', persistable=True)
    out = c.op('reshape2', {'X': [w]}, {'Out': 'out', 'XShape': 'xs'}, {'shape': [3, 2]})['Out'][0]
    scope = Scope()
    scope.var('w').set_value(np.arange(6, dtype=F32).reshape(2, 3))
    with scope_guard(scope):
        got, = Executor(CPUPlace()).run(c.prog, fetch_list=[out])
    assert not np.shares_memory(got, scope.find_var('w').tensor.value)
    np.testing.assert_array_equal(got, np.arange(6, dtype=F32).reshape(3, 2))


@pytest.mark.parametrize('axes, want', [([0, 2], (3,)), ([], (3,)), ([-1], (1, 3))])
def test_squeeze2_forward(axes, want):
    x = np.arange(3, dtype=F32).reshape(1, 3, 1)
    got, _ = run_one('squeeze2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'axes': axes})
    assert got['out'].shape == want
    np.testing.assert_array_equal(got['out'].ravel(), x.ravel())


def test_squeeze2_keeps_listed_dims_that_are_not_one_and_squeezes_unknown_dims_at_compile_time():
    x = np.zeros((2, 3, 1), F32)
    got, _ = run_one('squeeze2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'axes': [0, 2]})
    assert got['out'].shape == (2, 3)         # Paddle 2.x; 1.8 raised
    # Paddle 1.8.5: squeeze(x[-1, 3, 1], axes=[0, 2]) -> compile-time shape (3,)
    assert shapes_of(lambda v: L.squeeze(v['x'], [0, 2]), {'x': ([-1, 3, 1], 'float32')}) == [(3,)]


def test_unsqueeze2_axes_follow_paddles_insertion_rule():
    x = np.zeros((2, 3), F32)
    for axes, want in (([-1], (2, 3, 1)), ([0, 3], (1, 2, 3, 1)), ([0, -1], (1, 2, 3, 1)), ([1, 1], (2, 1, 1, 3))):
        got, _ = run_one('unsqueeze2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'axes': axes})
        assert got['out'].shape == want, axes
    got, _ = run_one('unsqueeze2', {'X': ('x', x), 'AxesTensor': ('a', np.array([0, 2], np.int32))},
                     {'Out': 'out', 'XShape': 'xs'})
    assert got['out'].shape == (1, 2, 1, 3)
    with pytest.raises(ValueError, match='unsqueeze dims must be within range'):
        run_one('unsqueeze2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'axes': [4]})


def test_squeeze_unsqueeze_grads(rng):
    x = rng.randn(2, 1, 3).astype(F32)
    grad_through_program(lambda v: L.squeeze(v['x'], [1]), {'x': x}, ['x'], lambda a: a.reshape(2, 3), rng)
    grad_through_program(lambda v: L.unsqueeze(v['x'], [0, -1]), {'x': x}, ['x'],
                         lambda a: a.reshape(1, 2, 1, 3, 1), rng)


def test_flatten2_and_flatten_contiguous_range(rng):
    x = rng.randn(2, 3, 4).astype(F32)
    got, _ = run_one('flatten2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'axis': 2})
    np.testing.assert_array_equal(got['out'], x.reshape(6, 4))
    got, _ = run_one('flatten2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'axis': 0})
    assert got['out'].shape == (1, 24)
    got, _ = run_one('flatten_contiguous_range', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'},
                     {'start_axis': 1, 'stop_axis': -1})
    np.testing.assert_array_equal(got['out'], x.reshape(2, 12))
    # unknown dims stay unknown (Paddle 1.8's flatten2 wrote -6 here)
    assert shapes_of(lambda v: L.flatten(v['x'], 2), {'x': ([-1, 6, 8], 'float32')}) == [(-1, 8)]


def test_flatten_grads(rng):
    x = rng.randn(2, 3, 4).astype(F32)
    grad_through_program(lambda v: L.flatten(v['x'], 1), {'x': x}, ['x'], lambda a: a.reshape(2, 12), rng)
    import paddle_exec as paddle
    grad_through_program(lambda v: paddle.flatten(v['x'], 0, 1), {'x': x}, ['x'], lambda a: a.reshape(6, 4), rng)


def test_transpose2_forward_grad_and_errors(rng):
    x = rng.randn(2, 3, 4).astype(F32)
    got, _ = run_one('transpose2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'axis': [2, 0, 1]})
    np.testing.assert_array_equal(got['out'], x.transpose(2, 0, 1))
    assert got['out'].flags.c_contiguous
    grad_through_program(lambda v: L.transpose(v['x'], [1, 2, 0]), {'x': x}, ['x'],
                         lambda a: a.transpose(1, 2, 0), rng)
    with pytest.raises(ValueError, match='unique value'):
        run_one('transpose2', {'X': ('x', x)}, {'Out': 'out', 'XShape': 'xs'}, {'axis': [0, 0, 1]})


def test_v2_grad_needs_xshape():
    prog = Program()
    block = prog.global_block()
    x = block.create_var(name='x', shape=(2, 3), dtype='float32')
    out = block.create_var(name='out')
    block.append_op('reshape2', {'X': [x]}, {'Out': [out]}, {'shape': [3, 2]})
    with program_guard(prog, Program()):
        with pytest.raises(ValueError, match="'reshape2'.*no XShape output"):
            from paddle_exec.backward import gradients
            gradients([L.mean(out)], [x])


def test_reshape_v1_and_transpose_v1_grads_read_x(rng):
    x = rng.randn(2, 3).astype(F32)

    def build(v):
        block = v['x'].block
        r = block.create_var(name='r')
        t = block.create_var(name='t')
        block.append_op('reshape', {'X': [v['x']]}, {'Out': [r]}, {'shape': [3, 2]})
        block.append_op('transpose', {'X': [r]}, {'Out': [t]}, {'axis': [1, 0]})
        return t
    grad_through_program(build, {'x': x}, ['x'], lambda a: a.reshape(3, 2).T, rng)


# =================================================================================================================
# concat, split, stack, unstack
# =================================================================================================================

def test_concat_forward_negative_axis_and_axis_tensor(rng):
    a, b = rng.randn(2, 3).astype(F32), rng.randn(2, 5).astype(F32)
    got, _ = run_one('concat', {'X': [('a', a), ('b', b)]}, {'Out': 'out'}, {'axis': -1})
    np.testing.assert_array_equal(got['out'], np.concatenate([a, b], axis=1))
    got, _ = run_one('concat', {'X': [('a', a), ('c', a)], 'AxisTensor': ('ax', np.array([0], np.int32))},
                     {'Out': 'out'}, {'axis': 1})
    np.testing.assert_array_equal(got['out'], np.concatenate([a, a], axis=0))


def test_concat_compile_shapes_and_mismatch_error():
    # Paddle 1.8.5: concat([x[-1, 3], y[2, 3]], 0) -> (-1, 3); axis -1 -> (2, 6)
    assert shapes_of(lambda v: [L.concat([v['x'], v['y']], 0), L.concat([v['y'], v['y']], -1)],
                     {'x': ([-1, 3], 'float32'), 'y': ([2, 3], 'float32')}) == [(-1, 3), (2, 6)]
    with pytest.raises(ValueError, match=r"input\[0\]'s shape = \[2, 3\], input\[1\]'s shape = \[4, 4\]"):
        shapes_of(lambda v: L.concat([v['x'], v['y']], 0), {'x': ([2, 3], 'float32'), 'y': ([4, 4], 'float32')})


def test_concat_grad_all_inputs_and_only_some(rng):
    a, b, c = rng.randn(2, 3).astype(F32), rng.randn(2, 1).astype(F32), rng.randn(2, 2).astype(F32)
    feeds = {'a': a, 'b': b, 'c': c}
    grad_through_program(lambda v: L.concat([v['a'], v['b'], v['c']], 1), feeds, ['a', 'b', 'c'],
                         lambda x, y, z: np.concatenate([x, y, z], 1), rng)
    # b needs no gradient: its X@GRAD entry is @EMPTY@ (as in Paddle 1.8.5) and the others land on their inputs
    prog = grad_through_program(lambda v: L.concat([v['a'], v['b'], v['c']], 1), feeds, ['a', 'c'],
                                lambda x, z: np.concatenate([x, b, z], 1), rng)
    grad_op = [op for op in prog.global_block().ops if op.type == 'concat_grad'][0]
    assert grad_op.output('X@GRAD') == ['a@GRAD', '@EMPTY@', 'c@GRAD']


@pytest.mark.parametrize('attrs, sizes', [({'num': 3, 'axis': 1}, [2, 2, 2]),
                                          ({'sections': [1, -1, 2], 'axis': -1}, [1, 3, 2])])
def test_split_forward(attrs, sizes, rng):
    x = rng.randn(2, 6).astype(F32)
    names = ['o%d' % i for i in range(len(sizes))]
    got, _ = run_one('split', {'X': ('x', x)}, {'Out': names}, attrs)
    np.testing.assert_array_equal(np.concatenate([got[n] for n in names], axis=1), x)
    assert [got[n].shape[1] for n in names] == sizes


def test_split_sections_tensor_list_and_errors(rng):
    x = rng.randn(2, 6).astype(F32)
    got, _ = run_one('split', {'X': ('x', x), 'SectionsTensorList': [('s0', np.array([4], np.int32)),
                                                                     ('s1', np.array([-1], np.int32))]},
                     {'Out': ['o0', 'o1']}, {'sections': [-1, -1], 'axis': 1})
    assert got['o0'].shape == (2, 4) and got['o1'].shape == (2, 2)
    with pytest.raises(ValueError, match='evenly divisible'):
        run_one('split', {'X': ('x', x)}, {'Out': ['a', 'b', 'c', 'd']}, {'num': 4, 'axis': 1})
    with pytest.raises(AssertionError, match='evenly divisible'):
        shapes_of(lambda v: L.split(v['x'], 3, dim=1), {'x': ([2, 7], 'float32')})


def test_split_compile_shapes():
    assert shapes_of(lambda v: L.split(v['x'], [2, -1], dim=-1), {'x': ([-1, 6, 8], 'float32')}) == \
        [(-1, 6, 2), (-1, 6, 6)]
    assert shapes_of(lambda v: L.split(v['x'], 2, dim=0), {'x': ([-1, 6], 'float32')}) == [(-1, 6), (-1, 6)]


def test_split_grad_with_an_unused_output(rng):
    x = rng.randn(2, 6).astype(F32)
    # only the second part reaches the loss: the first part's gradient is filled with zeros
    grad_through_program(lambda v: L.split(v['x'], [2, 4], dim=1)[1], {'x': x}, ['x'], lambda a: a[:, 2:], rng)
    grad_through_program(lambda v: L.elementwise_add(*L.split(v['x'], 2, dim=1)), {'x': x}, ['x'],
                         lambda a: a[:, :3] + a[:, 3:], rng)


def test_stack_forward_shapes_and_grad(rng):
    a, b = rng.randn(2, 3).astype(F32), rng.randn(2, 3).astype(F32)
    got, _ = run_one('stack', {'X': [('a', a), ('b', b)]}, {'Y': 'y'}, {'axis': -1})
    np.testing.assert_array_equal(got['y'], np.stack([a, b], axis=-1))
    assert shapes_of(lambda v: L.stack([v['a'], v['a']], 1), {'a': ([-1, 3], 'float32')}) == [(-1, 2, 3)]
    grad_through_program(lambda v: L.stack([v['a'], v['b'], v['a']], 1), {'a': a, 'b': b}, ['a', 'b'],
                         lambda x, y: np.stack([x, y, x], 1), rng)
    prog = grad_through_program(lambda v: L.stack([v['a'], v['b']], 0), {'a': a, 'b': b}, ['b'],
                                lambda y: np.stack([a, y], 0), rng)
    grad_op, = [op for op in prog.global_block().ops if op.type == 'stack_grad']
    assert grad_op.output('X@GRAD') == ['@EMPTY@', 'b@GRAD']              # Paddle 1.8.5 keeps @EMPTY@


def test_unstack_forward_and_grad_with_unused_outputs(rng):
    x = rng.randn(2, 3, 2).astype(F32)
    got, _ = run_one('unstack', {'X': ('x', x)}, {'Y': ['y0', 'y1', 'y2']}, {'axis': 1, 'num': 3})
    for i in range(3):
        np.testing.assert_array_equal(got['y%d' % i], x[:, i])
    grad_through_program(lambda v: L.unstack(v['x'], axis=1)[2], {'x': x}, ['x'], lambda a: a[:, 2], rng)


# =================================================================================================================
# slice, strided_slice, reverse
# =================================================================================================================

def test_slice_bounds_clamp_and_negative_like_paddle():
    x = np.arange(24, dtype=F32).reshape(2, 3, 4)
    # Paddle 1.8.5: slice(axes=[1, 2], starts=[-2, -100], ends=[100, -1]) -> shape (2, 2, 3)
    got, _ = run_one('slice', {'Input': ('x', x)}, {'Out': 'out'},
                     {'axes': [1, 2], 'starts': [-2, -100], 'ends': [100, -1]})
    np.testing.assert_array_equal(got['out'], x[:, 1:, :3])
    got, _ = run_one('slice', {'Input': ('x', x)}, {'Out': 'out'},
                     {'axes': [0, 1, 2], 'starts': [0, 2, 0], 'ends': [1, 3, 4], 'decrease_axis': [0, 1]})
    np.testing.assert_array_equal(got['out'], x[0, 2])
    got, _ = run_one('slice', {'Input': ('x', x)}, {'Out': 'out'},
                     {'axes': [0, 1, 2], 'starts': [1, 1, 1], 'ends': [2, 2, 2], 'decrease_axis': [0, 1, 2]})
    assert got['out'].shape == (1,) and got['out'][0] == x[1, 1, 1]
    with pytest.raises(ValueError, match='end should greater than start'):
        run_one('slice', {'Input': ('x', x)}, {'Out': 'out'}, {'axes': [1], 'starts': [2], 'ends': [1]})


def test_slice_runtime_starts_and_ends_tensors():
    x = np.arange(24, dtype=F32).reshape(2, 3, 4)
    got, _ = run_one('slice', {'Input': ('x', x), 'StartsTensor': ('s', np.array([1, 1], np.int32)),
                               'EndsTensorList': [('e0', np.array([3], np.int32)), ('e1', np.array([-1], np.int32))]},
                     {'Out': 'out'}, {'axes': [1, 2], 'starts': [0, 0], 'ends': [-1, -1], 'infer_flags': [-1, -1]})
    np.testing.assert_array_equal(got['out'], x[:, 1:3, 1:3])


def test_slice_compile_shapes():
    # Paddle 1.8.5: slice(x[-1, 6, 8], axes=[1, 2], starts=[1, 0], ends=[3, 100]) -> (-1, 2, 8)
    assert shapes_of(lambda v: L.slice(v['x'], [1, 2], [1, 0], [3, 100]), {'x': ([-1, 6, 8], 'float32')}) == \
        [(-1, 2, 8)]
    prog = Program()
    with program_guard(prog, Program()):
        x = L.data(name='x', shape=[4, 6], append_batch_size=False)
        s = L.fill_constant([1], 'int32', 1)
        assert L.slice(x, [0, 1], [s, 0], [3, 4]).shape == (-1, 4)


def test_slice_grad(rng):
    x = rng.randn(3, 4, 2).astype(F32)
    grad_through_program(lambda v: L.slice(v['x'], [0, 1], [1, -3], [3, 100]), {'x': x}, ['x'],
                         lambda a: a[1:3, 1:], rng)
    grad_through_program(lambda v: v['x'][1, :, 0], {'x': x}, ['x'], lambda a: a[1, :, 0], rng)


@pytest.mark.parametrize('start, end, stride', [(8, 2, -2), (-1, -1, -1), (9, -11, -3), (20, -100, -1),
                                                (1, 100, 3), (-3, -1, 1), (5, 0, -1), (2, 1, -4)])
def test_strided_slice_forward(start, end, stride):
    # matches Paddle 1.8.5 except (8, 2, -2): 1.8 returned [7, 5, 3], Paddle 2.x (and Python) give [8, 6, 4]
    x = np.arange(10, dtype=F32)
    got, _ = run_one('strided_slice', {'Input': ('x', x)}, {'Out': 'out'},
                     {'axes': [0], 'starts': [start], 'ends': [end], 'strides': [stride]})
    want = x[start:(None if end == -1 and stride < 0 else end):stride]
    np.testing.assert_array_equal(got['out'], want)
    assert shapes_of(lambda v: L.strided_slice(v['x'], [0], [start], [end], [stride]),
                     {'x': ([10], 'float32')}) == [want.shape]


def test_strided_slice_grad(rng):
    x = rng.randn(6, 3).astype(F32)
    grad_through_program(lambda v: L.strided_slice(v['x'], [0, 1], [5, 0], [0, 3], [-2, 2]), {'x': x}, ['x'],
                         lambda a: a[5:0:-2, 0:3:2], rng)


def test_reverse_and_flip_forward_and_grad(rng):
    x = rng.randn(2, 3).astype(F32)
    got, _ = run_one('reverse', {'X': ('x', x)}, {'Out': 'out'}, {'axis': [0, 1]})
    np.testing.assert_array_equal(got['out'], x[::-1, ::-1])
    got, _ = run_one('flip', {'X': ('x', x)}, {'Out': 'out'}, {'dims': [1]})     # Paddle 1.8's attribute name
    np.testing.assert_array_equal(got['out'], x[:, ::-1])
    grad_through_program(lambda v: L.reverse(v['x'], 1), {'x': x}, ['x'], lambda a: a[:, ::-1], rng)


# =================================================================================================================
# expand, expand_v2, tile
# =================================================================================================================

def test_expand_forward_shape_and_grad(rng):
    x = rng.randn(2, 3).astype(F32)
    got, _ = run_one('expand', {'X': ('x', x)}, {'Out': 'out'}, {'expand_times': [2, 3]})
    np.testing.assert_array_equal(got['out'], np.tile(x, (2, 3)))
    # Paddle 1.8.5: expand(x[-1, 3], [2, 3]) -> (-1, 9)
    assert shapes_of(lambda v: L.expand(v['x'], [2, 3]), {'x': ([-1, 3], 'float32')}) == [(-1, 9)]
    grad_through_program(lambda v: L.expand(v['x'], [3, 2]), {'x': x}, ['x'], lambda a: np.tile(a, (3, 2)), rng)
    with pytest.raises(ValueError, match="'expand_times' for Op\\(expand\\) must be equal"):
        shapes_of(lambda v: L.expand(v['x'], [2]), {'x': ([2, 3], 'float32')})


def test_expand_times_tensor(rng):
    x = rng.randn(2, 3).astype(F32)
    got, _ = run_one('expand', {'X': ('x', x), 'ExpandTimes': ('t', np.array([1, 2], np.int32))}, {'Out': 'out'})
    np.testing.assert_array_equal(got['out'], np.tile(x, (1, 2)))


def test_expand_v2_and_tile(rng):
    import paddle_exec as paddle
    x = rng.randn(3, 1).astype(F32)
    got, _ = run_one('expand_v2', {'X': ('x', x)}, {'Out': 'out'}, {'shape': [2, -1, 4]})
    np.testing.assert_array_equal(got['out'], np.broadcast_to(x, (2, 3, 4)))
    got, _ = run_one('tile', {'X': ('x', x)}, {'Out': 'out'}, {'repeat_times': [2, 1, 3]})
    np.testing.assert_array_equal(got['out'], np.tile(x, (2, 1, 3)))
    grad_through_program(lambda v: paddle.expand(v['x'], [2, 3, 4]), {'x': x}, ['x'],
                         lambda a: np.broadcast_to(a, (2, 3, 4)), rng)
    grad_through_program(lambda v: paddle.tile(v['x'], [2, 3]), {'x': x}, ['x'], lambda a: np.tile(a, (2, 3)), rng)
    with pytest.raises(ValueError, match='non-singleton dimension'):
        run_one('expand_v2', {'X': ('x', x)}, {'Out': 'out'}, {'shape': [4, 4]})


# =================================================================================================================
# cast
# =================================================================================================================

def test_cast_truncates_toward_zero_like_paddle():
    x = np.array([-1.7, 2.5, 0.0, 300.9], F32)
    got, _ = run_one('cast', {'X': ('x', x)}, {'Out': 'out'}, {'in_dtype': 5, 'out_dtype': int(VarType.INT32)})
    np.testing.assert_array_equal(got['out'], np.array([-1, 2, 0, 300], np.int32))   # Paddle 1.8.5
    got, _ = run_one('cast', {'X': ('x', x)}, {'Out': 'out'}, {'in_dtype': 5, 'out_dtype': int(VarType.BOOL)})
    np.testing.assert_array_equal(got['out'], [True, True, False, True])


def test_cast_grad_casts_back(rng):
    x = rng.randn(2, 3).astype(F32)
    prog = grad_through_program(lambda v: L.cast(v['x'], 'float64'), {'x': x}, ['x'], lambda a: a, rng)
    grad_op, = [op for op in prog.global_block().ops if op.type == 'cast' and op.output('Out') == ['x@GRAD']]
    assert grad_op.attr('in_dtype') == VarType.FP64 and grad_op.attr('out_dtype') == VarType.FP32
    assert prog.global_block().var('x@GRAD').dtype == VarType.FP32


# =================================================================================================================
# arg_max, arg_min, argsort
# =================================================================================================================

def test_arg_max_and_arg_min_pick_the_first_extreme():
    x = np.array([[1, 3, 3], [2, 2, 0]], F32)
    got, _ = run_one('arg_max', {'X': ('x', x)}, {'Out': 'out'}, {'axis': 1})
    np.testing.assert_array_equal(got['out'], [1, 0])                      # Paddle 1.8.5
    got, _ = run_one('arg_min', {'X': ('x', x)}, {'Out': 'out'}, {'axis': 0})
    np.testing.assert_array_equal(got['out'], [0, 1, 1])                   # Paddle 1.8.5
    assert got['out'].dtype == np.int64


def test_arg_max_keepdims_flatten_dtype_and_shapes(rng):
    x = rng.randn(3, 4, 5).astype(F32)
    got, _ = run_one('arg_max', {'X': ('x', x)}, {'Out': 'out'}, {'axis': -2, 'keepdims': True,
                                                                   'dtype': int(VarType.INT32)})
    np.testing.assert_array_equal(got['out'], np.argmax(x, axis=1)[:, None, :])
    assert got['out'].dtype == np.int32
    got, _ = run_one('arg_min', {'X': ('x', x)}, {'Out': 'out'}, {'axis': 0, 'flatten': True})
    np.testing.assert_array_equal(got['out'], [np.argmin(x)])
    # Paddle 1.8.5: argmax of a 1-D tensor has shape ()
    assert shapes_of(lambda v: L.argmax(v['x'], 0), {'x': ([5], 'float32')}) == [()]
    with pytest.raises(ValueError, match="'axis'\\(3\\)"):
        shapes_of(lambda v: L.argmax(v['x'], 3), {'x': ([2, 5], 'float32')})


def test_argsort_is_stable_in_both_directions():
    x = np.array([[1, 3, 1], [2, 2, 0]], F32)
    got, _ = run_one('argsort', {'X': ('x', x)}, {'Out': 'out', 'Indices': 'ids'}, {'axis': 1})
    np.testing.assert_array_equal(got['ids'], [[0, 2, 1], [2, 0, 1]])      # Paddle 1.8.5
    np.testing.assert_array_equal(got['out'], [[1, 1, 3], [0, 2, 2]])
    x = np.array([[1, 3, 1, 3], [2, 2, 0, 2]], F32)
    got, _ = run_one('argsort', {'X': ('x', x)}, {'Out': 'out', 'Indices': 'ids'}, {'axis': -1, 'descending': True})
    np.testing.assert_array_equal(got['ids'], [[1, 3, 0, 2], [0, 1, 3, 2]])  # Paddle 1.8.5
    np.testing.assert_array_equal(got['out'], [[3, 3, 1, 1], [2, 2, 2, 0]])


def test_argsort_grad(rng):
    import paddle_exec as paddle
    x = rng.randn(3, 4).astype(F32)
    grad_through_program(lambda v: paddle.sort(v['x'], axis=0, descending=True), {'x': x}, ['x'],
                         lambda a: -np.sort(-a, axis=0), rng)


# =================================================================================================================
# gather, where, where_index
# =================================================================================================================

def test_gather_forward_and_axis(rng):
    x = rng.randn(4, 3).astype(F32)
    idx = np.array([3, 0, 3], np.int64)
    got, _ = run_one('gather', {'X': ('x', x), 'Index': ('i', idx)}, {'Out': 'out'})
    np.testing.assert_array_equal(got['out'], x[idx])
    got, _ = run_one('gather', {'X': ('x', x), 'Index': ('i', np.array([2, 2], np.int32))}, {'Out': 'out'},
                     {'axis': 1})
    np.testing.assert_array_equal(got['out'], x[:, [2, 2]])
    got, _ = run_one('gather', {'X': ('x', x), 'Index': ('i', idx), 'Axis': ('a', np.array([0], np.int32))},
                     {'Out': 'out'}, {'axis': 1})
    np.testing.assert_array_equal(got['out'], x[idx])


def test_gather_grad_overwrite_keeps_the_last_duplicate_like_paddle():
    # Paddle 1.8.5: x[4, 2], index [1, 1, 3, 0, 1], d loss / d out = [[1, 2], ..., [9, 10]] -> X@GRAD below
    x = np.arange(8, dtype=F32).reshape(4, 2)
    idx = np.array([1, 1, 3, 0, 1], np.int64)
    dout = np.arange(1, 11, dtype=F32).reshape(5, 2)
    prog = Program()
    with program_guard(prog, Program()):
        xv = L.data(name='x', shape=[4, 2], append_batch_size=False)
        xv.stop_gradient = False
        iv = L.data(name='i', shape=[5], dtype='int64', append_batch_size=False)
        for overwrite in (True, False):
            out = L.gather(xv, iv, overwrite=overwrite)
            from paddle_exec.backward import gradients
            g, = gradients([out], [xv], target_gradients=[L.assign(dout)])
            got, = Executor(CPUPlace()).run(prog, feed={'x': x, 'i': idx}, fetch_list=[g])
            if overwrite:
                np.testing.assert_array_equal(got, [[7, 8], [9, 10], [0, 0], [5, 6]])
            else:
                np.testing.assert_array_equal(got, [[7, 8], [1 + 3 + 9, 2 + 4 + 10], [0, 0], [5, 6]])


def test_gather_grad_finite_differences(rng):
    import paddle_exec as paddle
    x = rng.randn(4, 3).astype(F32)
    idx = np.array([2, 0, 2], np.int64)
    grad_through_program(lambda v: paddle.gather(v['x'], v['i'], axis=1), {'x': x, 'i': idx}, ['x'],
                         lambda a: a[:, idx], rng)


def test_gather_errors():
    x = np.zeros((4, 2), F32)
    with pytest.raises(ValueError, match='index is out of bounds'):
        run_one('gather', {'X': ('x', x), 'Index': ('i', np.array([1, 7], np.int64))}, {'Out': 'out'})
    with pytest.raises(ValueError, match='last dim of index should be 1'):
        shapes_of(lambda v: L.gather(v['x'], v['i']), {'x': ([4, 2], 'float32'), 'i': ([3, 2], 'int64')})


def test_where_forward_grad_and_shape_error(rng):
    c = rng.rand(3, 4) > 0.5
    x, y = rng.randn(3, 4).astype(F32), rng.randn(3, 4).astype(F32)
    got, _ = run_one('where', {'Condition': ('c', c), 'X': ('x', x), 'Y': ('y', y)}, {'Out': 'out'})
    np.testing.assert_array_equal(got['out'], np.where(c, x, y))
    import paddle_exec as paddle
    grad_through_program(lambda v: paddle.where(v['c'], v['x'], v['y']), {'c': c, 'x': x, 'y': y}, ['x', 'y'],
                         lambda a, b: np.where(c, a, b), rng)
    with pytest.raises(ValueError, match="Condition's shape is \\[3, 4\\], X's shape is \\[3, 5\\]"):
        run_one('where', {'Condition': ('c', c), 'X': ('x', np.zeros((3, 5), F32)), 'Y': ('y', np.zeros((3, 5), F32))},
                {'Out': 'out'})


def test_where_index():
    c = np.array([[True, False, True], [False, False, True]])
    got, _ = run_one('where_index', {'Condition': ('c', c)}, {'Out': 'out'})
    np.testing.assert_array_equal(got['out'], [[0, 0], [0, 2], [1, 2]])    # Paddle 1.8.5
    assert got['out'].dtype == np.int64


# =================================================================================================================
# creation ops: fill_constant, fill_any_like, fill_constant_batch_size_like, assign, assign_value, range, shape
# =================================================================================================================

def test_fill_constant_str_value_wins_and_keeps_int64_exact():
    big = 2 ** 62 + 1
    got, _ = run_one('fill_constant', {}, {'Out': 'out'},
                     {'shape': [2], 'dtype': int(VarType.INT64), 'value': float(big), 'str_value': str(big)})
    assert got['out'].tolist() == [big, big]
    # Paddle 1.8.5: fill_constant([2], 'int32', -3.7) -> [-3, -3]
    prog = Program()
    with program_guard(prog, Program()):
        a = L.fill_constant([2], 'int32', -3.7)
        assert prog.global_block().ops[-1].attr('str_value') == '-3'
    np.testing.assert_array_equal(Executor(CPUPlace()).run(prog, fetch_list=[a])[0], [-3, -3])


def test_fill_constant_shape_tensors():
    got, _ = run_one('fill_constant', {'ShapeTensor': ('s', np.array([2, 3], np.int32))}, {'Out': 'out'},
                     {'dtype': 5, 'value': 2.0})
    np.testing.assert_array_equal(got['out'], np.full((2, 3), 2, F32))
    got, _ = run_one('fill_constant', {'ShapeTensorList': [('a', np.array([1], np.int64)),
                                                          ('b', np.array([4], np.int32))]}, {'Out': 'out'},
                     {'dtype': 5, 'value': 1.0, 'shape': [-1, -1]})
    assert got['out'].shape == (1, 4)
    with pytest.raises(ValueError, match="no less than 0"):
        run_one('fill_constant', {}, {'Out': 'out'}, {'shape': [2, -1], 'dtype': 5})


def test_fill_any_like_and_batch_size_like():
    x = np.zeros((3, 2), np.int64)
    got, _ = run_one('fill_any_like', {'X': ('x', x)}, {'Out': 'out'}, {'value': 1.0})
    assert got['out'].dtype == np.int64 and got['out'].tolist() == [[1, 1]] * 3
    got, _ = run_one('fill_any_like', {'X': ('x', x)}, {'Out': 'out'}, {'value': 2.5, 'dtype': 5})
    assert got['out'].dtype == np.float32 and got['out'][0, 0] == 2.5
    got, _ = run_one('fill_constant_batch_size_like', {'Input': ('x', np.zeros((7, 3), F32))}, {'Out': 'out'},
                     {'shape': [1, 5], 'dtype': 5, 'value': 0.5, 'str_value': '0.5'})
    np.testing.assert_array_equal(got['out'], np.full((7, 5), 0.5, F32))


def test_assign_value_reads_paddles_typed_attributes():
    for dtype, attr, values in ((VarType.FP32, 'fp32_values', [1.5, -2.0]), (VarType.INT64, 'int64_values', [3, 4]),
                                (VarType.INT32, 'int32_values', [5, 6]), (VarType.BOOL, 'bool_values', [True, 0])):
        got, _ = run_one('assign_value', {}, {'Out': 'out'}, {'shape': [2], 'dtype': int(dtype), attr: values})
        np.testing.assert_array_equal(got['out'], np.array(values).astype(got['out'].dtype))
    with pytest.raises(ValueError, match="'assign_value' writing 'out': 3 values do not fill shape \\[2\\]"):
        run_one('assign_value', {}, {'Out': 'out'}, {'shape': [2], 'dtype': 5, 'fp32_values': [1.0, 2.0, 3.0]})


def test_assign_grad(rng):
    x = rng.randn(2, 3).astype(F32)
    grad_through_program(lambda v: L.assign(v['x']) * 3.0, {'x': x}, ['x'], lambda a: a * 3.0, rng)


def test_range_accumulates_in_the_output_dtype_like_paddle():
    got, _ = run_one('range', {'Start': ('s', np.array([0], F32)), 'End': ('e', np.array([1], F32)),
                               'Step': ('k', np.array([0.3], F32))}, {'Out': 'out'})
    np.testing.assert_array_equal(got['out'], np.array([0, 0.3, 0.6, 0.90000004], F32))   # Paddle 1.8.5
    got, _ = run_one('range', {'Start': ('s', np.array([5], np.int32)), 'End': ('e', np.array([0], np.int32)),
                               'Step': ('k', np.array([-2], np.int32))}, {'Out': 'out'})
    np.testing.assert_array_equal(got['out'], [5, 3, 1])
    with pytest.raises(ValueError, match='The step should be greater than 0 while start < end.'):
        run_one('range', {'Start': ('s', np.array([0], np.int64)), 'End': ('e', np.array([10], np.int64)),
                          'Step': ('k', np.array([-1], np.int64))}, {'Out': 'out'})


def test_random_ops_take_runtime_shapes_and_uniform_diag():
    got, _ = run_one('uniform_random', {'ShapeTensor': ('s', np.array([3, 4], np.int64))}, {'Out': 'out'},
                     {'dtype': 5, 'seed': 1, 'min': -1.0, 'max': 1.0, 'diag_num': 3, 'diag_step': 4,
                      'diag_val': 5.0})
    assert got['out'].shape == (3, 4) and got['out'].dtype == np.float32
    np.testing.assert_array_equal(got['out'][[0, 1, 2], [0, 1, 2]], [5, 5, 5])
    assert np.all(np.abs(np.delete(got['out'].ravel(), [0, 5, 10])) <= 1)
    got, _ = run_one('gaussian_random', {'ShapeTensorList': [('a', np.array([2], np.int32)),
                                                            ('b', np.array([5], np.int32))]}, {'Out': 'out'},
                     {'dtype': 6, 'seed': 1})
    assert got['out'].shape == (2, 5) and got['out'].dtype == np.float64


def test_strided_slice_runtime_tensors():
    x = np.arange(10, dtype=F32)
    got, _ = run_one('strided_slice', {'Input': ('x', x), 'StartsTensor': ('s', np.array([8], np.int32)),
                                       'StridesTensorList': [('k', np.array([-3], np.int32))]}, {'Out': 'out'},
                     {'axes': [0], 'starts': [0], 'ends': [-1], 'strides': [1], 'infer_flags': [-1]})
    np.testing.assert_array_equal(got['out'], [8, 5, 2])


def test_shape_and_is_empty():
    got, _ = run_one('shape', {'Input': ('x', np.zeros((7, 3), F32))}, {'Out': 'out'})
    np.testing.assert_array_equal(got['out'], [7, 3])
    assert got['out'].dtype == np.int32
    got, _ = run_one('is_empty', {'X': ('x', np.zeros((0, 3), F32))}, {'Out': 'out'})
    assert got['out'].tolist() == [True]


def test_constant_fill_constant_is_made_once_read_only_and_fetched_as_a_copy():
    """A fill_constant temporary of static shape is built once per plan (the loss@GRAD seed of every step)."""
    import paddle_exec.fluid as fluid_api
    main, startup = fluid_api.Program(), fluid_api.Program()
    with fluid_api.program_guard(main, startup):
        c = fluid_api.layers.fill_constant([2, 3], 'float32', 1.5)
    op = main.global_block().ops[-1]
    kernel = registry.make_kernel(op)
    first, = kernel(None, None, None)
    second, = kernel(None, None, None)
    assert first is second and not first.flags.writeable
    got, = fluid_api.Executor(fluid_api.CPUPlace()).run(main, fetch_list=[c])
    assert got.flags.writeable and np.array_equal(got, np.full((2, 3), 1.5, np.float32))
    got[0, 0] = 7.0                                  # the caller's copy, not the constant
    again, = fluid_api.Executor(fluid_api.CPUPlace()).run(main, fetch_list=[c])
    assert again[0, 0] == 1.5


def test_persistable_fill_constant_gets_a_fresh_writeable_array():
    import paddle_exec.fluid as fluid_api
    main, startup = fluid_api.Program(), fluid_api.Program()
    with fluid_api.program_guard(main, startup):
        v = fluid_api.layers.create_global_var([2], 0.5, 'float32', persistable=True, name='acc_like')
    op = startup.global_block().ops[-1]
    assert op.type == 'fill_constant' and v.persistable
    out, = registry.make_kernel(op)(None, None, None)
    assert out.flags.writeable
