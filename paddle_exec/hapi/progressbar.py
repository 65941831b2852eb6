"""The progress line paddle.Model prints while it fits, evaluates and predicts: Paddle 2.6's hapi ProgressBar.

verbose=1 redraws one line per epoch (a bar, the values, an ETA); verbose=2 (and 3) print one line per update:

    step 2/5 - loss: 1.0467 - acc_top1: 0.3750 - acc_top2: 0.8750 - 92ms/step

Numbers print with 4 decimals (`%.4e` under 1e-3), the time per step in s, ms or us, as Paddle prints them.
"""
from __future__ import annotations

import shutil
import sys
import time

import numpy as np

__all__ = ['ProgressBar']


def _format_values(values) -> str:
    info = ''
    for key, val in values:
        info += ' - %s:' % key
        for v in (val if isinstance(val, list) else [val]):
            if isinstance(v, np.ndarray) and v.size == 1 and v.dtype in (np.float32, np.float64):
                v = v.item()
            if isinstance(v, (float, np.float32, np.float64)):
                info += (' %.4f' if abs(v) > 1e-3 else ' %.4e') % v
            else:
                info += ' %s' % v
    return info


class ProgressBar:
    """Prints the progress of `num` steps (None: unknown) to `file`."""

    def __init__(self, num: int | None = None, width: int = 30, verbose: int = 1, start: bool = True,
                 file=None, name: str = 'step'):
        if isinstance(num, int) and num <= 0:
            raise TypeError('num should be None or integer (> 0)')
        self._num = num
        terminal_width = shutil.get_terminal_size().columns or 80
        self._width = min(width, min(int(terminal_width * 0.6), terminal_width - 50))
        self._total_width = 0
        self._verbose = verbose
        self.file = file     # Paddle keeps it but writes to sys.stdout, looked up at each write
        self._start = time.time() if start else 0.0
        self.name = name
        # Paddle also checks PYCHARM_HOSTED; 'posix' is in sys.modules on every POSIX system, which decides anyway
        out = file or sys.stdout
        self._dynamic_display = ((hasattr(out, 'isatty') and out.isatty()) or 'ipykernel' in sys.modules
                                 or 'posix' in sys.modules)

    def start(self) -> None:
        (self.file or sys.stdout).flush()
        self._start = time.time()

    def _step_time(self, current_num: int) -> tuple[float, str]:
        per_unit = (time.time() - self._start) / current_num if current_num else 0
        if per_unit >= 1 or per_unit == 0:
            return per_unit, ' - %.0fs/%s' % (per_unit, self.name)
        if per_unit >= 1e-3:
            return per_unit, ' - %.0fms/%s' % (per_unit * 1e3, self.name)
        return per_unit, ' - %.0fus/%s' % (per_unit * 1e6, self.name)

    def update(self, current_num: int, values=()) -> None:
        per_unit, fps = self._step_time(current_num)
        if self._verbose == 1:
            self._redraw(current_num, values, per_unit, fps)
        elif self._verbose in (2, 3):
            if self._num:
                count = (self.name + ' %' + str(int(np.log10(self._num)) + 1) + 'd/%d') % (current_num, self._num)
            else:
                count = self.name + ' %3d' % current_num
            sys.stdout.write(count + _format_values(values) + fps + '\n')
            sys.stdout.flush()

    def _redraw(self, current_num: int, values, per_unit: float, fps: str) -> None:
        prev_total_width = self._total_width
        sys.stdout.write('\b' * prev_total_width + '\r' if self._dynamic_display else '\n')
        if self._num is not None:
            bar = (self.name + ' %' + str(int(np.log10(self._num)) + 1) + 'd/%d [') % (current_num, self._num)
            prog_width = int(self._width * float(current_num) / self._num)
            if prog_width > 0:
                bar += '=' * (prog_width - 1) + ('>' if current_num < self._num else '=')
            bar += '.' * (self._width - prog_width) + ']'
        else:
            bar = self.name + ' %3d' % current_num
        self._total_width = len(bar)
        sys.stdout.write(bar)
        info = _format_values(values)
        if self._num is not None and current_num < self._num:
            eta = per_unit * (self._num - current_num)
            if eta > 3600:
                info += ' - ETA: %d:%02d:%02d' % (eta // 3600, (eta % 3600) // 60, eta % 60)
            elif eta > 60:
                info += ' - ETA: %d:%02d' % (eta // 60, eta % 60)
            else:
                info += ' - ETA: %ds' % eta
        info += fps
        self._total_width += len(info)
        if prev_total_width > self._total_width:
            info += ' ' * (prev_total_width - self._total_width)
        if self._num is None or current_num >= self._num:
            info += '\n'
        sys.stdout.write(info)
        sys.stdout.flush()
