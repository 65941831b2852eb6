"""The Optimizer base class: minimize = append_backward + clip + regularize + one update op per parameter.

Follows Paddle's static-graph `Optimizer` (1.8's `fluid.optimizer`, 2.x's `paddle.optimizer`):

- `backward` appends the gradient ops (non-trainable parameters get none) and remembers the loss dtype;
- `apply_gradients` sorts (param, grad) by parameter name, clips (`grad_clip`, else what `set_gradient_clip` put
  on the parameters), regularizes (`weight_decay` / `regularization`; a parameter's own regularizer wins), then
  `_create_optimization_pass` creates the accumulators and the learning rate and appends one update op per
  parameter under `_optimized_guard` (op_role Optimize, op_role_var [param, grad]) and name scope `optimizer`.
- The learning rate is a persistable global `learning_rate_N` ([1], the loss dtype) filled by the startup program;
  a Variable is used as given; an LR scheduler (`paddle.optimizer.lr.*`) is read by an `lr_scheduler_value` op
  every run, so `scheduler.step()` changes what the next run uses. `ParamAttr(learning_rate=k)` scales it with a
  `scale` op (op_role LRSched|Optimize, name scope `scale_with_param_lr`).
- Accumulators are persistable globals `<param>_<acc>_N` (prefixed by the optimizer's `name` when given), filled
  with a constant by the startup program.

Both keyword vocabularies are accepted everywhere: 1.x `parameter_list` / `regularization` and 2.x `parameters` /
`weight_decay` (a float means L2Decay). `_paddle2` selects the version-specific numerics (Adam's epsilon, Momentum's
fused L2 decay); the fluid.optimizer classes set it False.
"""
from __future__ import annotations

from ..backward import append_backward
from ..clip import GradientClipBase, append_gradient_clip_ops
from ..framework import unique_name
from ..framework.program import default_main_program, default_startup_program, name_scope, program_guard
from ..framework.variable import Variable
from ..initializer import ConstantInitializer
from ..layers.creation import create_global_var
from ..layers.helper import LayerHelper
from ..regularizer import L2Decay, WeightDecayRegularizer, _create_regularization_of_grad, append_regularization_ops


def _either(old, new, old_name: str, new_name: str):
    """One value from the 1.x and the 2.x spelling of the same argument (giving both is an error)."""
    if old is not None and new is not None:
        raise TypeError('give either %s (1.x) or %s (2.x), not both' % (old_name, new_name))
    return new if new is not None else old


def _as_regularizer(weight_decay):
    if weight_decay is None or isinstance(weight_decay, WeightDecayRegularizer):
        return weight_decay
    if isinstance(weight_decay, (float, int)) and not isinstance(weight_decay, bool):
        return L2Decay(float(weight_decay))
    raise TypeError('weight_decay / regularization must be a float or a regularizer such as L2Decay, got %r'
                    % (weight_decay,))


def _is_scheduler(lr) -> bool:
    return callable(lr) and hasattr(lr, 'step') and hasattr(lr, 'last_lr')


