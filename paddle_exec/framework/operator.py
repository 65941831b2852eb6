"""Operators: one op of a Block, with named input/output slots holding variable names, and attributes.

The op's schema (which slots and attributes exist, their defaults) comes from `framework/registry.py`, which
`paddle_exec.ops` fills; the Operator only stores what the builder gave it. Every op also carries Paddle's
bookkeeping attributes `op_role` (forward 0, backward 1, optimize 2, loss 256 combined by `|`), `op_role_var` and
`op_namescope`.

Slot names are listed in sorted order (`input_names`, `input_arg_names`, ...) because Paddle's OpDesc keeps its
slots in a sorted map; printing (`_to_readable_code`) follows Paddle 2.x's format:
`{Out=['fc_0.tmp_0']} = mul(inputs={X=['x'], Y=['fc_0.w_0']}, op_namescope = /, ..., y_num_col_dims = 1)`.
"""
from __future__ import annotations

import enum


class OpRole(enum.IntEnum):
    Forward = 0x0000
    Backward = 0x0001
    Optimize = 0x0002
    RPC = 0x0004
    Dist = 0x0008
    LRSched = 0x0010
    Loss = 0x0100


OP_ROLE_ATTR = 'op_role'
OP_ROLE_VAR_ATTR = 'op_role_var'
BOOKKEEPING_ATTRS = ('op_role', 'op_role_var', 'op_namescope', 'op_callstack', 'op_device')


def _names(value) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, (list, tuple)):
        value = [value]
    return [v if isinstance(v, str) else v.name for v in value if v is not None]


class Operator:
    def __init__(self, block, type: str, inputs=None, outputs=None, attrs=None):
        self.block = block
        self.type = type
        self.inputs: dict[str, list[str]] = {k: _names(v) for k, v in (inputs or {}).items()}
        self.outputs: dict[str, list[str]] = {k: _names(v) for k, v in (outputs or {}).items()}
        self.attrs: dict = dict(attrs or {})

    # --- Paddle's Operator surface ---------------------------------------------------------------------------
    def input(self, name: str) -> list[str]:
        return list(self.inputs.get(name, []))

    def output(self, name: str) -> list[str]:
        return list(self.outputs.get(name, []))

    @property
    def input_names(self) -> list[str]:
        return sorted(self.inputs)

    @property
    def output_names(self) -> list[str]:
        return sorted(self.outputs)

    @property
    def input_arg_names(self) -> list[str]:
        return [n for slot in sorted(self.inputs) for n in self.inputs[slot]]

    @property
    def output_arg_names(self) -> list[str]:
        return [n for slot in sorted(self.outputs) for n in self.outputs[slot]]

    @property
    def attr_names(self) -> list[str]:
        return sorted(self.attrs)

    def attr(self, name: str):
        if name not in self.attrs:
            raise ValueError("Attribute %s is not found in operator '%s'" % (name, self.type))
        return self.attrs[name]

    def has_attr(self, name: str) -> bool:
        return name in self.attrs

    def all_attrs(self) -> dict:
        return dict(self.attrs)

    def _set_attr(self, name: str, value) -> None:
        self.attrs[name] = value
        self.block.program._bump()

    set_attr = _set_attr

    def _rename_input(self, old: str, new: str) -> None:
        for names in self.inputs.values():
            names[:] = [new if n == old else n for n in names]
        self.block.program._bump()

    def _rename_output(self, old: str, new: str) -> None:
        for names in self.outputs.values():
            names[:] = [new if n == old else n for n in names]
        self.block.program._bump()

    @property
    def idx(self) -> int:
        return self.block.ops.index(self)

    def _to_readable_code(self, skip_op_callstack: bool = True) -> str:
        outputs = ', '.join('%s=%s' % (k, self.outputs[k]) for k in self.output_names)
        inputs = ', '.join('%s=%s' % (k, self.inputs[k]) for k in self.input_names)
        attrs = ', '.join('%s = %s' % (k, self.attrs[k]) for k in self.attr_names
                          if not (skip_op_callstack and k == 'op_callstack'))
        call = '%s(inputs={%s}, %s)' % (self.type, inputs, attrs)
        return '{%s} = %s' % (outputs, call) if outputs else call

    def __str__(self):
        return self._to_readable_code()

    __repr__ = __str__

    def to_string(self, throw_on_error=True) -> str:
        return self._to_readable_code()

    def _is_backward_op(self) -> bool:
        return bool(self.attrs.get(OP_ROLE_ATTR, 0) & OpRole.Backward)

    def _is_optimize_op(self) -> bool:
        return bool(self.attrs.get(OP_ROLE_ATTR, 0) & OpRole.Optimize)

    def describe(self) -> str:
        """One line naming the op and its variables, for error messages."""
        ins = ', '.join('%s=%s' % (k, v) for k, v in self.inputs.items())
        outs = ', '.join('%s=%s' % (k, v) for k, v in self.outputs.items())
        return "operator '%s' (inputs: %s; outputs: %s)" % (self.type, ins, outs)
