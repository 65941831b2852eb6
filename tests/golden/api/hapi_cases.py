"""The hapi cases shared by record_hapi.py (run on Paddle 2.6.2) and tests/hapi/ (run on paddle_exec): a small MLP
with fixed weights on fixed data, and the programs whose FLOPs are counted. Written against Paddle's own names
(`paddle` is whichever package the caller passes in), so both sides build the same thing.
"""
import numpy as np

W1 = (np.arange(32).reshape(4, 8) % 7 - 3).astype('float32') * 0.1
W2 = (np.arange(24).reshape(8, 3) % 5 - 2).astype('float32') * 0.1


def data(n: int, seed: int):
    rng = np.random.RandomState(seed)
    return rng.rand(n, 4).astype('float32'), rng.randint(0, 3, (n, 1)).astype('int64')


def make_dataset(paddle, n: int, seed: int):
    class ArrayDataset(paddle.io.Dataset):
        def __init__(self):
            self.x, self.y = data(n, seed)

        def __getitem__(self, i):
            return self.x[i], self.y[i]

        def __len__(self):
            return len(self.x)
    return ArrayDataset()


def make_mlp(paddle):
    nn = paddle.nn

    class MLP(nn.Layer):
        def __init__(self):
            super().__init__()
            self.fc1 = nn.Linear(4, 8, weight_attr=paddle.ParamAttr(initializer=nn.initializer.Assign(W1)))
            self.fc2 = nn.Linear(8, 3, weight_attr=paddle.ParamAttr(initializer=nn.initializer.Assign(W2)))

        def forward(self, x):
            return self.fc2(nn.functional.relu(self.fc1(x)))
    return MLP()


def make_model(paddle, optimizer: str = 'sgd'):
    """The MLP as a paddle.Model with SGD(0.5) or Adam over a StepDecay schedule, cross entropy, top-1/2 accuracy."""
    InputSpec = paddle.static.InputSpec
    net = make_mlp(paddle)
    model = paddle.Model(net, inputs=[InputSpec([None, 4], 'float32', 'x')],
                         labels=[InputSpec([None, 1], 'int64', 'label')])
    if optimizer == 'sgd':
        opt = paddle.optimizer.SGD(learning_rate=0.5, parameters=model.parameters())
    else:
        lr = paddle.optimizer.lr.StepDecay(learning_rate=0.05, step_size=3, gamma=0.5)
        opt = paddle.optimizer.Adam(learning_rate=lr, parameters=model.parameters())
    model.prepare(opt, paddle.nn.CrossEntropyLoss(), paddle.metric.Accuracy(topk=(1, 2)))
    return net, model


def make_recorder(paddle, store: dict):
    """A Callback that keeps every batch's logs: store['train'] / store['eval'] lists of [loss, acc1, acc2]."""
    class Recorder(paddle.callbacks.Callback):
        def on_train_batch_end(self, step, logs=None):
            store.setdefault('train', []).append([logs['loss'][0], logs['acc_top1'], logs['acc_top2']])

        def on_eval_batch_end(self, step, logs=None):
            store.setdefault('eval', []).append([logs['loss'][0], logs['acc_top1'], logs['acc_top2']])
    return Recorder()


def make_lenet(paddle):
    nn = paddle.nn

    class LeNet(nn.Layer):
        def __init__(self):
            super().__init__()
            self.features = nn.Sequential(nn.Conv2D(1, 6, 3, stride=1, padding=1), nn.ReLU(), nn.MaxPool2D(2, 2),
                                          nn.Conv2D(6, 16, 5, stride=1, padding=0), nn.ReLU(), nn.MaxPool2D(2, 2))
            self.fc = nn.Sequential(nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10))

        def forward(self, x):
            return self.fc(paddle.flatten(self.features(x), 1))
    return LeNet()


def flops_programs(paddle):
    """name -> Program whose FLOPs paddle.flops counts."""
    static, F = paddle.static, paddle.nn.functional
    progs = {}
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [None, 1, 28, 28], 'float32')
        make_lenet(paddle)(x)
    progs['lenet'] = main
    main = static.Program()
    with static.program_guard(main, static.Program()):
        x = static.data('x', [None, 3, 16, 16], 'float32')
        h = static.nn.conv2d(x, 8, 3, padding=1, bias_attr=False)
        h = static.nn.batch_norm(h)
        h = F.max_pool2d(h, 2) + F.avg_pool2d(h, 2)
        h = F.leaky_relu(h) * 2.0
        h = paddle.reshape(h, [-1, 8 * 8 * 8])
        w = static.create_parameter([512, 10], 'float32', name='w_fc')
        out = paddle.matmul(h, w)
        static.nn.fc(out, 5)
    progs['conv_bn'] = main
    return progs
