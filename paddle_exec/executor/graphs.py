"""The executor's pictures, drawn with the project's one Graphviz writer (framework/graph_writer.py).

    program_dot(block)                  the program as written (BuildStrategy.debug_graphviz_path, the stage's
                                        `_stage_before.dot`)
    plan_dot(plan)                      the compiled multi-place graph: one box per node (op and place), an edge per
                                        dependency, the collectives the data-parallel pass adds in yellow
    split_dot(block, split, title)      a stage split: producer ops (those SmartStage moved darker) and consumer ops
                                        in two clusters, the values crossing the buffer in orange
"""
from __future__ import annotations

from ..framework.graph_writer import Graph, block_graph, to_dot

__all__ = ['program_dot', 'plan_dot', 'split_dot']

COLLECTIVE_FILL = '#f5d76e'
NODE_FILL = '#dddddd'
STAGE_FILL, MOVED_FILL, PRODUCER_FILL, CONSUMER_FILL = '#9fd3c7', '#6fb1e0', '#cfe6f5', '#dddddd'


def program_dot(block, title: str = '') -> str:
    return to_dot(block_graph(block, title=title))


def plan_dot(plan) -> str:
    graph = Graph(title='the compiled graph: %d nodes on %d places' % (len(plan.nodes), plan.n_places))
    for nd in plan.nodes:
        collective = nd.op is not None and nd.label != nd.op.type
        per_place = nd.op is not None or getattr(nd, 'segment', None) is not None    # an op's or a segment's node
        label = '%s\nplace %d' % (nd.label, nd.place) if per_place and not collective else nd.label
        graph.add_node('n%d' % nd.index, label, shape='box', rounded=True,
                       fill=COLLECTIVE_FILL if collective else NODE_FILL)
    for nd in plan.nodes:
        for s in nd.successors:
            graph.add_edge('n%d' % nd.index, 'n%d' % s)
    return to_dot(graph)


def split_dot(block, split, title: str = 'the physical graph') -> str:
    ops = block.ops
    moved = set(split.moved)
    producer = [(j, STAGE_FILL if ops[j].type == 'stage' else (MOVED_FILL if j in moved else PRODUCER_FILL))
                for j in split.producer]
    consumer = [(j, CONSUMER_FILL) for j in split.consumer]
    groups = [('producer threads: ahead of the step', producer), ('the step (executor)', consumer)]
    last = (split.consumer or split.producer)[-1:]
    keep = set(ops[last[0]].output_arg_names) if last else set()
    return to_dot(block_graph(block, groups=groups, highlight=split.crossing, keep=keep, title=title))
