"""paddle.dataset: Paddle 1.8's dataset readers (the book's data), with the same cache, sample formats and API.

    import paddle_exec as paddle
    reader = paddle.batch(paddle.dataset.uci_housing.train(), batch_size=20)

Each module downloads its files into ~/.cache/paddle/dataset/<module>/ (common.py; files Paddle downloaded are
reused) and returns reader creators whose samples are those of Paddle 1.8.5's readers on the same files.
`synthetic` writes small files in each real format, for tests and offline runs. image and flowers need Pillow
(and flowers scipy), imported only when used.
"""
from . import cifar, common, conll05, flowers, image, imdb, imikolov, mnist, movielens, uci_housing, wmt14, wmt16

__all__ = ['mnist', 'imikolov', 'imdb', 'cifar', 'movielens', 'conll05', 'uci_housing', 'wmt14', 'wmt16', 'flowers',
           'image', 'common']
