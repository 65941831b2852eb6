"""Losses over sampled or tree-coded classes, with Paddle's semantics (fluid 1.8 CPU kernels; numbers checked
against paddlepaddle 1.8.5 in tests/golden/api/fluid_losses.npz).

nce (noise-contrastive estimation). SampleLabels [N, T + S] holds each row's T true labels then S classes drawn
from the sampler (kernels/sampling.py; the same draws for every row's turn, in row order). SampleLogits =
sigmoid(x_i . w_c + b_c); the cost of a row is sum_j w_i * (-log(o / (o + b)) for true classes, -log(b / (o +
b)) for sampled ones), b = Probability(c) * S (float32). The gradient through o is exact (no clipping).

hierarchical_sigmoid. A class is a path in a binary tree: the default tree codes class c as c + num_classes, its
nodes are `(code >> (k + 1)) - 1` and bits `code & (1 << k)` for k < bit_length(code) - 1; a custom tree gives
each sample's nodes (PathTable, -1 ends a path) and bits (PathCode). PreOut [N, L] holds z = w_node . x + b_node
clipped to [-40, 40] then softplus(z); L is the longest possible path and the positions past a path stay 0, so
they add log(2) to the loss (Paddle's documented quirk, kept). Out = sum softplus(z) - sum_{bit set} z. The
gradient uses sigmoid(z) - bit on each path node, ignoring the clipping (as Paddle does).

sample_logits (sampled softmax): Samples [N, T + S] = the true labels, then S distinct classes drawn once for the
whole batch from LogUniformSampler(num_classes); Probabilities adjusted for the unique draws
(`-expm1(tries * log1p(-p))`, or `p * S` when no draw was rejected); SampledLogits = logits[Samples] - log(Q),
accidental hits (a sampled class equal to a true one) lowered by 1e20; TolerableValue on both steps.
"""
import math

import numpy as np

from .jit import kernel_jit
from .sampling import LogUniformSampler, Mt19937_64, make_sampler

__all__ = ['nce_forward', 'nce_backward', 'hsigmoid_forward', 'hsigmoid_backward', 'sample_logits_forward',
           'sample_logits_backward', 'default_code_length', 'class_center_sample']

_jit = kernel_jit(error_model='numpy')


# --- nce ------------------------------------------------------------------------------------------------------

def nce_sample_labels(label, num_neg: int, sampler, custom_neg_classes=()):
    n = label.shape[0]
    true = np.ascontiguousarray(label, np.int64).reshape(n, -1)
    width = true.shape[1] + num_neg
    out = np.empty((n, width), np.int64)
    out[:, :true.shape[1]] = true
    for i in range(n):
        if len(custom_neg_classes):
            out[i, true.shape[1]:] = custom_neg_classes
        else:
            for j in range(true.shape[1], width):
                out[i, j] = sampler.sample()
    return out


@_jit
def _nce_logits(x, w, bias, has_bias, labels, out):
    n, width = labels.shape
    for i in range(n):
        for j in range(width):
            c = labels[i, j]
            dot = x[i, 0] * w[c, 0]
            for k in range(1, x.shape[1]):
                dot += x[i, k] * w[c, k]
            acc = bias[c] + dot if has_bias else dot
            out[i, j] = 1.0 / (1.0 + math.exp(-acc))


def _probabilities(sampler, labels, num_neg):
    table = {}
    b = np.empty(labels.shape, np.float32)
    for idx, c in np.ndenumerate(labels):
        c = int(c)
        if c not in table:
            table[c] = np.float32(sampler.probability(c) * np.float32(num_neg))
        b[idx] = table[c]
    return b


def nce_forward(x, label, weight, bias, sample_weight, num_neg: int, sampler_kind: int, seed: int, custom=None,
                custom_neg_classes=()):
    """Returns (cost [N, 1], sample_logits [N, T + S], sample_labels [N, T + S])."""
    sampler = make_sampler(sampler_kind, weight.shape[0] - 1, seed, custom)
    labels = nce_sample_labels(label, num_neg, sampler, custom_neg_classes)
    if np.any(labels < 0):
        raise ValueError("operator 'nce': sample labels must be >= 0, got %s" % labels[labels < 0][:3])
    dt = x.dtype
    logits = np.empty(labels.shape, dt)
    b = np.zeros(1, dt) if bias is None else np.ascontiguousarray(bias, dt).reshape(-1)
    _nce_logits(np.ascontiguousarray(x, dt), np.ascontiguousarray(weight, dt), b, bias is not None, labels, logits)
    probs = _probabilities(sampler, labels, num_neg).astype(dt)
    num_true = labels.shape[1] - num_neg
    cost = np.where(np.arange(labels.shape[1]) < num_true, -np.log(logits / (logits + probs)),
                    -np.log(probs / (logits + probs)))
    w = np.ones((labels.shape[0], 1), dt) if sample_weight is None else \
        np.asarray(sample_weight, dt).reshape(-1, 1)
    return (cost * w).sum(axis=1, keepdims=True).astype(dt), logits, labels


