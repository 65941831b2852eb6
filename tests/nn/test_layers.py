"""paddle.nn Layer classes in static mode (paddle_exec/nn/layer/).

Names, op types and initialisers are compared with what Paddle 2.6.2 builds for the same code (recorded from its
printout after paddle.enable_static()); numbers with numpy references: forward passes of every layer, and a few
SGD steps of a Layer-built MLP against a hand-written numpy forward/backward. The Layer mechanics (attribute
registration, parameters/sublayers walks, train/eval, hooks, state_dict/set_state_dict, containers) each have
their own test.
"""
from __future__ import annotations

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.nn as nn
import paddle_exec.nn.functional as F
import paddle_exec.static as static
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import Scope, scope_guard
from tests.kernels.test_conv import ref_conv2d, ref_pool2d

F32 = np.float32


def build(fn):
    """fn() inside fresh programs and names; returns (main, startup, fn's result)."""
    main, startup = static.Program(), static.Program()
    main.random_seed = startup.random_seed = 7
    with unique_name.guard(), static.program_guard(main, startup):
        result = fn()
    return main, startup, result


def run(main, startup, feed, fetch, scope=None, params=None):
    scope = Scope() if scope is None else scope
    exe = static.Executor(static.CPUPlace())
    exe.run(startup, scope=scope)
    for name, value in (params or {}).items():
        scope.var(name).set_value(np.asarray(value, F32))
    return exe.run(main, feed=feed, fetch_list=fetch, scope=scope)


class Net(nn.Layer):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(13, 8)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(8, 1, bias_attr=False)
        self.bn = nn.BatchNorm1D(8)

    def forward(self, x):
        return self.fc2(self.bn(self.act(self.fc1(x))))


# --- against Paddle 2.6.2 ------------------------------------------------------------------------------------------

def test_names_ops_and_initialisers_match_paddle_2_6():
    def body():
        x = static.data('x', [None, 13], 'float32')
        net = Net()
        y = net(x)
        seq = nn.Sequential(nn.Linear(13, 4), nn.Tanh())
        return net, y, seq(x)
    main, startup, (net, y, z) = build(body)
    assert net.full_name() == 'net_0'
    assert [p.name for p in net.parameters()] == [
        'linear_0.w_0', 'linear_0.b_0', 'linear_1.w_0', 'batch_norm1d_0.w_0', 'batch_norm1d_0.b_0',
        'batch_norm1d_0.w_1', 'batch_norm1d_0.w_2']
    assert list(net.state_dict()) == ['fc1.weight', 'fc1.bias', 'fc2.weight', 'bn.weight', 'bn.bias', 'bn._mean',
                                      'bn._variance']
    block = main.global_block()
    assert [op.type for op in block.ops] == ['matmul_v2', 'elementwise_add', 'relu', 'batch_norm', 'matmul_v2',
                                             'matmul_v2', 'elementwise_add', 'tanh']
    assert [op.output_arg_names[0] for op in block.ops[:3]] == ['linear_2.tmp_0', 'linear_2.tmp_1', 'relu_0.tmp_0']
    assert y.name == 'linear_3.tmp_0' and z.name == 'tanh_1.tmp_0'
    assert block.ops[1].attr('axis') == -1
    bn_op = block.ops[3]
    assert bn_op.output('MeanOut') == ['batch_norm1d_0.w_1'] and bn_op.attr('is_test') is False
    mean = block.var('batch_norm1d_0.w_1')
    assert mean.persistable and mean.stop_gradient and not mean.trainable
    assert [op.type for op in startup.global_block().ops] == [
        'uniform_random', 'fill_constant', 'uniform_random', 'fill_constant', 'fill_constant', 'fill_constant',
        'fill_constant', 'uniform_random', 'fill_constant']
    assert [op.attr('value') for op in startup.global_block().ops[3:7]] == [1.0, 0.0, 0.0, 1.0]


