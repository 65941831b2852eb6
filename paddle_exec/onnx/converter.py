"""Program -> ONNX ModelProto: the graph walk, the naming, the constants; the per-op rules live in ops_*.py.

    model = program_to_onnx(program, feed_names, fetch_names, scope)     # an onnx.ModelProto, checked

1. Prune: only the ops the fetches need, walking back from them (as paddle2onnx and save_inference_model do).
2. Inputs: one graph input per feed, typed and shaped from its Variable; every -1 becomes a named dynamic dimension
   (`<feed>.dim<i>`), so a model saved with a free batch size stays free.
3. Initializers: every persistable Variable an op reads, with its value from `scope`.
4. Ops in program order, each by its rule in `CONVERTERS` (filled by `@converts('type', ...)` in ops_math.py,
   ops_nn.py and ops_tensor.py). A rule reads the Paddle op and appends ONNX nodes through the `Context`; ONNX
   tensors keep Paddle's variable names, helper tensors get fresh names. An op with no rule stops the export with
   OnnxExportError naming the op (all such types at once, so a user sees the whole gap).
5. Outputs: one per fetch, typed from its Variable. The model is checked with onnx.checker.

Opset 13 throughout (understood by every current runtime); ops newer than that (GELU, LayerNormalization) are
written as their opset-13 formulas.
"""
from __future__ import annotations

import numpy as np

try:                                    # an optional extra: pip install 'paddle_exec[onnx]'
    import onnx
    from onnx import helper, numpy_helper
except ImportError:                     # pragma: no cover - exercised only where onnx is absent
    onnx = helper = numpy_helper = None

from ..framework.dtype import VarType, to_numpy
from ..framework.variable import EMPTY_VAR_NAME

__all__ = ['OnnxExportError', 'OnnxUnavailable', 'require_onnx', 'Context', 'CONVERTERS', 'converts', 'program_to_onnx',
           'OPSET', 'prune_ops']

OPSET = 13
CONVERTERS: dict = {}
# Paddle ops that carry no computation in an inference graph
SKIPPED_OPS = frozenset({'feed', 'fetch'})


class OnnxExportError(ValueError):
    """The program cannot be written as ONNX; the message names the op or variable concerned."""


class OnnxUnavailable(ImportError):
    """The onnx package is not installed."""


def require_onnx() -> None:
    if onnx is None:
        raise OnnxUnavailable("writing ONNX needs the onnx package: pip install 'paddle_exec[onnx]'")


def converts(*op_types: str):
    """Register a rule `fn(ctx, op)` for the given Paddle op types."""
    def register(fn):
        for op_type in op_types:
            CONVERTERS[op_type] = fn
        return fn
    return register


def onnx_dtype(dtype) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


class Context:
    """The ONNX graph being written: nodes, initializers, and what the Paddle program says about each name."""

    def __init__(self, block, scope):
        self.block = block
        self.scope = scope
        self.nodes: list = []
        self.initializers: dict = {}
        self._counter = 0

    # --- facts about Paddle variables -------------------------------------------------------------------------
    def var(self, name: str):
        var = self.block._find_var_recursive(name)
        if var is None:
            raise OnnxExportError('variable %r is not in the program' % name)
        return var

    def shape(self, name: str) -> list:
        var = self.var(name)
        if not var.has_shape():
            raise OnnxExportError('variable %r has no shape in the program, which the export needs' % name)
        return list(var.shape)

    def rank(self, name: str) -> int:
        return len(self.shape(name))

    def np_dtype(self, name: str) -> np.dtype:
        return np.dtype(to_numpy(self.var(name).dtype))

    def value(self, name: str) -> np.ndarray:
        """The value of a persistable variable, from the scope."""
        holder = self.scope.find_var(name) if self.scope is not None else None
        if holder is None or not holder.is_initialized():
            raise OnnxExportError('parameter %r has no value in the scope: load the model first' % name)
        return np.asarray(holder.get_tensor())

    # --- reading an op ------------------------------------------------------------------------------------------
    @staticmethod
    def has_input(op, slot: str) -> bool:
        return bool([n for n in op.inputs.get(slot, []) if n != EMPTY_VAR_NAME])

    def input(self, op, slot: str, i: int = 0) -> str:
        names = [n for n in op.inputs.get(slot, []) if n != EMPTY_VAR_NAME]
        if len(names) <= i:
            raise OnnxExportError('op %s has no input %s' % (op.type, slot))
        return names[i]

    def inputs(self, op, slot: str) -> list:
        return [n for n in op.inputs.get(slot, []) if n != EMPTY_VAR_NAME]

    def output(self, op, slot: str, i: int = 0) -> str:
        names = op.outputs.get(slot, [])
        if len(names) <= i:
            raise OnnxExportError('op %s has no output %s' % (op.type, slot))
        return names[i]

    @staticmethod
    def attr(op, name: str, default=None):
        return op.attrs.get(name, default)

    # --- writing nodes ------------------------------------------------------------------------------------------
    def fresh(self, hint: str) -> str:
        self._counter += 1
        return '%s@onnx_%d' % (hint, self._counter)

    def node(self, op_type: str, inputs: list, outputs=None, hint: str = 'tmp', **attrs):
        """Append a node; `outputs` None: one fresh output. Returns the output name (or the list, for several)."""
        if outputs is None:
            outputs = [self.fresh(hint)]
        elif isinstance(outputs, str):
            outputs = [outputs]
        self.nodes.append(helper.make_node(op_type, list(inputs), list(outputs), name=self.fresh(op_type), **attrs))
        return outputs[0] if len(outputs) == 1 else list(outputs)

    def const(self, value, dtype=None, hint: str = 'const') -> str:
        array = np.asarray(value, dtype=dtype)
        name = self.fresh(hint)
        self.initializers[name] = numpy_helper.from_array(array, name)
        return name

    def ints(self, values, hint: str = 'ints') -> str:
        return self.const(np.asarray(list(values), dtype=np.int64), hint=hint)

    def scalar_like(self, value: float, like: str) -> str:
        """A 0-d constant of `like`'s dtype (broadcasts against anything)."""
        return self.const(np.asarray(value, dtype=self.np_dtype(like)), hint='scalar')

    def reshape(self, x: str, shape, out=None) -> str:
        return self.node('Reshape', [x, self.ints(shape)], out, hint='reshape')

    def identity(self, x: str, out: str) -> str:
        return self.node('Identity', [x], out)

    def shape_of(self, x: str, start: int = 0, end: int | None = None) -> str:
        """An int64 tensor of x's dims [start:end] at run time."""
        shape = self.node('Shape', [x], hint='shape')
        if start == 0 and end is None:
            return shape
        end = end if end is not None else 2 ** 62
        return self.node('Slice', [shape, self.ints([start]), self.ints([end])], hint='dims')

    def add_parameter(self, name: str) -> None:
        if name not in self.initializers:
            self.initializers[name] = numpy_helper.from_array(self.value(name), name)


