"""Cases of paddle.* gathers, scatters and shape arrangement (2.x names), recorded with Paddle 2.6.2 into
indexing.npz."""
import numpy as np

try:
    from .harness import Case
except ImportError:          # run as a script by record.py
    from harness import Case

R = np.random.RandomState(3)


def U(lo, hi, shape, dtype='float64'):
    return R.uniform(lo, hi, shape).astype(dtype)


X = U(-2, 2, (3, 4))
V = U(-1, 1, (4,))
IDX = np.array([[0, 3], [2, 2], [1, 0]], 'int64')

CASES = []


def _put(x, idx, value):
    out = x.copy()
    np.put_along_axis(out, idx, value, 1)
    return out


def add(*args, **kwargs):
    CASES.append(Case(*args, **kwargs))


add('take_along_axis', lambda P, v: [P.take_along_axis(v['x'], v['i'], 1), P.take_along_axis(v['x'], v['r'], 0)],
    {'x': X, 'i': IDX, 'r': np.array([[2, 0, 1, 1]], 'int64')}, grads=['x'], grad_outs=(0, 1),
    ref=lambda f: [np.take_along_axis(f['x'], f['i'], 1), np.take_along_axis(f['x'], f['r'], 0)])
for _reduce in ('assign', 'add', 'mul', 'mean'):
    for _include in (True, False):
        add('put_along_axis_%s_%s' % (_reduce, _include),
            (lambda r, inc: lambda P, v: P.put_along_axis(v['x'], v['i'], v['u'], 1, reduce=r, include_self=inc))(
                _reduce, _include),
            {'x': X, 'i': IDX, 'u': U(-2, 2, (3, 2))}, grads=['x', 'u'])
# 2.6.2's static put_along_axis cannot broadcast a Python number (its broadcast_to wants a Variable)
add('put_along_axis_scalar', lambda P, v: P.put_along_axis(v['x'], v['i'], 7.0, 1), {'x': X, 'i': IDX},
    ref=lambda f: [_put(f['x'], f['i'], 7.0)])
add('index_sample', lambda P, v: P.index_sample(v['x'], v['i']), {'x': X, 'i': IDX}, grads=['x'],
    ref=lambda f: [np.take_along_axis(f['x'], f['i'], 1)])
add('index_add', lambda P, v: P.index_add(v['x'], v['i'], 1, v['a']),
    {'x': X, 'i': np.array([3, 0, 3], 'int32'), 'a': U(-1, 1, (3, 3))}, grads=['x', 'a'])
add('index_fill', lambda P, v: [P.index_fill(v['x'], v['i'], 1, 2.5), P.index_fill(v['x'], v['i'], 0, -1.0)],
    {'x': X, 'i': np.array([0, 2], 'int64')}, grads=['x'], grad_outs=(0, 1))
add('index_put', lambda P, v: [P.index_put(v['x'], (v['r'], v['c']), v['u']),
                               P.index_put(v['x'], (v['r'], v['c']), v['u'], accumulate=True)],
    {'x': X, 'r': np.array([0, 2, 0], 'int64'), 'c': np.array([1, 3, 2], 'int64'), 'u': U(-1, 1, (3,))},
    grads=['x', 'u'], grad_outs=(0, 1))
add('masked_fill_select', lambda P, v: [P.masked_fill(v['x'], v['m'], 1.5), P.masked_select(v['x'], v['m']),
                                        P.masked_select(v['x'], v['row'])],
    {'x': X, 'm': U(0, 1, (3, 4)) > 0.5, 'row': np.array([True, False, True, True])}, grads=['x'],
    grad_outs=(0, 1, 2), ref=lambda f: [np.where(f['m'], 1.5, f['x']), f['x'][f['m']],
                                        f['x'][np.broadcast_to(f['row'], (3, 4))]])
add('take', lambda P, v: [P.take(v['x'], v['i']), P.take(v['x'], v['j'], mode='wrap'),
                          P.take(v['x'], v['j'], mode='clip')],
    {'x': X, 'i': np.array([[0, -1], [5, 11]], 'int64'), 'j': np.array([13, -2, 4], 'int64')}, grads=['x'],
    grad_outs=(0, 1, 2))
add('scatter_nd', lambda P, v: P.scatter_nd(v['i'], v['u'], [4, 3]),
    {'i': np.array([[1], [3], [1]], 'int64'), 'u': U(-1, 1, (3, 3))}, grads=['u'])
add('multiplex', lambda P, v: P.multiplex([v['a'], v['b']], v['i']),
    {'a': X, 'b': U(-1, 1, (3, 4)), 'i': np.array([[1], [0], [1]], 'int32')}, grads=['a', 'b'])
add('shard_index', lambda P, v: P.shard_index(v['i'], 20, 2, 1), {'i': np.array([[1], [11], [19], [9]], 'int64')})
add('select_scatter', lambda P, v: [P.select_scatter(v['x'], v['v'], 0, 1), P.select_scatter(v['x'], v['c'], 1, -1)],
    {'x': X, 'v': V, 'c': U(-1, 1, (3,))}, grads=['x'], grad_outs=(0, 1), paddle_grads=False)
