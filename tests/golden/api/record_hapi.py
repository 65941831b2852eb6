"""Records what Paddle 2.6.2's hapi computes in static mode (paddle.Model fit / evaluate / predict / *_batch on the
MLP of hapi_cases.py, the names its checkpoints hold, paddle.flops of its programs and paddle.summary of LeNet)
into hapi.npz beside this file (and a dygraph checkpoint, hapi_dygraph.pdparams / .pdopt). Runs only where
Paddle 2.6.2 is installed:

    /work/pd26/bin/python tests/golden/api/record_hapi.py

tests/hapi/ builds the same models on paddle_exec and compares.
"""
import contextlib
import io
import json
import os
import pickle
import sys
import tempfile

import numpy as np
import paddle

sys.path.insert(0, os.path.dirname(__file__))
import hapi_cases as C  # noqa: E402

paddle.enable_static()
OUT = {}


def record_fit(tag: str, optimizer: str):
    # a scope of its own: Model initialises only what its scope lacks, so a second case would start trained
    with paddle.utils.unique_name.guard(), paddle.static.scope_guard(paddle.static.Scope()):
        main, startup = paddle.static.Program(), paddle.static.Program()
        with paddle.static.program_guard(main, startup):
            net, model = C.make_model(paddle, optimizer)
            train, ev = C.make_dataset(paddle, 20, 0), C.make_dataset(paddle, 10, 1)
            logs = {}
            text = io.StringIO()
            with contextlib.redirect_stdout(text):
                model.fit(train, ev, batch_size=4, epochs=2, shuffle=False, verbose=0, log_freq=2,
                          callbacks=[C.make_recorder(paddle, logs)])
            OUT[tag + '.fit.train'] = np.array(logs['train'], 'float64')
            OUT[tag + '.fit.eval'] = np.array(logs['eval'], 'float64')
            result = model.evaluate(ev, batch_size=3, verbose=0)
            OUT[tag + '.evaluate'] = np.array([result['loss'][0], result['acc_top1'], result['acc_top2']])
            OUT[tag + '.predict'] = model.predict(ev, batch_size=4, stack_outputs=True, verbose=0)[0]
            loss, acc = model.train_batch([train.x[:6]], [train.y[:6]])
            OUT[tag + '.train_batch'] = np.array([loss[0].item()] + list(acc[0]))
            loss, acc = model.eval_batch([train.x[6:12]], [train.y[6:12]])
            OUT[tag + '.eval_batch'] = np.array([loss[0].item()] + list(acc[0]))
            OUT[tag + '.predict_batch'] = model.predict_batch([train.x[:5]])[0]
            ckpt = os.path.join(tempfile.mkdtemp(), 'ckpt', 'm')
            model.save(ckpt)
            for suffix in ('.pdparams', '.pdopt'):
                with open(ckpt + suffix, 'rb') as f:
                    OUT['%s.save%s' % (tag, suffix)] = np.array(json.dumps(sorted(pickle.load(f))))
            for name, value in net.state_dict().items():
                OUT['%s.param.%s' % (tag, name)] = np.array(paddle.static.global_scope().find_var(
                    value.name).get_tensor())


record_fit('sgd', 'sgd')
record_fit('adam', 'adam')

# shuffled epochs (DistributedBatchSampler seeds numpy with the epoch), drop_last, separate batch sizes, eval_freq
with paddle.utils.unique_name.guard(), paddle.static.scope_guard(paddle.static.Scope()):
    with paddle.static.program_guard(paddle.static.Program(), paddle.static.Program()):
        _, model = C.make_model(paddle, 'sgd')
        logs = {}
        model.fit(C.make_dataset(paddle, 20, 0), C.make_dataset(paddle, 10, 1), batch_size=(3, 4), epochs=3,
                  eval_freq=2, shuffle=True, drop_last=True, verbose=0, callbacks=[C.make_recorder(paddle, logs)])
        OUT['shuffle.fit.train'] = np.array(logs['train'], 'float64')
        OUT['shuffle.fit.eval'] = np.array(logs['eval'], 'float64')

with paddle.utils.unique_name.guard():
    for name, prog in C.flops_programs(paddle).items():
        text = io.StringIO()
        with contextlib.redirect_stdout(text):
            count = paddle.flops(prog, [1, 1, 28, 28], print_detail=True)
        OUT['flops.%s' % name] = np.array(int(count))
        OUT['flops.%s.table' % name] = np.array(text.getvalue())

with paddle.utils.unique_name.guard():
    text = io.StringIO()
    with contextlib.redirect_stdout(text):
        info = paddle.summary(C.make_lenet(paddle), (1, 1, 28, 28))
    OUT['summary.lenet'] = np.array(text.getvalue())
    OUT['summary.lenet.params'] = np.array([info['total_params'], info['trainable_params']])

# a checkpoint written by 2.6.2's dygraph Model (Adam): the files go beside this script (hapi_dygraph.pdparams /
# .pdopt); after loading them, predict_batch and two train_batch steps (the second reads the restored moments)
paddle.disable_static()
with paddle.utils.unique_name.guard():
    _, model = C.make_model(paddle, 'adam')
    model.fit(C.make_dataset(paddle, 8, 0), batch_size=4, epochs=1, shuffle=False, verbose=0)
    prefix = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'hapi_dygraph')
    model.save(prefix)
with paddle.utils.unique_name.guard():
    _, model = C.make_model(paddle, 'adam')
    model.load(prefix)
    x, y = C.data(4, 7)
    OUT['dygraph.predict_batch'] = model.predict_batch([x])[0]
    OUT['dygraph.train_batch'] = np.array([float(model.train_batch([x], [y])[0][0]) for _ in range(2)])
paddle.enable_static()

OUT['meta'] = np.array(json.dumps({'paddle': paddle.__version__}))
np.savez(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'hapi.npz'), **OUT)
print('recorded', len(OUT), 'arrays with Paddle', paddle.__version__)
