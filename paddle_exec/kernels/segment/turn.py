"""The serving turn's two steps, run by a serving segment without the GIL (the design: executor/policies/
serving_turn.py).

    turn_end(word)      # the segment's first line: the calling thread's Python part is over
    turn_take(word)     # its last line: wait while another serving thread runs its Python part, then claim the turn

`word` is the address of two int64: [owner, budget]. `owner` is the thread pointer of the serving thread between
the end of its segment and the start of its next one (0: none); `budget` the time-stamp-counter ticks a thread spins
on one owner before it claims the turn anyway (the owner is asleep, descheduled, or running a long Python part).
Nothing here waits for more than the budget and nothing depends on the word for correctness: a claim that comes
too early or a release that misses only costs a GIL hand-over the usual way. Linux on x86-64 only (the thread's
address at %fs:0, the time-stamp counter, `pause`): SUPPORTED says whether the platform is one.
"""
from __future__ import annotations

import platform
import sys

import llvmlite.ir as ir
import numba
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

__all__ = ['turn_end', 'turn_take', 'ticks', 'SUPPORTED']

SUPPORTED = sys.platform.startswith('linux') and platform.machine().lower() in ('x86_64', 'amd64')
_I64 = ir.IntType(64)


def _slot(builder, address, index: int):
    """The int64 at `address` + 8 * index, as a pointer."""
    return builder.gep(builder.inttoptr(address, _I64.as_pointer()), [ir.Constant(ir.IntType(32), index)])


@intrinsic
def _load(typingctx, address, index):
    """The int64 at `address`[index], read atomically."""
    def codegen(context, builder, signature, args):
        return builder.load_atomic(_slot(builder, args[0], signature.args[1].literal_value), 'seq_cst', 8)
    if not isinstance(index, types.IntegerLiteral):
        return None
    return types.int64(types.int64, index), codegen


@intrinsic
def _swap_if(typingctx, address, old, new):
    """Stores `new` in the int64 at `address` if it holds `old`; whether it did."""
    def codegen(context, builder, signature, args):
        pair = builder.cmpxchg(_slot(builder, args[0], 0), args[1], args[2], 'seq_cst', 'seq_cst')
        return builder.extract_value(pair, 1)
    return types.boolean(types.int64, types.int64, types.int64), codegen


@intrinsic
def _thread(typingctx):
    """The calling thread's own address, the word at %fs:0 (glibc and musl keep it there: pthread_self()): one
    value per live thread. Read through LLVM's address space 257 (x86's fs segment), which every LLVM numba uses
    lowers; llvm.thread.pointer aborts the process in LLVM before 17 on x86, and numba has no inline-asm parser."""
    def codegen(context, builder, signature, args):
        return builder.load(ir.Constant(_I64.as_pointer(addrspace=257), None))
    return types.int64(), codegen


@intrinsic
def _ticks(typingctx):
    """The time-stamp counter."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(_I64, []), 'llvm.readcyclecounter')
        return builder.call(fn, [])
    return types.int64(), codegen


@intrinsic
def _pause(typingctx):
    """The spin-wait hint: the other hyperthread gets the core's pipeline, the loop its memory order."""
    def codegen(context, builder, signature, args):
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), []),
                                            'llvm.x86.sse2.pause')
        builder.call(fn, [])
        return context.get_dummy_value()
    return types.none(), codegen


@numba.njit(nogil=True, cache=True)
def ticks():
    """The time-stamp counter (the budget's unit; serving_turn.py measures its rate)."""
    return _ticks()


@numba.njit(nogil=True, cache=True)
def turn_end(word):
    _swap_if(word, _thread(), 0)


@numba.njit(nogil=True, cache=True)
def turn_take(word):
    me = _thread()
    budget = _load(word, 1)
    seen = 0
    since = 0
    while True:
        owner = _load(word, 0)
        if owner == 0 or owner == me:
            if _swap_if(word, owner, me):
                return
            continue
        now = _ticks()
        if owner != seen:               # a new owner: its Python part starts counting now
            seen = owner
            since = now
        elif now - since > budget:
            if _swap_if(word, owner, me):
                return
            continue
        _pause()
