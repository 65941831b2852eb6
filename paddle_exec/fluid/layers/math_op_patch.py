"""fluid.layers.math_op_patch (Paddle 1.8's module path). It exports nothing in 1.8 either; Variable's operators live
in paddle_exec/framework/variable_ops.py."""

__all__ = []
