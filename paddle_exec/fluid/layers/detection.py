"""fluid.layers.detection (Paddle 1.8's module path): the detection builders paddle_exec implements
(paddle_exec/layers/detection.py). Of the LoD-bound ones detection_map is here (outside `__all__`, as in 1.8,
where fluid.metrics.DetectionMAP reaches it as `detection.detection_map`); target_assign, ssd_loss, yolov3_loss and
generate_proposals are paddle_exec/layers/detection_targets.py, with rpn_target_assign,
retinanet_target_assign, generate_proposal_labels and generate_mask_labels.
"""
from ...layers.detection import (
    anchor_generator,
    bipartite_match,
    box_clip,
    box_coder,
    box_decoder_and_assign,
    collect_fpn_proposals,
    density_prior_box,
    detection_map,  # noqa: F401  (module path only, outside __all__ as in 1.8)
    detection_output,
    distribute_fpn_proposals,
    iou_similarity,
    locality_aware_nms,
    matrix_nms,
    multi_box_head,
    multiclass_nms,
    polygon_box_transform,
    prior_box,
    retinanet_detection_output,
    roi_perspective_transform,
    yolo_box,
)
from ...layers.detection_targets import (
    generate_mask_labels,
    generate_proposal_labels,
    generate_proposals,
    retinanet_target_assign,
    rpn_target_assign,
    ssd_loss,
    target_assign,
    yolov3_loss,
)
from ...layers.loss_classification import sigmoid_focal_loss

__all__ = ['anchor_generator', 'bipartite_match', 'box_clip', 'box_coder', 'box_decoder_and_assign',
           'collect_fpn_proposals', 'density_prior_box', 'detection_output', 'distribute_fpn_proposals',
           'generate_mask_labels', 'generate_proposal_labels', 'generate_proposals', 'iou_similarity',
           'locality_aware_nms', 'matrix_nms', 'multi_box_head', 'multiclass_nms', 'polygon_box_transform', 'prior_box',
           'retinanet_detection_output', 'retinanet_target_assign', 'roi_perspective_transform', 'rpn_target_assign',
           'sigmoid_focal_loss', 'ssd_loss', 'target_assign', 'yolo_box', 'yolov3_loss']