def test_conv_norm_embedding_parameters_match_paddle_2_6():
    def body():
        x = static.data('x', [None, 3, 8, 8], 'float32')
        conv, bn, ln, emb = nn.Conv2D(3, 4, 3, padding=1), nn.BatchNorm2D(4), nn.LayerNorm([4, 8, 8]), \
            nn.Embedding(10, 5)
        ln(bn(conv(x)))
        return conv, bn, ln, emb
    main, startup, layers = build(body)
    params = [(p.name, tuple(p.shape), p.stop_gradient, p.trainable) for layer in layers for p in layer.parameters()]
    assert params == [('conv2d_0.w_0', (4, 3, 3, 3), False, True), ('conv2d_0.b_0', (4,), False, True),
                      ('batch_norm2d_0.w_0', (4,), False, True), ('batch_norm2d_0.b_0', (4,), False, True),
                      ('batch_norm2d_0.w_1', (4,), True, False), ('batch_norm2d_0.w_2', (4,), True, False),
                      ('layer_norm_0.w_0', (256,), False, True), ('layer_norm_0.b_0', (256,), False, True),
                      ('embedding_0.w_0', (10, 5), False, True)]
    init = {op.output_arg_names[0]: op for op in startup.global_block().ops}
    conv_init = init['conv2d_0.w_0']
    assert conv_init.type == 'gaussian_random' and conv_init.attr('std') == pytest.approx(0.27216553688049316)
    emb_init = init['embedding_0.w_0']
    assert emb_init.type == 'uniform_random' and emb_init.attr('max') == pytest.approx(0.6324555277824402)
    assert [op.type for op in main.global_block().ops][0] == 'conv2d'
    assert list(layers[1].state_dict()) == ['weight', 'bias', '_mean', '_variance']


@pytest.mark.parametrize('name, want', [('Linear', 'linear'), ('ReLU', 're_lu'), ('BatchNorm1D', 'batch_norm1d'),
                                        ('CrossEntropyLoss', 'cross_entropy_loss'), ('LeakyReLU', 'leaky_re_lu'),
                                        ('ReLU6', 're_lu6'), ('BCEWithLogitsLoss', 'bce_with_logits_loss'),
                                        ('AdaptiveAvgPool2D', 'adaptive_avg_pool2d')])
def test_full_names_snake_case_the_class_name_as_paddle_does(name, want):
    with unique_name.guard():
        from paddle_exec.nn.layer.layers import camel_to_snake
        assert camel_to_snake(name) == want


# --- numbers ------------------------------------------------------------------------------------------------------

def test_linear_relu_mlp_trains_like_numpy():
    """Three SGD steps of Linear-ReLU-Linear with MSELoss equal a numpy forward/backward from the same weights."""
    rng = np.random.default_rng(0)
    w1, b1 = rng.normal(0, 0.5, (13, 8)).astype(F32), rng.normal(0, 0.1, 8).astype(F32)
    w2, b2 = rng.normal(0, 0.5, (8, 1)).astype(F32), rng.normal(0, 0.1, 1).astype(F32)
    xs = rng.normal(size=(3, 16, 13)).astype(F32)
    ys = rng.normal(size=(3, 16, 1)).astype(F32)
    lr = 0.05

    def body():
        x, y = static.data('x', [None, 13], 'float32'), static.data('y', [None, 1], 'float32')
        model = nn.Sequential(nn.Linear(13, 8), nn.ReLU(), nn.Linear(8, 1))
        loss = nn.MSELoss()(model(x), y)
        paddle.optimizer.SGD(learning_rate=lr, parameters=model.parameters()).minimize(loss)
        return model, loss
    main, startup, (model, loss) = build(body)
    scope = Scope()
    exe = static.Executor(static.CPUPlace())
    exe.run(startup, scope=scope)
    for p, v in zip(model.parameters(), (w1, b1, w2, b2)):
        scope.var(p.name).set_value(v.copy())
    ref = [w1.copy(), b1.copy(), w2.copy(), b2.copy()]
    for x, y in zip(xs, ys):
        got, = exe.run(main, feed={'x': x, 'y': y}, fetch_list=[loss], scope=scope)
        rw1, rb1, rw2, rb2 = ref
        h = x @ rw1 + rb1
        a = np.maximum(h, 0)
        out = a @ rw2 + rb2
        want = np.mean((out - y) ** 2)
        np.testing.assert_allclose(got, want, rtol=1e-5)
        d_out = 2 * (out - y) / out.size
        d_a = d_out @ rw2.T
        d_h = d_a * (h > 0)
        ref = [rw1 - lr * x.T @ d_h, rb1 - lr * d_h.sum(0), rw2 - lr * a.T @ d_out, rb2 - lr * d_out.sum(0)]
    for p, want in zip(model.parameters(), ref):
        np.testing.assert_allclose(scope.find_var(p.name).get_tensor().value, want, rtol=1e-5, atol=1e-6)


