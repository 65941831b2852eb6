"""Files that are whole or absent: every checkpoint writer goes through `FileSet`, every loader through `recover`.

A `FileSet` replaces several files of one folder together (static.save's `.pdparams` / `.pdopt` / `.pdmodel`,
save_persistables' file per variable, an inference model's model and parameters), so that a process killed at
any moment leaves either the old set or the new one, never a mix:

1. `add(name, chunks)` writes a new file's bytes at once into an *unnamed* file of the target folder (Linux
   `O_TMPFILE`) and fsyncs it. Killed here, the kernel frees it: the folder holds no trace of the save.
   Where O_TMPFILE is missing, the file is a named temporary (`.paddle_exec-tmp-<tag>-<n>`) instead; so are
   all but the last `MAX_UNNAMED` files of a big set, whose descriptors would otherwise pile up.
2. `commit()` links every new file to its temporary name, then writes the journal
   `.paddle_exec-commit-<tag>` (which temporary becomes which file, created whole by a link or rename) and
   fsyncs the folder. **The journal is the commit point.**
3. Each temporary is renamed onto its target (`os.replace`), the folder fsynced, the journal removed.
A set of one file needs no journal: its one rename is the commit point.

`recover(folder)` finishes what a dead writer left: a journal is rolled forward (the temporaries it lists that
still exist are renamed onto their targets), then temporaries of dead writers that no journal lists are deleted
(their save never reached its commit point). Every save and load in paddle_exec calls it first, so a load after
a crash sees the last committed set and no stray files. A writer is dead when its process is gone: the `<tag>` is
`<pid>-<process start time>-<random>`, so a reused pid does not look alive. The journal of a writer still running
(another thread or process committing into the same folder) is waited for while it is younger than `COMMIT_WAIT`
seconds: a commit is a few renames, so an older one was abandoned (its renames failed) and is rolled forward.

A failure before the commit point (a value that cannot be written, a full disk) removes every temporary and leaves
the old files; a failure between the commit point and the last rename leaves the journal for `recover`.

`check_file_name` refuses a variable or file name that would leave its folder (`..`, a path separator, an absolute
path, a NUL byte), on save and on load.
"""
from __future__ import annotations

import json
import os
import re
import secrets
import time

import psutil

__all__ = []   # internal: used by static.io, var_files, inference_model and pickled_state

TMP_PREFIX = '.paddle_exec-tmp-'
JOURNAL_PREFIX = '.paddle_exec-commit-'
COMMIT_WAIT = 10.0
MAX_UNNAMED = 64            # unnamed files held open by one FileSet (each is an open descriptor until commit)
_TAG = re.compile(r'^(\d+)-(\d+)-')


def _process_start(pid: int) -> int | None:
    try:
        return int(psutil.Process(pid).create_time() * 100)
    except (psutil.NoSuchProcess, psutil.AccessDenied, ProcessLookupError):
        return None


def _new_tag() -> str:
    pid = os.getpid()
    return '%d-%d-%s' % (pid, _process_start(pid) or 0, secrets.token_hex(4))


def _writer_alive(tag: str) -> bool:
    match = _TAG.match(tag)
    if match is None:
        return False
    found = _process_start(int(match.group(1)))
    return found is not None and abs(found - int(match.group(2))) <= 1


def check_file_name(name: str, what: str = 'Variable') -> str:
    """`name` when it names a file inside its folder; a ValueError otherwise. A name may hold '/': Paddle saves a
    variable named `GRUCell/w_0` as the file w_0 of the sub-folder GRUCell (name scopes make such names), so a
    relative path of parts none of which is empty, '.' or '..' is a name inside the folder."""
    bad = (not isinstance(name, str) or '\\' in name or '\0' in name or os.path.isabs(name)
           or bool(os.path.splitdrive(name)[0])
           or any(part in ('', '.', '..') for part in name.split('/')))
    if bad:
        raise ValueError("%s name %r cannot be used as a file name: it would point outside its folder (names that "
                         "are absolute, hold an empty, '.' or '..' part, a backslash, a drive or a NUL byte are "
                         "refused). Save such variables into one file (filename=...) instead" % (what, name))
    return name