# --- the program walk ---------------------------------------------------------------------------------------------

def prune_ops(block, fetch_names) -> list:
    """The ops the fetches need, in program order."""
    needed = set(fetch_names)
    kept = []
    for op in reversed(block.ops):
        if op.type in SKIPPED_OPS:
            continue
        if needed & set(op.output_arg_names):
            kept.append(op)
            needed |= set(op.input_arg_names)
    return kept[::-1]


def _value_info(ctx: Context, name: str, dynamic_prefix: str):
    var = ctx.var(name)
    dims = [d if d >= 0 else '%s.dim%d' % (dynamic_prefix, i) for i, d in enumerate(var.shape)] \
        if var.has_shape() else None
    return helper.make_tensor_value_info(name, onnx_dtype(to_numpy(var.dtype)), dims)


def program_to_onnx(program, feed_names, fetch_names, scope, producer: str = 'paddle_exec',
                    graph_name: str = 'paddle_exec', progress=None) -> onnx.ModelProto:
    """The ONNX model of `program` from the feeds to the fetches, parameters from `scope`. `progress`, when given,
    wraps the list of ops (a tqdm bar in the command)."""
    require_onnx()
    block = program.global_block()
    fetch_names = [getattr(n, 'name', n) for n in fetch_names]
    feed_names = list(feed_names)
    ops = prune_ops(block, fetch_names)
    missing = sorted({op.type for op in ops if op.type not in CONVERTERS})
    if missing:
        raise OnnxExportError('no ONNX mapping for op%s %s (used by this model); the ops with a mapping are listed by '
                              '`paddle_exec.onnx.supported_ops()`' % ('s' if len(missing) > 1 else '',
                                                                        ', '.join(missing)))
    ctx = Context(block, scope)
    produced = set(feed_names)
    for op in ops:
        for name in op.input_arg_names:
            if name in produced or name == EMPTY_VAR_NAME:
                continue
            var = block._find_var_recursive(name)
            if var is not None and var.persistable and var.type not in (VarType.FEED_MINIBATCH, VarType.FETCH_LIST):
                ctx.add_parameter(name)
            elif var is not None and not var.persistable:
                raise OnnxExportError('op %s reads %r, which is neither fed nor computed by an earlier op; add it '
                                      'to the feeds' % (op.type, name))
        produced.update(op.output_arg_names)
    for name in fetch_names:
        if name not in produced and name not in ctx.initializers:
            raise OnnxExportError('fetch %r is not computed from the feeds %s' % (name, feed_names))
    for op in (progress(ops) if progress is not None else ops):
        try:
            CONVERTERS[op.type](ctx, op)
        except OnnxExportError:
            raise
        except Exception as exc:
            raise OnnxExportError('cannot convert op %s: %s' % (op.describe(), exc)) from exc
    inputs = [_value_info(ctx, n, n) for n in feed_names]
    outputs = [_value_info(ctx, n, n) for n in fetch_names]
    graph = helper.make_graph(ctx.nodes, graph_name, inputs, outputs, initializer=list(ctx.initializers.values()))
    model = helper.make_model(graph, producer_name=producer, opset_imports=[helper.make_opsetid('', OPSET)])
    model.ir_version = min(model.ir_version, 8)       # readable by onnxruntime releases back to 1.10
    onnx.checker.check_model(model)
    return model

