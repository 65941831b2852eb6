"""The optimizer and clipping ops run through a one-op program against numpy references written from Paddle's
formulas: dense and SelectedRows gradients, in-place updates of the scope's arrays, shape-rule errors, and the
finite-difference gradient of squared_l2_norm."""
import numpy as np
import pytest

from paddle_exec.backward import gradients
from paddle_exec.executor import Executor
from paddle_exec.framework import CPUPlace, Program, Scope, SelectedRows, program_guard
from paddle_exec.framework.dtype import VarType
from tests.kernels.gradcheck import check_grad, numeric_grad

H, W = 7, 3
ROWS = np.array([5, 1, 5, 0, 3], dtype=np.int64)  # unsorted, row 5 twice; rows 2, 4, 6 absent
F32 = np.float32


def close(got, want, rtol=1e-5, atol=1e-6):
    np.testing.assert_allclose(np.asarray(got, np.float64), np.asarray(want, np.float64), rtol=rtol, atol=atol)


@pytest.fixture
def rng():
    return np.random.RandomState(11)


def sparse_grad(rng):
    return SelectedRows(ROWS.copy(), rng.randn(len(ROWS), W).astype(F32), H)


def merged_dense(sr):
    dense = np.zeros((sr.height, W), F32)
    for r, v in zip(sr.rows, sr.values):
        dense[r] += v
    return dense


def present_mask(sr):
    mask = np.zeros((sr.height, 1), bool)
    mask[np.unique(sr.rows)] = True
    return mask


def run_op(op_type, inputs, outputs, attrs=None):
    """Runs one op on persistable variables holding `inputs` (slot -> (name, value)); returns the scope."""
    prog, scope = Program(), Scope()
    block = prog.global_block()
    for name, value in inputs.values():
        sparse = isinstance(value, SelectedRows)
        block.create_var(name=name, shape=value.shape, dtype=value.dtype, persistable=True,
                         type=VarType.SELECTED_ROWS if sparse else VarType.LOD_TENSOR)
        scope.var(name).set_value(value)
    for name in outputs.values():
        if not block.has_var(name):
            block.create_var(name=name, persistable=True)
    block.append_op(op_type, {slot: [name] for slot, (name, _) in inputs.items()},
                    {slot: [name] for slot, name in outputs.items()}, attrs or {})
    Executor(CPUPlace()).run(prog, scope=scope)
    return scope


def value(scope, name):
    return scope.find_var(name).value


# --- numpy references (float32, Paddle's operation order) ---------------------------------------------------------

def ref_momentum(p, g, v, lr, mu, nesterov=False):
    v = v * F32(mu) + g
    p = p - ((g + v * F32(mu)) * lr if nesterov else lr * v)
    return p, v


def ref_adam(p, g, m1, m2, lr, b1p, b2p, b1=0.9, b2=0.999, eps=1e-8, scaled=False):
    b1, b2, eps = F32(b1), F32(b2), F32(eps)
    lr_t = lr * np.sqrt(F32(1) - b2p) / (F32(1) - b1p)
    m1 = b1 * m1 + (F32(1) - b1) * g
    m2 = b2 * m2 + (F32(1) - b2) * g * g
    e = eps * np.sqrt(F32(1) - b2p) if scaled else eps
    return p - lr_t * (m1 / (np.sqrt(m2) + e)), m1, m2


def ref_adagrad(p, g, m, lr, eps):
    m = m + g * g
    return p - lr * g / (np.sqrt(m) + F32(eps)), m


def ref_rmsprop(p, g, ms, mom, mg, lr, rho, eps, momentum, centered):
    rho, eps, momentum = F32(rho), F32(eps), F32(momentum)
    ms = rho * ms + (F32(1) - rho) * g * g
    if centered:
        mg = rho * mg + (F32(1) - rho) * g
        mom = momentum * mom + lr * g / np.sqrt(ms - mg * mg + eps)
    else:
        mom = momentum * mom + lr * g / np.sqrt(ms + eps)
    return p - mom, ms, mom, mg


