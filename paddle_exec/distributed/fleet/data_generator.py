"""fleet's data generators: Paddle's protocol for turning raw lines into the MultiSlot text that
InMemoryDataset / QueueDataset read (as their pipe command), in pure Python.

    class Words(fleet.MultiSlotDataGenerator):
        def generate_sample(self, line):
            def local_iter():
                ids = [int(w) for w in line.split()]
                yield ('words', ids), ('label', [ids[0] % 2])
            return local_iter
    Words().run_from_stdin()          # a script: `pipe_command='python words.py'`; '3 17 42 5 1 1' per sample

generate_sample(line) returns a function whose iterator yields samples, each a list / tuple of (slot name, list of
values); None samples are skipped. Samples are grouped in batches of set_batch's size (32) and passed through
generate_batch (the identity unless overridden), then written one line each: for every slot its count, then its
values. MultiSlotDataGenerator takes ints and floats (the first float makes its slot 'float' in `_proto_info`,
else 'uint64') and checks every sample has the first one's slots in order; MultiSlotStringDataGenerator writes
strings as they are. Error messages are Paddle 2.6.2's.
"""
from __future__ import annotations

import sys

__all__ = ['DataGenerator', 'MultiSlotDataGenerator', 'MultiSlotStringDataGenerator']


class DataGenerator:
    """The base class: subclass it and define generate_sample (and generate_batch for batch-wise work)."""

    def __init__(self):
        self._proto_info = None
        self.batch_size_ = 32

    def set_batch(self, batch_size: int) -> None:
        self.batch_size_ = batch_size

    def run_from_memory(self) -> None:
        """Writes the samples generate_sample(None) yields (for debugging and benchmarks)."""
        self._write_all(self._samples([None]))

    def run_from_stdin(self) -> None:
        """Reads raw lines from stdin and writes their samples to stdout, one MultiSlot line each."""
        self._write_all(self._samples(sys.stdin))

    def _samples(self, lines):
        for line in lines:
            for sample in self.generate_sample(line)():
                if sample is not None:
                    yield sample

    def _write_all(self, samples) -> None:
        batch = []
        for sample in samples:
            batch.append(sample)
            if len(batch) == self.batch_size_:
                self._write_batch(batch)
                batch = []
        if batch:
            self._write_batch(batch)

    def _write_batch(self, batch: list) -> None:
        for sample in self.generate_batch(batch)():
            sys.stdout.write(self._gen_str(sample))

    def _gen_str(self, line) -> str:
        raise NotImplementedError('pls use MultiSlotDataGenerator or PairWiseDataGenerator')

    def generate_sample(self, line):
        raise NotImplementedError('Please rewrite this function to return a list or tuple: '
                                  '[(name, [feasign, ...]), ...] or ((name, [feasign, ...]), ...)')

    def generate_batch(self, samples):
        def local_iter():
            yield from samples
        return local_iter


def _slots(line, example: str) -> list:
    if isinstance(line, zip):
        line = list(line)
    if not isinstance(line, (list, tuple)):
        raise ValueError('the output of process() must be in list or tuple type' + example)
    return list(line)


class MultiSlotStringDataGenerator(DataGenerator):
    """Slots of strings, written as they are."""

    def _gen_str(self, line) -> str:
        fields = []
        for name, elements in _slots(line, "Examples: [('words', ['1926', '08', '17']), ('label', ['1'])]"):
            fields.append(' '.join([str(len(elements))] + list(elements)))
        return ' '.join(fields) + '\n'


class MultiSlotDataGenerator(DataGenerator):
    """Slots of ints / floats; `_proto_info` records each slot's name and type ('uint64' or 'float')."""

    def _gen_str(self, line) -> str:
        line = _slots(line, "Example: [('words', [1926, 08, 17]), ('label', [1])]")
        first = self._proto_info is None
        if first:
            self._proto_info = []
        elif len(line) != len(self._proto_info):
            raise ValueError('the complete field set of two given line are inconsistent.')
        fields = []
        for index, (name, elements) in enumerate(line):
            if not isinstance(name, str):
                raise ValueError('name%s must be in str type' % type(name))
            if not isinstance(elements, list):
                raise ValueError('elements%s must be in list type' % type(elements))
            if not elements:
                raise ValueError('the elements of each field can not be empty, you need padding it in process().')
            if first:
                self._proto_info.append((name, 'uint64'))
            elif name != self._proto_info[index][0]:
                raise ValueError('the field name of two given line are not match: require<%s>, get<%s>.'
                                 % (self._proto_info[index][0], name))
            for elem in elements:
                if first or self._proto_info[index][1] != 'float':     # Paddle checks every value of a first line
                    if isinstance(elem, float):
                        self._proto_info[index] = (name, 'float')
                    elif not isinstance(elem, int):
                        raise ValueError('the type of element%s must be in int or float' % type(elem))
            fields.append(' '.join([str(len(elements))] + [str(e) for e in elements]))
        return ' '.join(fields) + '\n'
