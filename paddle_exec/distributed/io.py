"""paddle.distributed.io: Paddle 2.6's static-mode saving and loading of a trainer's persistables, mapped onto
paddle.static's (static/var_files.py, static/inference_model.py); no second implementation.

    dist.io.save_persistables(exe, 'ckpt', main_program)
    dist.io.load_persistables(exe, 'ckpt', main_program)
    program, feeds, fetches = dist.io.load_inference_model_distributed('model_dir', exe)

In collective training every trainer holds the same persistables, so any trainer (usually trainer 0) saves them.
`pserver_endpoints` names parameter servers, which paddle_exec does not run: it is refused.
"""
from __future__ import annotations

from ..static.inference_model import load_inference_model
from ..static.var_files import is_persistable, load_persistables, save_persistables

__all__ = ['is_persistable', 'save_persistables', 'load_persistables', 'load_inference_model_distributed']


def load_inference_model_distributed(dirname, executor, model_filename=None, params_filename=None,
                                     pserver_endpoints=None) -> list:
    """[program, feed names, fetch Variables] of a model fluid.io.save_inference_model saved in `dirname`, its
    parameters loaded into the global scope (Paddle 2.6's load_inference_model_distributed without pservers)."""
    if pserver_endpoints:
        raise NotImplementedError('load_inference_model_distributed: pserver_endpoints %s: parameter-server '
                                  'training is not supported by paddle_exec (docs/distributed.md); load the '
                                  'parameters from the files' % (pserver_endpoints,))
    return load_inference_model(dirname, executor, model_filename, params_filename)