def test_conv_pool_flatten_forward_matches_numpy():
    rng = np.random.default_rng(1)
    w, b = rng.normal(size=(4, 3, 3, 3)).astype(F32), rng.normal(size=4).astype(F32)
    x = rng.normal(size=(2, 3, 8, 8)).astype(F32)

    def body():
        inp = static.data('x', [None, 3, 8, 8], 'float32')
        conv = nn.Conv2D(3, 4, 3, stride=1, padding=1)
        outs = [conv(inp)]
        outs.append(nn.MaxPool2D(2, 2)(outs[0]))
        outs.append(nn.AvgPool2D(2, 2)(outs[0]))
        outs.append(nn.AdaptiveAvgPool2D(1)(outs[0]))
        outs.append(nn.Flatten()(outs[1]))
        return conv, outs
    main, startup, (conv, outs) = build(body)
    got = run(main, startup, {'x': x}, outs, params={conv.weight.name: w, conv.bias.name: b})
    want_conv = ref_conv2d(x, w, (1, 1), (1, 1, 1, 1), (1, 1), 1) + b.reshape(1, 4, 1, 1)
    np.testing.assert_allclose(got[0], want_conv, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[1], ref_pool2d(want_conv, (2, 2), 'max', (2, 2), (0, 0, 0, 0)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[2], ref_pool2d(want_conv, (2, 2), 'avg', (2, 2), (0, 0, 0, 0)), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(got[3], want_conv.mean(axis=(2, 3), keepdims=True), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(got[4], got[1].reshape(2, -1))


def test_batch_norm_trains_with_batch_statistics_and_eval_uses_running_ones():
    rng = np.random.default_rng(2)
    x = rng.normal(2.0, 3.0, size=(16, 4, 3, 3)).astype(F32)

    def body(training):
        def inner():
            inp = static.data('x', [None, 4, 3, 3], 'float32')
            bn = nn.BatchNorm2D(4, momentum=0.8)
            if not training:
                bn.eval()
            return bn, bn(inp)
        return inner
    main, startup, (bn, out) = build(body(True))
    scope = Scope()
    got, = run(main, startup, {'x': x}, [out], scope=scope)
    mean, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    want = (x - mean.reshape(1, 4, 1, 1)) / np.sqrt(var.reshape(1, 4, 1, 1) + 1e-5)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    running = scope.find_var(bn._mean.name).get_tensor().value
    np.testing.assert_allclose(running, 0.2 * mean, rtol=1e-4)

    main, startup, (bn, out) = build(body(False))
    assert main.global_block().ops[0].attr('is_test') is True
    got, = run(main, startup, {'x': x}, [out], params={bn._mean.name: mean, bn._variance.name: var})
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)


def test_layer_norm_and_embedding_forward_match_numpy():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(5, 6)).astype(F32)
    ids = np.array([[0, 3], [9, 1]], np.int64)
    table = rng.normal(size=(10, 4)).astype(F32)

    def body():
        inp, idx = static.data('x', [None, 6], 'float32'), static.data('ids', [None, 2], 'int64')
        ln, emb = nn.LayerNorm(6), nn.Embedding(10, 4, padding_idx=-1)
        return emb, [ln(inp), emb(idx)]
    main, startup, (emb, outs) = build(body)
    got = run(main, startup, {'x': x, 'ids': ids}, outs, params={emb.weight.name: table})
    want = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(got[0], want, rtol=1e-4, atol=1e-5)
    want_emb = table[ids]
    want_emb[ids == 9] = 0.0                       # padding_idx -1 is row 9
    np.testing.assert_allclose(got[1], want_emb)


@pytest.mark.parametrize('cls, args, ref', [
    (nn.ReLU, (), lambda x: np.maximum(x, 0)),
    (nn.LeakyReLU, (0.2,), lambda x: np.where(x > 0, x, 0.2 * x)),
    (nn.Sigmoid, (), lambda x: 1 / (1 + np.exp(-x))),
    (nn.Tanh, (), np.tanh),
    (nn.Hardtanh, (-0.5, 0.5), lambda x: np.clip(x, -0.5, 0.5)),
    (nn.Softmax, (0,), lambda x: np.exp(x) / np.exp(x).sum(0, keepdims=True)),
    (nn.ELU, (), lambda x: np.where(x > 0, x, np.exp(x) - 1)),
    (nn.Softplus, (), lambda x: np.log1p(np.exp(x))),
])
def test_activation_layers_compute_their_function(cls, args, ref):
    x = np.random.default_rng(4).normal(size=(4, 5)).astype(F32)

    def body():
        return cls(*args)(static.data('x', [4, 5], 'float32'))
    main, startup, out = build(body)
    got, = run(main, startup, {'x': x}, [out])
    np.testing.assert_allclose(got, ref(x), rtol=1e-5, atol=1e-6)


def test_activation_layers_check_their_arguments():
    with pytest.raises(TypeError, match='unexpected keyword'):
        nn.LeakyReLU(slope=0.1)
    with pytest.raises(TypeError, match='at most 1'):
        nn.Softmax(0, 1)
    assert 'negative_slope=0.1' in repr(nn.LeakyReLU(0.1))


def test_loss_layers_reduce_like_numpy():
    rng = np.random.default_rng(5)
    logits = rng.normal(size=(6, 3)).astype(F32)
    label = rng.integers(0, 3, size=(6, 1)).astype(np.int64)
    pred, target = rng.uniform(0.1, 0.9, (6, 1)).astype(F32), rng.integers(0, 2, (6, 1)).astype(F32)

    def body():
        lg, lb = static.data('logits', [None, 3], 'float32'), static.data('label', [None, 1], 'int64')
        p, t = static.data('p', [None, 1], 'float32'), static.data('t', [None, 1], 'float32')
        return [nn.CrossEntropyLoss()(lg, lb), nn.CrossEntropyLoss(reduction='sum')(lg, lb),
                nn.MSELoss(reduction='none')(p, t), nn.BCELoss()(p, t), nn.BCEWithLogitsLoss()(p, t)]
    main, startup, outs = build(body)
    got = run(main, startup, {'logits': logits, 'label': label, 'p': pred, 't': target}, outs)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    nll = -np.take_along_axis(logp, label, 1)
    np.testing.assert_allclose(got[0], nll.mean(), rtol=1e-5)
    np.testing.assert_allclose(got[1], nll.sum(), rtol=1e-5)
    np.testing.assert_allclose(got[2], (pred - target) ** 2, rtol=1e-6)
    np.testing.assert_allclose(got[3], np.mean(-(target * np.log(pred) + (1 - target) * np.log(1 - pred))),
                               rtol=1e-5)
    sig = 1 / (1 + np.exp(-pred))
    np.testing.assert_allclose(got[4], np.mean(-(target * np.log(sig) + (1 - target) * np.log(1 - sig))),
                               rtol=1e-5)
    with pytest.raises(ValueError, match="'reduction' in MSELoss"):
        nn.MSELoss(reduction='avg')


# --- Layer mechanics ----------------------------------------------------------------------------------------------

def test_attributes_register_parameters_sublayers_and_shared_ones_once():
    def body():
        net = nn.Layer()
        shared = nn.Linear(2, 2)
        net.a, net.b = shared, shared
        net.w = net.create_parameter([3])
        return net, shared
    _, _, (net, shared) = build(body)
    assert net.w is net._parameters['w'] and 'w' not in net.__dict__
    assert [name for name, _ in net.named_parameters()] == ['w', 'a.weight', 'a.bias']
    assert net.sublayers() == [shared] and list(net.children()) == [shared]
    net.w = None
    assert net.parameters() == shared.parameters()
    with pytest.raises(TypeError, match="parameter 'w' should be of type Parameter"):
        net.w = 3
    del net.a
    assert [name for name, _ in net.named_sublayers()] == ['b']
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        net.nothing


def test_a_layer_without_super_init_is_a_clear_error():
    class Broken(nn.Layer):
        def __init__(self):
            self.fc = nn.Linear(2, 2)
    with unique_name.guard(), static.program_guard(static.Program(), static.Program()):
        with pytest.raises(ValueError, match='__init__\\(\\) should be called first'):
            Broken()


def test_train_and_eval_switch_the_whole_tree_and_the_built_ops():
    def body(eval_mode):
        def inner():
            x = static.data('x', [None, 4], 'float32')
            model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.3), nn.BatchNorm1D(4))
            if eval_mode:
                model.eval()
            return model, model(x)
        return inner
    main, _, (model, _) = build(body(True))
    assert [layer.training for layer in model.sublayers(include_self=True)] == [False] * 4
    assert {op.type: op.attr('is_test') for op in main.global_block().ops if op.has_attr('is_test')} == {
        'dropout': True, 'batch_norm': True}
    main, _, (model, _) = build(body(False))
    assert {op.type: op.attr('is_test') for op in main.global_block().ops if op.has_attr('is_test')} == {
        'dropout': False, 'batch_norm': False}
    assert model.eval().train() is model and model[1].training


