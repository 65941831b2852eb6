"""RoI pooling by areas of fluid 1.8's layers.nn: psroi_pool, prroi_pool (ops/position_sensitive.py) and
deformable_roi_pooling (ops/deformable_psroi.py)."""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_type, check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['psroi_pool', 'prroi_pool', 'deformable_roi_pooling']


def psroi_pool(input, rois, output_channels, spatial_scale, pooled_height, pooled_width,  # noqa: A002
               name=None) -> Variable:
    """[R, output_channels, pooled_height, pooled_width]: R-FCN's position-sensitive average pooling of the
    RoIs (a LoD [R, 4] tensor, x1 y1 x2 y2) over input's score maps."""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'psroi_pool')
    helper = LayerHelper('psroi_pool', name=name)
    if not isinstance(output_channels, int):
        raise TypeError('output_channels must be int type')
    if not isinstance(spatial_scale, float):
        raise TypeError('spatial_scale must be float type')
    if not isinstance(pooled_height, int):
        raise TypeError('pooled_height must be int type')
    if not isinstance(pooled_width, int):
        raise TypeError('pooled_width must be int type')
    out = helper.create_variable_for_type_inference(input.dtype)
    helper.append_op(type='psroi_pool', inputs={'X': [input], 'ROIs': [rois]}, outputs={'Out': [out]},
                     attrs={'output_channels': output_channels, 'spatial_scale': spatial_scale,
                            'pooled_height': pooled_height, 'pooled_width': pooled_width})
    return out


def prroi_pool(input, rois, spatial_scale=1.0, pooled_height=1, pooled_width=1, batch_roi_nums=None,  # noqa: A002
               name=None) -> Variable:
    """[R, C, pooled_height, pooled_width]: precise RoI pooling (the exact average of the bilinearly interpolated
    input over each bin) of the RoIs (LoD [R, 4], or with batch_roi_nums each image's RoI count)."""
    helper = LayerHelper('prroi_pool', name=name)
    if not isinstance(spatial_scale, float):
        raise TypeError('spatial_scale must be float type')
    if not isinstance(pooled_height, int):
        raise TypeError('pooled_height must be int type')
    if not isinstance(pooled_width, int):
        raise TypeError('pooled_width must be int type')
    out = helper.create_variable_for_type_inference(input.dtype)
    inputs = {'X': [input], 'ROIs': [rois]}
    if batch_roi_nums is not None:
        inputs['BatchRoINums'] = [batch_roi_nums]
    helper.append_op(type='prroi_pool', inputs=inputs, outputs={'Out': [out]},
                     attrs={'spatial_scale': spatial_scale, 'pooled_height': pooled_height,
                            'pooled_width': pooled_width})
    return out


def _pair(value, name: str) -> list:
    value = [value, value] if isinstance(value, int) else list(value)
    if len(value) != 2:
        raise ValueError("The %s's length must be 2. Received: %s" % (name, value))
    return [int(v) for v in value]


def deformable_roi_pooling(input, rois, trans, no_trans=False, spatial_scale=1.0, group_size=[1, 1],  # noqa: A002,B006
                           pooled_height=1, pooled_width=1, part_size=None, sample_per_part=1, trans_std=0.1,
                           position_sensitive=False, name=None) -> Variable:
    """[R, C (or C / (pooled_height * pooled_width) when position_sensitive), pooled_height, pooled_width]: each
    bin the average of sample_per_part^2 bilinear samples, moved by its part's offset in `trans`. (1.8.5 passes
    the position-sensitive channel count as a float its op refuses; here it is the integer it means.)"""
    check_variable_and_dtype(input, 'input', ['float32', 'float64'], 'deformable_roi_pooling')
    check_variable_and_dtype(rois, 'rois', ['float32', 'float64'], 'deformable_roi_pooling')
    check_variable_and_dtype(trans, 'trans', ['float32', 'float64'], 'deformable_roi_pooling')
    check_type(group_size, 'group_size', (list, tuple), 'deformable_roi_pooling')
    if part_size is not None:
        check_type(part_size, 'part_size', (list, tuple), 'deformable_roi_pooling')
    channels = input.shape[1]
    output_channels = channels // pooled_height // pooled_width if position_sensitive else channels
    part_size = _pair([pooled_height, pooled_width] if part_size is None else part_size, 'part_size')
    group_size = _pair(group_size, 'group_size')
    helper = LayerHelper('deformable_psroi_pooling', name=name)
    output = helper.create_variable_for_type_inference(input.dtype)
    top_count = helper.create_variable_for_type_inference(dtype='int32')
    helper.append_op(type='deformable_psroi_pooling', inputs={'Input': [input], 'ROIs': [rois], 'Trans': [trans]},
                     outputs={'Output': [output], 'TopCount': [top_count]},
                     attrs={'no_trans': no_trans, 'spatial_scale': spatial_scale, 'output_dim': output_channels,
                            'group_size': group_size, 'pooled_height': pooled_height, 'pooled_width': pooled_width,
                            'part_size': part_size, 'sample_per_part': sample_per_part, 'trans_std': trans_std})
    return output
