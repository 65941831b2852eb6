"""The one Graphviz writer of the project: a plain graph of nodes, edges and clusters, its DOT text, and a Block drawn
as such a graph.

    graph = block_graph(program.global_block())           # ops (boxes) and the variables they read and write
    write_graph(graph, 'model.dot')                       # DOT text, no dependency
    write_graph(graph, 'model.svg')                       # rendered by the `graphviz` package with Graphviz's `dot`

Anything else that wants a picture builds a `Graph` itself from plain facts and calls `to_dot` / `write_graph`: an
execution plan is nodes (one per op and place) and dependency edges, so this module needs nothing from executor/
(it sits in the IR layer, where drawing a Program belongs). `block_graph` covers the program drawings the executors
make: the program as written (`BuildStrategy.debug_graphviz_path`), and a program split in clusters with some
values highlighted (stage / SmartStage: producer and consumer sides, the values crossing the buffer).

Conventions of the pictures (netron's and Paddle's debug graphs, so habits carry over):
    op              a rounded box with the op type, filled by its role (`OP_FILL`); `groups` may colour them
    value           an ellipse with the variable's name and shape
    parameter       a grey 3-D box (`box3d`): persistable values, parameters and optimizer state
    feed / fetch    green / orange ellipses: what a run takes and returns
    highlighted     orange filled: values the caller marks (e.g. what crosses a stage buffer)
DOT text is always written by this module (ids `op<j>`, `v<k>`, labels escaped), so it is stable for tests and
diffs; only rendering to SVG/PNG/PDF needs the optional `graphviz` package (`pip install 'paddle_exec[cli]'`) and
the `dot` program, and says clearly which one is missing.
"""
from __future__ import annotations

import os
import shutil
from dataclasses import dataclass, field

from .operator import OP_ROLE_ATTR, OpRole
from .variable import EMPTY_VAR_NAME

__all__ = ['Node', 'Graph', 'GraphvizUnavailable', 'to_dot', 'block_graph', 'write_graph', 'RENDER_FORMATS',
           'OP_FILL', 'FEED_FILL', 'FETCH_FILL', 'HIGHLIGHT_FILL', 'PARAM_FILL']

OP_FILL = {'forward': '#cfe6f5', 'backward': '#f2d7d5', 'optimize': '#d5f2da', 'other': '#dddddd'}
FEED_FILL = '#b8e0b0'
FETCH_FILL = '#f8c471'
HIGHLIGHT_FILL = '#f5a623'
PARAM_FILL = '#e8e8e8'
RENDER_FORMATS = ('svg', 'png', 'pdf')
TEXT_FORMATS = ('dot', 'gv')


class GraphvizUnavailable(RuntimeError):
    """Rendering needs the `graphviz` Python package and Graphviz's `dot` program; one of them is missing."""


@dataclass
class Node:
    id: str
    label: str
    shape: str = 'box'
    fill: str | None = None
    rounded: bool = False
    font_size: int | None = None
    tooltip: str | None = None

    def dot(self) -> str:
        attrs = ['label="%s"' % escape(self.label), 'shape=%s' % self.shape]
        styles = (['rounded'] if self.rounded else []) + (['filled'] if self.fill else [])
        if styles:
            attrs.append('style="%s"' % ','.join(styles))
        if self.fill:
            attrs.append('fillcolor="%s"' % self.fill)
        if self.font_size:
            attrs.append('fontsize=%d' % self.font_size)
        if self.tooltip:
            attrs.append('tooltip="%s"' % escape(self.tooltip))
        return '%s [%s];' % (self.id, ', '.join(attrs))


@dataclass
class Graph:
    """Nodes in drawing order, edges (tail id, head id), clusters (label, member node ids), a title."""
    title: str = ''
    nodes: list = field(default_factory=list)
    edges: list = field(default_factory=list)
    clusters: list = field(default_factory=list)

    def add_node(self, node_id: str, label: str, **style) -> Node:
        node = Node(node_id, label, **style)
        self.nodes.append(node)
        return node

    def add_edge(self, tail: str, head: str) -> None:
        self.edges.append((tail, head))

    def node(self, node_id: str) -> Node:
        for node in self.nodes:
            if node.id == node_id:
                return node
        raise KeyError(node_id)


def escape(text: str) -> str:
    """A DOT double-quoted string body: backslashes and quotes escaped, newlines as DOT's centred line break."""
    return str(text).replace('\\', '\\\\').replace('"', '\\"').replace('\n', '\\n')


def to_dot(graph: Graph) -> str:
    """DOT text: the nodes of each cluster inside a dashed `subgraph cluster_<i>`, the others at the top level."""
    lines = ['digraph G {']
    if graph.title:
        lines.append('  label="%s"; labelloc=t;' % escape(graph.title))
    lines += ['  fontname="Arial";', '  node [fontname="Arial"];', '  edge [fontname="Arial"];']
    clustered = {}
    for c, (_, members) in enumerate(graph.clusters):
        for node_id in members:
            clustered.setdefault(node_id, c)
    by_cluster: dict[int, list] = {}
    for node in graph.nodes:
        c = clustered.get(node.id)
        if c is None:
            lines.append('  ' + node.dot())
        else:
            by_cluster.setdefault(c, []).append(node)
    for c, (label, _) in enumerate(graph.clusters):
        lines += ['  subgraph cluster_%d {' % c, '    label="%s"; style=dashed;' % escape(label)]
        lines += ['    ' + node.dot() for node in by_cluster.get(c, [])]
        lines.append('  }')
    lines += ['  %s -> %s;' % edge for edge in graph.edges]
    lines.append('}')
    return '\n'.join(lines) + '\n'