def path_inside(folder: str, name: str, create: bool = False) -> str:
    """The path of the file `name` in `folder`, its sub-folders made when `create`; a ValueError when a sub-folder
    on the way is a link that leads out of `folder`."""
    path = os.path.join(folder, check_file_name(name))
    if '/' in name:
        parent = os.path.dirname(path)
        root = os.path.realpath(folder)
        if os.path.commonpath([root, os.path.realpath(parent)]) != root:     # checked before anything is made
            raise ValueError("the file name %r leads out of the folder %s through a linked sub-folder" % (name, folder))
        if create:
            os.makedirs(parent, exist_ok=True)
    return path


def _fsync_folder(folder: str) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return                      # a platform without directory handles
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _write_all(fd: int, chunks) -> None:
    """Writes `chunks` (bytes-like objects, or a function writing to a binary file) to `fd`, then fsyncs it."""
    if callable(chunks):
        with os.fdopen(os.dup(fd), 'wb') as f:
            chunks(f)
    else:
        for chunk in chunks:
            view = memoryview(chunk).cast('B')
            while view:
                written = os.write(fd, view)
                view = view[written:]
    os.fsync(fd)


class _NewFile:
    """The bytes of one target, in an unnamed file (`fd`) or a named temporary (`tmp`)."""

    def __init__(self, folder: str, target: str, tmp_name: str, chunks):
        self.target = target
        self.tmp = os.path.join(folder, tmp_name)
        self.fd = None
        self.linked = False
        fd = _open_unnamed(folder)
        if fd is None:
            fd = os.open(self.tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
            self.linked = True
        try:
            _write_all(fd, chunks)
        except BaseException:
            os.close(fd)
            self.discard()
            raise
        if self.linked:
            os.close(fd)
        else:
            self.fd = fd

    def link(self) -> None:
        """Gives the unnamed file its temporary name."""
        if not self.linked:
            _link_unnamed(self.fd, self.tmp)
            self.linked = True
        self._close()

    def _close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def discard(self) -> None:
        self._close()
        if self.linked:
            try:
                os.unlink(self.tmp)
            except FileNotFoundError:
                pass
            self.linked = False


def _link_unnamed(fd: int, path: str) -> None:
    """Gives the unnamed file `fd` the name `path`. linkat must follow the /proc/self/fd link
    (AT_SYMLINK_FOLLOW); os.link asks for that only when given a directory fd, so it gets one."""
    folder_fd = os.open(os.path.dirname(path) or '.', os.O_RDONLY)
    try:
        os.link('/proc/self/fd/%d' % fd, path, src_dir_fd=folder_fd, follow_symlinks=True)
    finally:
        os.close(folder_fd)


def _open_unnamed(folder: str) -> int | None:
    """A writable unnamed file in `folder` (O_TMPFILE), or None where the platform or file system has none."""
    flag = getattr(os, 'O_TMPFILE', None)
    if flag is None or not os.path.isdir('/proc/self/fd'):
        return None
    try:
        return os.open(folder, flag | os.O_WRONLY, 0o644)
    except OSError:
        return None


class FileSet:
    """New versions of files in one folder, replacing the old ones together at `commit()`.

        with FileSet(folder) as files:       # commits on leaving the block, discards on an exception
            files.add('model.pdparams', [header, array_bytes])
            files.add('model.pdopt', [data])
    """

    def __init__(self, folder: str):
        self.folder = os.path.abspath(folder or '.')
        self.tag = _new_tag()
        self._files: dict[str, _NewFile] = {}
        self._started = False
        self._made = 0

    def add(self, name: str, chunks) -> None:
        """Writes the new `name` (a file name inside the folder) from a bytes-like object, a list of them, or a
        function that writes to the binary file it is given."""
        check_file_name(name, 'File')
        if not self._started:
            os.makedirs(self.folder, exist_ok=True)
            recover(self.folder)
            self._started = True
        if isinstance(chunks, (bytes, bytearray, memoryview)):
            chunks = [chunks]
        if name in self._files:
            self._files.pop(name).discard()
        tmp_name = '%s%s-%d' % (TMP_PREFIX, self.tag, self._made)
        self._made += 1
        self._files[name] = _NewFile(self.folder, name, tmp_name, chunks)
        unnamed = [f for f in self._files.values() if f.fd is not None]
        for new in unnamed[:len(unnamed) - MAX_UNNAMED]:
            new.link()

    def discard(self) -> None:
        for new in self._files.values():
            new.discard()
        self._files.clear()

    def commit(self) -> None:
        files = list(self._files.values())
        self._files = {}
        if not files:
            return
        journal = None
        try:
            targets = [path_inside(self.folder, new.target, create=True) for new in files]   # all checked first
            for new in files:
                new.link()
            if len(files) > 1:
                journal = os.path.join(self.folder, JOURNAL_PREFIX + self.tag)
                record = {'format': 'paddle_exec.commit', 'version': 1,
                          'files': [[os.path.basename(f.tmp), f.target] for f in files]}
                _create_whole(journal, json.dumps(record).encode(), TMP_PREFIX + self.tag + '-journal')
            _fsync_folder(self.folder)
        except BaseException:
            for new in files:
                new.discard()
            _remove(journal)
            raise
        renamed = 0
        try:
            for new, target in zip(files, targets):
                os.replace(new.tmp, target)
                renamed += 1
        except BaseException:
            if renamed == 0:         # nothing replaced yet: the old set stands, undo the commit
                for new in files:
                    new.discard()
                _remove(journal)
            raise                    # else the journal stays for recover() to finish
        _fsync_folder(self.folder)
        _remove(journal)

    def __enter__(self) -> FileSet:
        return self

    def __exit__(self, kind, value, traceback) -> None:
        if kind is None:
            self.commit()
        else:
            self.discard()


def _create_whole(path: str, data: bytes, tmp_name: str) -> None:
    """Creates `path` (a new name) with `data`, whole: linked from an unnamed file, or renamed from the temporary
    `tmp_name`."""
    folder = os.path.dirname(path)
    fd = _open_unnamed(folder)
    if fd is not None:
        try:
            _write_all(fd, [data])
            _link_unnamed(fd, path)
        finally:
            os.close(fd)
        return
    tmp = os.path.join(folder, tmp_name)
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        try:
            _write_all(fd, [data])
        finally:
            os.close(fd)
        os.replace(tmp, path)
    except BaseException:
        _remove(tmp)
        raise


def _remove(path: str | None) -> None:
    if path is None:
        return
    try:
        os.unlink(path)
    except FileNotFoundError:
        pass


def write_file(path: str, data) -> None:
    """Replaces the one file `path` atomically (a FileSet of one)."""
    with FileSet(os.path.dirname(path)) as files:
        files.add(os.path.basename(path), data)


class JournalError(RuntimeError):
    """A commit journal that cannot be read: the folder needs a look before it is trusted."""


def _roll_forward(folder: str, journal: str) -> None:
    path = os.path.join(folder, journal)
    try:
        with open(path, 'rb') as f:
            record = json.loads(f.read().decode())
        pairs = [(str(tmp), str(target)) for tmp, target in record['files']]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise JournalError("the commit journal %s of an interrupted save cannot be read (%s): the files of that "
                           "folder may mix two saves" % (path, e)) from None
    for tmp, target in pairs:
        check_file_name(tmp, 'File')
        check_file_name(target, 'File')
        try:
            os.replace(os.path.join(folder, tmp), path_inside(folder, target, create=True))
        except FileNotFoundError:
            pass                    # renamed before the writer died
    _fsync_folder(folder)
    _remove(path)


def _younger_than(path: str, seconds: float) -> bool:
    try:
        return time.time() - os.stat(path).st_mtime < seconds
    except FileNotFoundError:
        return False


def recover(folder: str) -> None:
    """Finishes or undoes the saves into `folder` whose writer died (see the module docstring)."""
    folder = folder or '.'
    try:
        names = os.listdir(folder)
    except (FileNotFoundError, NotADirectoryError):
        return
    journals = [n for n in names if n.startswith(JOURNAL_PREFIX)]
    if not journals and not any(n.startswith(TMP_PREFIX) for n in names):
        return
    for journal in journals:
        path = os.path.join(folder, journal)
        while _writer_alive(journal[len(JOURNAL_PREFIX):]) and _younger_than(path, COMMIT_WAIT):
            time.sleep(0.005)
        if os.path.exists(path):
            _roll_forward(folder, journal)
    for name in os.listdir(folder):
        if name.startswith(TMP_PREFIX) and not _writer_alive(name[len(TMP_PREFIX):]):
            _remove(os.path.join(folder, name))
