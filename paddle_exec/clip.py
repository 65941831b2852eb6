"""Gradient clipping: Paddle 1.8's `fluid.clip` and the 2.x `paddle.nn.ClipGradBy*`, with Paddle's op sequences.

An optimizer calls its `grad_clip` on the sorted [(param, grad)] list before regularization; without one,
`append_gradient_clip_ops` applies what `set_gradient_clip` attached to the parameters. Every op is appended under
name scope `gradient_clip` with op_role Optimize and op_role_var [param, new grad]:

    ByValue(max, min)     new = clip(g, min, max)
    ByNorm(c)             new = clip_by_norm(g, max_norm=c)                 (per gradient)
    ByGlobalNorm(c)       s_i = reduce_sum(square(g_i))        1.x          (squared_l2_norm(g_i) in 2.x)
                          norm = sqrt(sum(s_1..s_n)); k = fill_constant(c)
                          scale = elementwise_div(k, elementwise_max(k, norm))
                          new_i = elementwise_mul(g_i, scale)               (2.x: in place into g_i)

A sparse (SelectedRows) gradient enters the global norm through merge_selected_rows +
get_tensor_from_selected_rows, so duplicated rows count as (a + b)^2. Which gradients are clipped: 1.x takes a
`need_clip(param) -> bool` function, 2.x reads `ParamAttr(need_clip=False)` from the parameter.
"""
from __future__ import annotations

import copy
import warnings

from .framework.dtype import VarType
from .framework.program import default_main_program, name_scope
from .framework.variable import Parameter
from .layers.creation import fill_constant
from .layers.helper import LayerHelper
from .layers.math import elementwise_div, elementwise_max, elementwise_mul

__all__ = ['set_gradient_clip', 'append_gradient_clip_ops', 'ErrorClipByValue', 'GradientClipBase',
           'GradientClipByValue', 'GradientClipByNorm', 'GradientClipByGlobalNorm', 'ClipByValue', 'ClipByNorm',
           'ClipByGlobalNorm', 'ClipGradBase', 'ClipGradByValue', 'ClipGradByNorm', 'ClipGradByGlobalNorm']


# --- the ops, named as Paddle's layers name them (`square_0.tmp_0`, ...) ------------------------------------------

def _append(op_type: str, inputs: dict, attrs: dict | None = None, dtype=None, var_type=None):
    helper = LayerHelper(op_type)
    first = next(iter(inputs.values()))[0]
    out = helper.create_variable_for_type_inference(first.dtype if dtype is None else dtype)
    if var_type is not None:
        out.type = var_type
    helper.append_op(op_type, inputs, {'Out': [out]}, attrs or {})
    return out


def _square_sum(g):
    """1.x: reduce_sum(square(g)) over all elements (a [1] tensor)."""
    square = _append('square', {'X': [g]})
    return _append('reduce_sum', {'X': [square]}, {'dim': [0], 'keep_dim': False, 'reduce_all': True})


def _squared_l2_norm(g):
    return _append('squared_l2_norm', {'X': [g]})


def _merged_dense(g):
    """A SelectedRows gradient's merged rows as a dense tensor (for norms); a dense gradient as is."""
    if g.type != VarType.SELECTED_ROWS:
        return g
    merged = _append('merge_selected_rows', {'X': [g]}, var_type=VarType.SELECTED_ROWS)
    return _append('get_tensor_from_selected_rows', {'X': [merged]}, var_type=VarType.LOD_TENSOR)


def _fill_constant(value: float, dtype):
    return fill_constant(shape=[1], dtype=dtype, value=value)


def _global_scale(sum_squares: list, clip_norm: float, dtype):
    """clip_norm / max(clip_norm, sqrt(sum of the squares)) as a [1] tensor."""
    total = _append('sum', {'X': list(sum_squares)}, {'use_mkldnn': False})
    norm = _append('sqrt', {'X': [total]})
    limit = _fill_constant(clip_norm, dtype)
    return elementwise_div(limit, elementwise_max(limit, norm))


# --- error clip (applied by append_backward's callbacks in Paddle) --------------------------------------------------

class BaseErrorClipAttr:
    def __str__(self):
        raise NotImplementedError

    def _append_clip_op(self, block, grad_name):
        raise NotImplementedError


