"""paddle.optimizer 2.6 names: Adadelta trained for several steps, and the paddle.optimizer.lr schedulers
(CosineAnnealingWarmRestarts, CyclicLR, LinearLR, MultiplicativeDecay, OneCycleLR): their rate after each step()
and a model trained under them; recorded with paddlepaddle 2.6.2 (record_api_cases.py)."""
API = 'static'
RTOL, ATOL = 2e-5, 2e-6
STEPS = 4


def _model(paddle, rng, steps=STEPS):
    x = paddle.static.data(name='x', shape=[-1, 5], dtype='float32')
    y = paddle.static.data(name='y', shape=[-1, 1], dtype='float32')
    h = paddle.static.nn.fc(x, size=4, activation='relu')
    pred = paddle.static.nn.fc(h, size=1)
    loss = paddle.mean(paddle.nn.functional.square_error_cost(pred, y))
    feeds = [{'x': rng.randn(6, 5).astype('float32'), 'y': rng.randn(6, 1).astype('float32')}
             for _ in range(steps)]
    return loss, feeds


def _train(paddle, rng, optimizer, steps=STEPS, scheduler=None):
    loss, feeds = _model(paddle, rng, steps)
    optimizer.minimize(loss)
    spec = {'fetch': [loss], 'feeds': feeds}
    if scheduler is not None:
        spec['before_run'] = lambda i: scheduler.step() if i else None
    return spec


def case_adadelta(paddle, rng):
    return _train(paddle, rng, paddle.optimizer.Adadelta(learning_rate=0.5, epsilon=1e-3, rho=0.9))


def case_adadelta_weight_decay(paddle, rng):
    return _train(paddle, rng, paddle.optimizer.Adadelta(learning_rate=1.0, weight_decay=0.05))


def _rates(scheduler, steps, epochs=None):
    rates = [scheduler()]
    for i in range(steps):
        if epochs is None:
            scheduler.step()
        else:
            scheduler.step(epochs[i])
        rates.append(scheduler.last_lr)
    return rates


def case_lr_values(paddle, rng):
    lr = paddle.optimizer.lr
    return {'values': {
        'warm_restarts': _rates(lr.CosineAnnealingWarmRestarts(0.5, T_0=3), 10),
        'warm_restarts_mult': _rates(lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=2, eta_min=0.01), 12),
        'warm_restarts_epochs': _rates(lr.CosineAnnealingWarmRestarts(0.5, T_0=2, T_mult=3, eta_min=0.05), 6,
                                       epochs=[1, 5, 2, 9, 13, 0]),
        'cyclic': _rates(lr.CyclicLR(0.1, 1.0, step_size_up=3), 14),
        'cyclic_tri2': _rates(lr.CyclicLR(0.1, 1.0, step_size_up=2, step_size_down=4, mode='triangular2'), 20),
        'cyclic_exp': _rates(lr.CyclicLR(0.1, 1.0, step_size_up=2, mode='exp_range', exp_gamma=0.9), 12),
        'cyclic_fn': _rates(lr.CyclicLR(0.2, 0.8, step_size_up=2, scale_fn=lambda x: 1.0 / (1 + x),
                                        scale_mode='iterations'), 9),
        'linear': _rates(lr.LinearLR(0.5, total_steps=4), 7),
        'linear_factors': _rates(lr.LinearLR(0.5, total_steps=5, start_factor=0.2, end_factor=0.7), 8),
        'multiplicative': _rates(lr.MultiplicativeDecay(0.5, lr_lambda=lambda e: 0.9 + 0.01 * e), 6),
        'one_cycle': _rates(lr.OneCycleLR(1.0, total_steps=10), 10),
        'one_cycle_linear3': _rates(lr.OneCycleLR(2.0, total_steps=12, divide_factor=10.0, end_learning_rate=0.001,
                                                  phase_pct=0.25, anneal_strategy='linear', three_phase=True), 12),
    }}


def case_train_one_cycle(paddle, rng):
    scheduler = paddle.optimizer.lr.OneCycleLR(0.5, total_steps=6)
    return _train(paddle, rng, paddle.optimizer.SGD(learning_rate=scheduler), steps=6, scheduler=scheduler)


def case_train_cyclic_momentum(paddle, rng):
    scheduler = paddle.optimizer.lr.CyclicLR(0.01, 0.3, step_size_up=2)
    return _train(paddle, rng, paddle.optimizer.Momentum(learning_rate=scheduler, momentum=0.9), steps=6,
                  scheduler=scheduler)


def case_train_warm_restarts_adam(paddle, rng):
    scheduler = paddle.optimizer.lr.CosineAnnealingWarmRestarts(0.1, T_0=2)
    return _train(paddle, rng, paddle.optimizer.Adam(learning_rate=scheduler), steps=6, scheduler=scheduler)


def case_train_linear_multiplicative(paddle, rng):
    scheduler = paddle.optimizer.lr.MultiplicativeDecay(0.2, lr_lambda=lambda e: 0.5)
    return _train(paddle, rng, paddle.optimizer.SGD(learning_rate=scheduler), steps=5, scheduler=scheduler)


def case_train_linear_lr(paddle, rng):
    scheduler = paddle.optimizer.lr.LinearLR(0.3, total_steps=3)
    return _train(paddle, rng, paddle.optimizer.SGD(learning_rate=scheduler), steps=5, scheduler=scheduler)
