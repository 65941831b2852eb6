"""`paddle-exec export PATH --onnx out.onnx`: a saved inference model written as ONNX (paddle2onnx's job, without
Paddle installed).

The model is loaded as `run` loads it (common.locate_model), its program pruned to what the fetches need and
converted op by op (paddle_exec/onnx); the graph is opset 13, checked with onnx.checker, feeds keep their names and
dynamic dims, fetches keep theirs. `--check` runs the result in onnxruntime on random feeds next to paddle_exec
and reports the largest difference. An op with no ONNX rule stops the export with the op types named.
"""
from __future__ import annotations

import argparse

import numpy as np

from .. import onnx as pe_onnx
from .. import static
from ..framework.dtype import to_numpy
from .common import CliError, load_inference, locate_model, progress

EXAMPLES = """examples:
  paddle-exec export tests/golden/models/mlp_v18 --onnx mlp.onnx
  paddle-exec export tests/golden/models/cnn_v18 --onnx cnn.onnx --check
"""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        'export', help='convert a saved inference model to ONNX (the onnx extra)',
        description='Convert a saved inference model (Paddle 1.8 __model__, Paddle 2.x .pdmodel, or saved by '
                    'paddle_exec) to an ONNX model, opset 13. Needs the onnx package (pip install '
                    "'paddle_exec[onnx]'); --check also needs onnxruntime.",
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('path', metavar='PATH', help='the saved model (as for inspect)')
    p.add_argument('--onnx', required=True, metavar='OUT.onnx', help='where to write the ONNX model')
    p.add_argument('--check', action='store_true',
                   help='run the ONNX model in onnxruntime on random feeds and compare with paddle_exec')
    p.add_argument('--batch', type=int, default=2, help='batch size of the --check feeds (default: 2)')
    p.add_argument('--model-filename', help='the model file inside PATH (default: __model__ or the one .pdmodel)')
    p.add_argument('--params-filename', help='the combined parameter file inside a 1.8 model folder')
    p.set_defaults(handler=run)


def random_feeds(program, feed_names, batch: int, seed: int = 0) -> dict:
    """Arrays for every feed: floats in [0, 1), integers in [0, 2) (valid ids for any embedding), -1 dims = batch."""
    rng = np.random.RandomState(seed)
    block = program.global_block()
    feeds = {}
    for name in feed_names:
        var = block.var(name)
        shape = [batch if d < 0 else d for d in var.shape]
        dtype = np.dtype(to_numpy(var.dtype))
        feeds[name] = (rng.rand(*shape).astype(dtype) if dtype.kind == 'f'
                       else rng.randint(0, 2, shape).astype(dtype))
    return feeds


def run(args: argparse.Namespace) -> int:
    model = locate_model(args.path, args.model_filename, args.params_filename)
    exe = static.Executor(static.CPUPlace())
    scope = static.Scope()
    with static.scope_guard(scope):
        program, feed_names, fetch_vars = load_inference(model, exe)
    try:
        onnx_model = pe_onnx.export_model(program, feed_names, fetch_vars, scope, args.onnx,
                                          progress=lambda ops: progress(ops, desc='ops'))
    except pe_onnx.OnnxExportError as exc:
        raise CliError('cannot export %s: %s' % (model.model_file, exc)) from exc
    except pe_onnx.OnnxUnavailable as exc:
        raise CliError(str(exc)) from exc
    print('wrote %s: %d nodes, %d initializers, opset %d; inputs %s, outputs %s'
          % (args.onnx, len(onnx_model.graph.node), len(onnx_model.graph.initializer), pe_onnx.OPSET,
             ', '.join(feed_names), ', '.join(v.name for v in fetch_vars)))
    if args.check:
        check(program, feed_names, fetch_vars, scope, exe, args.onnx, args.batch)
    exe.close()
    return 0


def check(program, feed_names, fetch_vars, scope, exe, onnx_path: str, batch: int) -> None:
    try:
        import onnxruntime
    except ImportError as exc:
        raise CliError("--check needs onnxruntime (pip install 'paddle_exec[onnx]')") from exc
    feeds = random_feeds(program, feed_names, batch)
    with static.scope_guard(scope):
        ours = exe.run(program, feed=feeds, fetch_list=fetch_vars)
    session = onnxruntime.InferenceSession(onnx_path, providers=['CPUExecutionProvider'])
    theirs = session.run([v.name for v in fetch_vars], feeds)
    for var, a, b in zip(fetch_vars, ours, theirs):
        diff = float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)))) if np.size(a) else 0.0
        scale = float(np.max(np.abs(a))) if np.size(a) else 0.0
        print('check %s: onnxruntime vs paddle_exec on random feeds (batch %d): max |diff| %.3g (max |value| %.3g)'
              % (var.name, batch, diff, scale))
        if not np.allclose(a, b, rtol=1e-4, atol=1e-5):
            raise CliError('onnxruntime and paddle_exec differ on %s by %.3g' % (var.name, diff))
