"""Records what Paddle 1.8.5 decodes in beam_search_cases.py (the book's decoder for each end id, and
dynamic_decode with a BeamSearchDecoder in test and training mode) into beam_search_pd18.json, which
tests/ops/test_beam_search.py compares paddle_exec with.

Runs only where Paddle 1.8.5 is installed:  /work/pd18/bin/python tests/ops/data/record_beam_search.py
"""
import json
import os
import sys

import paddle.fluid as fluid
import paddle.fluid.contrib.decoder  # noqa: F401  (1.8 does not import it with fluid.contrib)
from beam_search_cases import END_IDS, run, run_basic_decoder, run_contrib_decoder, run_dynamic_decode

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with open(os.path.join(HERE, 'beam_search_pd18.json'), 'w') as f:
        cases = {str(e): run(fluid, e) for e in END_IDS}
        cases['dynamic_decode_test'] = run_dynamic_decode(fluid, True)
        cases['dynamic_decode_train'] = run_dynamic_decode(fluid, False)
        cases['basic_decoder_training'] = run_basic_decoder(fluid, 'training')
        cases['basic_decoder_greedy'] = run_basic_decoder(fluid, 'greedy')
        cases['contrib_training_decoder'] = run_contrib_decoder(fluid, 'train')
        json.dump(cases, f, sort_keys=True)


if __name__ == '__main__':
    sys.exit(main())
