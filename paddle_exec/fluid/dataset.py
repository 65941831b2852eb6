"""fluid.dataset (Paddle 1.8's module path): DatasetFactory, InMemoryDataset, QueueDataset over the MultiSlot text
format (paddle_exec/io/multislot.py), consumed through fluid.io.DataLoader.from_dataset."""
from ..io.multislot import DatasetBase, DatasetFactory, FileInstantDataset, InMemoryDataset, QueueDataset  # noqa: F401

__all__ = ['DatasetFactory', 'InMemoryDataset', 'QueueDataset']
