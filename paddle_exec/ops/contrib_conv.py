"""fluid.contrib's convolutions (Paddle 1.8): var_conv_2d over variable-sized LoD images, tree_conv over trees.

    var_conv_2d   X LoD (sequence i: InputChannel x rows_i x cols_i values), ROW LoD (rows_i), COLUMN LoD (cols_i),
                  W [OutputChannel, InputChannel * KernelH * KernelW] -> Out [sum OutputChannel * oh_i * ow_i, 1]
                  (sequence i: [OutputChannel, oh_i, ow_i] flattened, oh_i = (rows_i - 1) / StrideH + 1, 0 for an
                  empty image), Col [sum InputChannel * kh * kw * oh_i * ow_i, 1] (each image's im2col matrix).
                  The kernel is centred (kernel / 2 before, zeros outside the image), as Paddle's Im2Col lays it.
                  Grad: X (through Col) and W.
    tree_conv     NodesVector [B, n, F], EdgeSet int [B, E, 2] (parent, child; 1-based node ids, a (0, 0) row ends
                  the edges), Filter [F, 3, out, filters] -> Out [B, n, out, filters]: TBCNN's continuous binary
                  tree convolution (Paddle's tree2col): each node u's patch (u and its descendants less than
                  max_depth below it, found by Paddle's depth-first walk) weights every member's features by
                  eta_l, eta_r, eta_t (its depth, and its place among its siblings), then one matmul with the
                  filter; rows past the tree's nodes are 0. Grad: NodesVector and Filter.
"""
from __future__ import annotations

import numpy as np

from ..framework.errors import EnforceNotMet
from ..framework.lod import as_lod
from ..framework.registry import GradSpec, defop, kernel_rule, lod_rule, shape_rule
from ._lod import input_name, last_level

__all__: list[str] = []

defop('var_conv_2d', ['X', 'ROW', 'COLUMN', 'W'], ['Out', 'Col'],
      {'InputChannel': 1, 'OutputChannel': 1, 'StrideH': 1, 'StrideW': 1, 'KernelH': 1, 'KernelW': 1},
      grad=GradSpec(('X', 'ROW', 'COLUMN', 'W', 'Col', 'Out@GRAD'), ('X@GRAD', 'W@GRAD')))


@shape_rule('var_conv_2d')
def _var_conv_shape(ctx):
    w = ctx.in_shape('W')
    cin, cout = int(ctx.attr('InputChannel')), int(ctx.attr('OutputChannel'))
    kh, kw = int(ctx.attr('KernelH')), int(ctx.attr('KernelW'))
    if len(w) != 2 or w[0] != cout or w[1] != cin * kh * kw:
        raise ValueError("operator 'var_conv_2d': W must be [OutputChannel, InputChannel * KernelH * KernelW] = "
                         "[%d, %d], got %s" % (cout, cin * kh * kw, list(w)))
    if min(int(ctx.attr('StrideH')), int(ctx.attr('StrideW')), kh, kw) <= 0:
        raise ValueError("operator 'var_conv_2d': strides and kernel sizes must be positive")
    ctx.set_output('Out', (-1, 1), ctx.in_dtype('X'))
    ctx.set_output('Col', (-1, 1), ctx.in_dtype('X'))


@lod_rule('var_conv_2d')
def _var_conv_lod(ctx):
    ctx.read('X')
    ctx.read('ROW')
    ctx.read('COLUMN')
    ctx.compute('Out', 1)
    ctx.compute('Col', 1)


class _Geometry:
    """Each image's place in X, its size, its output size and the gather index of its im2col matrix."""

    def __init__(self, spec, x, row, col, x_lod, row_lod, col_lod):
        op = 'VarConv2dOp'
        x_off = last_level(x_lod, x, op, input_name(spec, 'X'))
        r_off = last_level(row_lod, row, op, input_name(spec, 'ROW'), 'ROW')
        c_off = last_level(col_lod, col, op, input_name(spec, 'COLUMN'), 'COLUMN')
        if not len(x_off) == len(r_off) == len(c_off):
            raise EnforceNotMet('%s: Input(X), Input(ROW) and Input(COLUMN) must hold as many sequences' % op)
        cin = int(spec.attr('InputChannel'))
        kh, kw = int(spec.attr('KernelH')), int(spec.attr('KernelW'))
        sh, sw = int(spec.attr('StrideH')), int(spec.attr('StrideW'))
        self.images = []
        ci, ky, kx = np.meshgrid(np.arange(cin), np.arange(kh), np.arange(kw), indexing='ij')
        ci, ky, kx = ci.reshape(-1, 1), ky.reshape(-1, 1), kx.reshape(-1, 1)
        for i in range(len(x_off) - 1):
            h, w = int(r_off[i + 1] - r_off[i]), int(c_off[i + 1] - c_off[i])
            if int(x_off[i + 1] - x_off[i]) != cin * h * w:
                raise EnforceNotMet('%s: sequence %d of Input(X) holds %d values, not InputChannel * rows * cols = '
                                    '%d * %d * %d' % (op, i, int(x_off[i + 1] - x_off[i]), cin, h, w))
            oh = (h - 1) // sh + 1 if h else 0
            ow = (w - 1) // sw + 1 if w else 0
            ys = (np.arange(oh) * sh).repeat(ow)[None, :] + ky - kh // 2          # [cin * kh * kw, oh * ow]
            xs = np.tile(np.arange(ow) * sw, oh)[None, :] + kx - kw // 2
            inside = (ys >= 0) & (ys < h) & (xs >= 0) & (xs < w)
            index = np.where(inside, int(x_off[i]) + (ci * h + ys) * w + xs, -1)
            self.images.append((oh * ow, index))


