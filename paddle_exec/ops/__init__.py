"""The op library: one module per family registers its ops' schema, shape rule, kernel and grad maker."""
from ..framework import registry  # noqa: I001  (the registry first: every family module fills it)
from . import math, activation, reduce, tensor, nn, loss, embedding, optimizer, io, metric, reader, string, control_flow
from . import indexing, creation, image
