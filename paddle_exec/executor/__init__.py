"""Running programs: configure (config.py) -> compile (compile.py, plan.py, passes/) -> run (runner.py, policies/).

config is imported first: it is the one module that reads the environment, and it fixes the kernels' GIL mode
before any kernel module is imported (kernels/jit.py).
"""
from . import config  # noqa: I001  (first: see above)
from .executor import Executor