@kernel_rule('var_conv_2d')
def _var_conv_kernel(spec):
    def run(x, row, col, w, x_lod, row_lod, col_lod):
        geo = _Geometry(spec, x, row, col, x_lod, row_lod, col_lod)
        flat = np.asarray(x).reshape(-1)
        outs, cols, out_off, col_off = [], [], [0], [0]
        for _, index in geo.images:
            col_mat = np.where(index >= 0, flat[np.maximum(index, 0)], 0).astype(x.dtype, copy=False)
            out = w @ col_mat
            outs.append(out.reshape(-1))
            cols.append(col_mat.reshape(-1))
            out_off.append(out_off[-1] + out.size)
            col_off.append(col_off[-1] + col_mat.size)
        out = np.concatenate(outs).reshape(-1, 1) if outs else np.zeros((0, 1), x.dtype)
        col_all = np.concatenate(cols).reshape(-1, 1) if cols else np.zeros((0, 1), x.dtype)
        return out, col_all, as_lod([np.array(out_off, np.int64)]), as_lod([np.array(col_off, np.int64)])
    return run


@shape_rule('var_conv_2d_grad')
def _var_conv_grad_shape(ctx):
    for slot in ('X', 'W'):
        if ctx.has_output(slot + '@GRAD'):
            ctx.set_output(slot + '@GRAD', ctx.in_shape(slot), ctx.in_dtype(slot))


@lod_rule('var_conv_2d_grad')
def _var_conv_grad_lod(ctx):
    ctx.read('X')
    ctx.read('ROW')
    ctx.read('COLUMN')
    ctx.share('X', 'X@GRAD')


@kernel_rule('var_conv_2d_grad')
def _var_conv_grad_kernel(spec):
    def run(x, row, col, w, col_all, dout, x_lod, row_lod, col_lod):
        geo = _Geometry(spec, x, row, col, x_lod, row_lod, col_lod)
        dx, dw = np.zeros(x.size, dout.dtype), np.zeros_like(w)
        g_flat, c_flat = dout.reshape(-1), col_all.reshape(-1)
        g_pos = c_pos = 0
        for cells, index in geo.images:
            g = g_flat[g_pos:g_pos + w.shape[0] * cells].reshape(w.shape[0], cells)
            c = c_flat[c_pos:c_pos + index.size].reshape(index.shape)
            g_pos, c_pos = g_pos + g.size, c_pos + c.size
            dw += g @ c.T
            dcol = w.T @ g
            valid = index >= 0
            np.add.at(dx, index[valid], dcol[valid])
        return dx.reshape(x.shape), dw
    return run


# --- tree_conv ----------------------------------------------------------------------------------------------------

defop('tree_conv', ['NodesVector', 'EdgeSet', 'Filter'], ['Out'], {'max_depth': 2},
      grad=GradSpec(('NodesVector', 'EdgeSet', 'Filter', 'Out@GRAD'), ('NodesVector@GRAD', 'Filter@GRAD')))


@shape_rule('tree_conv')
def _tree_conv_shape(ctx):
    nodes, edges, filt = ctx.in_shape('NodesVector'), ctx.in_shape('EdgeSet'), ctx.in_shape('Filter')
    if len(nodes) != 3 or len(edges) != 3 or len(filt) != 4:
        raise ValueError("operator 'tree_conv': NodesVector must be 3-D, EdgeSet 3-D and Filter 4-D, got %s, %s and "
                         "%s" % (list(nodes), list(edges), list(filt)))
    if edges[2] != 2:
        raise ValueError("operator 'tree_conv': The dimension of EdgeSet's last axis must be 2, got %s" % list(edges))
    if filt[1] != 3 or (nodes[2] >= 0 and filt[0] != nodes[2]):
        raise ValueError("operator 'tree_conv': Filter must be [feature_size, 3, output_size, num_filters] with "
                         "feature_size %d, got %s" % (nodes[2], list(filt)))
    if int(ctx.attr('max_depth')) < 1:
        raise ValueError("operator 'tree_conv': Attr(max_depth) must be at least 1")
    ctx.set_output('Out', (nodes[0], nodes[1], filt[2], filt[3]), ctx.in_dtype('NodesVector'))


