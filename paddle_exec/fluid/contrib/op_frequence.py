"""fluid.contrib.op_frequence (Paddle 1.8's module path): op_freq_statistic, how often each op type and each
producer->consumer pair of op types occurs in a program's global block (parameters are not counted as links)."""
from __future__ import annotations

from collections import OrderedDict

from ...framework.program import Program

__all__ = ['op_freq_statistic']


def op_freq_statistic(program: Program) -> tuple[list, list]:
    """([(op type, count)], [('producer->consumer', count)]), each sorted by count, most frequent first."""
    if not isinstance(program, Program):
        raise TypeError('The input type should be Porgram. But you passed in %s' % type(program))
    block = program.global_block()
    parameters = {p.name for p in block.all_parameters()}
    uni = OrderedDict()
    for op in block.ops:
        if any(n not in parameters for n in op.output_arg_names):
            uni[op.type] = uni.get(op.type, 0) + 1
    producers = {}
    for op in block.ops:
        for name in op.output_arg_names:
            if name in parameters:
                continue
            chain = producers.setdefault(name, [])
            if not chain or chain[-1] != op.type:
                chain.append(op.type)
    op_in_ops = OrderedDict()
    for op in block.ops:
        op_in_ops[op.type] = [producers[n][-1] for n in op.input_arg_names
                              if n not in parameters and n in producers]
    adj = OrderedDict()
    for op_type, ins in op_in_ops.items():
        for in_op in ins:
            key = in_op + '->' + op_type
            adj[key] = adj.get(key, 0) + 1
    return (sorted(uni.items(), key=lambda kv: kv[1], reverse=True),
            sorted(adj.items(), key=lambda kv: kv[1], reverse=True))