# --- sgd ---------------------------------------------------------------------------------------------------------

def test_sgd_dense_updates_the_scope_array_in_place(rng):
    p, g, lr = rng.randn(H, W).astype(F32), rng.randn(H, W).astype(F32), np.array([0.1], F32)
    param = p.copy()
    scope = run_op('sgd', {'Param': ('p', param), 'LearningRate': ('lr', lr), 'Grad': ('g', g)}, {'ParamOut': 'p'})
    assert value(scope, 'p') is param
    close(param, p - lr * g)


def test_sgd_sparse_subtracts_each_row_in_order(rng):
    p, sr, lr = rng.randn(H, W).astype(F32), sparse_grad(rng), np.array([0.1], F32)
    want = p.copy()
    for r, v in zip(sr.rows, sr.values):
        want[r] -= lr[0] * v
    scope = run_op('sgd', {'Param': ('p', p.copy()), 'LearningRate': ('lr', lr), 'Grad': ('g', sr)},
                   {'ParamOut': 'p'})
    close(value(scope, 'p'), want)
    untouched = ~present_mask(sr).ravel()
    np.testing.assert_array_equal(value(scope, 'p')[untouched], p[untouched])


def test_non_contiguous_parameter_is_copied_and_written_back(rng):
    p, g, lr = np.asfortranarray(rng.randn(H, W).astype(F32)), rng.randn(H, W).astype(F32), np.array([0.1], F32)
    scope = run_op('sgd', {'Param': ('p', p), 'LearningRate': ('lr', lr), 'Grad': ('g', g)}, {'ParamOut': 'p'})
    close(value(scope, 'p'), np.asarray(p) - lr * g)


def test_sparse_gradient_height_must_match_the_parameter(rng):
    sr = SelectedRows(np.array([0]), rng.randn(1, W).astype(F32), H + 1)
    with pytest.raises(ValueError, match='height'):
        run_op('sgd', {'Param': ('p', rng.randn(H, W).astype(F32)), 'LearningRate': ('lr', np.array([0.1], F32)),
                       'Grad': ('g', sr)}, {'ParamOut': 'p'})


# --- momentum ----------------------------------------------------------------------------------------------------

MOMENTUM_IO = {'ParamOut': 'p', 'VelocityOut': 'v'}


def momentum_inputs(p, g, v, lr):
    return {'Param': ('p', p.copy()), 'Grad': ('g', g), 'Velocity': ('v', v.copy()), 'LearningRate': ('lr', lr)}


@pytest.mark.parametrize('nesterov', [False, True])
@pytest.mark.parametrize('sparse', [False, True])
def test_momentum(rng, nesterov, sparse):
    p, v, lr = rng.randn(H, W).astype(F32), rng.randn(H, W).astype(F32), np.array([0.05], F32)
    g = sparse_grad(rng) if sparse else rng.randn(H, W).astype(F32)
    dense_g = merged_dense(g) if sparse else g   # sparse momentum updates every row, zero gradient where absent
    want_p, want_v = ref_momentum(p, dense_g, v, lr, 0.9, nesterov)
    scope = run_op('momentum', momentum_inputs(p, g, v, lr), MOMENTUM_IO, {'mu': 0.9, 'use_nesterov': nesterov})
    close(value(scope, 'p'), want_p)
    close(value(scope, 'v'), want_v)


@pytest.mark.parametrize('nesterov', [False, True])
def test_momentum_fused_l2_decay_dense(rng, nesterov):
    # Paddle 2.x CPU dense functor: g' = p*coeff + g drives both the velocity and the Nesterov step
    p, v, g = (rng.randn(H, W).astype(F32) for _ in range(3))
    lr = np.array([0.05], F32)
    mu, c = F32(0.9), F32(0.01)
    decayed = p * c + g
    want_v = v * mu + decayed
    want_p = p - ((decayed + want_v * mu) * lr if nesterov else lr * want_v)
    scope = run_op('momentum', momentum_inputs(p, g, v, lr), MOMENTUM_IO,
                   {'mu': 0.9, 'use_nesterov': nesterov, 'regularization_method': 'l2_decay',
                    'regularization_coeff': 0.01})
    close(value(scope, 'p'), want_p)
    close(value(scope, 'v'), want_v)