class ErrorClipByValue(BaseErrorClipAttr):
    """Clips a variable's gradient in place to [min, max] (min defaults to -max)."""

    def __init__(self, max, min=None):
        self.max = float(max)
        self.min = -self.max if min is None else float(min)

    def __str__(self):
        return 'ByValue, min=%f, max=%f' % (self.min, self.max)

    def _append_clip_op(self, block, grad_name):
        block.append_op('clip', {'X': [grad_name]}, {'Out': [grad_name]}, {'min': self.min, 'max': self.max})


def error_clip_callback(block, context):
    """Paddle's backward callback: clip the gradient of a variable that carries an `error_clip`."""
    grad_to_var = context
    op = block.ops[-1]
    for grad_name in [n for n in op.output_arg_names if n in grad_to_var]:
        fwd = block._var_recursive(grad_to_var[grad_name])
        error_clip = getattr(fwd, 'error_clip', None)
        if error_clip is not None and not isinstance(error_clip, BaseErrorClipAttr):
            raise TypeError("Variable's error_clip should be an instance of BaseErrorClipAttr or None.")
        if error_clip is not None:
            error_clip._append_clip_op(block, grad_name)


# --- gradient clips -------------------------------------------------------------------------------------------------

class GradientClipBase:
    """`clip(params_grads) -> params_grads`, appending the clip ops to the program being optimized."""

    def __init__(self, need_clip=None):
        if need_clip is not None and not callable(need_clip):
            raise TypeError('The type of need_clip must be funciton, and it can filter out parameter that does\'t '
                            'need gradient clip. This function must return True or False, and True means that '
                            'clipping is required. Please refer to API documention of GradientClipByGlobalNorm / '
                            'GradientClipByNorm /GradientClipByValue.')
        self._need_clip_func = need_clip

    def __str__(self):
        raise NotImplementedError

    def __call__(self, params_grads):
        for p, _ in params_grads:
            if getattr(p, 'gradient_clip_attr', None) is not None:
                warnings.warn("'set_gradient_clip' will be ineffective, because you have set 'grad_clip' in "
                              "'optimizer'. So, 'set_gradient_clip' is redundant and you can remove it.")
                break
        return self._static_clip(params_grads)

    def _skip(self, param) -> bool:
        """True when `param`'s gradient is left alone (1.x: the need_clip function says so)."""
        return self._need_clip_func is not None and not self._need_clip_func(param)

    def _static_clip(self, params_grads):
        raise NotImplementedError

    def _process_context(self, context, param, grad):
        raise NotImplementedError

    def _create_operators(self, param, grad):
        raise NotImplementedError


class _PerGradientClip(GradientClipBase):
    """ByValue and ByNorm: each gradient is clipped on its own by `_clip_one`."""

    def _clip_one(self, grad):
        raise NotImplementedError

    def _static_clip(self, params_grads):
        out, new_names = [], {}
        with name_scope('gradient_clip'):
            for p, g in params_grads:
                if g is None:
                    continue
                if self._skip(p):
                    out.append((p, g))
                    continue
                with p.block.program._optimized_guard([p, g]):
                    new_grad = self._clip_one(g)
                out.append((p, new_grad))
                new_names[p.name] = new_grad.name
        _correct_clip_op_role_var(out, new_names)
        return out

    def _process_context(self, context, param, grad):
        pass

    def _create_operators(self, param, grad):
        return param, self._clip_one(grad)


class GradientClipByValue(_PerGradientClip):
    """Clips every gradient element to [min, max]; min defaults to -max (max must then be positive)."""

    def __init__(self, max, min=None, need_clip=None):
        super().__init__(need_clip)
        if min is None:
            if not max > 0.0:
                raise AssertionError('GradientClipByValue: max must be positive when min is not given, got %r' % max)
            min = -max
        self.max = float(max)
        self.min = float(min)

    def __str__(self):
        return 'Gradient Clip By Value, min = %f, max=%f' % (self.min, self.max)

    def _clip_one(self, grad):
        return _append('clip', {'X': [grad]}, {'min': self.min, 'max': self.max}, var_type=grad.type)


class GradientClipByNorm(_PerGradientClip):
    """Scales each gradient to L2 norm at most clip_norm."""

    def __init__(self, clip_norm, need_clip=None):
        super().__init__(need_clip)
        self.clip_norm = float(clip_norm)

    def __str__(self):
        return 'Gradient Clip By Norm, clip_norm=%f' % self.clip_norm

    def _clip_one(self, grad):
        return _append('clip_by_norm', {'X': [grad]}, {'max_norm': self.clip_norm}, var_type=grad.type)


