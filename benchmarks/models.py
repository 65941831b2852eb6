"""The benchmark models: the one copy lives in the package (paddle_exec/cli/models.py), shared with `paddle-exec
bench` and `tune`; this module keeps benchmarks' `from . import models; models.MODELS[name]` working."""
from paddle_exec.cli.models import MODELS, deepfm, fc_regression, mlp

__all__ = ['MODELS', 'fc_regression', 'mlp', 'deepfm']
