"""fluid.reader (Paddle 1.8's module path): DataLoader and PyReader (paddle_exec/static/data_loader.py)."""
from ..static.data_loader import DataLoader, PyReader

__all__ = ['DataLoader', 'PyReader']
