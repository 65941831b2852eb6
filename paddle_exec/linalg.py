"""paddle.linalg (Paddle 2.x's module path): maps its names onto the one implementation in tensor/linalg.py and
tensor/matrix.py. `__all__` is 2.6.2's list."""
from .tensor.linalg import (
    cholesky,
    cholesky_solve,
    cond,
    corrcoef,
    cov,
    det,
    eig,
    eigh,
    eigvals,
    eigvalsh,
    householder_product,
    inv,
    lstsq,
    lu,
    lu_unpack,
    matrix_power,
    matrix_rank,
    norm,
    pca_lowrank,
    pinv,
    qr,
    slogdet,
    solve,
    svd,
    triangular_solve,
)
from .tensor.matrix import multi_dot

__all__ = ['cholesky', 'cholesky_solve', 'cond', 'corrcoef', 'cov', 'det', 'eig', 'eigh', 'eigvals', 'eigvalsh',
           'householder_product', 'inv', 'lstsq', 'lu', 'lu_unpack', 'matrix_power', 'matrix_rank', 'multi_dot',
           'norm', 'pca_lowrank', 'pinv', 'qr', 'slogdet', 'solve', 'svd', 'triangular_solve']
