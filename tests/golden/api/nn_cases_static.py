"""Golden cases of Paddle 2.x nn names in static mode (recorded with paddlepaddle 2.6.2; see nn_golden.py).

Every case takes (paddle, rng) and returns {'feeds', 'out', 'fetch', 'wrt'}; inputs are fed with fixed shapes.
"""
import numpy as np


def _x(paddle, rng, name, shape, grad=True, dtype='float32'):
    var = paddle.static.data(name, list(shape), dtype)
    var.stop_gradient = not grad
    return var, rng.uniform(-1, 1, shape).astype(dtype)


def _distinct(rng, shape):
    n = int(np.prod(shape))
    return (rng.permutation(n).reshape(shape) * 0.01 - n * 0.005).astype('float32')
