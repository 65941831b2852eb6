"""nce, hierarchical_sigmoid and sample_logits through small programs, and Paddle's samplers.

Forward values against numpy references written from the formulas (given the classes the op sampled, which it
outputs); gradients against central finite differences in float64 (a fixed seed draws the same classes at every
run, so the loss is a smooth function of the inputs). The samplers against the published reference outputs of
std::mt19937 / std::mt19937_64. Real Paddle's numbers, samples included, are in
tests/golden/api/fluid_losses.npz."""
from __future__ import annotations

import numpy as np
import pytest

from paddle_exec.kernels import sampling
from paddle_exec.kernels.loss_sampled import sample_logits_forward
from tests.ops.test_nn_ops import OpProgram, append


def test_mersenne_twisters_match_the_cpp_reference_values():
    # the C++ standard's check values: the 10000th output of a default-constructed engine (seed 5489)
    for engine, want in ((sampling.Mt19937_64(5489), 9981545732273789042), (sampling.Mt19937(5489), 4123659995)):
        for _ in range(9999):
            engine.next()
        assert engine.next() == want


def test_samplers_draw_in_range_with_their_probabilities():
    uniform = sampling.UniformSampler(9, seed=3)
    draws = [uniform.sample() for _ in range(5000)]
    assert min(draws) == 0 and max(draws) == 9
    assert abs(np.mean(draws) - 4.5) < 0.2
    assert uniform.probability(4) == np.float32(0.1)
    log_uniform = sampling.LogUniformSampler(20, seed=3)
    draws = np.array([log_uniform.sample() for _ in range(5000)])
    assert draws.min() >= 0 and draws.max() < 20
    assert np.mean(draws == 0) > np.mean(draws == 10)          # small ids are more likely
    np.testing.assert_allclose(log_uniform.probability(0), np.log(2) / np.log(21), rtol=1e-6)
    again = sampling.LogUniformSampler(20, seed=3)
    fresh = sampling.LogUniformSampler(20, seed=3)
    assert [again.sample() for _ in range(10)] == [fresh.sample() for _ in range(10)]


def nce_program(x, label, w, b, attrs, wrt=()):
    def build(block, x, label, w, b):
        outs = append(block, 'nce', {'Input': [x], 'Label': [label], 'Weight': [w], 'Bias': [b]},
                      {'Cost': 1, 'SampleLogits': 1, 'SampleLabels': 1}, attrs)
        build.labels = outs['SampleLabels'][0]
        return outs['Cost'][0]
    prog = OpProgram(build, {'x': x, 'label': label, 'w': w, 'b': b}, wrt)
    prog.sample_labels = build.labels
    return prog


def ref_nce(x, w, b, labels, num_true, prob, num_neg):
    logits = 1 / (1 + np.exp(-(np.einsum('nd,nkd->nk', x, w[labels]) + b[labels, 0])))
    bq = prob * num_neg
    cost = np.where(np.arange(labels.shape[1]) < num_true, -np.log(logits / (logits + bq)),
                    -np.log(bq / (logits + bq)))
    return cost.sum(axis=1, keepdims=True)


@pytest.mark.parametrize('sampler', [0, 1])
def test_nce_forward_and_grads(sampler):
    rng = np.random.default_rng(0)
    classes = 9
    x, w, b = rng.standard_normal((4, 3)), rng.standard_normal((classes, 3)) * 0.5, rng.standard_normal((classes, 1))
    label = rng.integers(0, classes, (4, 2))
    attrs = {'num_total_classes': classes, 'num_neg_samples': 3, 'seed': 5, 'sampler': sampler}
    prog = nce_program(x, label, w, b, attrs, wrt=('x', 'w', 'b'))
    cost, labels = prog.run([prog.out, prog.sample_labels])
    assert labels.shape == (4, 5) and np.array_equal(labels[:, :2], label)
    if sampler == 0:
        prob = np.full(labels.shape, 1 / classes)
    else:
        prob = np.log((labels + 2.0) / (labels + 1.0)) / np.log(classes)
    np.testing.assert_allclose(cost, ref_nce(x, w, b, labels, 2, prob, 3), rtol=1e-6)
    again, = prog.run([prog.sample_labels])
    assert np.array_equal(again, labels)
    prog.check_grads(rtol=1e-5, atol=1e-7)


def test_nce_custom_negative_classes_and_sparse_weight_grad():
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((3, 2)), rng.standard_normal((6, 2)), rng.standard_normal((6, 1))
    attrs = {'num_total_classes': 6, 'num_neg_samples': 2, 'custom_neg_classes': [4, 5], 'seed': 1}
    prog = nce_program(x, np.array([[0], [1], [2]]), w, b, attrs)
    labels, = prog.run([prog.sample_labels])
    assert labels.tolist() == [[0, 4, 5], [1, 4, 5], [2, 4, 5]]


def hsig_program(x, label, w, bias, num_classes, table=None, code=None, wrt=()):
    feeds = {'x': x, 'label': label, 'w': w}
    if bias is not None:
        feeds['bias'] = bias
    if table is not None:
        feeds.update(table=table, code=code)

    def build(block, **vs):
        inputs = {'X': [vs['x']], 'W': [vs['w']], 'Label': [vs['label']]}
        for slot, name in (('Bias', 'bias'), ('PathTable', 'table'), ('PathCode', 'code')):
            if name in vs:
                inputs[slot] = [vs[name]]
        outs = append(block, 'hierarchical_sigmoid', inputs, {'Out': 1, 'PreOut': 1}, {'num_classes': num_classes})
        return outs['Out'][0]
    return OpProgram(build, feeds, wrt)