class GradientClipByGlobalNorm(GradientClipBase):
    """Scales all gradients by clip_norm / max(global_norm, clip_norm), global_norm over every clipped gradient."""

    def __init__(self, clip_norm, group_name='default_group', need_clip=None):
        super().__init__(need_clip)
        self.clip_norm = float(clip_norm)
        self.group_name = group_name

    def __str__(self):
        return 'Gradient Clip By GlobalNorm, global_norm=%f' % self.clip_norm

    # the steps that differ between 1.x and 2.x
    def _sum_square(self, grad):
        return _square_sum(grad)

    def _scale_dtype(self, sum_squares):
        return VarType.FP32

    def _scale_grad(self, param, grad, scale):
        return elementwise_mul(grad, scale)

    def _static_clip(self, params_grads):
        sum_squares = []
        out, new_names = [], {}
        p = g = None
        with name_scope('gradient_clip'):
            for p, g in params_grads:
                if g is None or self._skip(p):
                    continue
                with p.block.program._optimized_guard([p, g]):
                    sum_squares.append(self._sum_square(_merged_dense(g)))
            if not sum_squares:
                return params_grads
            with p.block.program._optimized_guard([p, g]):
                scale = _global_scale(sum_squares, self.clip_norm, self._scale_dtype(sum_squares))
            for p, g in params_grads:
                if g is None:
                    continue
                if self._skip(p):
                    out.append((p, g))
                    continue
                with p.block.program._optimized_guard([p, g]):
                    new_grad = self._scale_grad(p, g, scale)
                new_names[p.name] = new_grad.name
                out.append((p, new_grad))
        _correct_clip_op_role_var(out, new_names)
        return out

    def _process_context(self, context, param, grad):
        if self.group_name not in context:
            context[self.group_name] = []
            context[self.group_name + '_clip_value'] = self.clip_norm
            context[self.group_name + '_clip'] = _fill_constant(self.clip_norm, self._scale_dtype([grad]))
        elif self.clip_norm != context[self.group_name + '_clip_value']:
            raise ValueError("All parameters' 'clip_norm' of a same group should be the same")
        context[self.group_name].append(self._sum_square(_merged_dense(grad)))
        self.context = context

    def _create_operators(self, param, grad):
        scale_name = self.group_name + '_scale'
        if scale_name not in self.context:
            total = _append('sum', {'X': list(self.context[self.group_name])}, {'use_mkldnn': False})
            norm = _append('sqrt', {'X': [total]})
            limit = self.context[self.group_name + '_clip']
            self.context[scale_name] = elementwise_div(limit, elementwise_max(limit, norm))
        return param, self._scale_grad(param, grad, self.context[scale_name])


ClipByValue = GradientClipByValue
ClipByNorm = GradientClipByNorm
ClipByGlobalNorm = GradientClipByGlobalNorm


# --- the 2.x names (paddle.nn.ClipGradBy*): need_clip comes from ParamAttr ---------------------------------------

class ClipGradBase(GradientClipBase):
    def __init__(self):
        super().__init__(None)

    def _skip(self, param) -> bool:
        return getattr(param, 'need_clip', True) is False


class ClipGradByValue(ClipGradBase, GradientClipByValue):
    """paddle.nn.ClipGradByValue(max, min=None)."""

    def __init__(self, max, min=None):
        GradientClipByValue.__init__(self, max, min)

    def __str__(self):
        return 'Clip Gradient By Value, min = %f, max=%f' % (self.min, self.max)


class ClipGradByNorm(ClipGradBase, GradientClipByNorm):
    """paddle.nn.ClipGradByNorm(clip_norm)."""

    def __init__(self, clip_norm):
        GradientClipByNorm.__init__(self, clip_norm)

    def __str__(self):
        return 'Gradient Clip By Norm, clip_norm=%f' % self.clip_norm


