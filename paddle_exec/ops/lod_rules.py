"""How the ops of the other families pass LoD on, where Paddle 1.8 differs from the registry's default rule.

The default (framework/registry.py `default_lod_rule`) is Paddle's common ShareLoD("X", "Out") when Out keeps X's
rows, and for a grad op each forward input's LoD shared with its gradient. The rules below are the exceptions,
checked against Paddle 1.8.5 op by op (tests/ops/test_lod_propagation.py records what 1.8.5 gives):

    other slots than X -> Out     lookup_table(_v2) Ids -> Out, cross_entropy(2) X -> Y, softmax_with_cross_entropy
                                  Logits -> Softmax and Loss, layer_norm / batch_norm X -> Y, log_loss
                                  Predicted -> Loss, stack X[0] -> Y, top_k(_v2) / argsort X -> Out and Indices,
                                  accuracy Out -> Accuracy (sic: 1.8's accuracy gives its [1] result the
                                  prediction's LoD)
    depends on an attribute       concat: axis 0 joins the inputs' LoDs (one sequence list after the other), other
                                  axes share X[0]'s; split: every Out shares X's unless it splits axis 0;
                                  slice / strided_slice: Input -> Out unless axis 0 is sliced
    no LoD although rows are kept arg_max / arg_min, transpose(2), gather / gather_nd / index_select, norm
                                  (l2_normalize), smooth_l1_loss, increment, py_func
    reads LoD                     fill_constant_batch_size_like: a LoD input's batch is its number of sequences
                                  (when input_dim_idx is 0); the kernel (ops/creation.py) gets the LoD

Each rule is one registration in LOD_RULES; adding an op elsewhere never needs an edit here unless Paddle's op
differs from the default.
"""
from __future__ import annotations

from ..framework.lod import merge_lods
from ..framework.registry import lod_rule

__all__ = []


def _shares(*pairs):
    def rule(ctx):
        for src, dst in pairs:
            ctx.share(src, dst)
    return rule


def _no_lod(ctx):
    """The op's outputs carry no LoD."""


lod_rule('lookup_table', 'lookup_table_v2')(_shares(('Ids', 'Out')))
lod_rule('cross_entropy', 'cross_entropy2')(_shares(('X', 'Y')))
lod_rule('softmax_with_cross_entropy')(_shares(('Logits', 'Softmax'), ('Logits', 'Loss')))
lod_rule('layer_norm', 'batch_norm')(_shares(('X', 'Y')))
lod_rule('log_loss')(_shares(('Predicted', 'Loss')))
lod_rule('stack')(_shares(('X', 'Y')))
lod_rule('top_k', 'top_k_v2', 'argsort')(_shares(('X', 'Out'), ('X', 'Indices')))
lod_rule('accuracy')(_shares(('Out', 'Accuracy')))
lod_rule('arg_max', 'arg_min', 'transpose', 'transpose2', 'gather', 'gather_nd', 'index_select', 'norm',
         'smooth_l1_loss', 'increment', 'py_func')(_no_lod)


def _concat_lods(lods: list):
    """Paddle's concat on axis 0 of LoD inputs: the sequences of each input after those of the one before."""
    have = [lod for lod in lods if lod]
    return merge_lods(have, 'concat') if have else ()


@lod_rule('concat')
def _concat_lod(ctx):
    if ctx.attr('axis', 0) == 0 and not ctx.has_input('AxisTensor'):
        if ctx.levels('X') > 0:
            ctx.derive('Out', _concat_lods, ['X'], ctx.levels('X'))
    else:
        ctx.share('X', 'Out')


@lod_rule('split')
def _split_lod(ctx):
    if ctx.attr('axis', 0) != 0 and not ctx.has_input('AxisTensor'):
        ctx.share('X', 'Out')


@lod_rule('slice', 'strided_slice')
def _slice_lod(ctx):
    if 0 not in [int(a) for a in ctx.attr('axes', [])]:
        ctx.share('Input', 'Out')


@lod_rule('fill_constant_batch_size_like')
def _batch_size_like_lod(ctx):
    if ctx.levels('Input') > 0 and int(ctx.attr('input_dim_idx', 0)) == 0:
        ctx.read('Input')
