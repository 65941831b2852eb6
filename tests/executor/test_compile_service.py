"""The segment compiler thread at exit (executor/jit_service.py): no compile starts after close(), the running one
is waited for, and the interpreter's exit does not cut a compile short."""
import os
import subprocess
import sys
import threading
import time

from paddle_exec.executor.jit_service import CompileService


class SlowCode:
    """What CompileService asks of a SegmentCode: the three sets and compile(signature)."""

    def __init__(self, seconds: float):
        self.ready, self.failed, self.pending = set(), {}, set()
        self.seconds = seconds
        self.started, self.done = threading.Event(), threading.Event()
        self.compiled = []

    def compile(self, signature) -> bool:
        self.started.set()
        time.sleep(self.seconds)
        self.compiled.append(signature)
        self.pending.discard(signature)
        self.ready.add(signature)
        self.done.set()
        return True


def _until(condition, seconds: float = 10.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.01)
    return condition()


def test_close_waits_for_the_running_compile_and_drops_the_queued_ones():
    service = CompileService()
    code = SlowCode(0.5)
    service.request(code, ('a',))
    service.request(code, ('b',))
    assert code.started.wait(10)
    assert service.close()
    assert code.compiled == [('a',)]            # the running compile ended before close() returned
    assert _until(lambda: not code.pending)     # the thread takes ('b',) off the queue and drops it
    assert code.compiled == [('a',)]
    service.request(code, ('c',))
    assert code.pending == set() and service.idle()


def test_close_gives_up_after_its_timeout():
    service = CompileService()
    code = SlowCode(2.0)
    service.request(code, ('a',))
    assert code.started.wait(10)
    assert not service.close(timeout=0.1)
    assert code.done.wait(10) and code.compiled == [('a',)]


SCRIPT = r'''
import sys, time
from paddle_exec.executor.jit_service import SERVICE

class Code:
    ready, failed, pending = set(), {}, set()
    def compile(self, signature):
        time.sleep(1.0)
        open(sys.argv[1], 'w').write('compiled')
        self.pending.discard(signature)
        return True

SERVICE.request(Code(), ('sig',))
time.sleep(0.2)
print('script done')
'''


def test_the_process_exits_after_the_running_compile_ends(tmp_path):
    """A script that ends while the compiler thread compiles: without close() at exit the daemon thread is cut
    short mid-compile (with llvmlite, inside LLVM while the interpreter tears down: a crash)."""
    marker = tmp_path / 'marker'
    proc = subprocess.run([sys.executable, '-c', SCRIPT, str(marker)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, 'PYTHONFAULTHANDLER': '1'})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == 'script done'
    assert marker.read_text() == 'compiled'
