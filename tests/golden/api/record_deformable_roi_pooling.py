"""Records what Paddle 1.8.5 computes for fluid.layers.deformable_roi_pooling (two images, three RoIs by LoD,
offsets `trans`; a plain case and a position-sensitive one with group_size 2 x 2; the output and the gradients of
sum(out * w) with respect to the input and trans) into deformable_roi_pooling_pd18.json, which
tests/ops/test_position_sensitive_ops.py compares paddle_exec with. Runs only where Paddle 1.8.5 is installed:

    /work/pd18/bin/python tests/golden/api/record_deformable_roi_pooling.py
"""
import json
import os

import numpy as np
import paddle.fluid as fluid

PLACE = fluid.CPUPlace()
CASES = {'plain': dict(position_sensitive=False, group_size=[1, 1], channels=3),
         'ps': dict(position_sensitive=True, group_size=[2, 2], channels=8)}


def main():
    rv = np.array([[2, 1, 9, 8], [1, 2, 12, 10], [4, 3, 8, 9]], 'float32')
    res = {}
    for name, case in CASES.items():
        c = case['channels']
        xv = np.random.RandomState(10).rand(2, c, 8, 9).astype('float32')
        tv = ((np.random.RandomState(11).rand(3, 2, 2, 2) - 0.5) * 0.6).astype('float32')
        out_c = c // 4 if case['position_sensitive'] else c
        wv = ((np.arange(3 * out_c * 2 * 2) % 5 - 2) / 3).astype('float32').reshape(3, out_c, 2, 2)
        main_prog, startup = fluid.Program(), fluid.Program()
        with fluid.program_guard(main_prog, startup):
            x = fluid.data('x', [2, c, 8, 9], 'float32')
            x.stop_gradient = False
            rois = fluid.data('rois', [-1, 4], 'float32', lod_level=1)
            trans = fluid.data('trans', [3, 2, 2, 2], 'float32')
            trans.stop_gradient = False
            if case['position_sensitive']:
                # 1.8.5's layer passes output_dim = channels / 2 / 2, a float its op refuses ("Cannot get
                # attribute output_dim by type int"): the op is appended as the layer means to append it
                block = main_prog.global_block()
                o = block.create_var(name='ps_out', dtype='float32')
                count = block.create_var(name='ps_count', dtype='int32')
                block.append_op(type='deformable_psroi_pooling',
                                inputs={'Input': x, 'ROIs': rois, 'Trans': trans},
                                outputs={'Output': o, 'TopCount': count},
                                attrs={'no_trans': False, 'spatial_scale': 0.5, 'output_dim': out_c,
                                       'group_size': case['group_size'], 'pooled_height': 2, 'pooled_width': 2,
                                       'part_size': [2, 2], 'sample_per_part': 3, 'trans_std': 0.2})
            else:
                o = fluid.layers.deformable_roi_pooling(x, rois, trans, spatial_scale=0.5,
                                                        group_size=case['group_size'], pooled_height=2,
                                                        pooled_width=2, sample_per_part=3, trans_std=0.2)
            loss = fluid.layers.reduce_sum(o * fluid.layers.assign(wv))
            gx, gt = fluid.gradients([loss], [x, trans])
        exe = fluid.Executor(PLACE)
        exe.run(startup)
        feed = {'x': xv, 'rois': fluid.create_lod_tensor(rv, [[2, 1]], PLACE), 'trans': tv}
        r = exe.run(main_prog, feed=feed, fetch_list=[o, gx, gt])
        res[name] = {'x': xv.tolist(), 'trans': tv.tolist(), 'w': wv.tolist(), 'out': r[0].tolist(),
                     'gx': r[1].tolist(), 'gtrans': r[2].tolist()}
        print(name, r[0].shape)
    with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'deformable_roi_pooling_pd18.json'),
              'w') as f:
        json.dump({'rois': rv.tolist(), 'cases': res}, f)


if __name__ == '__main__':
    main()
