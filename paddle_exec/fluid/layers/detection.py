"""fluid.layers.detection (Paddle 1.8's module path): the detection builders paddle_exec implements
(paddle_exec/layers/detection.py). The LoD-bound ones (ssd_loss, target_assign, generate_proposals, ...) are not
implemented yet.
"""
from ...layers.detection import (
    anchor_generator,
    bipartite_match,
    box_clip,
    box_coder,
    box_decoder_and_assign,
    density_prior_box,
    detection_output,
    iou_similarity,
    matrix_nms,
    multi_box_head,
    multiclass_nms,
    polygon_box_transform,
    prior_box,
    yolo_box,
)
from ...layers.loss_classification import sigmoid_focal_loss

__all__ = ['anchor_generator', 'bipartite_match', 'box_clip', 'box_coder', 'box_decoder_and_assign',
           'density_prior_box', 'detection_output', 'iou_similarity', 'matrix_nms', 'multi_box_head',
           'multiclass_nms',
           'polygon_box_transform', 'prior_box', 'sigmoid_focal_loss', 'yolo_box']
