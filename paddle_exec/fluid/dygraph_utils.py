"""fluid.dygraph_utils (Paddle 1.8's module path). It exports nothing in 1.8 either (dygraph helpers; paddle_exec is
static only)."""

__all__ = []