def test_momentum_fused_l2_decay_sparse_rescales_and_decays_every_row(rng):
    p, v, lr, sr = rng.randn(H, W).astype(F32), rng.randn(H, W).astype(F32), np.array([0.05], F32), sparse_grad(rng)
    g = merged_dense(sr) * F32(0.5) + F32(0.01) * p
    want_v = v * F32(0.9) + g
    want_p = p - lr * want_v
    scope = run_op('momentum', momentum_inputs(p, sr, v, lr), MOMENTUM_IO,
                   {'mu': 0.9, 'regularization_method': 'l2_decay', 'regularization_coeff': 0.01,
                    'rescale_grad': 0.5})
    close(value(scope, 'p'), want_p)
    close(value(scope, 'v'), want_v)


# --- adam / adamw ----------------------------------------------------------------------------------------------------

ADAM_OUT = {'ParamOut': 'p', 'Moment1Out': 'm1', 'Moment2Out': 'm2', 'Beta1PowOut': 'b1p', 'Beta2PowOut': 'b2p'}


def adam_state(rng):
    return dict(p=rng.randn(H, W).astype(F32), m1=rng.randn(H, W).astype(F32) * F32(0.1),
                m2=rng.rand(H, W).astype(F32) * F32(0.1), lr=np.array([0.01], F32),
                b1p=np.array([0.9 ** 3], F32), b2p=np.array([0.999 ** 3], F32))


def adam_inputs(s, g):
    return {'Param': ('p', s['p'].copy()), 'Grad': ('g', g), 'LearningRate': ('lr', s['lr']),
            'Moment1': ('m1', s['m1'].copy()), 'Moment2': ('m2', s['m2'].copy()),
            'Beta1Pow': ('b1p', s['b1p'].copy()), 'Beta2Pow': ('b2p', s['b2p'].copy())}


def check_adam(scope, want_p, want_m1, want_m2, b1p, b2p):
    close(value(scope, 'p'), want_p)
    close(value(scope, 'm1'), want_m1)
    close(value(scope, 'm2'), want_m2)
    close(value(scope, 'b1p'), b1p)
    close(value(scope, 'b2p'), b2p)


@pytest.mark.parametrize('scaled', [False, True])
def test_adam_dense_uses_the_pows_then_advances_them(rng, scaled):
    s, g = adam_state(rng), rng.randn(H, W).astype(F32)
    want = ref_adam(s['p'], g, s['m1'], s['m2'], s['lr'], s['b1p'], s['b2p'], scaled=scaled)
    scope = run_op('adam', adam_inputs(s, g), ADAM_OUT, {'scaled_epsilon': scaled})
    check_adam(scope, *want, s['b1p'] * F32(0.9), s['b2p'] * F32(0.999))


def test_adam_scaled_epsilon_differs_from_plain(rng):
    s = adam_state(rng)
    s['m2'][:] = 0   # tiny second moments make epsilon matter
    g = rng.randn(H, W).astype(F32) * F32(1e-7)
    plain = value(run_op('adam', adam_inputs(s, g), ADAM_OUT, {'scaled_epsilon': False}), 'p')
    scaled = value(run_op('adam', adam_inputs(s, g), ADAM_OUT, {'scaled_epsilon': True}), 'p')
    assert np.max(np.abs(plain - scaled)) > 1e-6