class Optimizer:
    type: str | None = None
    _paddle2 = True

    def __init__(self, learning_rate, parameters=None, weight_decay=None, grad_clip=None, name=None, *,
                 parameter_list=None, regularization=None):
        if isinstance(learning_rate, int) and not isinstance(learning_rate, bool):
            learning_rate = float(learning_rate)
        if not isinstance(learning_rate, (float, Variable)) and not _is_scheduler(learning_rate):
            raise TypeError('learning rate should be float, Variable or LRScheduler, got %s here'
                            % type(learning_rate))
        if grad_clip is not None and not isinstance(grad_clip, GradientClipBase):
            raise TypeError("'grad_clip' should be an instance of GradientClipBase's derived class")
        params = _either(parameter_list, parameters, 'parameter_list', 'parameters')
        if params is not None:
            params = list(params)
            if any(isinstance(p, dict) for p in params):
                raise NotImplementedError('parameter groups (a list of dicts as parameters) are not supported by '
                                          'paddle_exec; give a list of parameters')
        self._parameter_list = params
        self.regularization = _as_regularizer(_either(regularization, weight_decay, 'regularization',
                                                      'weight_decay'))
        self._grad_clip = grad_clip
        self._learning_rate = learning_rate
        self._name = name
        self._dtype = None
        self._learning_rate_map: dict = {}
        if isinstance(learning_rate, Variable):
            self._learning_rate_map[default_main_program()] = learning_rate
        self._accumulators: dict[str, dict[str, Variable]] = {}
        self._opti_name_list: list[str] = []
        self.helper = None

    # --- learning rate --------------------------------------------------------------------------------------
    def _global_learning_rate(self, program=None):
        return self._learning_rate_map.get(program or default_main_program())

    def _create_global_learning_rate(self) -> None:
        program = default_main_program()
        if isinstance(self._global_learning_rate(), Variable):
            return
        lr = self._learning_rate
        if isinstance(lr, Variable):
            raise TypeError('learning rate variable is create outside optimizer,can not create new learning rate '
                            'variable for new program')
        dtype = 'float32' if self._dtype is None else self._dtype
        if _is_scheduler(lr):
            var = create_global_var(name=unique_name.generate('learning_rate'), shape=[1], value=float(lr()),
                                    dtype=dtype, persistable=True)
            self._read_scheduler(program, lr, var)
        else:
            var = create_global_var(name=unique_name.generate('learning_rate'), shape=[1], value=float(lr),
                                    dtype=dtype, persistable=True)
        self._learning_rate_map[program] = var

    @staticmethod
    def _read_scheduler(program, scheduler, var) -> None:
        """Every run sets `var` to the scheduler's current value (Paddle 2.x's executor does it from
        `program.lr_sheduler`; here an op does, which finds the scheduler on its program, so no executor support
        is needed)."""
        scheduler._var_name = var.name
        program._add_lr_scheduler(var.name, scheduler)
        with program._lr_schedule_guard():
            program.global_block().append_op('lr_scheduler_value', {}, {'Out': [var]}, {'dtype': int(var.dtype)})

    def _create_param_lr(self, param_and_grad):
        param = param_and_grad[0]
        param_lr = param.optimize_attr.get('learning_rate', 1.0)
        if isinstance(param_lr, Variable):
            return param_lr
        if param_lr == 1.0:
            return self._global_learning_rate()
        with default_main_program()._lr_schedule_guard(is_with_opt=True), name_scope('scale_with_param_lr'):
            return self._global_learning_rate() * float(param_lr)

    def get_lr(self) -> float:
        lr = self._learning_rate
        if _is_scheduler(lr):
            return float(lr())
        if isinstance(lr, Variable):
            raise TypeError('get_lr: the learning rate is the Variable %r; fetch it with the executor' % lr.name)
        return float(lr)

    def current_step_lr(self) -> float:
        return self.get_lr()

    # --- accumulators -----------------------------------------------------------------------------------------
    def _add_accumulator(self, name, param, dtype=None, fill_value=0.0, shape=None, type=None, device=None):
        if self._name is not None:
            name = self._name + '_' + name
        accs = self._accumulators.setdefault(name, {})
        if param.name in accs:
            raise Exception('Accumulator {} already exists for parameter {}'.format(name, param.name))
        shape = list(param.shape) if shape is None else list(shape)
        var_name = unique_name.generate(param.name + '_' + name)
        self._opti_name_list.append(var_name)
        var = self.helper.create_global_variable(name=var_name, persistable=True, dtype=dtype or param.dtype,
                                                 type=param.type if type is None else type, shape=shape)
        var.stop_gradient = True
        self.helper.set_variable_initializer(var, ConstantInitializer(float(fill_value)))
        accs[param.name] = var
        return var

    def _get_accumulator(self, name, param):
        if self._name is not None:
            name = self._name + '_' + name
        try:
            return self._accumulators[name][param.name]
        except KeyError:
            raise Exception('Accumulator {} does not exist for parameter {}'.format(name, param.name)) from None

    def get_opti_var_name_list(self) -> list[str]:
        return self._opti_name_list

    # --- what each optimizer defines --------------------------------------------------------------------------
    def _create_accumulators(self, block, parameters):
        pass

    def _append_optimize_op(self, block, param_and_grad):
        raise NotImplementedError

    def _finish_update(self, block, parameters_and_grads):
        pass

    def _create_regularization_of_grad(self, param, grad, regularization=None):
        return _create_regularization_of_grad(param, grad, regularization)

    # --- the passes -------------------------------------------------------------------------------------------
    def backward(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, callbacks=None,
                 checkpoints=None):
        """Appends the gradient ops of `loss`; returns [(param, grad)]. `checkpoints` (RecomputeOptimizer)
        makes the backward pass recompute the activations between them."""
        if not self._paddle2 and loss.has_shape() and all(d > 0 for d in loss.shape) and \
                _numel(loss.shape) != 1:
            raise AssertionError('The loss.shape should be (1L,), but the current loss.shape is {}. Maybe that you '
                                 'should call fluid.layers.mean to process the current loss.'.format(loss.shape))
        self._dtype = loss.dtype
        program = loss.block.program
        no_grad = set(_names(no_grad_set))
        no_grad.update(p.name for p in program.global_block().all_parameters() if not p.trainable)
        params = parameter_list if parameter_list else self._parameter_list
        if params is not None:
            params = [p.name if isinstance(p, Variable) else p for p in params]
        with program_guard(program, startup_program):
            return append_backward(loss, params, no_grad, callbacks, checkpoints=checkpoints)

    def apply_gradients(self, params_grads):
        """Clip, regularize and append the update ops for [(param, grad)]; returns the ops appended."""
        params_grads = sorted(params_grads, key=lambda pg: pg[0].name)
        if self._grad_clip is not None:
            params_grads = self._grad_clip(params_grads)
        else:
            params_grads = append_gradient_clip_ops(params_grads)
        params_grads = append_regularization_ops(params_grads, self.regularization,
                                                 create=self._create_regularization_of_grad)
        return self._create_optimization_pass(params_grads)

    def apply_optimize(self, loss, startup_program, params_grads):
        with program_guard(loss.block.program, startup_program or default_startup_program()):
            return self.apply_gradients(params_grads)

    _apply_optimize = apply_optimize

    def _create_optimization_pass(self, parameters_and_grads):
        program = default_main_program()
        block = program.global_block()
        start = len(block.ops)
        self.helper = LayerHelper(self.__class__.__name__)
        self._create_accumulators(block, [p for p, _ in parameters_and_grads if p.trainable])
        self._create_global_learning_rate()
        for param_and_grad in parameters_and_grads:
            if param_and_grad[1] is None:
                continue
            with program._optimized_guard(param_and_grad), name_scope('optimizer'):
                if param_and_grad[0].trainable:
                    self._append_optimize_op(block, param_and_grad)
        self._finish_update(block, parameters_and_grads)
        return block.ops[start:]

    def minimize(self, loss, startup_program=None, parameter_list=None, no_grad_set=None, *, parameters=None,
                 grad_clip=None):
        """backward + apply_optimize; returns (optimize_ops, [(param, grad)])."""
        if not isinstance(loss, Variable):
            raise AssertionError('The loss should be an Variable.')
        if grad_clip is not None:
            if not isinstance(grad_clip, GradientClipBase):
                raise TypeError("'grad_clip' should be an instance of GradientClipBase's derived class")
            self._grad_clip = grad_clip
        params = _either(parameter_list, parameters, 'parameter_list', 'parameters')
        params_grads = self.backward(loss, startup_program, params or self._parameter_list, no_grad_set)
        optimize_ops = self.apply_optimize(loss, startup_program, params_grads)
        return optimize_ops, params_grads

    # dynamic-graph methods: a clear error in static mode
    def step(self):
        raise RuntimeError('Optimizer.step() is for dynamic graph mode; paddle_exec is static only: '
                           'call minimize(loss) while building the program')

    def clear_grad(self, set_to_zero=True):
        raise RuntimeError('Optimizer.clear_grad() is for dynamic graph mode; paddle_exec is static only')

    clear_gradients = clear_grad

    def state_dict(self):
        raise RuntimeError('Optimizer.state_dict() is for dynamic graph mode; in static mode the accumulators are '
                           'persistable variables of the program (save them with static.save)')


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def _names(items) -> list[str]:
    if items is None:
        return []
    return [v.name if isinstance(v, Variable) else v for v in items]


__all__ = ['Optimizer']