def test_forward_hooks_can_replace_inputs_and_outputs_and_be_removed():
    calls = []

    def body():
        x = static.data('x', [None, 2], 'float32')
        layer = nn.Identity()
        pre = layer.register_forward_pre_hook(lambda lay, inputs: calls.append('pre') or (inputs[0] * 2,))
        layer.register_forward_post_hook(lambda lay, inputs, out: out + 1)
        y = layer(x)
        pre.remove()
        return layer(x), y
    main, startup, (plain, hooked) = build(body)
    got = run(main, startup, {'x': np.ones((1, 2), F32)}, [hooked, plain])
    np.testing.assert_allclose(got[0], [[3.0, 3.0]])
    np.testing.assert_allclose(got[1], [[2.0, 2.0]])
    assert calls == ['pre']


def test_set_state_dict_writes_the_global_scope_and_reports_missing_keys():
    def body():
        x = static.data('x', [None, 3], 'float32')
        fc = nn.Linear(3, 2)
        return fc, fc(x)
    main, startup, (fc, out) = build(body)
    scope = Scope()
    exe = static.Executor(static.CPUPlace())
    w = np.arange(6, dtype=F32).reshape(3, 2)
    with scope_guard(scope):
        exe.run(startup)
        missing, unexpected = fc.set_state_dict({'weight': w, 'extra': np.zeros(1)})
        got, = exe.run(main, feed={'x': np.ones((1, 3), F32)}, fetch_list=[out])
    assert missing == ['bias'] and unexpected == ['extra']
    np.testing.assert_allclose(got, np.ones((1, 3)) @ w)
    with pytest.raises(ValueError, match='expected shape is \\[3, 2\\]'):
        fc.set_state_dict({'weight': np.zeros((2, 2))})


