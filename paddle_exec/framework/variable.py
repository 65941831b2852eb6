"""Variables of the static graph: `Variable` (a named, typed slot of a Block) and `Parameter`.

A Variable carries only compile-time facts (shape with -1 for unknown dims, dtype, persistable, stop_gradient,
lod_level); values live in scopes and in the executor's slots. The operators (`+ - * / @`, comparisons, unary
minus, indexing, `astype`) append ops to the variable's block; Variable inherits them from
`variable_ops.VariableOperators`, which holds what Paddle's math_op_patch does, so this module stays free of op
knowledge.
"""
from __future__ import annotations

from .dtype import VarType, to_var_type
from .variable_ops import VariableOperators


class Variable(VariableOperators):
    def __init__(self, block, name: str, shape=None, dtype=None, type=VarType.LOD_TENSOR, persistable: bool = False,
                 stop_gradient: bool = False, lod_level: int = 0, need_check_feed: bool = False,
                 is_data: bool = False, error_clip=None, **kwargs):
        self.block = block
        self.name = name
        self._shape = None if shape is None else tuple(int(d) if d is not None else -1 for d in shape)
        self._dtype = None if dtype is None else to_var_type(dtype)
        self.type = type
        self.persistable = persistable
        self.stop_gradient = stop_gradient
        self.lod_level = lod_level
        self.need_check_feed = need_check_feed
        self.is_data = is_data
        self.error_clip = error_clip

    @property
    def shape(self) -> tuple:
        return self._shape if self._shape is not None else ()

    @shape.setter
    def shape(self, value):
        self._shape = tuple(int(d) for d in value)

    @property
    def dtype(self) -> VarType:
        return self._dtype if self._dtype is not None else VarType.FP32

    @dtype.setter
    def dtype(self, value):
        self._dtype = to_var_type(value)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def has_shape(self) -> bool:
        return self._shape is not None

    @property
    def program(self):
        return self.block.program

    def desc_type(self) -> str:
        return self.type.name

    def _kind(self) -> str:
        return 'var'

    @property
    def grad_name(self) -> str:
        """The name the gradient of this variable gets (it need not exist)."""
        return grad_var_name(self.name)

    def _to_readable_code(self) -> str:
        """Paddle 2.x's format, dtype spelled as its VarType name:
        `var x : LOD_TENSOR.shape(-1, 3).dtype(FP32).stop_gradient(True)`."""
        if self.type in (VarType.LOD_TENSOR, VarType.SELECTED_ROWS):
            text = '%s : %s.shape%s.dtype(%s).stop_gradient(%s)' % (
                self.name, self.type.name, self.shape, self.dtype.name, self.stop_gradient)
        else:
            text = '%s : %s)' % (self.name, self.type.name)
        text = self._kind() + ' ' + text
        return 'persist ' + text if self.persistable else text

    def __str__(self):
        return self._to_readable_code()

    __repr__ = __str__

    def to_string(self, throw_on_error=True, with_details=False) -> str:
        return self._to_readable_code()

    def __hash__(self):
        return id(self)

    def __bool__(self):
        raise TypeError('a static-graph Variable (%r) has no truth value at build time; '
                        'use paddle_exec.static.nn.cond or compute it with the executor' % self.name)

    def __len__(self):
        if not self.shape or self.shape[0] < 0:
            raise TypeError('len() of Variable %r with unknown first dimension' % self.name)
        return self.shape[0]


class Parameter(Variable):
    """A persistable, trainable Variable: weights. Carries its optimizer attributes."""

    def __init__(self, block, name, shape, dtype, trainable: bool = True, optimize_attr=None, regularizer=None,
                 do_model_average=None, need_clip: bool = True, initializer=None, gradient_clip_attr=None, **kwargs):
        kwargs.setdefault('persistable', True)
        super().__init__(block, name, shape=shape, dtype=dtype, **kwargs)
        self.trainable = trainable
        self.stop_gradient = not trainable
        self.optimize_attr = optimize_attr or {'learning_rate': 1.0}
        self.regularizer = regularizer
        self.do_model_average = do_model_average
        self.need_clip = need_clip
        self.initializer = initializer
        self.gradient_clip_attr = gradient_clip_attr

    def _kind(self) -> str:
        return 'trainable param' if self.trainable else 'param'


def grad_var_name(name: str) -> str:
    """Paddle's gradient naming: `x` -> `x@GRAD`."""
    return name + '@GRAD'


GRAD_SUFFIX = '@GRAD'
EMPTY_VAR_NAME = '@EMPTY@'
