"""fluid.transpiler (Paddle 1.8's module path).

The parameter-server transpiler (DistributeTranspiler, its config, the HashName / RoundRobin dispatchers) is
declined: reaching one raises AttributeError with the reason (paddle_exec/_declined.py, docs/compatibility.md).
memory_optimize and release_memory are what they are in 1.8, deprecated no-ops (memory is freed by the plan's
last-use lists here).
"""
from ..._declined import declined_getattr
from . import collective, distribute_transpiler, geo_sgd_transpiler, memory_optimization_transpiler, ps_dispatcher
from .memory_optimization_transpiler import memory_optimize, release_memory

__all__ = ['memory_optimize', 'release_memory']

__getattr__ = declined_getattr(__name__)
