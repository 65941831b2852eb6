"""The rest of paddle.distributed's 2.6.2 surface in one process: ParallelMode / ReduceType (values recorded with
Paddle 2.6.2), the gloo functions on the job's group, distributed.io, the 2.x datasets fed by a
MultiSlotDataGenerator script, the data generators' output and errors (Paddle's wording), save_state_dict /
load_state_dict, and the declined names. Two trainers: mpi_more_cases.py (gloo, checkpoint)."""
import json
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.distributed as dist
import paddle_exec.distributed.fleet as fleet
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec._declined import DECLINED
from paddle_exec.framework import unique_name
from paddle_exec.framework.scope import global_scope


def test_parallel_mode_and_reduce_type_as_paddle_2_6_2():
    # recorded with Paddle 2.6.2: vars(ParallelMode), int(ReduceType.k...), str / name / value
    assert [dist.ParallelMode.DATA_PARALLEL, dist.ParallelMode.TENSOR_PARALLEL, dist.ParallelMode.PIPELINE_PARALLEL,
            dist.ParallelMode.SHARDING_PARALLEL, dist.ParallelMode.SEGMENT_PARALLEL] == [0, 1, 2, 3, 4]
    names = ['kRedSum', 'kRedMax', 'kRedMin', 'kRedProd', 'kRedAvg', 'kRedAny', 'kRedAll']
    assert [int(getattr(dist.ReduceType, n)) for n in names] == list(range(7))
    assert str(dist.ReduceType.kRedSum) == 'ReduceType.kRedSum' and dist.ReduceType.kRedMax.value == 1
    assert dist.ReduceType.kRedSum.name == 'kRedSum'


def test_gloo_functions_on_the_jobs_group():
    with pytest.raises(AssertionError, match='gloo_init_parallel_env should be called first'):
        dist.gloo_barrier()
    with pytest.raises(ValueError, match='this process is trainer 0 of a job of 1'):
        dist.gloo_init_parallel_env(1, 2, '127.0.0.1:6170')
    with pytest.raises(ValueError, match="'ip:port'"):
        dist.gloo_init_parallel_env(0, 1, 'nowhere')
    dist.gloo_init_parallel_env(0, 1, '127.0.0.1:6170')
    dist.gloo_barrier()
    dist.gloo_release()
    with pytest.raises(AssertionError):
        dist.gloo_barrier()


def small_model():
    main, startup = static.Program(), static.Program()
    with static.program_guard(main, startup), unique_name.guard():
        x = static.data('x', [-1, 3], 'float32')
        out = static.nn.fc(x, 2)
    return main, startup, x, out


def test_distributed_io_saves_and_loads_persistables(tmp_path):
    main, startup, x, out = small_model()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    weight = main.global_block().all_parameters()[0]
    saved = np.array(global_scope().find_var(weight.name).value)
    assert dist.io.is_persistable(weight)
    dist.io.save_persistables(exe, str(tmp_path / 'ckpt'), main)
    global_scope().find_var(weight.name).set_value(np.zeros_like(saved))
    dist.io.load_persistables(exe, str(tmp_path / 'ckpt'), main)
    np.testing.assert_array_equal(global_scope().find_var(weight.name).value, saved)
    fluid.io.save_inference_model(str(tmp_path / 'model'), ['x'], [out], exe, main)
    program, feeds, fetches = dist.io.load_inference_model_distributed(str(tmp_path / 'model'), exe)
    data = np.ones((2, 3), 'float32')
    got, = exe.run(program, feed={feeds[0]: data}, fetch_list=fetches)
    want, = exe.run(main, feed={'x': data}, fetch_list=[out])
    np.testing.assert_allclose(got, want)
    with pytest.raises(NotImplementedError, match='parameter-server'):
        dist.io.load_inference_model_distributed(str(tmp_path / 'model'), exe, pserver_endpoints=['h:1'])


GENERATOR = '''
import sys
sys.path.insert(0, %r)
import paddle_exec.distributed.fleet as fleet

class Words(fleet.MultiSlotDataGenerator):
    def generate_sample(self, line):
        def local_iter():
            ids = [int(w) for w in line.split()]
            yield ('ids', ids[:2]), ('label', [ids[2]])
        return local_iter

Words().run_from_stdin()
'''