# --- a Block as a graph -----------------------------------------------------------------------------------------

def _role_fill(op) -> str:
    role = int(op.attrs.get(OP_ROLE_ATTR, 0) or 0)
    if role & OpRole.Optimize:
        return OP_FILL['optimize']
    if role & OpRole.Backward:
        return OP_FILL['backward']
    return OP_FILL['forward'] if role in (0, int(OpRole.Loss)) else OP_FILL['other']


def _shape_text(var) -> str:
    return '[%s]' % ', '.join(str(d) for d in var.shape) if var is not None and var.has_shape() else ''


def block_graph(block, ops=None, groups=None, feeds=(), fetches=(), highlight=(), keep=None, title: str = '',
                op_label=None, show_shapes: bool = True) -> Graph:
    """The ops of `block` (all of them, or the indices `ops`) and the variables they read and write.

    groups     [(cluster label or None, [(op index, fill colour or None)])]: ops drawn in clusters, in that order
               (a None label draws the group's ops without a cluster); overrides `ops`
    feeds, fetches   names drawn green / orange;  highlight  names drawn filled orange
    keep       None: every variable an op touches; a set: only variables some drawn op reads, plus `keep` (hides
               unread outputs such as reshape2's XShape)
    op_label   (index, op) -> label; default the op type
    Each variable is drawn in the cluster of the op that writes it first (inputs at the top level)."""
    if groups is None:
        indices = range(len(block.ops)) if ops is None else ops
        groups = [(None, [(j, None) for j in indices])]
    feeds, fetches, highlight = set(feeds), set(fetches), set(highlight)
    drawn = [j for _, members in groups for j, _ in members]
    shown = None
    if keep is not None:
        shown = {n for j in drawn for n in block.ops[j].input_arg_names} | set(keep) | highlight | fetches
    graph = Graph(title=title)
    var_ids: dict[str, str] = {}

    def var_node(name: str) -> str | None:
        if name == EMPTY_VAR_NAME or (shown is not None and name not in shown):
            return None
        if name not in var_ids:
            var_ids[name] = 'v%d' % len(var_ids)
            var = block._find_var_recursive(name)
            label = name + ('\n' + _shape_text(var) if show_shapes and _shape_text(var) else '')
            if name in highlight:
                graph.add_node(var_ids[name], label, shape='ellipse', fill=HIGHLIGHT_FILL, font_size=10)
            elif name in feeds:
                graph.add_node(var_ids[name], label, shape='ellipse', fill=FEED_FILL, font_size=10)
            elif name in fetches:
                graph.add_node(var_ids[name], label, shape='ellipse', fill=FETCH_FILL, font_size=10)
            elif var is not None and var.persistable:
                graph.add_node(var_ids[name], label, shape='box3d', fill=PARAM_FILL, font_size=10)
            else:
                graph.add_node(var_ids[name], label, shape='ellipse', font_size=10)
            return var_ids[name]
        return None

    for label, members in groups:
        cluster_ids = []
        for j, fill in members:
            op = block.ops[j]
            text = op_label(j, op) if op_label is not None else op.type
            graph.add_node('op%d' % j, text, shape='box', rounded=True, fill=fill or _role_fill(op),
                           tooltip=op.describe() if hasattr(op, 'describe') else None)
            cluster_ids.append('op%d' % j)
            for name in dict.fromkeys(op.output_arg_names):
                new = var_node(name)
                if new is not None:
                    cluster_ids.append(new)
        if label is not None:
            graph.clusters.append((label, cluster_ids))
    for j in drawn:
        for name in dict.fromkeys(block.ops[j].input_arg_names):
            var_node(name)
    for j in drawn:
        op = block.ops[j]
        for name in dict.fromkeys(op.input_arg_names):
            if name in var_ids:
                graph.add_edge(var_ids[name], 'op%d' % j)
        for name in dict.fromkeys(op.output_arg_names):
            if name in var_ids:
                graph.add_edge('op%d' % j, var_ids[name])
    return graph


# --- files --------------------------------------------------------------------------------------------------------

def _render(dot_text: str, fmt: str, path: str) -> bytes:
    if shutil.which('dot') is None:
        raise GraphvizUnavailable("cannot write %s: rendering %s needs Graphviz's `dot` program, which is not on PATH "
                                  "(apt-get install graphviz, brew install graphviz); write a .dot file instead"
                                  % (path, fmt.upper()))
    try:
        import graphviz
    except ImportError:
        raise GraphvizUnavailable("cannot write %s: rendering %s needs the graphviz Python package "
                                  "(pip install 'paddle_exec[cli]'); write a .dot file instead"
                                  % (path, fmt.upper())) from None
    return graphviz.Source(dot_text).pipe(format=fmt)


def write_graph(graph, path: str) -> str:
    """Write `graph` (a Graph or DOT text) to `path`, by its extension: .dot/.gv as text, .svg/.png/.pdf rendered.
    Returns the path. An unknown extension raises ValueError naming the ones there are."""
    dot_text = graph if isinstance(graph, str) else to_dot(graph)
    fmt = os.path.splitext(path)[1].lower().lstrip('.')
    if fmt in TEXT_FORMATS:
        data = dot_text.encode()
    elif fmt in RENDER_FORMATS:
        data = _render(dot_text, fmt, path)
    else:
        raise ValueError('cannot write a graph to %r: the file name must end in one of %s'
                         % (path, ', '.join('.' + f for f in TEXT_FORMATS + RENDER_FORMATS)))
    folder = os.path.dirname(os.path.abspath(path))
    os.makedirs(folder, exist_ok=True)
    with open(path, 'wb') as f:
        f.write(data)
    return path
