"""fluid.parallel_executor (Paddle 1.8's module path): ParallelExecutor (paddle_exec/executor/parallel.py)."""
from ..executor.parallel import ParallelExecutor

__all__ = ['ParallelExecutor']