@pytest.mark.parametrize('lazy', [False, True])
def test_adam_sparse_advances_the_pows_before_its_update(rng, lazy):
    s, sr = adam_state(rng), sparse_grad(rng)
    b1p, b2p = s['b1p'] * F32(0.9), s['b2p'] * F32(0.999)
    want_p, want_m1, want_m2 = ref_adam(s['p'], merged_dense(sr), s['m1'], s['m2'], s['lr'], b1p, b2p)
    if lazy:   # only the rows present move
        mask = present_mask(sr)
        want_p, want_m1, want_m2 = (np.where(mask, a, b) for a, b in
                                    ((want_p, s['p']), (want_m1, s['m1']), (want_m2, s['m2'])))
    scope = run_op('adam', adam_inputs(s, sr), ADAM_OUT, {'lazy_mode': lazy})
    check_adam(scope, want_p, want_m1, want_m2, b1p, b2p)


def test_adam_2x_sparse_moves_absent_rows_with_the_plain_epsilon(rng):
    # Paddle 2.x CPU SparseAdamFunctor: present rows get the 2.x (scaled) epsilon, absent rows the plain one
    s, sr = adam_state(rng), sparse_grad(rng)
    b1p, b2p = s['b1p'] * F32(0.9), s['b2p'] * F32(0.999)
    args = (s['p'], merged_dense(sr), s['m1'], s['m2'], s['lr'], b1p, b2p, 0.9, 0.999, 1e-3)
    scaled, plain = ref_adam(*args, scaled=True), ref_adam(*args, scaled=False)
    mask = present_mask(sr)
    want = [np.where(mask, a, b) for a, b in zip(scaled, plain)]
    scope = run_op('adam', adam_inputs(s, sr), ADAM_OUT, {'scaled_epsilon': True, 'epsilon': 1e-3})
    check_adam(scope, *want, b1p, b2p)
    assert np.max(np.abs(plain[0] - scaled[0])[~mask.ravel()]) > 1e-6   # the two rules differ on those rows


def test_adam_beta_tensors_override_the_attributes(rng):
    s, g = adam_state(rng), rng.randn(H, W).astype(F32)
    inputs = adam_inputs(s, g)
    inputs['Beta1Tensor'] = ('beta1', np.array([0.8], F32))
    inputs['Beta2Tensor'] = ('beta2', np.array([0.99], F32))
    want = ref_adam(s['p'], g, s['m1'], s['m2'], s['lr'], s['b1p'], s['b2p'], b1=0.8, b2=0.99)
    scope = run_op('adam', inputs, ADAM_OUT)
    check_adam(scope, *want, s['b1p'] * F32(0.8), s['b2p'] * F32(0.99))


def test_adam_use_global_beta_pow_leaves_the_pows(rng):
    s, g = adam_state(rng), rng.randn(H, W).astype(F32)
    scope = run_op('adam', adam_inputs(s, g), ADAM_OUT, {'use_global_beta_pow': True})
    close(value(scope, 'b1p'), s['b1p'])


@pytest.mark.parametrize('with_decay', [False, True])
@pytest.mark.parametrize('sparse', [False, True])
def test_adamw_decays_the_whole_parameter_first(rng, with_decay, sparse):
    s = adam_state(rng)
    g = sparse_grad(rng) if sparse else rng.randn(H, W).astype(F32)
    p = s['p'] - s['lr'] * F32(1.0) * F32(0.02) * s['p'] if with_decay else s['p']
    b1p, b2p = (s['b1p'] * F32(0.9), s['b2p'] * F32(0.999)) if sparse else (s['b1p'], s['b2p'])
    want = ref_adam(p, merged_dense(g) if sparse else g, s['m1'], s['m2'], s['lr'], b1p, b2p, scaled=True)
    scope = run_op('adamw', adam_inputs(s, g), ADAM_OUT, {'coeff': 0.02, 'with_decay': with_decay})
    check_adam(scope, *want, s['b1p'] * F32(0.9), s['b2p'] * F32(0.999))


# --- adagrad / decayed_adagrad / rmsprop / adamax -------------------------------------------------------------

