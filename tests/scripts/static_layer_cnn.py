"""A Paddle 2.x static-graph CNN built from nn.Layer classes, as 2.x users write it after paddle.enable_static():
a Layer subclass with Conv2D, BatchNorm2D, ReLU, MaxPool2D, Flatten, Dropout and Linear in a Sequential,
nn.CrossEntropyLoss, paddle.optimizer.Momentum over model.parameters(), trained through
CompiledProgram.with_data_parallel with an ExecutionStrategy, evaluated after model.eval() on a test program
from clone(for_test=True). Synthetic 1x8x8 images (a fixed pattern per class plus noise)."""
import numpy as np

import paddle_exec as paddle
import paddle_exec.nn as nn
import paddle_exec.static as static

paddle.enable_static()
paddle.seed(7)


class SmallCNN(nn.Layer):
    def __init__(self, num_classes=4):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2D(1, 8, 3, padding=1), nn.BatchNorm2D(8), nn.ReLU(), nn.MaxPool2D(2, 2))
        self.flatten = nn.Flatten()
        self.dropout = nn.Dropout(0.1)
        self.classifier = nn.Linear(8 * 4 * 4, num_classes)

    def forward(self, x):
        return self.classifier(self.dropout(self.flatten(self.features(x))))


patterns = np.random.RandomState(3).rand(4, 1, 8, 8)


def make_data(n, seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, 4, (n, 1)).astype('int64')
    images = (0.5 * patterns[labels[:, 0]] + 0.5 * rng.rand(n, 1, 8, 8)) * 2 - 1
    return images.astype('float32'), labels


train_x, train_y = make_data(512, 1)
test_x, test_y = make_data(256, 2)

main_program, startup_program = static.Program(), static.Program()
with static.program_guard(main_program, startup_program):
    image = static.data(name='image', shape=[None, 1, 8, 8], dtype='float32')
    label = static.data(name='label', shape=[None, 1], dtype='int64')
    model = SmallCNN()
    logits = model(image)
    loss = nn.CrossEntropyLoss()(logits, label)
    acc = paddle.metric.accuracy(input=paddle.nn.functional.softmax(logits), label=label)
    test_program = main_program.clone(for_test=True)
    paddle.optimizer.Momentum(learning_rate=0.05, momentum=0.9, parameters=model.parameters()).minimize(loss)

exe = static.Executor(paddle.CPUPlace())
exe.run(startup_program)
exec_strategy = static.ExecutionStrategy()
exec_strategy.num_threads = 2
compiled = static.CompiledProgram(main_program).with_data_parallel(loss_name=loss.name,
                                                                   exec_strategy=exec_strategy)


def evaluate():
    loss_val, acc_val = exe.run(test_program, feed={'image': test_x, 'label': test_y}, fetch_list=[loss, acc])
    return float(loss_val), float(acc_val)


history = [evaluate()]
for epoch in range(4):
    order = np.random.RandomState(epoch).permutation(len(train_x))
    for start in range(0, len(order), 32):
        idx = order[start:start + 32]
        loss_val, = exe.run(compiled, feed={'image': train_x[idx], 'label': train_y[idx]}, fetch_list=[loss])
    history.append(evaluate())
    print('epoch %d train loss %.4f test loss %.4f acc %.4f' % ((epoch, float(np.mean(loss_val))) + history[-1]))

model.eval()
assert not model.dropout.training and not model.features[1].training
assert history[-1][0] < 0.5 * history[0][0], 'the test loss did not fall: %s' % history
assert history[-1][1] > 0.9, 'the test accuracy did not rise: %s' % history
