"""Running the command in-process, and the golden models (tests/golden/models/, saved by real Paddle)."""
import os

import numpy as np

from paddle_exec.cli import main

MODELS = os.path.join(os.path.dirname(os.path.dirname(__file__)), 'golden', 'models')
# name, path given to the command
GOLDEN = [('fit_a_line_v18', 'fit_a_line_v18'), ('mlp_v18', 'mlp_v18'), ('cnn_v18', 'cnn_v18'),
          ('mlp_v26', os.path.join('mlp_v26', 'inference'))]
GOLDEN_IDS = [g[0] for g in GOLDEN]


def golden_io(name: str):
    """({feed name: array}, recorded output) of a golden model."""
    io = np.load(os.path.join(MODELS, name + '.io.npz'))
    return {k[len('in.'):]: io[k] for k in io.files if k.startswith('in.')}, io['out']


def cli(capsys, *argv):
    """(exit status, stdout, stderr) of `paddle-exec argv...`."""
    status = main([str(a) for a in argv])
    out = capsys.readouterr()
    return status, out.out, out.err
