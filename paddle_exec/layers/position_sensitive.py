"""RoI pooling by areas of fluid 1.8's layers.nn (ops/position_sensitive.py): psroi_pool, prroi_pool."""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['psroi_pool', 'prroi_pool']


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
