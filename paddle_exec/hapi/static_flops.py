"""paddle.flops: the FLOPs of a static Program, op by op, as Paddle 2.6.2 counts them (hapi/static_flops.py).

Only these op types count, from the variables' compile-time shapes with the batch dim left out (shape[1:]):

    conv2d, depthwise_conv2d   prod(Output[1:]) * (prod(Filter[1:]) + has Bias)
    pool2d                     prod(Out[1:]) * (prod(X[2:] // Out[2:]) + 1)
    mul, matmul                Y.shape[0] * prod(Out[1:])
    batch_norm                 2 * prod(Y[1:])
    elementwise_*              prod(X[1:])

everything else (matmul_v2, activations, reductions, ...) counts zero, as in 2.6.2; `input_size` is not read for a
Program. With print_detail the ops that count are printed in a table (op type, parameter, FLOPs):

    +-----------------+--------------+--------+
    |     OP Type     |  Param name  | Flops  |
    +-----------------+--------------+--------+
    |      conv2d     | conv2d_0.w_0 | 42336  |

A Layer is counted by running it in dygraph mode in Paddle (dynamic_flops), which paddle_exec does not have: 2.6.2
itself fails on a Layer in static mode (TypeError), and so does flops here, naming the Program way instead.
"""
from __future__ import annotations

import numpy as np

from ..framework import Program
from ..nn.layer.layers import Layer

__all__ = ['flops', 'static_flops', 'Table']


def _var_shape(program: Program, name: str) -> list:
    for block in program.blocks:
        if block.has_var(name):
            return list(block.var(name).shape)
    raise ValueError('variable %s is not in the program' % name)


def _count(program: Program, op) -> tuple[int, str]:
    """(FLOPs, parameter name) of one op."""
    def shape(slot: str, output: bool = False) -> list:
        return _var_shape(program, (op.output if output else op.input)(slot)[0])

    kind = op.type
    if kind in ('conv2d', 'depthwise_conv2d'):
        bias = 1 if 'Bias' in op.input_names and op.input('Bias') else 0
        count = np.prod(shape('Output', True)[1:]) * (np.prod(shape('Filter')[1:]) + bias)
        return abs(int(count)), op.input('Filter')[0]
    if kind == 'pool2d':
        in_shape, out_shape = shape('X'), shape('Out', True)
        kernel = np.array(in_shape[2:]) // np.array(out_shape[2:])
        return abs(int((np.prod(kernel) + 1) * np.prod(out_shape[1:]))), ''
    if kind in ('mul', 'matmul'):
        return abs(int(shape('Y')[0] * np.prod(shape('Out', True)[1:]))), op.input('Y')[0]
    if kind == 'batch_norm':
        return abs(int(2 * np.prod(shape('Y', True)[1:]))), ''
    if kind.startswith('element'):
        return abs(int(np.prod(shape('X')[1:]))), ''
    return 0, ''


def static_flops(program: Program, print_detail: bool = False) -> int:
    total = 0
    table = Table(['OP Type', 'Param name', 'Flops'])
    for block in program.blocks:
        for op in block.ops:
            count, param_name = _count(program, op)
            total += count
            if count != 0:
                table.add_row([op.type, param_name, count])
    if print_detail:
        table.print_table()
    return total


def flops(net, input_size, custom_ops=None, print_detail: bool = False) -> int:
    """The FLOPs of a static Program (see the module docstring); prints the per-op table with print_detail."""
    if isinstance(net, Program):
        return static_flops(net, print_detail=print_detail)
    if isinstance(net, Layer):
        raise TypeError('paddle.flops counts a Layer by running it in dygraph mode, which paddle_exec does not have '
                        '(Paddle 2.6.2 fails on a Layer in static mode too): build the network into a Program '
                        '(paddle.static.program_guard, then net(paddle.static.data(...))) and pass the Program')
    raise TypeError('Your model must be an instance of paddle.nn.Layer or paddle.static.Program, but got %s'
                    % type(net).__name__)


class Table:
    """The text table 2.6.2 prints: '|'-separated centred cells, '+---+' shelves."""

    def __init__(self, table_heads: list[str]):
        self.table_heads = table_heads
        self.table_len = [len(head) for head in table_heads]
        self.data: list = []
        self.col_num = len(table_heads)

    def add_row(self, row: list) -> None:
        if len(row) != self.col_num:
            raise ValueError('The length of row data should be equal the length of table heads, but the data: %d '
                             'is not equal table heads %d' % (len(row), self.col_num))
        for i in range(self.col_num):
            self.table_len[i] = max(self.table_len[i], len(str(row[i])))
        self.data.append(row)

    def _row(self, row) -> str:
        return ''.join('|' + str(cell).center(self.table_len[i] + 2) for i, cell in enumerate(row)) + '|'

    def _shelf(self) -> str:
        return ''.join('+' + '-' * (length + 2) for length in self.table_len) + '+'

    def print_table(self) -> None:
        lines = [self._shelf(), self._row(self.table_heads), self._shelf()]
        lines += [self._row(row) for row in self.data] + [self._shelf()]
        print('\n'.join(lines))
