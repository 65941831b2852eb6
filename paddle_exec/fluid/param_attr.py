"""fluid.param_attr (Paddle 1.8's module path): ParamAttr and WeightNormParamAttr (paddle_exec/param_attr.py)."""
from ..param_attr import ParamAttr, WeightNormParamAttr

__all__ = ['ParamAttr', 'WeightNormParamAttr']
