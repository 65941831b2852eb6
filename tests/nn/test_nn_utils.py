"""paddle.nn.utils in static mode: weight_norm / remove_weight_norm, spectral_norm, parameters_to_vector and
vector_to_parameters, each checked against numpy on the values the programs hold; the declined clip_grad_*."""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.nn as nn
import paddle_exec.static as static
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import Scope, global_scope, scope_guard


def _value(name):
    return np.asarray(global_scope().find_var(name).get_tensor())


def test_weight_norm_reparameterises_and_trains_g_and_v_then_folds_back():
    main, startup = static.Program(), static.Program()
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    with scope_guard(Scope()), unique_name.guard():
        with static.program_guard(main, startup):
            data = static.data('x', [5, 4], 'float32')
            layer = nn.utils.weight_norm(nn.Linear(4, 3), dim=1)
            out = layer(data)
            loss = paddle.mean(out * out)
            static.append_backward(loss)
        assert sorted(n for n, _ in layer.named_parameters()) == ['bias', 'weight_g', 'weight_v']
        exe = static.Executor(static.CPUPlace())
        exe.run(startup)
        v, g = _value(layer.weight_v.name), _value(layer.weight_g.name)
        np.testing.assert_allclose(g, np.sqrt((v ** 2).sum(axis=0) + 1e-12), rtol=1e-6)   # g = ||v|| per column
        got, dg = exe.run(main, feed={'x': x}, fetch_list=[out, layer.weight_g.name + '@GRAD'])
        w = v / np.linalg.norm(v, axis=0, keepdims=True) * g
        np.testing.assert_allclose(got, x @ w + _value(layer.bias.name), rtol=1e-5, atol=1e-6)
        assert dg.shape == (3,) and np.abs(dg).sum() > 0
        nn.utils.remove_weight_norm(layer)
        assert sorted(n for n, _ in layer.named_parameters()) == ['bias', 'weight']
        np.testing.assert_allclose(_value(layer.weight.name), w, rtol=1e-6)
        with pytest.raises(ValueError, match='not found'):
            nn.utils.remove_weight_norm(layer)


def test_spectral_norm_divides_by_the_power_iteration_estimate():
    main, startup = static.Program(), static.Program()
    x = np.random.default_rng(1).standard_normal((2, 6)).astype(np.float32)
    with scope_guard(Scope()), unique_name.guard():
        with static.program_guard(main, startup):
            data = static.data('x', [2, 6], 'float32')
            layer = nn.utils.spectral_norm(nn.Linear(6, 4), n_power_iterations=2)
            out = layer(data)
        exe = static.Executor(static.CPUPlace())
        exe.run(startup)
        w = _value(layer.weight_orig.name).astype(np.float64)
        u, v = _value(layer.weight_u.name).astype(np.float64), _value(layer.weight_v.name).astype(np.float64)
        np.testing.assert_allclose(np.linalg.norm(u), 1.0, rtol=1e-5)
        mat = w.T                                               # dim 1 for Linear: the output axis first
        for _ in range(2):
            v = mat.T @ u
            v /= max(np.linalg.norm(v), 1e-12)
            u = mat @ v
            u /= max(np.linalg.norm(u), 1e-12)
        sigma = u @ mat @ v
        got, = exe.run(main, feed={'x': x}, fetch_list=[out])
        np.testing.assert_allclose(got, x @ (w / sigma) + _value(layer.bias.name), rtol=1e-4, atol=1e-5)
        np.testing.assert_allclose(_value(layer.weight_u.name), u, rtol=1e-4, atol=1e-6)   # the buffers moved on


def test_parameters_to_vector_and_back():
    main, startup = static.Program(), static.Program()
    with scope_guard(Scope()), unique_name.guard():
        with static.program_guard(main, startup):
            layer = nn.Linear(3, 2)
            vec = nn.utils.parameters_to_vector(layer.parameters())
            new = static.data('new', [8], 'float32')
            nn.utils.vector_to_parameters(new, layer.parameters())
        exe = static.Executor(static.CPUPlace())
        exe.run(startup)
        w, b = _value(layer.weight.name), _value(layer.bias.name)
        fresh = np.arange(8, dtype=np.float32)
        got, = exe.run(main, feed={'new': fresh}, fetch_list=[vec])
        np.testing.assert_array_equal(got, np.concatenate([w.ravel(), b]))
        np.testing.assert_array_equal(_value(layer.weight.name), fresh[:6].reshape(3, 2))
        np.testing.assert_array_equal(_value(layer.bias.name), fresh[6:])


@pytest.mark.parametrize('name', ['clip_grad_norm_', 'clip_grad_value_'])
def test_eager_gradient_clipping_is_declined_with_the_static_alternative(name):
    with pytest.raises(AttributeError, match='grad_clip'):
        getattr(nn.utils, name)