@pytest.mark.parametrize('sparse', [False, True])
def test_adagrad(rng, sparse):
    p, m, lr = rng.randn(H, W).astype(F32), rng.rand(H, W).astype(F32), np.array([0.1], F32)
    g = sparse_grad(rng) if sparse else rng.randn(H, W).astype(F32)
    want_p, want_m = ref_adagrad(p, merged_dense(g) if sparse else g, m, lr, 1e-6)
    if sparse:   # sparse adagrad touches only the rows present
        want_p, want_m = np.where(present_mask(g), want_p, p), np.where(present_mask(g), want_m, m)
    scope = run_op('adagrad', {'Param': ('p', p.copy()), 'Grad': ('g', g), 'Moment': ('m', m.copy()),
                               'LearningRate': ('lr', lr)}, {'ParamOut': 'p', 'MomentOut': 'm'})
    close(value(scope, 'p'), want_p)
    close(value(scope, 'm'), want_m)


def test_decayed_adagrad(rng):
    p, m, g, lr = (rng.randn(H, W).astype(F32), rng.rand(H, W).astype(F32), rng.randn(H, W).astype(F32),
                   np.array([0.1], F32))
    d = F32(0.9)
    want_m = d * m + (F32(1) - d) * g * g
    want_p = p - lr * g / (np.sqrt(want_m) + F32(1e-6))
    scope = run_op('decayed_adagrad', {'Param': ('p', p.copy()), 'Grad': ('g', g), 'Moment': ('m', m.copy()),
                                       'LearningRate': ('lr', lr)}, {'ParamOut': 'p', 'MomentOut': 'm'},
                   {'decay': 0.9})
    close(value(scope, 'p'), want_p)
    close(value(scope, 'm'), want_m)


@pytest.mark.parametrize('centered', [False, True])
@pytest.mark.parametrize('sparse', [False, True])
def test_rmsprop(rng, centered, sparse):
    p, ms, mom = rng.randn(H, W).astype(F32), rng.rand(H, W).astype(F32), rng.randn(H, W).astype(F32) * F32(0.1)
    mg, lr = rng.randn(H, W).astype(F32) * F32(0.01), np.array([0.01], F32)
    g = sparse_grad(rng) if sparse else rng.randn(H, W).astype(F32)
    want = ref_rmsprop(p, merged_dense(g) if sparse else g, ms, mom, mg, lr, 0.9, 1e-6, 0.5, centered)
    scope = run_op('rmsprop', {'Param': ('p', p.copy()), 'MeanSquare': ('ms', ms.copy()),
                               'MeanGrad': ('mg', mg.copy()), 'LearningRate': ('lr', lr), 'Grad': ('g', g),
                               'Moment': ('mom', mom.copy())},
                   {'ParamOut': 'p', 'MomentOut': 'mom', 'MeanSquareOut': 'ms', 'MeanGradOut': 'mg'},
                   {'decay': 0.9, 'epsilon': 1e-6, 'momentum': 0.5, 'centered': centered})
    for name, w in zip(('p', 'ms', 'mom', 'mg'), want):
        close(value(scope, name), w)


def test_adamax(rng):
    p, m, u, g = (rng.randn(H, W).astype(F32), rng.randn(H, W).astype(F32) * F32(0.1), rng.rand(H, W).astype(F32),
                  rng.randn(H, W).astype(F32))
    lr, b1p = np.array([0.01], F32), np.array([0.9 ** 2], F32)
    b1, b2 = F32(0.9), F32(0.999)
    want_m = b1 * m + (F32(1) - b1) * g
    want_u = np.maximum(np.abs(g), b2 * u + F32(1e-8))
    want_p = p - lr / (F32(1) - b1p) * (want_m / want_u)
    scope = run_op('adamax', {'Param': ('p', p.copy()), 'Grad': ('g', g), 'LearningRate': ('lr', lr),
                              'Moment': ('m', m.copy()), 'InfNorm': ('u', u.copy()), 'Beta1Pow': ('b1p', b1p)},
                   {'ParamOut': 'p', 'MomentOut': 'm', 'InfNormOut': 'u'})
    close(value(scope, 'p'), want_p)
    close(value(scope, 'm'), want_m)
    close(value(scope, 'u'), want_u)