def test_containers_index_slice_and_register_their_members():
    def body():
        seq = nn.Sequential(('fc', nn.Linear(2, 3)), ('act', nn.ReLU()))
        lst = nn.LayerList([nn.Linear(2, 2) for _ in range(3)])
        dct = nn.LayerDict({'a': nn.Linear(2, 2)})
        plist = nn.ParameterList([nn.Layer().create_parameter([2]) for _ in range(2)])
        return seq, lst, dct, plist
    _, _, (seq, lst, dct, plist) = build(body)
    assert isinstance(seq['act'], nn.ReLU) and seq[0] is seq['fc'] and len(seq[1:]) == 1
    assert list(seq.state_dict()) == ['fc.weight', 'fc.bias']
    first = lst[0]
    del lst[0]
    assert len(lst) == 2 and first not in list(lst) and list(lst._sub_layers) == ['0', '1']
    lst.insert(0, first)
    assert lst[0] is first and lst[-1] is list(lst)[2]
    with pytest.raises(IndexError):
        lst[3]
    assert len(lst.parameters()) == 6
    assert list(dct) == ['a'] and 'a' in dct and list(dct.state_dict()) == ['a.weight', 'a.bias']
    assert len(plist) == 2 and list(plist.state_dict()) == ['0', '1']
    with pytest.raises(TypeError, match='holds Parameters'):
        plist.append(3)


def test_functional_linear_without_bias_is_one_matmul():
    def body():
        x = static.data('x', [None, 3], 'float32')
        w = static.create_parameter([3, 2], 'float32')
        return F.linear(x, w)
    main, startup, out = build(body)
    assert [op.type for op in main.global_block().ops] == ['matmul_v2']
    x = np.ones((2, 3), F32)
    w = np.arange(6, dtype=F32).reshape(3, 2)
    got, = run(main, startup, {'x': x}, [out], params={main.global_block().ops[0].input('Y')[0]: w})
    np.testing.assert_allclose(got, x @ w)