def _tree_patches(edges: np.ndarray, max_depth: int) -> tuple[int, list]:
    """(node_count, per node u = 1..node_count its patch [(node, eta_l, eta_r, eta_t)]) as Paddle's
    Tree2ColUtil builds them: node_count counts every edge of two nonzero ids, plus one; the children lists stop
    at the first edge holding a 0."""
    edges = np.asarray(edges).reshape(-1, 2)
    node_count = int(np.count_nonzero((edges[:, 0] != 0) & (edges[:, 1] != 0))) + 1
    children: list[list[int]] = [[] for _ in range(node_count + 1)]
    for u, v in edges.tolist():
        if u == 0 or v == 0:
            break
        if u > node_count or v > node_count:
            raise EnforceNotMet("operator 'tree_conv': EdgeSet holds node %d of a tree of %d nodes"
                                % (max(u, v), node_count))
        children[u].append(v)
    patches = []
    for root in range(1, node_count + 1):
        members = [(root, 1, 1, 0)]            # (node, index among its siblings (1-based), siblings, depth)
        stack, visited = [(root, 0)], {root}
        while stack:
            node, depth = stack[-1]
            end = True
            kids = children[node]
            for i, v in enumerate(kids):
                if v not in visited and depth + 1 < max_depth:
                    visited.add(v)
                    stack.append((v, depth + 1))
                    members.append((v, i + 1, len(kids), depth + 1))
                    end = False
            if end:
                stack.pop()
        patch = []
        for node, index, siblings, depth in members:
            eta_t = (max_depth - depth) / max_depth
            eta_l = (1.0 - eta_t) * (0.5 if siblings == 1 else (index - 1.0) / (siblings - 1.0))
            patch.append((node, eta_l, (1.0 - eta_t) * (1.0 - eta_l), eta_t))   # Paddle's eta_r uses eta_l whole
        patches.append(patch)
    return node_count, patches


def _tree_weights(edges, max_depth: int, n: int, dtype) -> tuple[int, np.ndarray]:
    """(node_count, A [node_count, 3, n]): patch row u = sum over members v of eta_k(v) * features[v]."""
    node_count, patches = _tree_patches(edges, max_depth)
    if node_count > n:
        raise EnforceNotMet("operator 'tree_conv': EdgeSet describes %d nodes but NodesVector holds %d"
                            % (node_count, n))
    a = np.zeros((node_count, 3, n), dtype)
    for u, patch in enumerate(patches):
        for node, eta_l, eta_r, eta_t in patch:
            a[u, :, node - 1] += np.array([eta_l, eta_r, eta_t], dtype)
    return node_count, a


@kernel_rule('tree_conv')
def _tree_conv_kernel(spec):
    max_depth = int(spec.attr('max_depth'))

    def run(nodes, edges, filt):
        b, n, f = nodes.shape
        out = np.zeros((b, n, filt.shape[2] * filt.shape[3]), nodes.dtype)
        w = filt.reshape(f * 3, -1)
        for i in range(b):
            count, a = _tree_weights(edges[i], max_depth, n, nodes.dtype)
            patch = np.einsum('ukn,nf->ufk', a, nodes[i]).reshape(count, f * 3)   # feature-major, as tree2col
            out[i, :count] = patch @ w
        return (out.reshape(b, n, filt.shape[2], filt.shape[3]),)
    return run


@shape_rule('tree_conv_grad')
def _tree_conv_grad_shape(ctx):
    for slot in ('NodesVector', 'Filter'):
        if ctx.has_output(slot + '@GRAD'):
            ctx.set_output(slot + '@GRAD', ctx.in_shape(slot), ctx.in_dtype(slot))


@kernel_rule('tree_conv_grad')
def _tree_conv_grad_kernel(spec):
    max_depth = int(spec.attr('max_depth'))

    def run(nodes, edges, filt, dout):
        b, n, f = nodes.shape
        w = filt.reshape(f * 3, -1)
        dnodes, dw = np.zeros_like(nodes), np.zeros_like(w)
        for i in range(b):
            count, a = _tree_weights(edges[i], max_depth, n, nodes.dtype)
            g = dout[i].reshape(n, -1)[:count]
            patch = np.einsum('ukn,nf->ufk', a, nodes[i]).reshape(count, f * 3)
            dw += patch.T @ g
            dpatch = (g @ w.T).reshape(count, f, 3)
            dnodes[i] += np.einsum('ukn,ufk->nf', a, dpatch)
        return dnodes, dw.reshape(filt.shape)
    return run
