"""The Paddle book as a client: each fluid-era chapter script run unchanged on paddle_exec and on Paddle 1.8.5.

    python -m benchmarks.book --book /path/to/book [--paddle-python /work/pd18/bin/python] [--chapters 01,02]

`--book` is a checkout of PaddlePaddle/book or its bare git directory (the scripts are read from HEAD); the book's
code is never copied into this repository. Each chapter runs in a fresh copy of its folder (the scripts write
models and plots next to themselves), on paddle_exec through the `python -m paddle_exec.compat` runner and, when a
Paddle 1.8.5 interpreter is given, on Paddle itself, with the same arguments (fewer epochs than the book's defaults),
CPU_NUM=1 and one HOME whose ~/.cache/paddle/dataset both sides read.

Datasets: `--real-cache` uses the datasets in your own ~/.cache/paddle/dataset with md5 checks on. Otherwise (the
default, and the only way without network) the runner writes small fixture files in the real formats
(paddle_exec.dataset.synthetic) into a temporary HOME and bypasses the md5 checks on BOTH sides: paddle_exec with
`--no-md5-check`, Paddle 1.8.5 through a bootstrap that replaces `paddle.dataset.common.download`. Losses on
fixture data mean nothing; what the table shows is whether each script runs to its end, and how long it takes.
Both sides also get PIL.Image.ANTIALIAS back (PILLOW_SHIM): the scripts use it, and current Pillow lacks it.

Prints one row per chapter (status and wall time per side, the last lines of a failure) and writes JSON.
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import paddle_exec
from paddle_exec.dataset import synthetic

# chapter script -> (its arguments for a short run, whether it needs LoD sequences)
CHAPTERS = {
    '01.fit_a_line/train.py': (['--num_epochs', '5'], False),
    '02.recognize_digits/train.py': (['--num_epochs', '1'], False),
    '03.image_classification/train.py': (['--num_epochs', '1'], False),
    '04.word2vec/train.py': (['--num_epochs', '1'], False),
    '05.recommender_system/train.py': (['--num_epochs', '1'], True),
    '06.understand_sentiment/train_conv.py': (['--num_epochs', '1'], True),
    '06.understand_sentiment/train_dyn_rnn.py': (['--num_epochs', '1'], True),
    '06.understand_sentiment/train_stacked_lstm.py': (['--num_epochs', '1'], True),
    '07.label_semantic_roles/train.py': (['--num_epochs', '1'], True),
    '08.machine_translation/seq2seq.py': ([], True),
    '09.gan/dc_gan.py': (['--epoch', '1', '--use_gpu', 'False', '--batch_size', '64'], False),
}

# Both sides: the scripts call PIL.Image.ANTIALIAS, which Pillow 10 removed (both interpreters have Pillow >= 10);
# it was an alias of LANCZOS. This shims the machine's Pillow for the scripts, not Paddle or paddle_exec.
PILLOW_SHIM = '''
import sys
try:
    import PIL.Image
    if not hasattr(PIL.Image, 'ANTIALIAS'):
        PIL.Image.ANTIALIAS = PIL.Image.LANCZOS
except ImportError:
    pass
'''
OURS_BOOTSTRAP = PILLOW_SHIM + '''
from paddle_exec.compat.__main__ import main
main(sys.argv[1:])
'''
# Paddle 1.8.5 side: download without the md5 check (fixture files), then the script as __main__
PADDLE_BOOTSTRAP = PILLOW_SHIM + '''
import os, runpy
import paddle.dataset.common as common, paddle.dataset.flowers as flowers
def download(url, module_name, md5sum, save_name=None):
    path = os.path.join(common.DATA_HOME, module_name, url.split('/')[-1] if save_name is None else save_name)
    if not os.path.exists(path):
        raise RuntimeError('fixture file missing: %s' % path)
    return path
if os.environ.get('BOOK_NO_MD5') == '1':
    common.download = flowers.download = download
script = sys.argv[1]
sys.argv = sys.argv[1:]
sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
runpy.run_path(script, run_name='__main__')
'''


def extract_book(book: str, into: str, chapters) -> str:
    """A work tree of the book's `chapters` under `into`: the folder itself, or the files of HEAD of a (bare) git
    directory (file by file: a shallow mirror may lack large blobs the scripts do not need)."""
    if os.path.isdir(os.path.join(book, '01.fit_a_line')):
        return book
    git = ['git', '--git-dir', book]
    listing = subprocess.run(git + ['ls-tree', '-r', 'HEAD', '--'] + sorted(chapters), check=True,
                             capture_output=True, text=True).stdout
    for line in listing.splitlines():
        meta, path = line.split('\t', 1)
        blob = subprocess.run(git + ['cat-file', 'blob', meta.split()[2]], capture_output=True)
        if blob.returncode == 0:
            os.makedirs(os.path.dirname(os.path.join(into, path)), exist_ok=True)
            with open(os.path.join(into, path), 'wb') as f:
                f.write(blob.stdout)
    return into


def compile_package(env: dict) -> None:
    """Bytecode for paddle_exec, as `pip install` writes it for an installed package (Paddle 1.8.5's wheel came
    with its own). The scripts run with PYTHONDONTWRITEBYTECODE=1, which still reads bytecode that exists: without
    this an editable checkout recompiled ~500 modules from source in every chapter (1.8 s of label_semantic_roles'
    8 s). A read-only checkout is left as it is."""
    package = os.path.dirname(os.path.abspath(paddle_exec.__file__))
    clean = {k: v for k, v in env.items() if k != 'PYTHONDONTWRITEBYTECODE'}
    subprocess.run([sys.executable, '-m', 'compileall', '-q', package], env=clean, capture_output=True)


def run_side(cmd: list, cwd: str, env: dict, timeout: float) -> dict:
    start = time.perf_counter()
    try:
        done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as exc:
        out = (exc.stdout or b'').decode(errors='replace') if isinstance(exc.stdout, bytes) else (exc.stdout or '')
        return {'status': 'timeout', 'seconds': timeout, 'tail': out.splitlines()[-5:]}
    seconds = time.perf_counter() - start
    lines = (done.stdout + done.stderr).splitlines()
    errors = [line for line in done.stderr.splitlines() if line.strip()]
    return {'status': 'runs' if done.returncode == 0 else 'fails', 'seconds': round(seconds, 1),
            'returncode': done.returncode, 'tail': (errors if done.returncode else lines)[-6:]}


def run_chapter(book_dir: str, script: str, args: list, work: str, env: dict, paddle_python: str | None,
                timeout: float, no_md5: bool) -> dict:
    chapter, name = os.path.split(script)
    result = {}
    sides = [('paddle_exec', [sys.executable, '-c', OURS_BOOTSTRAP] + (['--no-md5-check'] if no_md5 else []))]
    if paddle_python:
        sides.append(('paddle_1.8.5', [paddle_python, '-c', PADDLE_BOOTSTRAP]))
    for side, prefix in sides:
        cwd = os.path.join(work, side, chapter)
        shutil.rmtree(cwd, ignore_errors=True)
        shutil.copytree(os.path.join(book_dir, chapter), cwd)
        result[side] = run_side(prefix + [name] + args, cwd, env, timeout)
    return result


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog='python -m benchmarks.book', description=__doc__.split('\n')[0])
    parser.add_argument('--book', required=True, help='PaddlePaddle/book checkout or bare git directory')
    parser.add_argument('--paddle-python', default=None, help='a Python with paddlepaddle 1.8.5, for the side run')
    parser.add_argument('--chapters', default='', help='comma-separated prefixes (default: every chapter)')
    parser.add_argument('--real-cache', action='store_true', help='use ~/.cache/paddle/dataset, md5 checks on')
    parser.add_argument('--timeout', type=float, default=900.0, help='seconds per script and side')
    parser.add_argument('--json', default=os.path.join(os.path.dirname(__file__), 'results', 'book.json'))
    opts = parser.parse_args(argv)

    work = tempfile.mkdtemp(prefix='paddle_book_')
    wanted = [c for c in opts.chapters.split(',') if c]
    scripts = [s for s in CHAPTERS if not wanted or any(s.startswith(w) for w in wanted)]
    book_dir = extract_book(opts.book, os.path.join(work, 'book'), {os.path.dirname(s) for s in scripts})
    env = dict(os.environ, CPU_NUM='1', PYTHONDONTWRITEBYTECODE='1')
    if not opts.real_cache:
        env['HOME'] = os.path.join(work, 'home')
        env['BOOK_NO_MD5'] = '1'
        synthetic.populate(os.path.join(env['HOME'], '.cache', 'paddle', 'dataset'), list(synthetic.WRITERS))
    compile_package(env)
    results = {}
    for script in scripts:
        args, needs_lod = CHAPTERS[script]
        row = run_chapter(book_dir, script, args, os.path.join(work, 'runs'), env, opts.paddle_python,
                          opts.timeout, not opts.real_cache)
        row['needs_lod'] = needs_lod
        results[script] = row
        ours, ref = row['paddle_exec'], row.get('paddle_1.8.5')
        ratio = ('%.2fx' % (ours['seconds'] / ref['seconds'])) if ref and ref['status'] == ours['status'] == 'runs' \
            else '-'
        print('%-46s paddle_exec %-7s %7.1fs   paddle 1.8.5 %-7s %7s   time ratio %s%s' % (
            script, ours['status'], ours['seconds'], ref['status'] if ref else '-',
            ('%.1fs' % ref['seconds']) if ref else '-', ratio, '   (LoD)' if needs_lod else ''), flush=True)
        if ours['status'] != 'runs':
            for line in ours['tail']:
                print('        | ' + line[:160])
    os.makedirs(os.path.dirname(opts.json), exist_ok=True)
    with open(opts.json, 'w') as f:
        json.dump({'datasets': 'real cache' if opts.real_cache else 'synthetic fixtures, md5 bypassed both sides',
                   'chapters': results}, f, indent=1)
    print('wrote', opts.json)


if __name__ == '__main__':
    main()
