"""adadelta, lars_momentum and dpsgd kernels against plain numpy references written from Paddle's formulas (the
trained-model numbers of real Paddle are in tests/golden/api/fluid_optimizers.npz and static_optimizers.npz).

These update ops have no gradient, so there is no finite-difference check."""
import numpy as np
import pytest

from paddle_exec.kernels import optimizer as K


def ref_adadelta(p, g, ag, au, rho, eps, lr=None):
    ag = rho * ag + (1 - rho) * g * g
    u = -np.sqrt((au + eps) / (ag + eps)) * g
    au = rho * au + (1 - rho) * u * u
    if lr is None:            # Paddle 1.8: u evaluated again with the new E[u^2]
        return p - np.sqrt((au + eps) / (ag + eps)) * g, ag, au
    return p + lr * u, ag, au


@pytest.mark.parametrize('lr', [None, 0.3])
def test_adadelta_matches_numpy_over_steps(lr):
    rng = np.random.RandomState(0)
    p = rng.randn(4, 3)
    ag, au = np.zeros_like(p), np.zeros_like(p)
    want = (p.copy(), ag.copy(), au.copy())
    for _ in range(3):
        g = rng.randn(4, 3)
        K.adadelta(p, g, ag, au, rho=0.9, epsilon=1e-2, lr=None if lr is None else np.array([lr]))
        want = ref_adadelta(want[0], g, want[1], want[2], 0.9, 1e-2, lr)
        for got, ref in zip((p, ag, au), want):
            np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_adadelta_versions_differ_by_the_reevaluated_update():
    p1, p2 = np.ones(3), np.ones(3)
    g = np.full(3, 2.0)
    K.adadelta(p1, g, np.zeros(3), np.zeros(3), rho=0.9, epsilon=0.01)
    K.adadelta(p2, g, np.zeros(3), np.zeros(3), rho=0.9, epsilon=0.01, lr=np.array([1.0]))
    # the numbers real Paddle gives for this step: 1.8.5 0.5609757, 2.6.2 (lr 1) 1 - 0.3123475
    np.testing.assert_allclose(p1, 0.5609757, rtol=1e-6)
    np.testing.assert_allclose(p2, 1 - 0.31234753, rtol=1e-6)


def ref_lars(p, g, v, lr, mu, coeff, decay):
    pn, gn = np.sqrt(np.sum(p * p)), np.sqrt(np.sum(g * g))
    local = lr * coeff * pn / (gn + decay * pn) if pn > 0 and gn > 0 else lr
    v = mu * v + local * (g + decay * p)
    return p - v, v


@pytest.mark.parametrize('decay', [0.0005, 0.0, 0.1])
def test_lars_momentum_matches_numpy(decay):
    rng = np.random.RandomState(1)
    p, v = rng.randn(5, 2), np.zeros((5, 2))
    want = (p.copy(), v.copy())
    for _ in range(3):
        g = rng.randn(5, 2)
        K.lars_momentum(p, g, v, np.array([0.5]), 0.9, 0.01, decay)
        want = ref_lars(want[0], g, want[1], 0.5, 0.9, 0.01, decay)
        np.testing.assert_allclose(p, want[0], rtol=1e-12)
        np.testing.assert_allclose(v, want[1], rtol=1e-12)


def test_lars_momentum_zero_gradient_uses_the_plain_rate():
    p, v = np.ones(4), np.zeros(4)
    K.lars_momentum(p, np.zeros(4), v, np.array([0.5]), 0.9, 0.001, 0.1)
    np.testing.assert_allclose(v, 0.5 * 0.1 * 1.0)      # local_lr = lr: both norms must be positive to scale it


def test_dpsgd_noise_is_paddles_polar_gaussian():
    # paddlepaddle 1.8.5, seed 5, sigma 1: each run subtracts lr * noise = -0.19943762 (to float32 rounding of
    # the parameter arithmetic it was read from)
    np.testing.assert_allclose(K.dpsgd_noise(5, 1.0), -0.19943762, atol=1e-7)
    assert K.dpsgd_noise(7, 0.5) == K.dpsgd_noise(7, 0.5)
    assert K.dpsgd_noise(7, 0.5) != K.dpsgd_noise(8, 0.5)
    assert K.dpsgd_noise(7, 2.0) == np.float32(4) * K.dpsgd_noise(7, 0.5)


@pytest.mark.parametrize('clip', [0.5, 100.0])
def test_dpsgd_clips_the_gradient_norm_then_adds_noise(clip):
    rng = np.random.RandomState(2)
    p = rng.randn(6).astype(np.float32)
    g = rng.randn(6).astype(np.float32)
    want = p.copy()
    norm = np.sqrt(np.sum(g.astype(np.float64) ** 2))
    scale = norm / clip if norm > clip else 1.0
    noise = K.dpsgd_noise(3, 0.7)
    K.dpsgd(p, g, np.array([0.1], np.float32), clip, 4.0, noise)
    np.testing.assert_allclose(p, want - 0.1 * (g / scale + noise / 4.0), rtol=1e-5, atol=1e-6)