class ClipGradByGlobalNorm(ClipGradBase, GradientClipByGlobalNorm):
    """paddle.nn.ClipGradByGlobalNorm(clip_norm, group_name, auto_skip_clip): squared_l2_norm per gradient, and
    the scale multiplies each gradient in place (Paddle 2.2+). auto_skip_clip only matters in dynamic mode."""

    def __init__(self, clip_norm, group_name='default_group', auto_skip_clip=False):
        GradientClipByGlobalNorm.__init__(self, clip_norm, group_name)
        if not isinstance(auto_skip_clip, bool):
            raise TypeError('auto_skip_clip must be a bool, got %r' % (auto_skip_clip,))
        self.auto_skip_clip = auto_skip_clip

    def _sum_square(self, grad):
        return _squared_l2_norm(grad)

    def _scale_dtype(self, sum_squares):
        return sum_squares[0].dtype

    def _scale_grad(self, param, grad, scale):
        default_main_program().current_block().append_op('elementwise_mul', {'X': [grad], 'Y': [scale]},
                                                         {'Out': [grad]}, {'axis': -1})
        return grad


# --- set_gradient_clip: clip attributes on the parameters, applied when no optimizer grad_clip is given -----------

def set_gradient_clip(clip, param_list=None, program=None) -> None:
    """Attaches `clip` to the parameters (all of the program's by default); used by the next `minimize` whose
    optimizer has no grad_clip of its own."""
    warnings.warn("Caution! 'set_gradient_clip' is not recommended and may be deprecated in future! We recommend a "
                  "new strategy: set 'grad_clip' when initializing the 'optimizer'. This method can reduce the "
                  "mistakes, please refer to documention of 'optimizer'.")
    if not isinstance(clip, GradientClipBase):
        raise TypeError("'clip' should be an instance of GradientClipBase's derived class")
    program = default_main_program() if program is None else program
    for op in program.block(0).ops:
        if 'optimizer' in op.attrs.get('op_namescope', ''):
            warnings.warn("'minimize' has been invoked before, this will make 'set_gradient_clip' be ineffective! "
                          "Please invoke 'set_gradient_clip' before 'minimize'.")
            break
    if param_list is None:
        param_list = program.block(0).all_parameters()
    if all(isinstance(p, str) for p in param_list):
        param_list = [program.block(0).var(p) for p in param_list]
    if not all(isinstance(p, Parameter) for p in param_list):
        raise TypeError("'param_list' should be a list of Parameter or basestring(parameter's name).")
    for param in param_list:
        param.gradient_clip_attr = copy.deepcopy(clip)


def append_gradient_clip_ops(param_grads):
    """Applies the clip attributes `set_gradient_clip` put on the parameters. Like Paddle 1.8, nothing happens
    unless the first parameter with a gradient has one, and the last parameter's clip builds every gradient's ops."""
    context: dict = {}
    clip_attr = None
    for p, g in param_grads:
        if g is None:
            continue
        with p.block.program._optimized_guard([p, g]), name_scope('gradient_clip_@CLIP'):
            clip_attr = getattr(p, 'gradient_clip_attr', None)
            if clip_attr is None:
                return param_grads
            if not isinstance(clip_attr, GradientClipBase):
                raise TypeError('clip attribute should be an instance of GradientClipBase')
            clip_attr._process_context(context=context, param=p, grad=g)
    if clip_attr is None:
        return param_grads
    res, new_names = [], {}
    for p, g in param_grads:
        if g is None:
            continue
        with p.block.program._optimized_guard([p, g]), name_scope('graident_clip_@CLIP'):
            param, new_grad = clip_attr._create_operators(param=p, grad=g)
            new_names[param.name] = new_grad.name
            res.append([param, new_grad])
    _correct_clip_op_role_var(res, new_names)
    return res


def _correct_clip_op_role_var(params_grads, param_new_grad_name_dict) -> None:
    """The clip ops of a parameter name its clipped gradient in op_role_var (what data-parallel passes read)."""
    if not param_new_grad_name_dict:
        return
    seen_programs = set()
    for param, grad in params_grads:
        if grad is None:
            continue
        program = param.block.program
        if id(program) in seen_programs:
            continue
        seen_programs.add(id(program))
        for op in program.global_block().ops:
            role_var = op.attrs.get('op_role_var')
            if 'gradient_clip' in op.attrs.get('op_namescope', '') and role_var:
                param_name = role_var[0]
                if param_name in param_new_grad_name_dict:
                    op.attrs['op_role_var'] = [param_name, param_new_grad_name_dict[param_name]]
