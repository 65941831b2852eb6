"""The `lod` group: LoD models on paddle_exec against Paddle 1.8.5, in the same run.

    python -m benchmarks --groups lod

Rows (models in benchmarks/lod_models.py):
  `ctr_dnn (batch 512)`   PaddleRec's CTR DNN with 26 lod_level=1 sparse slots pooled by sequence_pool
  `dynamic_lstm (64 sequences, mean length 50, hidden 128)`   dynamic_lstm training
  `label_semantic_roles (10 sentences, hidden 512)`   the Paddle book's chapter 07 network (8 stacked dynamic_lstm,
                          fc sums, linear_chain_crf, crf_decoding) training on sentences of 10..50 words
Each is one training step per call on the plain Executor, paddle_exec (this process) against
Paddle 1.8.5 (a child process on /work/pd18/bin/python, or $PADDLE18_PYTHON, serving `run N` requests from
lod_models.py). Both sides start from the same parameters and are fed the same pre-made LoD batches; their first
losses are compared (`same_first_loss`). Blocks alternate between the two sides, the order flipped every round,
as runner.side_by_side does; the ratio is the median per-round time ratio (below 1: paddle_exec is faster). Goal:
faster than 1.8.5 (ratio <= 1); the aim is 1.5x (ratio 0.67). Without Paddle 1.8.5 the row is skipped with a note.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
from typing import Iterable

import numpy as np

from . import lod_models
from .runner import ROOT, BenchOptions, Row, bench_group, time_block

GROUP = 'lod'
PADDLE18 = os.environ.get('PADDLE18_PYTHON', '/work/pd18/bin/python')
CTR_BATCH, CTR_VOCAB = 512, 100000
QUICK_BATCH, QUICK_VOCAB = 16, 1000
LSTM_SEQUENCES, LSTM_HIDDEN = 64, 128
QUICK_SEQUENCES, QUICK_HIDDEN = 4, 8
SRL_SENTENCES, SRL_HIDDEN = 10, 512
QUICK_SRL_SENTENCES, QUICK_SRL_HIDDEN = 2, 16


class Paddle18Child:
    """Paddle 1.8.5 running lod_models.serve in a child process: `block(n)` is the seconds n steps took there."""

    def __init__(self, model: str, batch: int, size: int, blas_threads: int | None):
        env = dict(os.environ)
        env.pop('CPU_NUM', None)
        if blas_threads is not None:
            for var in ('OMP_NUM_THREADS', 'MKL_NUM_THREADS', 'OPENBLAS_NUM_THREADS'):
                env[var] = str(blas_threads)
        script = os.path.join(ROOT, 'benchmarks', 'lod_models.py')
        self.proc = subprocess.Popen([PADDLE18, script, model, str(batch), str(size)], env=env, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.first_loss = self._answer()['first_loss']

    def _answer(self) -> dict:
        for line in self.proc.stdout:
            line = line.strip()
            if line.startswith('{'):
                return json.loads(line)
        raise RuntimeError('the Paddle 1.8.5 child ended: %s' % self.proc.stderr.read()[-2000:])

    def block(self, steps: int) -> float:
        self.proc.stdin.write('run %d\n' % steps)
        self.proc.stdin.flush()
        return self._answer()['seconds']

    def close(self) -> None:
        try:
            self.proc.stdin.write('quit\n')
            self.proc.stdin.flush()
        except OSError:
            pass
        self.proc.wait(timeout=60)


def against_paddle18(name: str, model: str, batch: int, size: int, opts: BenchOptions) -> Row:
    ours = lod_models.build_run(_fluid(), model, batch, size)
    first = float(np.asarray(ours.step()).ravel()[0])
    child = Paddle18Child(model, batch, size, opts.blas_threads)
    try:
        warm = max(1, opts.warmup)
        time_block(ours.step, warm)
        child.block(warm)
        per_step = max(time_block(ours.step, warm), child.block(warm)) / warm
        steps = opts.steps or max(3, int(opts.block_seconds / max(per_step, 1e-9)))
        ours_t, theirs_t = [], []
        for r in range(opts.rounds):
            if r % 2 == 0:
                ours_t.append(time_block(ours.step, steps))
                theirs_t.append(child.block(steps))
            else:
                theirs_t.append(child.block(steps))
                ours_t.append(time_block(ours.step, steps))
    finally:
        child.close()
    ratio = statistics.median(o / t for o, t in zip(ours_t, theirs_t))
    return Row(GROUP, name, 'paddle_exec', 'Paddle 1.8.5', steps / statistics.median(ours_t),
               steps / statistics.median(theirs_t), 'steps/s', ratio,
               goal=1.0, extra={'aim': round(1 / 1.5, 3), 'steps_per_block': steps, 'rounds': opts.rounds,
                                'first_loss': first, 'paddle18_first_loss': child.first_loss,
                                'same_first_loss': bool(np.isclose(first, child.first_loss, rtol=1e-4))})


def _fluid():
    import paddle_exec.fluid as fluid  # the benchmarks package imports paddle_exec lazily, as models.py does
    return fluid


@bench_group(GROUP, help='LoD models (CTR DNN with 26 sparse slots, dynamic_lstm training, the book\'s '
             'label_semantic_roles) against Paddle 1.8.5 in a child process', default=False)
def lod_rows(opts: BenchOptions) -> Iterable[Row]:
    batch, vocab = (QUICK_BATCH, QUICK_VOCAB) if opts.quick else (CTR_BATCH, CTR_VOCAB)
    seqs, hidden = (QUICK_SEQUENCES, QUICK_HIDDEN) if opts.quick else (LSTM_SEQUENCES, LSTM_HIDDEN)
    sentences, srl_hidden = (QUICK_SRL_SENTENCES, QUICK_SRL_HIDDEN) if opts.quick else (SRL_SENTENCES, SRL_HIDDEN)
    rows = [('ctr_dnn (batch %d)' % batch, 'ctr_dnn', batch, vocab),
            ('dynamic_lstm (%d sequences, mean length 50, hidden %d)' % (seqs, hidden), 'lstm', seqs, hidden),
            ('label_semantic_roles (%d sentences, hidden %d)' % (sentences, srl_hidden), 'srl', sentences,
             srl_hidden)]
    for name, model, n, size in rows:
        if not os.path.exists(PADDLE18):
            yield Row(GROUP, name, 'paddle_exec', 'Paddle 1.8.5', skipped='Paddle 1.8.5 not found at %s (set '
                      'PADDLE18_PYTHON to its python)' % PADDLE18)
            continue
        yield against_paddle18(name, model, n, size, opts)
