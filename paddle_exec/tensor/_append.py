"""The one helper the 2.x function modules share: append one op through a LayerHelper named like Paddle's (the
helper's name becomes the outputs' prefix, `trace_0.tmp_0`) and return its outputs."""
from __future__ import annotations

from ..layers.helper import LayerHelper


def append_op(op_type: str, inputs: dict, outputs: dict, attrs: dict | None = None, name=None,
              helper_name: str | None = None):
    """outputs: slot -> dtype (one variable) or slot -> [dtype, ...] (a list); returns the output variables in the
    order given, a single one unwrapped."""
    helper = LayerHelper(helper_name or op_type, name=name)
    created, slots = [], {}
    for slot, dtype in outputs.items():
        if isinstance(dtype, list):
            vars_ = [helper.create_variable_for_type_inference(d) for d in dtype]
            slots[slot] = vars_
            created.append(vars_)
        else:
            var = helper.create_variable_for_type_inference(dtype)
            slots[slot] = [var]
            created.append(var)
    helper.append_op(op_type, {k: (v if isinstance(v, list) else [v]) for k, v in inputs.items() if v is not None},
                     slots, attrs or {})
    return created[0] if len(created) == 1 else created
