"""framework/graph_writer.py: the one Graphviz writer. DOT text of plain graphs (an execution plan's nodes and
edges), of a Block (ops and variables, roles, feeds/fetches, persistables), of a split in clusters with highlighted
values (stage / SmartStage), and the files it writes or refuses to."""
import shutil
import sys

import pytest

import paddle_exec.fluid as fluid
from paddle_exec.framework import graph_writer as gw
from paddle_exec.framework import unique_name


def small_program():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[3], dtype='float32')
        y = fluid.layers.data(name='y', shape=[1], dtype='float32')
        pred = fluid.layers.fc(x, 1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(pred, y))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, loss


def test_plain_graph_from_nodes_and_edges():
    """What an execution plan drawing needs: nodes with labels and colours, dependency edges, no executor import."""
    g = gw.Graph(title='plan "A"')
    g.add_node('n0', 'mul\nplace 0', fill='#dddddd', rounded=True)
    g.add_node('n1', 'all_reduce', fill='#f5d76e')
    g.add_edge('n0', 'n1')
    dot = gw.to_dot(g)
    assert dot.startswith('digraph G {\n') and dot.endswith('}\n')
    assert 'label="plan \\"A\\""; labelloc=t;' in dot
    assert 'n0 [label="mul\\nplace 0", shape=box, style="rounded,filled", fillcolor="#dddddd"];' in dot
    assert 'n1 [label="all_reduce", shape=box, style="filled", fillcolor="#f5d76e"];' in dot
    assert '  n0 -> n1;' in dot


def test_writer_imports_nothing_above_the_ir():
    import ast
    import inspect
    tree = ast.parse(inspect.getsource(gw))
    imported = [n.module for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) and n.level]
    assert imported and all(m in ('operator', 'variable') for m in imported), imported


def test_escaping_backslashes_quotes_newlines():
    assert gw.escape('a\\b"c\nd') == 'a\\\\b\\"c\\nd'


def test_block_graph_ops_vars_roles_and_kinds():
    main, loss = small_program()
    block = main.global_block()
    g = gw.block_graph(block, feeds=['x', 'y'], fetches=[loss.name])
    ops = [n for n in g.nodes if n.id.startswith('op')]
    assert [n.label for n in ops] == [op.type for op in block.ops]
    fills = {n.label: n.fill for n in ops}
    assert fills['mul'] == gw.OP_FILL['forward'] and fills['mul_grad'] == gw.OP_FILL['backward']
    assert fills['sgd'] == gw.OP_FILL['optimize']
    by_label = {n.label.split('\n')[0]: n for n in g.nodes if n.id.startswith('v')}
    assert by_label['x'].fill == gw.FEED_FILL and by_label['x'].label == 'x\n[-1, 3]'
    assert by_label[loss.name].fill == gw.FETCH_FILL
    assert by_label['fc_0.w_0'].shape == 'box3d'
    # an edge for every read and every write
    n_edges = sum(len(set(op.input_arg_names)) + len(set(op.output_arg_names)) for op in block.ops)
    assert len(g.edges) == n_edges
    x_node = by_label['x'].id
    assert (x_node, 'op0') in g.edges and ('op0', by_label['fc_0.tmp_0'].id) in g.edges


def test_block_graph_clusters_highlight_and_keep():
    """The stage/SmartStage drawing: two clusters of ops, crossing values orange, unread outputs left out."""
    main, loss = small_program()
    block = main.global_block()
    n = len(block.ops)
    groups = [('producer threads', [(0, '#9fd3c7'), (1, None)]), ('the step', [(j, '#dddddd') for j in range(2, n)])]
    crossing = block.ops[1].output('Out')[0]
    g = gw.block_graph(block, groups=groups, highlight=[crossing], keep=set(), title='after SmartStage')
    dot = gw.to_dot(g)
    assert dot.count('subgraph cluster_') == 2
    assert 'label="producer threads"; style=dashed;' in dot and 'label="the step"; style=dashed;' in dot
    assert g.node('op0').fill == '#9fd3c7' and g.node('op1').fill == gw.OP_FILL['forward']
    highlighted = [nd for nd in g.nodes if nd.fill == gw.HIGHLIGHT_FILL]
    assert [nd.label.split('\n')[0] for nd in highlighted] == [crossing]
    producer_members = g.clusters[0][1]
    assert 'op0' in producer_members and 'op1' in producer_members
    # keep=set(): only values some drawn op reads appear (the loss is written but never read: not drawn)
    drawn_vars = {nd.label.split('\n')[0] for nd in g.nodes if nd.id.startswith('v')}
    read = {name for op in block.ops for name in op.input_arg_names}
    assert drawn_vars <= read | {crossing}


def test_write_dot_and_unknown_extension(tmp_path):
    g = gw.Graph()
    g.add_node('a', 'a')
    path = gw.write_graph(g, str(tmp_path / 'sub' / 'g.dot'))
    assert open(path).read() == gw.to_dot(g)
    gw.write_graph('digraph G {}\n', str(tmp_path / 'raw.gv'))
    assert (tmp_path / 'raw.gv').read_text() == 'digraph G {}\n'
    with pytest.raises(ValueError, match=r"cannot write a graph to '.*g\.txt': the file name must end in one of"):
        gw.write_graph(g, str(tmp_path / 'g.txt'))


def test_render_without_dot_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(gw.shutil, 'which', lambda name: None)
    with pytest.raises(gw.GraphvizUnavailable, match=r"rendering SVG needs Graphviz's `dot` program.*apt-get install "
                                                       r"graphviz.*write a \.dot file instead"):
        gw.write_graph(gw.Graph(), str(tmp_path / 'g.svg'))
    assert not (tmp_path / 'g.svg').exists()


def test_render_without_the_python_package_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(gw.shutil, 'which', lambda name: '/usr/bin/dot')
    monkeypatch.setitem(sys.modules, 'graphviz', None)          # import graphviz raises ImportError
    with pytest.raises(gw.GraphvizUnavailable, match=r"needs the graphviz Python package \(pip install "
                                                       r"'paddle_exec\[cli\]'\)"):
        gw.write_graph(gw.Graph(), str(tmp_path / 'g.png'))


@pytest.mark.skipif(shutil.which('dot') is None, reason="Graphviz's dot program is not installed")
def test_render_svg_and_png(tmp_path):
    main, loss = small_program()
    g = gw.block_graph(main.global_block(), feeds=['x'], fetches=[loss.name])
    svg = open(gw.write_graph(g, str(tmp_path / 'g.svg'))).read()
    assert svg.lstrip().startswith('<?xml') and '<svg' in svg and 'mul_grad' in svg
    png = open(gw.write_graph(g, str(tmp_path / 'g.png')), 'rb').read()
    assert png[:8] == b'\x89PNG\r\n\x1a\n'
