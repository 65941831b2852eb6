"""distribute_fpn_proposals and collect_fpn_proposals (ops/fpn.py, kernels/fpn.py) against the numbers Paddle
1.8.5 computed (tests/golden/api/detection_targets.npz, recorded by record_detection_targets.py) and numpy
references of the routing and the selection."""
import numpy as np
import pytest

import paddle_exec.fluid as fluid
from paddle_exec.kernels import fpn as KF
from tests.kernels.test_detection_targets import GOLDEN, assert_matches, run_case

L = fluid.layers


def test_distribute_fpn_proposals_matches_paddle():
    got, want = run_case('distribute_fpn', lambda r: (lambda out: list(out[0]) + [out[1]])(
        L.distribute_fpn_proposals(r, min_level=2, max_level=5, refer_level=4, refer_scale=224)))
    assert_matches(got, want)


@pytest.mark.parametrize('case,lo,hi,top', [('collect_fpn', 2, 4, 9), ('collect_fpn_all', 3, 4, 100)])
def test_collect_fpn_proposals_matches_paddle(case, lo, hi, top):
    got, want = run_case(case, lambda r0, r1, r2, s0, s1, s2: [L.collect_fpn_proposals(
        [r0, r1, r2], [s0, s1, s2], min_level=lo, max_level=hi, post_nms_top_n=top)])
    assert_matches(got, want)


def test_distribute_against_numpy_reference():
    rois = GOLDEN['distribute_fpn.in.r'].astype('float64')
    offsets = np.array([0, 9, 16])
    levels, restore = KF.distribute_fpn_proposals(rois, offsets, 2, 5, 4, 224)
    scale = np.sqrt((rois[:, 2] - rois[:, 0] + 1) * (rois[:, 3] - rois[:, 1] + 1))
    want = np.clip(np.floor(np.log2(scale / 224) + 4), 2, 5)
    shuffled = np.concatenate([rois[want == lv] for lv in range(2, 6)])
    np.testing.assert_array_equal(np.concatenate([r for r, _ in levels]), shuffled)
    np.testing.assert_array_equal(shuffled[restore], rois)             # restore puts every RoI back
    for lv, (r, offs) in zip(range(2, 6), levels):
        assert list(offs) == [0, int((want[:9] == lv).sum()), int((want == lv).sum())]


def test_collect_against_numpy_reference():
    rois = [GOLDEN['collect_fpn.in.r%d' % i] for i in range(3)]
    scores = [GOLDEN['collect_fpn.in.s%d' % i] for i in range(3)]
    offs = [np.array([0, 4, 6]), np.array([0, 2, 5]), np.array([0, 1, 4])]
    out, offsets = KF.collect_fpn_proposals(rois, scores, offs, 7)
    flat = [(float(s[j, 0]), int(j >= o[1]), lv, j) for lv, (s, o) in enumerate(zip(scores, offs))
            for j in range(s.shape[0])]
    best = sorted(sorted(flat, key=lambda e: -e[0])[:7], key=lambda e: e[1])
    np.testing.assert_array_equal(out, np.stack([rois[lv][j] for _, _, lv, j in best]))
    n0 = sum(1 for e in best if e[1] == 0)
    assert offsets == [0, n0, 7]
