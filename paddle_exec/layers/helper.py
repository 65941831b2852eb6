"""LayerHelper: what every builder uses to name things, create parameters and temporaries, and append ops.

Naming follows Paddle: a helper for layer type `fc` is called `fc_N` (unique_name), its parameters
`fc_N.w_K` / `fc_N.b_K`, its temporaries `fc_N.tmp_K`. A parameter appears twice, as Paddle does it: in the startup
program with its initializer op, and in the main program without one.

`named_output` and `unnamed_variable` are Paddle's two other ways of naming an output: exactly the `name` the
caller gave, and `_generated_var_K` (LayerHelper.create_variable without a name).
"""
from __future__ import annotations

from ..framework import unique_name
from ..framework.dtype import VarType, to_var_type
from ..framework.program import default_main_program, default_startup_program
from ..framework.variable import Variable
from ..initializer import ConstantInitializer, XavierInitializer, global_initializer
from ..param_attr import ParamAttr


class LayerHelper:
    def __init__(self, layer_type: str, **kwargs):
        self.kwargs = kwargs
        self.layer_type = layer_type
        name = kwargs.get('name')
        self.name = unique_name.generate(layer_type) if name is None else name

    @property
    def main_program(self):
        return default_main_program()

    @property
    def startup_program(self):
        return default_startup_program()

    @property
    def block(self):
        return self.main_program.current_block()

    def append_op(self, type, inputs=None, outputs=None, attrs=None):
        return self.block.append_op(type, inputs, outputs, attrs)

    def create_variable_for_type_inference(self, dtype=VarType.FP32, stop_gradient: bool = False,
                                           shape=None) -> Variable:
        return self.block.create_var(name=unique_name.generate_with_ignorable_key(self.name + '.tmp'),
                                     dtype=dtype, shape=shape, persistable=False, stop_gradient=stop_gradient)

    create_tmp_variable = create_variable_for_type_inference

    def create_variable(self, *args, **kwargs) -> Variable:
        return self.block.create_var(*args, **kwargs)

    def create_global_variable(self, persistable: bool = False, *args, **kwargs) -> Variable:
        return self.main_program.global_block().create_var(*args, persistable=persistable, **kwargs)

    def create_parameter(self, attr, shape, dtype=VarType.FP32, is_bias: bool = False, default_initializer=None,
                         stop_gradient: bool = False):
        attr = ParamAttr._to_attr(attr)
        if attr is False:
            return None
        shape = [int(d) for d in shape]
        if any(d <= 0 for d in shape):
            raise ValueError('parameter %s of layer %s needs a fully known positive shape, got %s'
                             % (attr.name or '', self.name, shape))
        if attr.name is None:
            attr.name = unique_name.generate('.'.join([self.name, 'b' if is_bias else 'w']))
        init = attr.initializer or default_initializer
        if init is None:
            init = global_initializer(is_bias)
        if init is None:
            init = ConstantInitializer(0.0) if is_bias else XavierInitializer()
        dtype = to_var_type(dtype)
        startup = self.startup_program.global_block()
        startup.create_parameter(shape=shape, dtype=dtype, initializer=init, **attr._to_kwargs())
        param = self.main_program.global_block().create_parameter(shape=shape, dtype=dtype, **attr._to_kwargs())
        param.initializer = init
        if stop_gradient:
            param.stop_gradient = True
        return param

    def set_variable_initializer(self, var: Variable, initializer) -> Variable:
        startup = self.startup_program.global_block()
        svar = startup.create_var(name=var.name, shape=var.shape, dtype=var.dtype, persistable=True)
        initializer(svar, startup)
        return var

    # --- inputs ----------------------------------------------------------------------------------------------
    def multiple_input(self, input_param_name: str = 'input') -> list[Variable]:
        inputs = self.kwargs.get(input_param_name, [])
        if isinstance(inputs, Variable):
            return [inputs]
        if isinstance(inputs, (list, tuple)):
            for v in inputs:
                if not isinstance(v, Variable):
                    raise TypeError('%s of %s must be Variables, got %s'
                                    % (input_param_name, self.layer_type, type(v).__name__))
            return list(inputs)
        raise TypeError('%s of %s must be a Variable or a list of Variables, got %s'
                        % (input_param_name, self.layer_type, type(inputs).__name__))

    def input(self, input_param_name: str = 'input') -> Variable:
        inputs = self.multiple_input(input_param_name)
        if len(inputs) != 1:
            raise ValueError('%s layer takes only one input' % self.layer_type)
        return inputs[0]

    def input_dtype(self, input_param_name: str = 'input'):
        dtypes = {v.dtype for v in self.multiple_input(input_param_name)}
        if len(dtypes) > 1:
            raise ValueError('the inputs of %s have different data types: %s' % (self.layer_type, sorted(dtypes)))
        return dtypes.pop()

    # --- bias and activation -----------------------------------------------------------------------------------
    def append_bias_op(self, input_var: Variable, dim_start: int = 1, dim_end: int | None = None,
                       bias_attr=None) -> Variable:
        size = list(input_var.shape[dim_start:dim_end])
        bias_attr = self.kwargs.get('bias_attr') if bias_attr is None else bias_attr
        if bias_attr is False:
            return input_var
        b = self.create_parameter(bias_attr, size, input_var.dtype, is_bias=True)
        if b is None:
            return input_var
        out = self.create_variable_for_type_inference(input_var.dtype)
        self.append_op('elementwise_add', {'X': [input_var], 'Y': [b]}, {'Out': [out]}, {'axis': dim_start})
        return out

    def append_activation(self, input_var: Variable, act=None) -> Variable:
        act = self.kwargs.get('act') if act is None else act
        if act is None:
            return input_var
        if isinstance(act, str):
            act = {'type': act}
        act = dict(act)
        act_type = act.pop('type')
        out = self.create_variable_for_type_inference(input_var.dtype)
        self.append_op(act_type, {'X': [input_var]}, {'Out': [out]}, act)
        return out


def named_output(helper, dtype, name=None) -> Variable:
    """The output Variable: a temporary, or exactly `name` when given (Paddle's create_variable branch)."""
    if name is None:
        return helper.create_variable_for_type_inference(dtype)
    return helper.create_variable(name=name, dtype=dtype, persistable=False)


def unnamed_variable(helper: LayerHelper, dtype, stop_gradient: bool = False) -> Variable:
    """Paddle's LayerHelper.create_variable without a name: `_generated_var_K`."""
    return helper.block.create_var(name=unique_name.generate_with_ignorable_key('_generated_var'), dtype=dtype,
                                   stop_gradient=stop_gradient)