@_jit
def _scatter_pair_grads(x, w, labels, g, dx, dw, db):
    """For each (row i, slot j) with class c = labels[i, j] and gradient g[i, j] of w_c . x_i (+ b_c):
    dx_i += g w_c, dw_c += g x_i, db_c += g. Negative classes (custom-tree padding) are skipped."""
    n, width = labels.shape
    d = x.shape[1]
    for i in range(n):
        for j in range(width):
            c = labels[i, j]
            if c < 0:
                continue
            gij = g[i, j]
            if gij == 0:
                continue
            for k in range(d):
                dx[i, k] += gij * w[c, k]
                dw[c, k] += gij * x[i, k]
            db[c] += gij


def nce_backward(x, weight, bias_wanted, sample_weight, sample_logits, sample_labels, dcost, num_neg: int,
                 sampler_kind: int, seed: int, custom=None):
    """Returns (d_input, d_weight, d_bias) (d_bias None unless wanted)."""
    sampler = make_sampler(sampler_kind, weight.shape[0] - 1, seed, custom)
    dt = x.dtype
    o = sample_logits
    probs = _probabilities(sampler, sample_labels, num_neg).astype(dt)
    num_true = sample_labels.shape[1] - num_neg
    w = np.ones((o.shape[0], 1), dt) if sample_weight is None else np.asarray(sample_weight, dt).reshape(-1, 1)
    true = np.arange(o.shape[1]) < num_true
    g = np.where(true, w * (probs / (o + probs)) * (o - 1), w * (o * (1 - o) / (o + probs)))
    g = (g * np.asarray(dcost, dt).reshape(-1, 1)).astype(dt)
    dx, dw = np.zeros_like(x), np.zeros_like(weight)
    db = np.zeros(weight.shape[0], dt)
    _scatter_pair_grads(np.ascontiguousarray(x), np.ascontiguousarray(weight), sample_labels, g, dx, dw, db)
    db = db.reshape(-1, 1) if bias_wanted else None
    return dx, dw, db


# --- hierarchical_sigmoid ---------------------------------------------------------------------------------------

def default_code_length(num_classes: int) -> int:
    """Paddle's FindLastSet(num_classes - 1): the longest path of the default tree."""
    return int(num_classes - 1).bit_length()


@_jit
def _paths_default(label, num_classes, length, nodes, bits, lengths):
    for i in range(label.shape[0]):
        code = label[i] + num_classes
        n = 0
        c = code
        while c > 0:
            n += 1
            c >>= 1
        n -= 1
        lengths[i] = n
        for k in range(length):
            if k < n:
                nodes[i, k] = (code >> (k + 1)) - 1
                bits[i, k] = 1 if (code & (1 << k)) != 0 else 0
            else:
                nodes[i, k] = -1
                bits[i, k] = 0


def hsigmoid_paths(label, num_classes: int, path_table=None, path_code=None):
    """(nodes [N, L], bits [N, L], lengths [N]) of every sample's path (default or custom tree)."""
    lab = np.ascontiguousarray(label, np.int64).reshape(-1)
    if path_table is None:
        length = default_code_length(num_classes)
        nodes = np.empty((lab.size, length), np.int64)
        bits = np.empty((lab.size, length), np.int64)
        lengths = np.empty(lab.size, np.int64)
        _paths_default(lab, num_classes, length, nodes, bits, lengths)
        return nodes, bits, lengths
    nodes = np.ascontiguousarray(path_table, np.int64)
    bits = np.ascontiguousarray(path_code, np.int64)
    negative = nodes < 0
    lengths = np.where(negative.any(axis=1), negative.argmax(axis=1), nodes.shape[1]).astype(np.int64)
    return nodes, bits, lengths


@_jit
def _hsigmoid_pre(x, w, bias, has_bias, nodes, lengths, pre):
    for i in range(nodes.shape[0]):
        for k in range(lengths[i]):
            node = nodes[i, k]
            dot = w[node, 0] * x[i, 0]
            for d in range(1, x.shape[1]):
                dot += w[node, d] * x[i, d]
            pre[i, k] = bias[node] + dot if has_bias else dot


def hsigmoid_forward(x, w, bias, nodes, bits, lengths):
    """Returns (out [N, 1], pre_out [N, L])."""
    dt = x.dtype
    pre = np.zeros(nodes.shape, dt)
    b = np.zeros(1, dt) if bias is None else np.ascontiguousarray(bias, dt).reshape(-1)
    _hsigmoid_pre(np.ascontiguousarray(x, dt), np.ascontiguousarray(w, dt), b, bias is not None, nodes, lengths, pre)
    np.clip(pre, -40.0, 40.0, out=pre)
    on_path = np.arange(nodes.shape[1]) < lengths[:, None]
    out = -np.sum(np.where(on_path & (bits != 0), pre, 0), axis=1, keepdims=True)
    pre = np.log(1.0 + np.exp(pre)).astype(dt)
    out = (out + pre.sum(axis=1, keepdims=True)).astype(dt)
    return out, pre


