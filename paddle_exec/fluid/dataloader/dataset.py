"""fluid.dataloader.dataset (Paddle 1.8's module path): Dataset (paddle_exec/io/dataset.py)."""
from ...io.dataset import Dataset

__all__ = ['Dataset']
