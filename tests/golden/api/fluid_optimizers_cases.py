"""fluid.optimizer 1.8 names (Adadelta, LarsMomentum, Dpsgd, DGCMomentum, Lookahead, Recompute, Pipeline): a small
model trained for several steps; the loss at every step and the final parameters, recorded with paddlepaddle
1.8.5 (record_api_cases.py). Python 3.8 compatible.

DGCMomentumOptimizer cannot be built by Paddle 1.8 without CUDA; on one node DGC is plain momentum (issue 12), so
its case records fluid's MomentumOptimizer with the same arguments on real Paddle.
"""
API = 'fluid'
RTOL, ATOL = 2e-5, 2e-6
STEPS = 4


def _model(fluid, rng, steps=STEPS, act='relu', depth=1):
    L = fluid.layers
    x = L.data(name='x', shape=[5], dtype='float32')
    y = L.data(name='y', shape=[1], dtype='float32')
    h = x
    hidden = []
    for _ in range(depth):
        h = L.fc(input=h, size=4, act=act)
        hidden.append(h)
    pred = L.fc(input=h, size=1)
    loss = L.mean(L.square_error_cost(input=pred, label=y))
    feeds = [{'x': rng.randn(6, 5).astype('float32'), 'y': rng.randn(6, 1).astype('float32')}
             for _ in range(steps)]
    return loss, feeds, hidden


def _train(paddle, rng, make, steps=STEPS, **kw):
    loss, feeds, hidden = _model(paddle.fluid, rng, steps, **kw)
    optimizer = make(paddle.fluid.optimizer, hidden)
    optimizer.minimize(loss)
    return {'fetch': [loss], 'feeds': feeds, 'param_copies': ['@SLOW'] if 'Lookahead' in type(optimizer).__name__
            else []}


def case_adadelta(paddle, rng):
    return _train(paddle, rng, lambda O, h: O.Adadelta(learning_rate=0.5))


def case_adadelta_rho_eps(paddle, rng):
    return _train(paddle, rng, lambda O, h: O.AdadeltaOptimizer(learning_rate=0.1, epsilon=1e-3, rho=0.8))


def case_adadelta_l2(paddle, rng):
    fluid = paddle.fluid
    return _train(paddle, rng, lambda O, h: O.AdadeltaOptimizer(
        learning_rate=0.1, epsilon=1e-2, rho=0.9, regularization=fluid.regularizer.L2Decay(0.1)))


def case_lars_momentum(paddle, rng):
    return _train(paddle, rng, lambda O, h: O.LarsMomentum(learning_rate=0.5, momentum=0.9))


def case_lars_momentum_coeffs(paddle, rng):
    return _train(paddle, rng, lambda O, h: O.LarsMomentumOptimizer(learning_rate=2.0, momentum=0.5, lars_coeff=0.01,
                                                                    lars_weight_decay=0.05))


def case_lars_momentum_no_decay(paddle, rng):
    return _train(paddle, rng, lambda O, h: O.LarsMomentumOptimizer(learning_rate=0.1, momentum=0.9,
                                                                    lars_weight_decay=0.0))


def _dpsgd(O, clip, seed):
    opt = O.Dpsgd(learning_rate=0.05, clip=clip, batch_size=4.0, sigma=0.5)
    opt._seed = seed        # Paddle's debugging hook: a fixed seed instead of time(NULL)
    return opt


def case_dpsgd_clipped(paddle, rng):
    return _train(paddle, rng, lambda O, h: _dpsgd(O, 0.3, 7))


def case_dpsgd_unclipped(paddle, rng):
    return _train(paddle, rng, lambda O, h: _dpsgd(O, 1e6, 123))


def case_dgc_momentum(paddle, rng):
    def make(O, h):
        if paddle.__name__ == 'paddle_exec':
            return O.DGCMomentumOptimizer(learning_rate=0.1, momentum=0.9, rampup_begin_step=0)
        return O.MomentumOptimizer(learning_rate=0.1, momentum=0.9)
    return _train(paddle, rng, make)


def case_dgc_momentum_nesterov_l2(paddle, rng):
    fluid = paddle.fluid

    def make(O, h):
        kw = dict(learning_rate=0.1, momentum=0.8, use_nesterov=True, regularization=fluid.regularizer.L2Decay(0.01))
        if paddle.__name__ == 'paddle_exec':
            return O.DGCMomentumOptimizer(rampup_begin_step=2, sparsity=[0.9, 0.99], **kw)
        return O.MomentumOptimizer(**kw)
    return _train(paddle, rng, make)


def case_lookahead_sgd(paddle, rng):
    return _train(paddle, rng, lambda O, h: O.LookaheadOptimizer(O.SGD(learning_rate=0.3), alpha=0.5, k=2), steps=7)


def case_lookahead_adam(paddle, rng):
    return _train(paddle, rng, lambda O, h: O.LookaheadOptimizer(O.Adam(learning_rate=0.05), alpha=0.3, k=3),
                  steps=7)


def _recompute(O, hidden, inner):
    opt = O.RecomputeOptimizer(inner)
    opt._set_checkpoints(hidden)
    return opt


def case_recompute_adam(paddle, rng):
    return _train(paddle, rng, lambda O, h: _recompute(O, h, O.Adam(learning_rate=0.05)), depth=3, act='tanh')


def case_recompute_sgd_one_checkpoint(paddle, rng):
    return _train(paddle, rng, lambda O, h: _recompute(O, h[1:2], O.SGD(learning_rate=0.2)), depth=3, act='sigmoid')


def case_pipeline_single_stage(paddle, rng):
    return _train(paddle, rng, lambda O, h: O.PipelineOptimizer(O.SGD(learning_rate=0.2), cut_list=[],
                                                                place_list=[paddle.fluid.CPUPlace()],
                                                                concurrency_list=[1]))


def _extend(paddle):
    contrib = getattr(paddle.fluid, 'contrib', None)
    if contrib is not None and hasattr(contrib, 'extend_with_decoupled_weight_decay'):
        return contrib.extend_with_decoupled_weight_decay
    from paddle_exec.optimizer.meta import extend_with_decoupled_weight_decay  # until fluid.contrib exists here
    return extend_with_decoupled_weight_decay


def case_decoupled_weight_decay_adam(paddle, rng):
    adamw = _extend(paddle)(paddle.fluid.optimizer.Adam)
    return _train(paddle, rng, lambda O, h: adamw(weight_decay=0.05, learning_rate=0.05))


def case_decoupled_weight_decay_momentum_filtered(paddle, rng):
    momentum_w = _extend(paddle)(paddle.fluid.optimizer.Momentum)
    return _train(paddle, rng, lambda O, h: momentum_w(weight_decay=0.1, apply_decay_param_fun=lambda n: 'w_' in n,
                                                       learning_rate=0.1, momentum=0.9))