def test_datasets_read_what_a_data_generator_writes(tmp_path):
    """InMemoryDataset / QueueDataset with Paddle 2.x's init, a MultiSlotDataGenerator script as the pipe command."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    (tmp_path / 'gen.py').write_text(GENERATOR % root)
    (tmp_path / 'part-0').write_text('1 2 0\n3 4 1\n5 6 0\n')
    main = static.Program()
    with static.program_guard(main, static.Program()), unique_name.guard():
        ids = static.data('ids', [-1, 2], 'int64')
        label = static.data('label', [-1, 1], 'int64')
    command = '%s %s' % (sys.executable, tmp_path / 'gen.py')
    for cls in (dist.InMemoryDataset, dist.QueueDataset):
        dataset = cls()
        dataset.init(batch_size=2, thread_num=1, use_var=[ids, label], pipe_command=command)
        dataset.set_filelist([str(tmp_path / 'part-0')])
        if cls is dist.InMemoryDataset:
            dataset.load_into_memory()
            assert dataset.get_memory_data_size() == 3
            dataset.update_settings(batch_size=3)
        batches = list(dataset._batches())
        first = batches[0]
        np.testing.assert_array_equal(np.asarray(first['ids']), [[1, 2], [3, 4]] if cls is dist.QueueDataset
                                      else [[1, 2], [3, 4], [5, 6]])
    with pytest.raises(TypeError, match="unexpected keyword argument 'batchsize'"):
        dist.QueueDataset().init(batchsize=2)


class Words(fleet.MultiSlotDataGenerator):
    def generate_sample(self, line):
        def local_iter():
            if line is None:
                for k in range(3):
                    yield ('words', [k, k + 1]), ('score', [0.5 * k])
            else:
                yield ('words', [int(w) for w in line.split()]), ('score', [1])
        return local_iter


def test_multislot_data_generator_writes_paddles_lines(capsys):
    gen = Words()
    gen.set_batch(2)
    gen.run_from_memory()
    assert capsys.readouterr().out == '2 0 1 1 0.0\n2 1 2 1 0.5\n2 2 3 1 1.0\n'
    assert gen._proto_info == [('words', 'uint64'), ('score', 'float')]
    assert gen._gen_str(zip(['words', 'score'], [[7], [1]])) == '1 7 1 1\n'
    with pytest.raises(ValueError, match='the complete field set of two given line are inconsistent.'):
        gen._gen_str([('words', [1])])
    with pytest.raises(ValueError, match=r'the field name of two given line are not match: require<words>, '
                                         r'get<ids>.'):
        gen._gen_str([('ids', [1]), ('score', [1])])
    with pytest.raises(ValueError, match='the elements of each field can not be empty'):
        Words()._gen_str([('words', [])])
    with pytest.raises(ValueError, match='must be in int or float'):
        Words()._gen_str([('words', ['a'])])
    with pytest.raises(ValueError, match='must be in list or tuple type'):
        Words()._gen_str('words 1')
    strings = fleet.MultiSlotStringDataGenerator()
    assert strings._gen_str([('words', ['1926', '08', '17']), ('label', ['1'])]) == '3 1926 08 17 1 1\n'
    with pytest.raises(NotImplementedError, match='Please rewrite this function'):
        fleet.MultiSlotDataGenerator().generate_sample('x')


def test_data_generator_reads_stdin():
    code = ('import sys; sys.path.insert(0, %r)\n'
            'from tests.distributed.test_distributed_surface import Words\nWords().run_from_stdin()\n'
            % os.getcwd())
    out = subprocess.run([sys.executable, '-c', code], input='4 5\n6\n', capture_output=True, text=True,
                         cwd=os.getcwd(), timeout=120)
    assert out.stdout == '2 4 5 1 1\n1 6 1 1\n', out.stderr


def test_save_and_load_state_dict_in_a_job_of_one(tmp_path):
    main, startup, _, _ = small_model()
    exe = static.Executor(paddle.CPUPlace())
    exe.run(startup)
    weight, bias = sorted(main.global_block().all_parameters(), key=lambda v: v.name)[::-1]
    saved_w = np.array(global_scope().find_var(weight.name).value)
    step = np.array([7], dtype='int64')
    path = str(tmp_path / 'ckpt')
    dist.save_state_dict({'fc': {'w': weight, 'b': bias}, 'step': step}, path)
    assert sorted(os.listdir(path)) == ['0.metadata', '0_0.distcp']
    with open(os.path.join(path, '0.metadata'), 'rb') as f:
        metadata = pickle.load(f)
    assert metadata['storage_metadata'][('fc.w', (0, 0))] == '0_0.distcp'
    assert metadata['state_dict_metadata']['fc.w'] == [((0, 0), (3, 2))]
    global_scope().find_var(weight.name).set_value(np.zeros((3, 2), 'float32'))
    back = np.zeros(1, 'int64')
    state = {'fc': {'w': weight}, 'step': back}
    dist.load_state_dict(state, path)
    np.testing.assert_array_equal(global_scope().find_var(weight.name).value, saved_w)
    assert back[0] == 7
    dist.save_state_dict({'step': step + 1}, path)                     # a second checkpoint in the folder
    assert '1.metadata' in os.listdir(path) and '0_1.distcp' in os.listdir(path)
    with pytest.raises(AssertionError, match="'nope' of the state_dict is not in the checkpoint"):
        dist.load_state_dict({'nope': np.zeros(1)}, path)
    with pytest.raises(ValueError, match='has shape \\[1\\] in the checkpoint but the array has \\[2\\]'):
        dist.load_state_dict({'step': np.zeros(2, 'int64')}, path)
    with pytest.raises(AssertionError, match='No metadata file'):
        dist.load_state_dict({}, str(tmp_path))


def test_communicate_topology_as_paddle_2_6_2():
    """Recorded with Paddle 2.6.2 on the same topology (data 2 x pipe 3 x model 2; record_paddle26.py)."""
    topo = fleet.CommunicateTopology(['data', 'pipe', 'sharding', 'sep', 'model'], [2, 3, 1, 1, 2])
    assert topo.world_size() == 12 and topo.get_rank(data=1, pipe=2, sharding=0, sep=0, model=1) == 11
    assert tuple(topo.get_coord(7)) == (1, 0, 0, 0, 1) and topo.get_coord(7).model == 1
    assert topo.get_comm_list('data') == [[0, 6], [1, 7], [2, 8], [3, 9], [4, 10], [5, 11]]
    assert topo.get_comm_list('pipe') == [[0, 2, 4], [1, 3, 5], [6, 8, 10], [7, 9, 11]]
    assert topo.get_comm_list('model') == [[0, 1], [2, 3], [4, 5], [6, 7], [8, 9], [10, 11]]
    assert topo.get_comm_list('sharding') == [[r] for r in range(12)]
    assert topo.get_axis_list('pipe', 0) == [0, 1, 6, 7] and topo.get_axis_list('model', 0) == [0, 2, 4, 6, 8, 10]
    assert topo.get_dim_size('pipe') == 3 and topo.get_hybrid_group_names()[0] == 'data'
    assert topo.get_fused_ranks(['data', 'model']) == [[0, 1, 6, 7], [2, 3, 8, 9], [4, 5, 10, 11]]
    assert topo.get_fused_ranks(['pipe']) == [[0, 2, 4], [1, 3, 5], [6, 8, 10], [7, 9, 11]]
    assert topo.get_rank_from_stage(7, pipe=0) == 7 and topo.get_rank_from_stage(11, pipe=0) == 7


def test_hybrid_communicate_group_in_a_job_of_one():
    dist.destroy_process_group()
    hcg = fleet.HybridCommunicateGroup(fleet.CommunicateTopology())
    assert hcg.get_parallel_mode() is None and hcg.topology().world_size() == 1
    assert (hcg.get_data_parallel_rank(), hcg.get_data_parallel_world_size(), hcg.get_model_parallel_world_size(),
            hcg.get_stage_id(), hcg.is_first_stage, hcg.is_last_stage) == (0, 1, 1, 0, True, True)
    group = hcg.get_data_parallel_group()
    assert group.ranks == [0] and hcg.get_data_parallel_group_src_rank() == 0 and group.id >= 10
    assert hcg.get_check_parallel_group().ranks == [0] and hcg.get_rank_from_stage(0) == 0
    with pytest.raises(AssertionError, match='sep not exist'):
        hcg.get_sep_parallel_group()
    with pytest.raises(AssertionError):
        fleet.HybridCommunicateGroup(fleet.CommunicateTopology(dims=[2, 1, 1, 1, 1]))
    dist.destroy_process_group()


@pytest.mark.parametrize('module, name', [
    (dist, 'ProcessMesh'), (dist, 'shard_tensor'), (dist, 'Shard'), (dist, 'CountFilterEntry'),
    (dist, 'split'), (dist, 'to_static')])
def test_declined_names_say_why(module, name):
    with pytest.raises(AttributeError, match='is declined by paddle_exec'):
        getattr(module, name)


def test_every_name_of_paddle_2_6_2s_distributed_resolves_or_is_declined():
    """Against the dump of Paddle 2.6.2's `__all__` (tools/api/paddle-2.6.2.json); our `__all__` is Paddle's
    names less the declined ones."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    with open(os.path.join(root, 'tools', 'api', 'paddle-2.6.2.json')) as f:
        names = json.load(f)
    for path, module in (('paddle.distributed', dist), ('paddle.distributed.fleet', fleet)):
        declined = DECLINED.get(path, {})
        for name in names[path]:
            assert (name in declined) != hasattr(module, name), (path, name)
    assert sorted(dist.__all__) == sorted(set(names['paddle.distributed']) - set(DECLINED['paddle.distributed']))


