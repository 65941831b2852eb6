"""`paddle-exec run PATH --feed name=x.npy ... --output out.npz`: one inference run of a saved model.

Feeds come from .npy files (`--feed NAME=FILE.npy`) or from one .npz whose keys are feed names (`--feed FILE.npz`,
keys may also be spelled `in.NAME`, as the golden models' .io.npz files do). Every feed the model declares must be
given; each array is checked against the feed variable's dtype and shape by the Executor, with Paddle's wording.
The fetched arrays go to an .npz keyed by fetch name (`--output`), and a one-line summary of each is printed.
"""
from __future__ import annotations

import argparse
import os

import numpy as np

from .. import static
from .common import CliError, load_inference, locate_model, shape_text

EXAMPLES = """examples:
  paddle-exec run tests/golden/models/fit_a_line_v18 --feed x=x.npy --output out.npz
  paddle-exec run tests/golden/models/mlp_v26 --feed inputs.npz
"""


def add_parser(subparsers) -> None:
    p = subparsers.add_parser(
        'run', help='run a saved inference model on arrays from .npy/.npz files',
        description='Run a saved inference model once: feeds from .npy/.npz files, fetches to an .npz file.',
        epilog=EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument('path', metavar='PATH', help='the saved model (as for inspect)')
    p.add_argument('--feed', action='append', default=[], metavar='NAME=FILE.npy|FILE.npz',
                   help='a feed array; repeat for each feed, or give one .npz holding them all')
    p.add_argument('--output', '-o', metavar='OUT.npz', help='write the fetched arrays here, keyed by fetch name')
    p.add_argument('--model-filename', help='the model file inside PATH (default: __model__ or the one .pdmodel)')
    p.add_argument('--params-filename', help='the combined parameter file inside a 1.8 model folder '
                   '(default: __params__ when present, else one file per parameter)')
    p.set_defaults(handler=run)


def _load_array(path: str, what: str) -> np.ndarray:
    if not os.path.isfile(path):
        raise CliError('no such file %s (for %s)' % (path, what))
    try:
        return np.load(path, allow_pickle=False)
    except Exception as exc:
        raise CliError('cannot read %s as a .npy array (for %s): %s' % (path, what, exc)) from exc


def read_feeds(specs: list, feed_names: list) -> dict:
    """{feed name: array} from the --feed arguments, every declared feed present, no unknown name."""
    feeds: dict = {}
    for spec in specs:
        if '=' in spec:
            name, path = spec.split('=', 1)
            feeds[name] = _load_array(path, 'feed %r' % name)
            continue
        if not spec.endswith('.npz'):
            raise CliError('--feed %s: give NAME=FILE.npy, or an .npz file keyed by feed name' % spec)
        if not os.path.isfile(spec):
            raise CliError('no such file %s' % spec)
        with np.load(spec, allow_pickle=False) as npz:
            for key in npz.files:
                name = key[3:] if key.startswith('in.') and key[3:] in feed_names else key
                if name in feed_names:
                    feeds[name] = npz[key]
    unknown = [n for n in feeds if n not in feed_names]
    if unknown:
        raise CliError('the model has no feed named %s; its feeds are: %s'
                       % (', '.join(unknown), ', '.join(feed_names)))
    missing = [n for n in feed_names if n not in feeds]
    if missing:
        raise CliError('no array given for feed %s (give --feed %s=FILE.npy)' % (', '.join(missing), missing[0]))
    return feeds


def summary(name: str, value: np.ndarray) -> str:
    value = np.asarray(value)
    head = np.array2string(value.reshape(-1)[:4], precision=6, separator=', ')
    more = ' ...' if value.size > 4 else ''
    stats = ''
    if value.size and np.issubdtype(value.dtype, np.number):
        stats = '  min %.6g  max %.6g  mean %.6g' % (value.min(), value.max(), value.mean())
    return '%s  %s %s  %s%s%s' % (name, value.dtype, shape_text(value.shape), head, more, stats)


def run_inference(path: str, feed_specs: list, model_filename=None, params_filename=None) -> dict:
    """{fetch name: array} of one run of the model at `path`."""
    model = locate_model(path, model_filename, params_filename)
    exe = static.Executor(static.CPUPlace())
    with static.scope_guard(static.Scope()):
        program, feed_names, fetch_vars = load_inference(model, exe)
        feeds = read_feeds(feed_specs, feed_names)
        try:
            results = exe.run(program, feed=feeds, fetch_list=fetch_vars)
        except (ValueError, TypeError, RuntimeError) as exc:
            raise CliError('running %s failed: %s' % (model.model_file, exc)) from exc
        finally:
            exe.close()
    return {var.name: np.asarray(value) for var, value in zip(fetch_vars, results)}


def run(args: argparse.Namespace) -> int:
    fetched = run_inference(args.path, args.feed, args.model_filename, args.params_filename)
    for name, value in fetched.items():
        print(summary(name, value))
    if args.output:
        folder = os.path.dirname(os.path.abspath(args.output))
        os.makedirs(folder, exist_ok=True)
        np.savez(args.output, **fetched)
        print('fetches written to %s' % args.output)
    return 0