add('diagonal_scatter', lambda P, v: [P.diagonal_scatter(v['x'], v['d']), P.diagonal_scatter(v['x'], v['e'], 1)],
    {'x': X, 'd': U(-1, 1, (3,)), 'e': U(-1, 1, (3,))}, grads=['x'], grad_outs=(0, 1))
add('repeat_interleave', lambda P, v: [P.repeat_interleave(v['x'], 2, axis=1), P.repeat_interleave(v['x'], 3),
                                       P.repeat_interleave(v['x'], v['r'], axis=0)],
    {'x': X, 'r': np.array([2, 0, 1], 'int32')}, grads=['x'], grad_outs=(0, 1, 2),
    ref=lambda f: [np.repeat(f['x'], 2, 1), np.repeat(f['x'], 3), np.repeat(f['x'], [2, 0, 1], 0)])
# --- arrangement ---
add('atleast', lambda P, v: [P.atleast_1d(v['v']), P.atleast_2d(v['v']), P.atleast_3d(v['v']), P.atleast_3d(v['x'])],
    {'v': V, 'x': X}, ref=lambda f: [np.atleast_1d(f['v']), np.atleast_2d(f['v']), f['v'][None, :, None],
                                   np.atleast_3d(f['x'])])
add('broadcast', lambda P, v: [P.broadcast_to(v['v'], [3, 4])] + P.broadcast_tensors([v['x'], v['v'], v['c']])
    + [P.expand_as(v['c'], v['x'])], {'x': X, 'v': V, 'c': U(-1, 1, (3, 1))}, grads=['v', 'c'],
    grad_outs=(0, 1, 2, 3, 4), paddle_grads=False)    # 2.6.2's broadcast_tensors_grad crashes (SIGSEGV) here
add('crop', lambda P, v: [P.crop(v['x'], shape=[2, 2], offsets=[1, 1]), P.crop(v['x'], shape=[-1, 2], offsets=[0, 2])],
    {'x': X}, grads=['x'], grad_outs=(0, 1), ref=lambda f: [f['x'][1:3, 1:3], f['x'][:, 2:4]])
add('moveaxis_rot90', lambda P, v: [P.moveaxis(v['t'], [0, 1], [2, 0]), P.rot90(v['x']), P.rot90(v['x'], k=2),
                                    P.rot90(v['x'], k=-1, axes=[1, 0]), P.reverse(v['x'], [0, 1])],
    {'x': X, 't': U(-1, 1, (2, 3, 4))}, grads=['x'], grad_outs=(1, 2, 3),
    ref=lambda f: [np.moveaxis(f['t'], [0, 1], [2, 0]), np.rot90(f['x']), np.rot90(f['x'], 2),
                   np.rot90(f['x'], -1, (1, 0)), f['x'][::-1, ::-1]])
add('unbind_unflatten_vsplit', lambda P, v: P.unbind(v['x'], 1) + [P.unflatten(v['x'], 1, [2, 2])]
    + P.vsplit(v['t'], [1, 1]), {'x': X, 't': U(-1, 1, (2, 3, 2))}, grads=['x'], grad_outs=(0, 2, 4))
add('meshgrid_combinations', lambda P, v: P.meshgrid(v['a'], v['b']) + [P.combinations(v['a']),
                                                                       P.combinations(v['a'], 3, True)],
    {'a': U(-1, 1, (3,)), 'b': U(-1, 1, (2,))}, grads=['a', 'b'], grad_outs=(0, 1, 2))
add('tri_indices', lambda P, v: [P.tril_indices(4, 3, -1), P.triu_indices(3), P.triu_indices(3, 5, 2, 'int32')], {},
    ref=lambda f: [np.stack(np.tril_indices(4, -1, 3)), np.stack(np.triu_indices(3)),
                   np.stack(np.triu_indices(3, 2, 5))])
add('vander_logspace', lambda P, v: [P.vander(v['v']), P.vander(v['v'], 3, increasing=True),
                                     P.logspace(0, 2, 5), P.logspace(1, 3, 3, base=2.0, dtype='float64')],
    {'v': V}, grads=['v'], grad_outs=(0, 1), ref=lambda f: [np.vander(f['v']), np.vander(f['v'], 3, True),
                                                          np.logspace(0, 2, 5), np.logspace(1, 3, 3, base=2)])
add('clone_to_tensor', lambda P, v: [P.clone(v['x']) * 2.0, P.to_tensor([1.5, 2.5]), P.to_tensor([[1, 2]]),
                                     P.to_tensor(3.0, dtype='float64')], {'x': X}, grads=['x'])
add('empty', lambda P, v: [P.empty([2, 3]).shape[0] * 0 + P.ones([1]), P.empty_like(v['x'])[0:0]], {'x': X},
    check=(0,))
