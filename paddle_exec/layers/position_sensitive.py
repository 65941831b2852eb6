"""Position-sensitive RoI pooling builders of fluid 1.8's layers.nn (ops/position_sensitive.py): psroi_pool."""
from __future__ import annotations

from ..framework.variable import Variable
from .checks import check_variable_and_dtype
from .helper import LayerHelper

__all__ = ['psroi_pool']


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
