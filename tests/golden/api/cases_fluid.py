"""Cases of the fluid.layers names of issue 12 (1.8 signatures), recorded with Paddle 1.8.5 into fluid.npz
(Python 3.8: plain syntax here)."""
import numpy as np

try:
    from .harness import Case
except ImportError:          # run as a script by record.py
    from harness import Case

R = np.random.RandomState(29)


def U(lo, hi, shape, dtype='float64'):
    return R.uniform(lo, hi, shape).astype(dtype)


X = U(-0.9, 0.9, (2, 3))
Y = U(-1, 1, (2, 3))
S = U(-1, 1, (3, 3))
V = U(-1, 1, (3,))

CASES = []


def add(*args, **kwargs):
    kwargs['api'] = 'fluid'
    CASES.append(Case(*args, **kwargs))


L = 'layers'
add('trig', lambda F, v: [F.layers.acos(v['x']), F.layers.asin(v['x']), F.layers.atan(v['x'])], {'x': X},
    grads=['x'], grad_outs=(0, 1, 2), ref=lambda f: [np.arccos(f['x']), np.arcsin(f['x']), np.arctan(f['x'])])
# Paddle's soft_relu_grad masks by the output, not the input (out < threshold holds past the clip): paddle_exec
# follows it, so finite differences disagree where the input is clipped
add('soft_relu', lambda F, v: [F.layers.soft_relu(v['x'] * 60.0), F.layers.soft_relu(v['x'], threshold=0.5)],
    {'x': X}, grads=['x'], grad_outs=(0, 1), fd=False)
add('addcmul_addmm', lambda F, v: [F.layers.addcmul(v['x'], v['y'], v['x'], value=0.5),
                                   F.layers.addmm(v['s'], v['s'], v['s'], alpha=2.0, beta=0.5)],
    {'x': X, 'y': Y, 's': S}, grads=['x', 'y', 's'], grad_outs=(0, 1))
add('allclose_equal', lambda F, v: [F.layers.allclose(v['x'], v['x']), F.layers.allclose(v['x'], v['y'], 0.5, 0.5),
                                    F.layers.elementwise_equal(v['x'], v['x'])], {'x': X, 'y': Y})
add('cross_dist', lambda F, v: [F.layers.cross(v['s'], v['s'] * 2.0 + 1.0), F.layers.cross(v['s'], v['x2'], dim=1),
                                F.layers.dist(v['x'], v['y'], p=1), F.layers.dist(v['x'], v['y'])],
    {'s': S, 'x2': U(-1, 1, (3, 3)), 'x': X, 'y': Y}, grads=['s', 'x2', 'x', 'y'], grad_outs=(0, 1, 2, 3))
add('diag_kron_trace_t', lambda F, v: [F.layers.diag(v['v']), F.layers.kron(v['x'], v['y']),
                                       F.layers.trace(v['s'], offset=1), F.layers.trace(v['b'], 0, 1, 2),
                                       F.layers.t(v['x']), F.layers.diag_embed(v['x'])],
    {'v': V, 'x': X, 'y': Y, 's': S, 'b': U(-1, 1, (2, 3, 3))}, grads=['x', 'y', 's', 'b'], grad_outs=(1, 2, 3, 4))
add('index_sample_multiplex', lambda F, v: [F.layers.index_sample(v['x'], v['i']),
                                           F.layers.multiplex([v['x'], v['y']], v['k'])],
    {'x': X, 'y': Y, 'i': np.array([[2, 0], [1, 1]], 'int64'), 'k': np.array([[1], [0]], 'int32')},
    grads=['x', 'y'], grad_outs=(0, 1))
add('shard_scatter_nonzero', lambda F, v: [F.layers.shard_index(v['l'], 20, 2, 1),
                                          F.layers.scatter_nd(v['j'], v['u'], [4]), F.layers.nonzero(v['z']),
                                          F.layers.nonzero(v['z'], as_tuple=True)[1]],
    {'l': np.array([[1], [11], [19]], 'int64'), 'j': np.array([[1], [3], [1]], 'int64'), 'u': V,
     'z': np.array([[0.0, 1.0, 2.0], [3.0, 0.0, 0.0]])}, grads=['u'], grad_outs=(1,))
add('unique', lambda F, v: list(F.layers.unique(v['a'])) + list(F.layers.unique_with_counts(v['a']))
    + list(F.layers.unique(v['a'], dtype='int64')), {'a': np.array([2.0, 3, 3, 1, 5, 3])})
add('meshgrid_expand_as', lambda F, v: F.layers.meshgrid([v['v'], v['w']]) + [F.layers.expand_as(v['c'], v['x'])],
    {'v': V, 'w': U(-1, 1, (2,)), 'c': U(-1, 1, (2, 1)), 'x': X}, grads=['v', 'w', 'c'], grad_outs=(0, 1, 2))
add('crop', lambda F, v: [F.layers.crop(F.layers.cast(v['s'], 'float32'), shape=[2, 2], offsets=[1, 0]),
                          F.layers.crop_tensor(v['s'], shape=[2, -1], offsets=[0, 1]),
                          F.layers.crop(F.layers.cast(v['s'], 'float32'), shape=F.layers.cast(v['x'], 'float32'))],
    {'s': S, 'x': U(-1, 1, (2, 2))}, grads=['s'], grad_outs=(1,))
# 1.8.5's pad_constant_like_grad misplaces one element of dY here: its forward is compared, the gradient is
# checked against finite differences
add('pad_constant_like', lambda F, v: F.layers.pad_constant_like(v['s'], v['x'], pad_value=1.5),
    {'s': U(-1, 1, (3, 4)), 'x': X}, grads=['x'], paddle_grads=False)
add('full', lambda F, v: [F.layers.full([2, 3], 1.5), F.layers.full_like(v['x'], 2.0),
                          F.layers.full([2], 3, dtype='int64')],
    {'x': X})
add('clip_by_norm', lambda F, v: [F.layers.clip_by_norm(F.layers.cast(v['x'], 'float32'), 0.5),
                                  F.layers.clip_by_norm(F.layers.cast(v['x'], 'float32'), 10.0)], {'x': X},
    tol=(1e-6, 1e-7))


def _array(F, v):
    arr = F.layers.create_array('float64')
    i = F.layers.zeros([1], 'int64')
    F.layers.array_write(v['x'], i, array=arr)
    F.layers.array_write(v['y'], F.layers.increment(i, in_place=False), array=arr)
    return arr


add('tensor_array_to_tensor', lambda F, v: list(F.layers.tensor_array_to_tensor(_array(F, v), axis=1))
    + list(F.layers.tensor_array_to_tensor(_array(F, v), axis=0, use_stack=True)), {'x': X, 'y': Y},
    ref=lambda f: [np.concatenate([f['x'], f['y']], 1), np.array([3, 3]), np.stack([f['x'], f['y']]),
                   np.array([2, 2])])
