"""Paddle 2.6's enumerations of paddle.distributed that name kinds of parallelism and reductions.

    dist.ParallelMode.DATA_PARALLEL          # 0: what paddle_exec runs (collective data parallel over MPI)
    dist.ReduceType.kRedSum                  # 0: the reduction of a partial value (Paddle's core enum)

ParallelMode is fleet's (fleet/base/topology.py): the other modes (tensor, pipeline, sharding, segment parallel)
are named so scripts that compare against them run; paddle_exec's distributed optimizers refuse strategies that
need them (docs/distributed.md). ReduceType is Paddle's C++ enum (kRedSum ... kRedAll, values 0 to 6, with `name`
and `value`), here an IntEnum; dist.ReduceOp is what the collectives take.
"""
from __future__ import annotations

import enum

__all__ = ['ParallelMode', 'ReduceType']


class ParallelMode:
    """The kinds of parallelism of Paddle's hybrid topology, as plain ints (Paddle's class holds ints)."""

    DATA_PARALLEL = 0
    TENSOR_PARALLEL = 1
    PIPELINE_PARALLEL = 2
    SHARDING_PARALLEL = 3
    SEGMENT_PARALLEL = 4


class ReduceType(enum.IntEnum):
    kRedSum = 0
    kRedMax = 1
    kRedMin = 2
    kRedProd = 3
    kRedAvg = 4
    kRedAny = 5
    kRedAll = 6

    def __str__(self) -> str:
        return 'ReduceType.%s' % self.name      # as Paddle's enum prints (an IntEnum prints its number)