@pytest.mark.parametrize('op_type', ['adamax', 'decayed_adagrad'])
def test_dense_only_ops_reject_sparse_gradients(rng, op_type):
    inputs = {'Param': ('p', rng.randn(H, W).astype(F32)), 'Grad': ('g', sparse_grad(rng)),
              'LearningRate': ('lr', np.array([0.1], F32)), 'Moment': ('m', np.zeros((H, W), F32))}
    outputs = {'ParamOut': 'p', 'MomentOut': 'm'}
    if op_type == 'adamax':
        inputs.update({'InfNorm': ('u', np.ones((H, W), F32)), 'Beta1Pow': ('b1p', np.array([0.9], F32))})
        outputs['InfNormOut'] = 'u'
    with pytest.raises(TypeError, match=op_type):
        run_op(op_type, inputs, outputs)


# --- shape rules -------------------------------------------------------------------------------------------------

def build_sgd(param_shape, grad_shape, lr_shape):
    block = Program().global_block()
    p = block.create_var(name='p', shape=param_shape, persistable=True)
    g = block.create_var(name='g', shape=grad_shape)
    lr = block.create_var(name='lr', shape=lr_shape)
    return block.append_op('sgd', {'Param': [p], 'Grad': [g], 'LearningRate': [lr]}, {'ParamOut': [p]})


def test_shape_rule_rejects_a_learning_rate_with_several_elements():
    with pytest.raises(ValueError, match=r"LearningRate \(variable 'lr'\)"):
        build_sgd([4, 3], [4, 3], [2])


def test_shape_rule_rejects_a_gradient_of_another_shape():
    with pytest.raises(ValueError, match="Param 'p' has \\[4, 3\\] and Grad 'g' has \\[4, 2\\]"):
        build_sgd([4, 3], [4, 2], [1])


def test_shape_rule_gives_each_output_its_input_shape():
    block = Program().global_block()
    names = ('p', 'g', 'm1', 'm2', 'lr', 'b1p', 'b2p')
    shapes = ([4, 3], [4, 3], [4, 3], [4, 3], [1], [1], [1])
    v = {n: block.create_var(name=n, shape=s, persistable=True) for n, s in zip(names, shapes)}
    out = block.create_var(name='b1p_out')
    block.append_op('adam', {'Param': [v['p']], 'Grad': [v['g']], 'LearningRate': [v['lr']],
                             'Moment1': [v['m1']], 'Moment2': [v['m2']], 'Beta1Pow': [v['b1p']],
                             'Beta2Pow': [v['b2p']]},
                    {'ParamOut': [v['p']], 'Moment1Out': [v['m1']], 'Moment2Out': [v['m2']],
                     'Beta1PowOut': [out], 'Beta2PowOut': [v['b2p']]})
    assert out.shape == (1,)


# --- clipping helpers ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize('scale', [0.1, 10.0])
def test_clip_by_norm_dense(rng, scale):
    x = rng.randn(H, W).astype(F32) * F32(scale)
    norm = np.sqrt(np.sum(x.astype(np.float64) ** 2))
    want = x * (1.0 / norm) if norm > 1.0 else x
    scope = run_op('clip_by_norm', {'X': ('x', x)}, {'Out': 'out'}, {'max_norm': 1.0})
    close(value(scope, 'out'), want)


def test_clip_by_norm_sparse_merges_rows_first(rng):
    sr = sparse_grad(rng)
    rows, merged = np.unique(sr.rows), merged_dense(sr)[np.unique(sr.rows)]
    norm = np.sqrt(np.sum(merged.astype(np.float64) ** 2))
    out = value(run_op('clip_by_norm', {'X': ('x', sr)}, {'Out': 'out'}, {'max_norm': 0.5}), 'out')
    assert isinstance(out, SelectedRows)
    np.testing.assert_array_equal(out.rows, rows)
    close(out.values, merged * (0.5 / norm))


