"""Prints what Paddle 2.6.2 writes for paddle.distributed's static collectives and its fleet topology: the values
test_collective_more.py (PADDLE_26, PADDLE_26_TWO) and test_distributed_surface.py hold as literals. Runs only where
Paddle is installed (not collected by pytest):

    /work/pd26/bin/python tests/distributed/record_paddle26.py                 # a job of one
    PADDLE_TRAINERS_NUM=2 PADDLE_TRAINER_ID=0 PADDLE_TRAINER_ENDPOINTS=127.0.0.1:6170,127.0.0.1:6171 \\
        PADDLE_CURRENT_ENDPOINT=127.0.0.1:6170 /work/pd26/bin/python tests/distributed/record_paddle26.py
                                                                            # as trainer 0 of 2

The printouts are `str(op)`; the tests drop `op_device = , ` and `, with_quant_attr = False`, which paddle_exec's
ops do not carry.
"""
import paddle
import paddle.distributed as dist
import paddle.static as static
from paddle.distributed.fleet import CommunicateTopology


def show(name, fn):
    main, startup = static.Program(), static.Program()
    try:
        with static.program_guard(main, startup):
            fn(static.data('x', [4, 2], 'float32'))
    except Exception as e:             # Paddle refuses some in static mode (gather, alltoall_single, ...)
        print(name, 'raises', type(e).__name__, str(e).splitlines()[0][:160])
        return
    for op in main.global_block().ops:
        print(name, '|', str(op).strip().replace('\n', ' '))


def main():
    paddle.enable_static()
    print('world size', dist.get_world_size(), 'rank', dist.get_rank())
    show('reduce', lambda x: dist.reduce(x, dst=1))
    show('reduce_max', lambda x: dist.reduce(x, dst=0, op=dist.ReduceOp.MAX))
    show('reduce_scatter', lambda x: dist.reduce_scatter(static.data('o', [4 // dist.get_world_size(), 2],
                                                                     'float32'), x))
    show('scatter', lambda x: dist.scatter(static.data('o', [2, 2], 'float32'), [x[:2], x[2:]], src=0))
    show('alltoall', lambda x: dist.alltoall([x[:2], x[2:]], []))
    show('send', lambda x: dist.send(x, dst=1))
    show('isend', lambda x: dist.isend(x, dst=1))
    show('recv', lambda x: dist.recv(x, src=1))
    show('wait', lambda x: dist.wait(x))
    show('gather', lambda x: dist.gather(x, [], dst=0))
    show('alltoall_single', lambda x: dist.alltoall_single(x, paddle.zeros([4, 2])))
    print('ParallelMode', {k: v for k, v in vars(dist.ParallelMode).items() if not k.startswith('_')})
    print('ReduceType', [(n, int(getattr(dist.ReduceType, n))) for n in dir(dist.ReduceType) if n.startswith('k')],
          str(dist.ReduceType.kRedSum))
    topo = CommunicateTopology(['data', 'pipe', 'sharding', 'sep', 'model'], [2, 3, 1, 1, 2])
    print('topology', topo.world_size(), topo.get_rank(data=1, pipe=2, sharding=0, sep=0, model=1),
          topo.get_coord(7))
    for axis in ('data', 'pipe', 'model', 'sharding'):
        print(axis, topo.get_comm_list(axis), topo.get_axis_list(axis, 0), topo.get_dim_size(axis))
    print('fused', topo.get_fused_ranks(['data', 'model']), topo.get_fused_ranks(['pipe']),
          topo.get_rank_from_stage(7, pipe=0), topo.get_rank_from_stage(11, pipe=0))


if __name__ == '__main__':
    main()
