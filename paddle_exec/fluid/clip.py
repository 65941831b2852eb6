"""fluid.clip (Paddle 1.8's module path): gradient and error clipping (paddle_exec/clip.py). The 1.8 module
attributes outside its `__all__` that scripts reach (GradientClipBase, the ClipBy* aliases,
append_gradient_clip_ops, error_clip_callback) are here too."""
from ..clip import (  # noqa: F401  (1.8 defines the others here, outside __all__)
    BaseErrorClipAttr,
    ClipByGlobalNorm,
    ClipByNorm,
    ClipByValue,
    ErrorClipByValue,
    GradientClipBase,
    GradientClipByGlobalNorm,
    GradientClipByNorm,
    GradientClipByValue,
    append_gradient_clip_ops,
    error_clip_callback,
    set_gradient_clip,
)

__all__ = ['ErrorClipByValue', 'GradientClipByGlobalNorm', 'GradientClipByNorm', 'GradientClipByValue',
           'set_gradient_clip']