def ref_hsigmoid(x, w, bias, nodes, bits, length):
    out = np.zeros((x.shape[0], 1))
    for i in range(x.shape[0]):
        for k in range(length):
            node = nodes[i][k] if k < len(nodes[i]) else None
            if node is None:
                out[i] += np.log(2)              # positions past the path: softplus(0), as Paddle adds them
                continue
            z = np.clip(w[node] @ x[i] + (bias[node, 0] if bias is not None else 0), -40, 40)
            out[i] += np.log1p(np.exp(z)) - bits[i][k] * z
    return out


def default_paths(label, num_classes):
    nodes, bits = [], []
    for c in label.reshape(-1):
        code = int(c) + num_classes
        n = code.bit_length() - 1
        nodes.append([(code >> (k + 1)) - 1 for k in range(n)])
        bits.append([1 if code & (1 << k) else 0 for k in range(n)])
    return nodes, bits


def test_hsigmoid_default_tree_forward_and_grads():
    rng = np.random.default_rng(2)
    num_classes = 6
    x, w, bias = rng.standard_normal((5, 4)), rng.standard_normal((5, 4)) * 0.5, rng.standard_normal((5, 1))
    label = rng.integers(0, num_classes, (5, 1))
    prog = hsig_program(x, label, w, bias, num_classes, wrt=('x', 'w', 'bias'))
    got, = prog.run([prog.out])
    nodes, bits = default_paths(label, num_classes)
    np.testing.assert_allclose(got, ref_hsigmoid(x, w, bias, nodes, bits, 3), rtol=1e-10)
    prog.check_grads()


def test_hsigmoid_custom_tree_forward_and_grads():
    rng = np.random.default_rng(3)
    x, w = rng.standard_normal((3, 4)), rng.standard_normal((5, 4)) * 0.5
    table = np.array([[0, 1, 3], [0, 2, -1], [4, -1, -1]])
    code = np.array([[1, 0, 1], [0, 1, 0], [1, 0, 0]])
    prog = hsig_program(x, np.array([[0], [1], [2]]), w, None, 5, table, code, wrt=('x', 'w'))
    got, = prog.run([prog.out])
    nodes = [[0, 1, 3], [0, 2], [4]]
    np.testing.assert_allclose(got, ref_hsigmoid(x, w, None, nodes, code.tolist(), 3), rtol=1e-10)
    prog.check_grads()


def sample_logits_program(logits, label, samples, probs, attrs, wrt=()):
    def build(block, logits, label, samples, probs):
        outs = append(block, 'sample_logits',
                      {'Logits': [logits], 'Labels': [label], 'CustomizedSamples': [samples],
                       'CustomizedProbabilities': [probs]},
                      {'Samples': 0, 'Probabilities': 0, 'SampledLogits': 1, 'SampledLabels': 1, 'LogitsDim': 1,
                       'LabelsDim': 1}, attrs)
        block.ops[-1].outputs['Samples'] = [samples.name]
        block.ops[-1].outputs['Probabilities'] = [probs.name]
        return outs['SampledLogits'][0]
    return OpProgram(build, {'logits': logits, 'label': label, 'samples': samples, 'probs': probs}, wrt)


def test_sample_logits_with_customized_samples_forward_and_grad():
    rng = np.random.default_rng(4)
    logits = rng.standard_normal((3, 8))
    label = np.array([[1], [5], [2]])
    samples = np.concatenate([label, np.tile([[0, 5, 7]], (3, 1))], axis=1)
    probs = rng.uniform(0.1, 0.5, (3, 4))
    attrs = {'use_customized_samples': True, 'num_samples': 3, 'remove_accidental_hits': True}
    prog = sample_logits_program(logits, label, samples, probs, attrs, wrt=('logits',))
    got, = prog.run([prog.out])
    want = np.take_along_axis(logits, samples, axis=1) - np.log(probs)
    want[1, 2] -= 1e20                                   # class 5 sampled again for the row whose label is 5
    np.testing.assert_allclose(got, want, rtol=1e-12)
    # the gradient skips the huge accidental-hit entry: project it away by checking a row without one
    prog2 = sample_logits_program(logits[[0, 2]], label[[0, 2]], samples[[0, 2]], probs[[0, 2]], attrs,
                                  wrt=('logits',))
    prog2.check_grads()


def test_sample_logits_draws_unique_log_uniform_classes():
    logits = np.zeros((2, 30))
    samples, probs, sampled, labels = sample_logits_forward(logits, np.array([[3], [4]]), 10, seed=9,
                                                            remove_accidental_hits=False)
    assert samples.shape == (2, 11) and len(set(samples[0, 1:].tolist())) == 10
    assert np.array_equal(samples[0, 1:], samples[1, 1:])    # one draw for the whole batch
    assert labels.tolist() == [[0], [0]]
    assert np.all((probs > 0) & (probs < 1))
