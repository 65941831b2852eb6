"""fluid.transpiler.ps_dispatcher (Paddle 1.8's module path). HashName and RoundRobin place parameters on pservers:
declined in fluid.transpiler."""

__all__ = []