def hsigmoid_backward(x, w, pre_out, nodes, bits, lengths, dout, want_bias: bool):
    """Returns (d_x, d_w, d_bias) from PreOut (softplus(z)): d z = (1 - exp(-PreOut)) - bit on the path."""
    dt = x.dtype
    on_path = np.arange(nodes.shape[1]) < lengths[:, None]
    dz = (1.0 - 1.0 / np.exp(pre_out)) - (on_path & (bits != 0))
    dz = np.where(on_path, dz * np.asarray(dout, dt).reshape(-1, 1), 0).astype(dt)
    dx, dw = np.zeros_like(x), np.zeros_like(w)
    db = np.zeros(w.shape[0], dt)
    _scatter_pair_grads(np.ascontiguousarray(x), np.ascontiguousarray(w), np.where(on_path, nodes, -1), dz, dx, dw,
                        db)
    db = db.reshape(-1, 1) if want_bias else None
    return dx, dw, db


# --- sample_logits --------------------------------------------------------------------------------------------

def _tolerable(a):
    return np.where(a == np.inf, 1e20, np.where(a == -np.inf, -1e20, a))


def _adjust_prob(p, num_samples, tries):
    if num_samples == tries:
        return p * num_samples
    return -np.expm1(tries * np.log1p(-p))


def sample_logits_forward(logits, labels, num_samples: int, seed: int, remove_accidental_hits: bool,
                          customized=None):
    """Returns (samples, probabilities, sampled_logits, sampled_labels); `customized` = (samples, probs)."""
    dt = logits.dtype
    n, num_classes = logits.shape
    labels = np.ascontiguousarray(labels, np.int64).reshape(n, -1)
    num_true = labels.shape[1]
    if customized is not None:
        samples = np.ascontiguousarray(customized[0], np.int64)
        probs = np.asarray(customized[1], dt)
    else:
        sampler = LogUniformSampler(num_classes, seed)
        width = num_true + num_samples
        samples = np.empty((n, width), np.int64)
        probs = np.empty((n, width), np.float32)
        samples[:, :num_true] = labels
        for i in range(n):
            for j in range(num_true):
                probs[i, j] = sampler.probability(int(labels[i, j]))
        drawn, tries = [], 0
        seen = set()
        while len(drawn) < num_samples:
            tries += 1
            v = sampler.sample()
            if v in seen:
                continue
            seen.add(v)
            drawn.append(v)
        samples[:, num_true:] = drawn
        probs[:, num_true:] = [sampler.probability(v) for v in drawn]
        probs = _adjust_prob(probs.astype(dt), num_samples, tries).astype(dt)
    sampled = np.take_along_axis(logits, samples, axis=1).copy()
    if remove_accidental_hits:
        for i in range(n):
            true = set(samples[i, :num_true].tolist())
            for j in range(num_true, samples.shape[1]):
                if int(samples[i, j]) in true:
                    sampled[i, j] -= dt.type(1e20)
    sampled = _tolerable(sampled - _tolerable(np.log(probs))).astype(dt)
    sampled_labels = np.tile(np.arange(num_true, dtype=np.int64), (n, 1))
    return samples, probs, sampled, sampled_labels


def sample_logits_backward(logits_shape, samples, d_sampled, dtype):
    """Logits@GRAD: the sampled logits' gradient added back at the sampled columns."""
    d = np.zeros(logits_shape, dtype)
    rows = np.repeat(np.arange(samples.shape[0]), samples.shape[1])
    np.add.at(d, (rows, samples.reshape(-1)), np.asarray(d_sampled, dtype).reshape(-1))
    return d


# --- class_center_sample (PartialFC) ----------------------------------------------------------------------------

def class_center_sample(label, num_classes: int, num_samples: int, seed: int):
    """Paddle 2.6's CPU kernel: the labels' classes in ascending order, then negatives drawn uniformly from
    [0, num_classes) (std::uniform_int_distribution on mt19937_64, repeats skipped) until there are
    num_samples; returns (label remapped to its class's position, the sampled classes)."""
    lab = np.asarray(label).reshape(-1)
    positives = sorted(set(int(v) for v in lab))
    position = {c: i for i, c in enumerate(positives)}
    sampled = list(positives)
    chosen = set(positives)
    engine = Mt19937_64(seed if seed else int(np.random.SeedSequence().entropy & 0x7FFFFFFF))
    while len(chosen) < num_samples:
        neg = engine.uniform_int(num_classes - 1)
        if neg not in chosen:
            chosen.add(neg)
            sampled.append(neg)
    remapped = np.array([position[int(v)] for v in lab], lab.dtype).reshape(np.shape(label))
    return remapped, np.array(sampled, lab.dtype)