def fluid_model():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.data('x', [-1, 4], 'float32')
        y = fluid.data('y', [-1, 1], 'float32')
        loss = fluid.layers.mean(fluid.layers.square(fluid.layers.fc(x, 1) - y))
        fluid.optimizer.SGD(0.1).minimize(loss)
    return main, startup


ENDPOINTS = '127.0.0.1:6170,127.0.0.1:6171'


def test_grad_allreduce_transpiler_writes_paddles_collective_ops():
    """Paddle 1.8's GradAllReduce (nrings 2): per ring c_gen_nccl_id + c_comm_init, parameters broadcast from trainer
    0; loss@GRAD scaled by 1/2, each gradient synced and all-reduced on the rings in turn, the comm streams synced
    before the first update; the programs before the rewrite kept. (Two trainers: mpi_more_cases.py.)"""
    main, startup = fluid_model()
    fluid.transpiler.collective.GradAllReduce().transpile(startup, main, 1, ENDPOINTS, '127.0.0.1:6171', False)
    assert [op.type for op in startup.global_block().ops][3:] == [
        'c_gen_nccl_id', 'c_comm_init', 'c_gen_nccl_id', 'c_comm_init', 'c_broadcast', 'c_broadcast',
        'c_sync_comm_stream', 'c_sync_comm_stream']
    ops = main.global_block().ops
    kinds = [(op.type, op.attrs.get('ring_id')) for op in ops if op.type.startswith('c_')]
    assert kinds == [('c_sync_calc_stream', None), ('c_allreduce_sum', 1), ('c_sync_calc_stream', None),
                     ('c_allreduce_sum', 0), ('c_sync_comm_stream', 0), ('c_sync_comm_stream', 1)]
    scale = next(op for op in ops if op.type == 'scale')
    assert scale.attrs['scale'] == 0.5
    assert [op.type for op in ops][-2:] == ['sgd', 'sgd']
    assert not any(op.type.startswith('c_') for op in main._origin_program.global_block().ops)
    with pytest.raises(ValueError, match='the number of endpoints must > 1'):
        fluid.transpiler.collective.GradAllReduce().transpile(startup, main, 0, '127.0.0.1:6170', '127.0.0.1:6170',
                                                              False)
    with pytest.raises(ValueError, match='is not in'):
        fluid.transpiler.collective.LocalSGD().transpile(startup, main, 0, ENDPOINTS, '127.0.0.1:9', False)


def test_local_sgd_transpiler_averages_the_parameters_after_the_update():
    main, startup = fluid_model()
    fluid.transpiler.collective.LocalSGD(nrings=1).transpile(startup, main, 0, ENDPOINTS, '127.0.0.1:6170', False)
    types = [op.type for op in main.global_block().ops]
    first_update = types.index('sgd')
    assert types.count('c_allreduce_sum') == 2 and types.index('c_allreduce_sum') > first_update
    assert types[-3:] == ['scale', 'elementwise_sub', 'assign']
    assert [op.type for op in startup.global_block().ops][-2:] == ['assign', 'assign']    # the snapshots
