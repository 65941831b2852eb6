"""fluid.reader (Paddle 1.8's module path): DataLoader (paddle_exec/static/data_loader.py)."""
from ..static.data_loader import DataLoader

__all__ = ['DataLoader']
