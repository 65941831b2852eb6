"""Reading the code blocks of a Markdown page, and the markers that steer how a block is tested.

A fenced block is run by its language:
    python, py                 executed; the page's python blocks share one namespace, in page order
    bash, sh, shell, console   each command run by bash (console: only lines starting with `$ `; bash/sh/shell:
                               every line, `\\` continuations joined, comments and blank lines skipped); each must
                               exit 0, or the status the marker names
    anything else (text, json, no language)    shown, not run
A marker is an HTML comment on the line just before the fence (invisible in the rendered page):
    <!-- docs-test: skip: REASON -->              not run; the reason is required and shown in the test report
    <!-- docs-test: needs: onnxruntime, cmd:dot -->   run only where the modules import and the programs are on
                                                  PATH; otherwise skipped, saying which is missing
    <!-- docs-test: exit: 2 -->                   shell commands of the block must exit with this status
    <!-- docs-test: file: my_model.py -->         the block is a file the page's commands use: written to that
                                                  path in the page's folder, not run
Several markers may share one comment, separated by `;` (`needs: matplotlib; exit: 0`); `skip:` comes last and
takes the rest of the comment as its reason.
"""
from __future__ import annotations

import importlib.util
import re
import shutil
from dataclasses import dataclass, field

RUN_PYTHON = ('python', 'py')
RUN_SHELL = ('bash', 'sh', 'shell', 'console')
_FENCE = re.compile(r'^(\s*)(`{3,}|~{3,})\s*([\w+-]*)')
_MARKER = re.compile(r'^\s*<!--\s*docs-test:(.*?)-->\s*$')


class MarkerError(ValueError):
    """A docs-test marker that cannot be read (unknown key, skip without a reason)."""


@dataclass
class Block:
    path: str
    line: int                   # line of the opening fence, 1-based
    lang: str
    code: str
    skip: str | None = None
    needs: list = field(default_factory=list)
    exit_status: int = 0
    file: str | None = None

    @property
    def where(self) -> str:
        return '%s:%d' % (self.path, self.line)

    def missing(self) -> list:
        """The needs that this machine lacks."""
        out = []
        for need in self.needs:
            if need.startswith('cmd:'):
                if shutil.which(need[4:]) is None:
                    out.append('the %s program' % need[4:])
            elif importlib.util.find_spec(need) is None:
                out.append('the %s module' % need)
        return out

    def commands(self) -> list:
        """The shell commands of a shell block."""
        lines = self.code.splitlines()
        if self.lang == 'console':
            lines = [line[2:] for line in lines if line.startswith('$ ')]
        commands, current = [], ''
        for line in lines:
            stripped = line.strip()
            if not current and (not stripped or stripped.startswith('#')):
                continue
            if stripped.endswith('\\'):
                current += stripped[:-1].rstrip() + ' '
                continue
            commands.append(current + stripped)
            current = ''
        if current:
            commands.append(current)
        return commands


def _read_marker(text: str, where: str) -> dict:
    out: dict = {}
    head, found, reason = text.partition('skip:')
    if found:                               # the reason is the rest of the comment, semicolons and all
        if not reason.strip():
            raise MarkerError('%s: a docs-test skip marker needs a reason (skip: why)' % where)
        out['skip'] = reason.strip()
        text = head
    for part in (p.strip() for p in text.split(';')):
        if not part:
            continue
        key, _, value = part.partition(':')
        key, value = key.strip(), value.strip()
        if key == 'skip':
            if not value:
                raise MarkerError('%s: a docs-test skip marker needs a reason (skip: why)' % where)
            out['skip'] = value
        elif key == 'needs':
            out['needs'] = [n.strip() for n in value.split(',') if n.strip()]
        elif key == 'exit':
            out['exit_status'] = int(value)
        elif key == 'file':
            out['file'] = value
        else:
            raise MarkerError('%s: unknown docs-test marker %r (skip, needs, exit, file)' % (where, key))
    return out


def read_blocks(text: str, path: str = '<page>') -> list:
    """Every fenced block of a page, with its marker applied."""
    lines = text.splitlines()
    blocks, i, previous = [], 0, ''
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            if lines[i].strip():
                previous = lines[i]
            i += 1
            continue
        indent, fence, lang = m.group(1), m.group(2), m.group(3).lower()
        start = i
        body = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].lstrip())
            i += 1
        marker = _MARKER.match(previous)
        settings = _read_marker(marker.group(1), '%s:%d' % (path, start + 1)) if marker else {}
        blocks.append(Block(path, start + 1, lang, '\n'.join(body) + '\n', **settings))
        previous = ''
        i += 1
    return blocks
