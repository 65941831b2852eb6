"""fluid.debugger (Paddle 1.8's module path). It exports nothing in 1.8 either (graphviz drawing helpers for pserver
programs)."""

__all__ = []