def test_squared_l2_norm_dense_and_sparse(rng):
    x, sr = rng.randn(H, W).astype(F32), sparse_grad(rng)
    close(value(run_op('squared_l2_norm', {'X': ('x', x)}, {'Out': 'out'}), 'out'), [np.sum(x.astype(float) ** 2)])
    merged = merged_dense(sr).astype(float)   # duplicates count as (a + b)^2
    close(value(run_op('squared_l2_norm', {'X': ('x', sr)}, {'Out': 'out'}), 'out'), [np.sum(merged ** 2)])


def test_squared_l2_norm_gradient_matches_finite_differences(rng):
    x0 = rng.randn(3, 4)
    prog, scope = Program(), Scope()
    with program_guard(prog):
        block = prog.global_block()
        x = block.create_var(name='x', shape=[3, 4], dtype='float64', persistable=True)
        out = block.create_var(name='out', dtype='float64')
        block.append_op('squared_l2_norm', {'X': [x]}, {'Out': [out]})
        dx, = gradients([out], [x])
    scope.var('x').set_value(x0.copy())
    analytic, = Executor(CPUPlace()).run(prog, fetch_list=[dx], scope=scope)
    check_grad(analytic, numeric_grad(lambda a: np.sum(a * a), [x0], 0), name='squared_l2_norm X@GRAD')


def test_merge_selected_rows_and_get_tensor(rng):
    sr = sparse_grad(rng)
    merged = value(run_op('merge_selected_rows', {'X': ('x', sr)}, {'Out': 'out'}), 'out')
    np.testing.assert_array_equal(merged.rows, np.unique(ROWS))
    close(merged.values, merged_dense(sr)[np.unique(ROWS)])
    tensor = value(run_op('get_tensor_from_selected_rows', {'X': ('x', sr)}, {'Out': 'out'}), 'out')
    np.testing.assert_array_equal(tensor, sr.values)


def test_sign(rng):
    x = np.array([[-2.0, 0.0, 3.0]], F32)
    np.testing.assert_array_equal(value(run_op('sign', {'X': ('x', x)}, {'Out': 'out'}), 'out'), [[-1, 0, 1]])


# --- lr_scheduler_value: the op reads the scheduler its program keeps for the variable it writes --------------------

def _lr_program(schedulers):
    """A program with one `lr_scheduler_value` op per (variable name, scheduler); None: no scheduler added."""
    prog = Program()
    block = prog.global_block()
    for name, scheduler in schedulers.items():
        block.create_var(name=name, shape=[1], dtype=VarType.FP32, persistable=True)
        if scheduler is not None:
            prog._add_lr_scheduler(name, scheduler)
        block.append_op('lr_scheduler_value', {}, {'Out': [name]}, {'dtype': int(VarType.FP32)})
    return prog


class _Rate:
    def __init__(self, value):
        self.value = value

    def __call__(self):
        return self.value


def _lr_values(prog, names):
    scope = Scope()
    Executor(CPUPlace()).run(prog, scope=scope)
    return [float(np.asarray(scope.find_var(n).get_tensor())[0]) for n in names]


def test_lr_scheduler_value_reads_each_variables_own_scheduler_every_run():
    first, second = _Rate(0.5), _Rate(0.25)
    prog = _lr_program({'lr_a': first, 'lr_b': second})
    assert prog.lr_sheduler is second                      # Paddle 2.x's attribute: the last one added
    assert _lr_values(prog, ['lr_a', 'lr_b']) == [0.5, 0.25]
    first.value = 0.125
    assert _lr_values(prog, ['lr_a', 'lr_b']) == [0.125, 0.25]


def test_a_cloned_program_keeps_its_lr_schedulers():
    rate = _Rate(0.75)
    clone = _lr_program({'lr': rate}).clone()
    assert clone._lr_scheduler_of('lr') is rate
    assert _lr_values(clone, ['lr']) == [0.75]


def test_lr_scheduler_value_without_a_scheduler_names_the_variable():
    with pytest.raises(ValueError, match="'lr_scheduler_value' \\(output 'lr_orphan'\\): its program has no "
                                         "learning-rate scheduler"):
        _lr_values(_lr_program({'lr_orphan': None}), ['lr_orphan'])
