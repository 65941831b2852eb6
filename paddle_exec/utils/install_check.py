"""paddle.utils.install_check: run_check, which trains a tiny linear model once on one CPU place and once with
data parallelism over two, and says whether paddle_exec works, in Paddle's words."""
from __future__ import annotations

import numpy as np

from ..executor import Executor
from ..executor.parallel import CompiledProgram
from ..executor.places import cpu_places
from ..framework.program import Program, program_guard
from ..framework.scope import Scope, scope_guard
from ..framework.unique_name import guard as unique_name_guard
from ..layers.common import fc
from ..layers.io import data_v2
from ..layers.math import mean
from ..optimizer.optimizers import SGD

__all__ = ['run_check']


def _train(n_places: int) -> float:
    main, startup = Program(), Program()
    with program_guard(main, startup), unique_name_guard():
        x = data_v2('inp', [None, 2], 'float32')
        loss = mean(fc(x, 1))
        SGD(learning_rate=0.01).minimize(loss)
    exe = Executor(cpu_places(1)[0])
    with scope_guard(Scope()):
        exe.run(startup)
        program = main
        if n_places > 1:
            program = CompiledProgram(main).with_data_parallel(loss_name=loss.name, places=cpu_places(n_places))
        (value,) = exe.run(program, feed={'inp': np.ones((2 * n_places, 2), np.float32)}, fetch_list=[loss])
    return float(np.asarray(value).reshape(-1)[0])


def run_check() -> None:
    """Checks that a program trains on one CPU place and on two, printing Paddle's messages."""
    print('Running verify PaddlePaddle program ... ')
    _train(1)
    print('PaddlePaddle works well on 1 CPU.')
    _train(2)
    print('PaddlePaddle works well on 2 CPUs.')
    print('PaddlePaddle is installed successfully! Let\'s start deep learning with PaddlePaddle now.')
