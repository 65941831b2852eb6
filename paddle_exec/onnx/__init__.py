"""paddle_exec.onnx: inference programs (Paddle 1.8 / 2.x saved models, or programs built here) written as ONNX.

    from paddle_exec import onnx as pe_onnx
    model = pe_onnx.program_to_onnx(program, feed_names, fetch_vars, scope)    # an onnx.ModelProto
    pe_onnx.export_model('tests/golden/models/mlp_v18', 'mlp.onnx')          # a saved model, by path

Needs the `onnx` package (`pip install 'paddle_exec[onnx]'`); `onnxruntime` runs the result. converter.py is the
graph walk and its design; ops_math.py, ops_nn.py and ops_tensor.py hold one rule per Paddle op type.
"""
from __future__ import annotations

import os

from .. import static
from . import ops_math, ops_nn, ops_tensor  # noqa: F401  (each registers its rules in CONVERTERS)
from .converter import CONVERTERS, OPSET, OnnxExportError, OnnxUnavailable, onnx, program_to_onnx, prune_ops

__all__ = ['program_to_onnx', 'export_model', 'load_and_export', 'supported_ops', 'OnnxExportError', 'OnnxUnavailable',
           'OPSET', 'prune_ops']


def supported_ops() -> list:
    """The Paddle op types with an ONNX rule."""
    return sorted(CONVERTERS)


def export_model(program, feed_names, fetch_vars, scope, path: str, progress=None):
    """Write the ONNX model of an inference program to `path` (atomically) and return it."""
    model = program_to_onnx(program, feed_names, fetch_vars, scope, progress=progress)
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    tmp = path + '.tmp'
    onnx.save(model, tmp)
    os.replace(tmp, path)
    return model


def load_and_export(model_path: str, out_path: str, params_filename: str | None = None,
                    model_filename: str | None = None, progress=None):
    """Load a saved inference model (as static.load_inference_model takes it) and write it as ONNX."""
    exe = static.Executor(static.CPUPlace())
    scope = static.Scope()
    with static.scope_guard(scope):
        program, feed_names, fetch_vars = static.load_inference_model(
            model_path, exe, model_filename=model_filename, params_filename=params_filename)
    exe.close()
    return export_model(program, feed_names, fetch_vars, scope, out_path, progress=progress)
