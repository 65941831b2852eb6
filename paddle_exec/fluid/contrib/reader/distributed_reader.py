"""fluid.contrib.reader.distributed_batch_reader: each trainer of a job reads its own batches of one batch reader.

Paddle 1.8's rule: of every `trainers_num` consecutive batches, trainer k takes batch k (a last incomplete round is
dropped), with the trainer id and count of the environment (PADDLE_TRAINER_ID / PADDLE_TRAINERS_NUM, or the MPI
rank and size under a plain mpiexec). One trainer reads every batch.
"""
from __future__ import annotations

from ....executor.config import trainer_environment

__all__ = ['distributed_batch_reader']


def distributed_batch_reader(batch_reader):
    env = trainer_environment()
    trainers_num, trainer_id = env.trainers_num, env.trainer_id
    assert trainer_id < trainers_num

    def decorate_for_multi_process():
        if trainers_num > 1:
            print('start data reader (trainers_num: {}, trainer_id: {})'.format(trainers_num, trainer_id))
        mine, idx = None, 1
        for data in batch_reader():
            if trainers_num == 1:
                yield data
                continue
            if idx == trainer_id + 1:
                mine = data
            if idx < trainers_num:
                idx += 1
            else:
                assert mine is not None, 'train data should not be None.'
                yield mine
                mine, idx = None, 1
    return decorate_for_multi_process
