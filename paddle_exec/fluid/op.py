"""fluid.op (Paddle 1.8's module path). It exports nothing in 1.8 either (Operator construction from protos; ops are
built through LayerHelper here)."""

__all__ = []
