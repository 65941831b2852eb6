"""The op library: one module per family registers its ops' schema, shape rule, kernel and grad maker.

The registry itself is in framework/registry.py (the IR's interface); importing this package fills it. The order
below does not matter: each op type is registered by exactly one module (a second registration raises).
"""
from ..framework import registry  # noqa: I001  (the registry first: every family module fills it)
from . import math, activation, reduce, nn, loss, embedding, optimizer, io, metric, reader, string, control_flow
from . import creation, random, shape, joining, slicing, broadcasting, casting, search, indexing, image, debug
from . import activation_nn, conv3d, deform_conv, linear_maps, normalization, vision
from . import lod_rules, sequence_pool, sequence_rows, rnn, tensor_array, loops, beam_search
from . import contrib, detection, encoding
from . import loss_ranking, loss_sampled, loss_classification, loss_sequence, metric_sequence
from . import crf, ctc, detection_map, detection_targets, fpn, mask_labels, perspective, proposals, rpn_targets
from . import yolov3_loss
from . import collective, collective_parts, p2p
from . import math_unary, math_binary, complex, cumulative, order, gather_scatter, matrix, linalg, arrange, fft
from . import sampling, einsum, pylayer
from . import features, contrib_rec, pyramid_hash, contrib_conv, position_sensitive, im2sequence, deformable_psroi
from . import fused
