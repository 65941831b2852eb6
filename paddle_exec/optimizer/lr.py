"""paddle.optimizer.lr: learning-rate schedulers (Paddle 2.x), pure Python.

A scheduler holds `last_epoch` and `last_lr`; `step()` advances the epoch and recomputes `last_lr` with `get_lr()`;
`scheduler()` returns `last_lr`. Given as an optimizer's learning_rate, it is read by the program at every run
(see optimizer/base.py), so

    sched = paddle.optimizer.lr.StepDecay(learning_rate=0.5, step_size=2, gamma=0.1)
    paddle.optimizer.SGD(learning_rate=sched).minimize(loss)
    for epoch in ...:
        exe.run(main, feed=..., fetch_list=[loss])   # uses sched.last_lr
        sched.step()

The formulas are Paddle's (python/paddle/optimizer/lr.py).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ['LRScheduler', 'NoamDecay', 'PiecewiseDecay', 'NaturalExpDecay', 'InverseTimeDecay', 'PolynomialDecay',
           'LinearWarmup', 'ExponentialDecay', 'MultiStepDecay', 'StepDecay', 'LambdaDecay', 'ReduceOnPlateau',
           'CosineAnnealingDecay', 'MultiplicativeDecay', 'OneCycleLR', 'CyclicLR', 'LinearLR',
           'CosineAnnealingWarmRestarts']


class LRScheduler:
    """Base class: subclasses define `get_lr()` from `base_lr` and `last_epoch`."""

    def __init__(self, learning_rate=0.1, last_epoch=-1, verbose=False):
        if not isinstance(learning_rate, (float, int)):
            raise TypeError('The type of learning rate must be float, but received {}'.format(type(learning_rate)))
        self.base_lr = float(learning_rate)
        self.last_lr = float(learning_rate)
        self.last_epoch = last_epoch
        self.verbose = verbose
        self._var_name = None
        self.step()

    def __call__(self) -> float:
        return self.last_lr

    def step(self, epoch=None) -> None:
        if epoch is None:
            self.last_epoch += 1
            self.last_lr = self.get_lr()
        else:
            self.last_epoch = epoch
            closed_form = getattr(self, '_get_closed_form_lr', None)
            self.last_lr = closed_form() if closed_form is not None else self.get_lr()
        if self.verbose:
            print('Epoch {}: {} set learning rate to {}.'.format(self.last_epoch, self.__class__.__name__,
                                                                 self.last_lr))

    def get_lr(self) -> float:
        raise NotImplementedError

    def state_dict(self) -> dict:
        return {'last_epoch': self.last_epoch, 'last_lr': self.last_lr}

    def set_state_dict(self, state_dict: dict) -> None:
        self.last_epoch = state_dict['last_epoch']
        self.last_lr = state_dict['last_lr']

    set_dict = set_state_dict


class NoamDecay(LRScheduler):
    def __init__(self, d_model, warmup_steps, learning_rate=1.0, last_epoch=-1, verbose=False):
        self.d_model = d_model
        self.warmup_steps = warmup_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        a = 1 if self.last_epoch == 0 else self.last_epoch ** -0.5
        b = self.warmup_steps ** -1.5 * self.last_epoch
        return self.base_lr * (self.d_model ** -0.5) * min(a, b)


class PiecewiseDecay(LRScheduler):
    def __init__(self, boundaries, values, last_epoch=-1, verbose=False):
        if len(values) != len(boundaries) + 1:
            raise ValueError('PiecewiseDecay needs len(values) == len(boundaries) + 1, got %d values and %d '
                             'boundaries' % (len(values), len(boundaries)))
        self.boundaries = list(boundaries)
        self.values = list(values)
        super().__init__(last_epoch=last_epoch, verbose=verbose)

    def get_lr(self):
        for boundary, value in zip(self.boundaries, self.values):
            if self.last_epoch < boundary:
                return value
        return self.values[-1]


class NaturalExpDecay(LRScheduler):
    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * math.exp(-1 * self.gamma * self.last_epoch)


class InverseTimeDecay(LRScheduler):
    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr / (1 + self.gamma * self.last_epoch)


class PolynomialDecay(LRScheduler):
    def __init__(self, learning_rate, decay_steps, end_lr=0.0001, power=1.0, cycle=False, last_epoch=-1,
                 verbose=False):
        if decay_steps <= 0:
            raise ValueError('decay_steps must be a positive integer, got %r' % (decay_steps,))
        self.decay_steps = decay_steps
        self.end_lr = end_lr
        self.power = power
        self.cycle = cycle
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        epoch, steps = self.last_epoch, self.decay_steps
        if self.cycle:
            div = math.ceil(float(self.last_epoch) / float(self.decay_steps))
            steps = self.decay_steps * (1 if self.last_epoch == 0 else div)
        else:
            epoch = min(self.last_epoch, self.decay_steps)
        return (self.base_lr - self.end_lr) * ((1 - float(epoch) / float(steps)) ** self.power) + self.end_lr


class LinearWarmup(LRScheduler):
    """Linear from start_lr to end_lr over warmup_steps, then `learning_rate` (a float or another scheduler)."""

    def __init__(self, learning_rate, warmup_steps, start_lr, end_lr, last_epoch=-1, verbose=False):
        if not isinstance(learning_rate, (float, int, LRScheduler)):
            raise TypeError('the type of learning_rate should be [int, float or LRScheduler], the current type is '
                            '{}'.format(learning_rate))
        self.learning_rate = learning_rate
        self.warmup_steps = warmup_steps
        self.start_lr = start_lr
        self.end_lr = end_lr
        if end_lr <= start_lr:
            raise ValueError('end_lr {} must be greater than start_lr {}'.format(end_lr, start_lr))
        super().__init__(start_lr, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch < self.warmup_steps:
            return (self.end_lr - self.start_lr) * float(self.last_epoch) / float(self.warmup_steps) + self.start_lr
        if isinstance(self.learning_rate, LRScheduler):
            self.learning_rate.step(self.last_epoch - self.warmup_steps)
            return self.learning_rate()
        return self.learning_rate


class ExponentialDecay(LRScheduler):
    def __init__(self, learning_rate, gamma, last_epoch=-1, verbose=False):
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** self.last_epoch)


class MultiStepDecay(LRScheduler):
    def __init__(self, learning_rate, milestones, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(milestones, (tuple, list)):
            raise TypeError('The type of \'milestones\' in \'MultiStepDecay\' must be \'tuple, list\', but received '
                            '%s.' % type(milestones))
        if not all(milestones[i] < milestones[i + 1] for i in range(len(milestones) - 1)):
            raise ValueError('The elements of milestones must be incremented')
        if gamma >= 1.0:
            raise ValueError('gamma should be < 1.0.')
        self.milestones = list(milestones)
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        for i, milestone in enumerate(self.milestones):
            if self.last_epoch < milestone:
                return self.base_lr * (self.gamma ** i)
        return self.base_lr * (self.gamma ** len(self.milestones))


class StepDecay(LRScheduler):
    def __init__(self, learning_rate, step_size, gamma=0.1, last_epoch=-1, verbose=False):
        if not isinstance(step_size, int):
            raise TypeError('The type of \'step_size\' must be \'int\', but received %s.' % type(step_size))
        if gamma >= 1.0:
            raise ValueError('gamma should be < 1.0.')
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * (self.gamma ** (self.last_epoch // self.step_size))


class LambdaDecay(LRScheduler):
    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError('The type of \'lr_lambda\' in \'LambdaDecay\' must be \'function\', but received %s.'
                            % type(lr_lambda))
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.base_lr * self.lr_lambda(self.last_epoch)


class CosineAnnealingDecay(LRScheduler):
    def __init__(self, learning_rate, T_max, eta_min=0, last_epoch=-1, verbose=False):
        if not isinstance(T_max, int):
            raise TypeError('The type of \'T_max\' in \'CosineAnnealingDecay\' must be \'int\', but received %s.'
                            % type(T_max))
        self.T_max = T_max
        self.eta_min = float(eta_min)
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return self.last_lr + (self.base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
        return ((1 + math.cos(math.pi * self.last_epoch / self.T_max))
                / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
                * (self.last_lr - self.eta_min) + self.eta_min)

    def _get_closed_form_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2


class ReduceOnPlateau(LRScheduler):
    """Multiplies the rate by `factor` when the metric given to `step(metrics)` stops improving."""

    def __init__(self, learning_rate, mode='min', factor=0.1, patience=10, threshold=1e-4, threshold_mode='rel',
                 cooldown=0, min_lr=0, epsilon=1e-8, verbose=False):
        mode, threshold_mode = mode.lower(), threshold_mode.lower()
        if mode not in ('min', 'max'):
            raise ValueError('mode: ' + mode + ' is unknown!')
        if threshold_mode not in ('rel', 'abs'):
            raise ValueError('threshold mode: ' + threshold_mode + ' is unknown!')
        if factor >= 1.0:
            raise ValueError('new_lr = origin_lr * gamma and gamma should be < 1.0.')
        if not isinstance(learning_rate, (float, int)):
            raise TypeError('The type of learning rate must be float, but received {}'.format(type(learning_rate)))
        self.mode, self.factor, self.patience = mode, factor, patience
        self.threshold, self.threshold_mode = threshold, threshold_mode
        self.cooldown, self.min_lr, self.epsilon = cooldown, min_lr, epsilon
        self.cooldown_counter = 0
        self.best = None
        self.num_bad_epochs = 0
        self.last_epoch = 0
        self.verbose = verbose
        self.base_lr = self.last_lr = float(learning_rate)
        self._var_name = None

    def step(self, metrics, epoch=None) -> None:
        self.last_epoch = self.last_epoch + 1 if epoch is None else epoch
        current = float(np.asarray(metrics).reshape(-1)[0])
        if self.cooldown_counter > 0:
            self.cooldown_counter -= 1
            return
        if self.best is None or self._is_better(current, self.best):
            self.best = current
            self.num_bad_epochs = 0
        else:
            self.num_bad_epochs += 1
        if self.num_bad_epochs > self.patience:
            self.cooldown_counter = self.cooldown
            self.num_bad_epochs = 0
            new_lr = max(self.last_lr * self.factor, self.min_lr)
            if self.last_lr - new_lr > self.epsilon:
                self.last_lr = new_lr
                if self.verbose:
                    print('Epoch {}: {} set learning rate to {}.'.format(self.last_epoch, self.__class__.__name__,
                                                                         self.last_lr))

    def _is_better(self, current, best) -> bool:
        if self.mode == 'min' and self.threshold_mode == 'rel':
            return current < best - best * self.threshold
        if self.mode == 'min':
            return current < best - self.threshold
        if self.threshold_mode == 'rel':
            return current > best + best * self.threshold
        return current > best + self.threshold


class MultiplicativeDecay(LRScheduler):
    """lr = base_lr * lr_lambda(1) * ... * lr_lambda(epoch)."""

    def __init__(self, learning_rate, lr_lambda, last_epoch=-1, verbose=False):
        if not callable(lr_lambda):
            raise TypeError("The type of 'lr_lambda' in 'MultiplicativeDecay' must be 'function', but received %s."
                            % type(lr_lambda))
        self.lr_lambda = lr_lambda
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        lr = self.base_lr
        for epoch in range(1, self.last_epoch + 1):
            lr = lr * self.lr_lambda(epoch)
        return lr


class OneCycleLR(LRScheduler):
    """1cycle: from max_learning_rate / divide_factor up to max_learning_rate over phase_pct of total_steps, then
    down to end_learning_rate (three_phase: back to the initial rate first), annealed by cosine or linearly."""

    def __init__(self, max_learning_rate, total_steps, divide_factor=25.0, end_learning_rate=0.0001, phase_pct=0.3,
                 anneal_strategy='cos', three_phase=False, last_epoch=-1, verbose=False):
        for label, value in (('max_learning_rate', max_learning_rate), ('end_learning_rate', end_learning_rate)):
            if not isinstance(value, (float, int)):
                raise TypeError("'%s' must be 'float' or 'int', but received %s" % (label, type(value)))
            if value < 0:
                raise ValueError("'%s' must be a positive integer." % label)
        if not isinstance(total_steps, int):
            raise TypeError("'total_step' must be 'int', but received %s" % type(total_steps))
        if total_steps <= 0:
            raise ValueError("'total_step' must be a positive integer.")
        if not isinstance(phase_pct, float):
            raise TypeError("'phase_pct' must be 'float', but received %s" % type(phase_pct))
        if phase_pct < 0 or phase_pct > 1:
            raise ValueError("'phase_pct' must be between 0 and 1, but received %s" % phase_pct)
        if not isinstance(divide_factor, (float, int)):
            raise TypeError("'divide_factor' must be 'float' or 'int', but received %s" % type(divide_factor))
        self.total_steps = total_steps
        initial_lr = max_learning_rate / float(divide_factor)
        min_lr = float(end_learning_rate)
        last = total_steps - 1
        if three_phase:
            if phase_pct >= 0.5:
                raise ValueError("When three_phase is True, 'phase_pct' must be less than 0.5")
            # start step of each phase (and the last step twice), each phase's length, each phase's rates
            self._step_config = [0, phase_pct * total_steps - 1, 2 * phase_pct * total_steps - 2, last, last]
            ends = self._step_config
            self._steps_size = [ends[1] - ends[0], ends[2] - ends[1], ends[3] - ends[2], ends[3] - ends[2]]
            self._lr_config = [initial_lr, max_learning_rate, initial_lr, min_lr]
        else:
            self._step_config = [0, phase_pct * total_steps - 1, last, last]
            ends = self._step_config
            self._steps_size = [ends[1] - ends[0], ends[2] - ends[1], ends[2] - ends[1]]
            self._lr_config = [initial_lr, max_learning_rate, min_lr]
        if anneal_strategy == 'cos':
            self.anneal_func = self._cos_annealing
        elif anneal_strategy == 'linear':
            self.anneal_func = self._linear_annealing
        else:
            raise ValueError("'anneal_strategy' must by one of 'cos' or 'linear', but received %s" % anneal_strategy)
        super().__init__(initial_lr, last_epoch, verbose)

    @staticmethod
    def _cos_annealing(start_lr, end_lr, pct):
        return end_lr + (start_lr - end_lr) / 2.0 * (math.cos(math.pi * pct) + 1)

    @staticmethod
    def _linear_annealing(start_lr, end_lr, pct):
        return (end_lr - start_lr) * pct + start_lr

    def get_lr(self):
        step = self.last_epoch
        if step > self.total_steps:
            raise ValueError('Tried to step {} times. However the number of total steps is {}'.format(
                step, self.total_steps))
        last_phase = len(self._lr_config) - 2
        for i, (end_step, size) in enumerate(zip(self._step_config[1:], self._steps_size)):
            if step <= end_step or i == last_phase:
                return self.anneal_func(self._lr_config[i], self._lr_config[i + 1],
                                        (step - self._step_config[i]) / size)


class CyclicLR(LRScheduler):
    """Cycles between base_learning_rate and max_learning_rate (up in step_size_up steps, down in step_size_down),
    the amplitude scaled per cycle ('triangular': 1, 'triangular2': halved each cycle) or per iteration
    ('exp_range': exp_gamma ** iteration), or by `scale_fn`."""

    def __init__(self, base_learning_rate, max_learning_rate, step_size_up, step_size_down=None, mode='triangular',
                 exp_gamma=1.0, scale_fn=None, scale_mode='cycle', last_epoch=-1, verbose=False):
        if not isinstance(max_learning_rate, (float, int)):
            raise TypeError("'max_learning_rate' must be 'float' or 'int', but received %s"
                            % type(max_learning_rate))
        if max_learning_rate < 0:
            raise ValueError("'max_learning_rate' must be a positive integer, but received %s" % max_learning_rate)
        for label, value in (('step_size_up', step_size_up), ('step_size_down', step_size_down)):
            if value is None:
                continue
            if not isinstance(value, int):
                raise TypeError("The type of '%s' must be int, but received %s" % (label, type(value)))
            if value <= 0:
                raise ValueError("'%s' must be a positive integer, but received %s" % (label, value))
        if not isinstance(exp_gamma, float):
            raise TypeError("The type of 'exp_gamma' must be float, but received %s" % type(exp_gamma))
        up = float(step_size_up)
        down = float(step_size_down) if step_size_down is not None else up
        self.cycle_size = up + down
        self.step_up_pct = up / self.cycle_size
        self.max_lr = float(max_learning_rate)
        self.amplitude = self.max_lr - base_learning_rate
        if mode not in ('triangular', 'triangular2', 'exp_range') and scale_fn is None:
            raise ValueError("'mode' is invalid and 'scale_fn' is not specified, make sure one of 'mode' or "
                             "'scale_fn' is valid")
        if scale_mode not in ('cycle', 'iterations'):
            raise ValueError("'scale_mode' must be one of 'cycle' or 'iterations")
        self.mode = mode
        self.gamma = exp_gamma
        if scale_fn is not None:
            self.scale_fn, self.scale_mode = scale_fn, scale_mode
        elif mode == 'triangular':
            self.scale_fn, self.scale_mode = (lambda x: 1.0), 'cycle'
        elif mode == 'triangular2':
            self.scale_fn, self.scale_mode = (lambda x: 1 / (2.0 ** (x - 1))), 'cycle'
        else:
            self.scale_fn, self.scale_mode = (lambda x: self.gamma ** x), 'iterations'
        super().__init__(base_learning_rate, last_epoch, verbose)

    def get_lr(self):
        iterations = self.last_epoch
        cycle = 1 + iterations // self.cycle_size
        pct = 1.0 + iterations / self.cycle_size - cycle
        if pct <= self.step_up_pct:
            scale_factor = pct / self.step_up_pct
        else:
            scale_factor = (1 - pct) / (1 - self.step_up_pct)
        scaled_by = cycle if self.scale_mode == 'cycle' else iterations
        return self.base_lr + self.amplitude * scale_factor * self.scale_fn(scaled_by)


class LinearLR(LRScheduler):
    """From learning_rate * start_factor to learning_rate * end_factor linearly over total_steps, then constant."""

    def __init__(self, learning_rate, total_steps, start_factor=1.0 / 3, end_factor=1.0, last_epoch=-1,
                 verbose=False):
        if start_factor > 1.0 or start_factor <= 0:
            raise ValueError('`start_factor` must be greater than 0 and less or equal to 1, but got {}'.format(
                start_factor))
        if end_factor > 1.0 or end_factor < 0:
            raise ValueError('`end_factor` must be greater than 0 and less than 1, but got {}'.format(end_factor))
        if total_steps <= 0:
            raise ValueError('`total_steps` must be greater than 0, but got {}'.format(total_steps))
        self.start_factor = start_factor
        self.end_factor = end_factor
        self.total_steps = total_steps
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        if self.last_epoch == 0:
            return self.base_lr * self.start_factor
        if self.last_epoch > self.total_steps:
            return self.last_lr
        delta = self.end_factor - self.start_factor
        return self.last_lr * (1.0 + delta / (self.total_steps * self.start_factor + (self.last_epoch - 1) * delta))


class CosineAnnealingWarmRestarts(LRScheduler):
    """SGDR: cosine annealing from learning_rate to eta_min over T_i epochs, restarting with T_i = T_i * T_mult."""

    def __init__(self, learning_rate, T_0, T_mult=1, eta_min=0, last_epoch=-1, verbose=False):
        if T_0 <= 0 or not isinstance(T_0, int):
            raise ValueError('Expected positive integer T_0, but got {}'.format(T_0))
        if T_mult < 1 or not isinstance(T_mult, int):
            raise ValueError('Expected integer T_mult >= 1, but got {}'.format(T_mult))
        self.T_0 = T_0
        self.T_i = T_0
        self.T_mult = T_mult
        self.eta_min = eta_min
        self.T_cur = last_epoch
        super().__init__(learning_rate, last_epoch, verbose)

    def get_lr(self):
        return self.eta_min + (self.base_lr - self.eta_min) * (1 + math.cos(math.pi * self.T_cur / self.T_i)) / 2

    def step(self, epoch=None) -> None:
        if epoch is None and self.last_epoch < 0:
            epoch = 0
        if epoch is None:
            epoch = self.last_epoch + 1
            self.T_cur = self.T_cur + 1
            if self.T_cur >= self.T_i:
                self.T_cur = self.T_cur - self.T_i
                self.T_i = self.T_i * self.T_mult
        elif epoch < 0:
            raise ValueError('Expected non-negative epoch, but got {}'.format(epoch))
        elif epoch >= self.T_0:
            if self.T_mult == 1:
                self.T_cur = epoch % self.T_0
            else:
                n = int(math.log((epoch / self.T_0 * (self.T_mult - 1) + 1), self.T_mult))
                self.T_cur = epoch - self.T_0 * (self.T_mult ** n - 1) / (self.T_mult - 1)
                self.T_i = self.T_0 * self.T_mult ** n
        else:
            self.T_i = self.T_0
            self.T_cur = epoch
        self.last_epoch = math.floor(epoch)
        self.last_lr = self.get_lr()
        if self.verbose:
            print('Epoch {}: {} set learning rate to {}.'.format(self.last_epoch, self.__class__.__name__,
                                                                 self.last_lr))
