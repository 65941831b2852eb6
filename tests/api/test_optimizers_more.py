"""Lamb, Ftrl, ExponentialMovingAverage and ModelAverage against the numbers real Paddle gives for the same model
and steps (recorded with paddlepaddle 1.8.5 / 2.6.2 and kept as literals below), and the programs they build
(op types, accumulator and helper variable names, op roles, the apply / restore programs).

The model, feeds and initial parameters are those of tests/api/test_optimizers.py; Paddle ran the same script
with `import paddle.fluid as fluid` (2.6.2: `paddle.static`), setting every parameter by name after the startup
program."""
import contextlib

import numpy as np
import pytest

import paddle_exec as paddle
import paddle_exec.fluid as fluid
import paddle_exec.static as static
from paddle_exec.framework import unique_name
from paddle_exec.framework.operator import OpRole
from tests.api.test_optimizers import HIDDEN, PARAMS, D, feeds, init_value, train, train_sparse

O, P = fluid.optimizer, paddle.optimizer


def build(make_optimizer, after=None, w0_attr=None):
    """x -> fc(relu) -> fc -> mean square error, minimized; `after()` runs inside the program guard afterwards.
    Returns (main, startup, loss, optimizer, what after returned)."""
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup), unique_name.guard():
        x = fluid.layers.data(name='x', shape=[D], dtype='float32')
        y = fluid.layers.data(name='y', shape=[1], dtype='float32')
        h = fluid.layers.fc(input=x, size=HIDDEN, act='relu', param_attr=w0_attr)
        pred = fluid.layers.fc(input=h, size=1)
        loss = fluid.layers.mean(fluid.layers.square_error_cost(input=pred, label=y))
        optimizer = make_optimizer()
        optimizer.minimize(loss)
        extra = after() if after is not None else None
    return main, startup, loss, optimizer, extra


@contextlib.contextmanager
def session(startup):
    """A fresh scope with the startup program run and every parameter set by name; yields (exe, scope)."""
    scope, exe = fluid.Scope(), fluid.Executor(fluid.CPUPlace())
    with fluid.scope_guard(scope):
        exe.run(startup)
        for name in PARAMS:
            var = scope.find_var(name)
            var.get_tensor().set(init_value(name, np.array(var.get_tensor()).shape), fluid.CPUPlace())
        yield exe, scope


def value(scope, name):
    return np.array(scope.find_var(name).get_tensor())


def values(scope):
    return {n: value(scope, n) for n in PARAMS}


def check(got, want, rtol=1e-6, atol=1e-7, label=''):
    np.testing.assert_allclose(np.asarray(got, dtype=np.float64).ravel(), want, rtol=rtol, atol=atol, err_msg=label)


def check_training(record, losses, params, **tol):
    check(losses, record['losses'], label='losses', **tol)
    for name in PARAMS:
        check(params[name], record[name], label=name, **tol)


def ops_of(main, op_type):
    return [op for op in main.global_block().ops if op.type == op_type]


# paddlepaddle 1.8.5: 3 steps of the model of tests/api/test_optimizers.py (parameters set by name)
FLUID_185 = {
    'lamb': {
        'losses': [0.410227656, 3.42976022, 1.72229958],
        'fc_0.b_0': [0.205941468, -0.130896866, 0.157275662, -0.340687543],
        'fc_0.w_0': [0.103896536, 0.394141138, 0.253045529, 0.0688754693, -0.363075972, 0.366856515, 0.349829376,
            -0.340168178, -0.39237529, -0.315070927, -0.305167317, -0.0354682952, 0.0931939334, -0.0536584891,
            -0.0295827892, 0.329993278, 0.23176451, 0.278239459, 0.280594438, -0.453901976],
        'fc_1.b_0': [0.62967813],
        'fc_1.w_0': [-0.175531298, -0.402891695, 0.363148212, -0.427710235],
    },
    'lamb_excl': {
        'losses': [0.410227656, 3.40880847, 1.68508041],
        'fc_0.b_0': [0.21361658, -0.123398192, 0.150362834, -0.338268638],
        'fc_0.w_0': [0.115062699, 0.405636311, 0.241785645, 0.0717837363, -0.364258677, 0.368458241, 0.347999394,
            -0.345450044, -0.400455147, -0.317805409, -0.30933401, -0.0368297435, 0.0863830447, -0.05768295,
            -0.01865343, 0.328894049, 0.240309641, 0.28176558, 0.270426929, -0.461712301],
        'fc_1.b_0': [0.61078912],
        'fc_1.w_0': [-0.187680662, -0.414147794, 0.351678371, -0.434208393],
    },
    'ftrl': {
        'losses': [0.410227656, 3.20938754, 1.19234383],
        'fc_0.b_0': [0.380088896, 0.0867248178, 0.00913660601, -0.341624618],
        'fc_0.w_0': [0.33276087, 0.60531497, 0.00730496459, 0.0763444155, -0.346993506, 0.344223469, 0.336883217,
            -0.452189714, -0.433383375, -0.347477227, -0.354300231, -0.027325483, -0.175028041, -0.15542911,
            0.196417809, 0.253217161, 0.319637209, 0.289510041, 0.0730394721, -0.512790918],
        'fc_1.b_0': [0.510293484],
        'fc_1.w_0': [-0.310713053, -0.635916591, 0.164470866, -0.400541842],
    },
    'ftrl_pow': {
        'losses': [0.410227656, 3.15667462, 1.34660387],
        'fc_0.b_0': [0.295998812, 0.0122206379, 0.0329709277, -0.35650295],
        'fc_0.w_0': [0.21922408, 0.544317305, 0.142674312, 0.0733758584, -0.348130852, 0.414094388, 0.296771228,
            -0.349826843, -0.429103971, -0.338076323, -0.356558233, -0.0232394338, 0.00312724872, -0.138453528,
            0.083612293, 0.269761801, 0.32171008, 0.347581595, 0.174086317, -0.492848724],
        'fc_1.b_0': [0.490810484],
        'fc_1.w_0': [-0.310098767, -0.586576402, 0.182409599, -0.418612301],
    },
    'ftrl_l1big': {
        'losses': [0.410227656, 3.26143575, 1.29866421],
        'fc_0.b_0': [0.345363408, 0.092522271, 0.00330607058, -0.296566248],
        'fc_0.w_0': [0.265476376, 0.580801427, 0, 0.0519479513, -0.275357634, 0.294852048, 0.243616, -0.338290572,
            -0.367054313, -0.301272005, -0.108528368, -0.000642380328, -0.101939827, -0.148758933, 0.16543135,
            0.148265794, 0.111557804, 0.207155496, 0.0114685008, -0.481702566],
        'fc_1.b_0': [0.486774623],
        'fc_1.w_0': [-0.275879294, -0.57699883, 0.152892515, -0.397133827],
    },
}

# paddlepaddle 2.6.2 (paddle.static), the same model and steps
PADDLE_262 = {
    'lamb': {
        'losses': [0.410227656, 3.42974544, 1.72228849],
        'fc_0.b_0': [0.205926284, -0.130892843, 0.157270163, -0.340669483],
        'fc_0.w_0': [0.103895597, 0.394113809, 0.253016889, 0.0688702464, -0.363044381, 0.366828293, 0.349796265,
            -0.340142488, -0.392348439, -0.315044463, -0.305146903, -0.0354650244, 0.0931512564, -0.053656619,
            -0.0295735989, 0.329963237, 0.231756702, 0.278219461, 0.280564189, -0.453868598],
        'fc_1.b_0': [0.62967813],
        'fc_1.w_0': [-0.175529063, -0.402867645, 0.363102257, -0.427681386],
    },
    'lamb_excl': {
        'losses': [0.410227656, 3.3774569, 1.66985691],
        'fc_0.b_0': [0.258095384, -0.0808419436, 0.109430097, -0.321106076],
        'fc_0.w_0': [0.114870697, 0.404554874, 0.241436139, 0.0711807683, -0.363187879, 0.367885321, 0.347470403,
            -0.344385833, -0.399535805, -0.316844851, -0.30930832, -0.0363375843, 0.0831454918, -0.0574076287,
            -0.0185677111, 0.327439129, 0.240753815, 0.281175524, 0.269965231, -0.460588813],
        'fc_1.b_0': [0.593799412],
        'fc_1.w_0': [-0.1875972, -0.413677931, 0.3505494, -0.432820857],
    },
    'lamb_nowd_adapt': {
        'losses': [0.410227656, 3.40812707, 1.68535841],
        'fc_0.b_0': [0.213670641, -0.123584792, 0.150265917, -0.337744147],
        'fc_0.w_0': [0.114997245, 0.405529082, 0.242317647, 0.0723148137, -0.364572942, 0.368711621, 0.34798494,
            -0.346453428, -0.401018322, -0.31776157, -0.310300857, -0.0373429842, 0.0837537497, -0.0568967499,
            -0.0188824907, 0.329604, 0.24118197, 0.281577408, 0.270690918, -0.462671041],
        'fc_1.b_0': [0.61078912],
        'fc_1.w_0': [-0.187727153, -0.413870871, 0.352167428, -0.435525209],
    },
}

# sparse embedding gradients (the model of test_sparse_embedding_gradients), fluid.Lamb on 1.8.5 and
# paddle.optimizer.Lamb on 2.6.2
SPARSE_LAMB = {
    'fluid 1.8.5': {
        'embedding_0.w_0': [0.132607058, 0.172369346, 0.239019319, -0.324198753, -0.0851185769, -0.325219691,
            -0.189584672, -0.19546181, -0.0804011077, -0.255164415, -0.331364661, 0.039516978, 0.184830606, 0.223492771,
            -0.160319045, -0.25425002, 0.327797085, 0.21510075, 0.1344596, -0.330603391, 0.24557282, -0.093806535,
            0.324800968, -0.187925756],
        'fc_0.w_0': [0.113547906, 0.486084163, 0.327381253],
    },
    'paddle 2.6.2': {
        'embedding_0.w_0': [0.132594481, 0.172360584, 0.239002645, -0.324187726, -0.0851071104, -0.325187445,
            -0.189570576, -0.195451766, -0.0804020837, -0.255138963, -0.331330597, 0.039513275, 0.184811845,
            0.223470077, -0.160302773, -0.254224181, 0.327763766, 0.21507892, 0.13444595, -0.330569804, 0.245547906,
            -0.0937970132, 0.324767977, -0.187906682],
        'fc_0.w_0': [0.113551103, 0.486055464, 0.327382833],
    },
}

# paddlepaddle 1.8.5: fluid.optimizer.SGD(0.1) + ExponentialMovingAverage(0.9[, thres_steps]).update(), then
# apply() (parameters inside), and apply(need_restore=False) a second time after restore()
EMA_185 = {
    'plain': {
        'losses': [0.410227656, 3.20266151, 1.47884595],
        'decay': [0.899999976, 0.899999976, 0.899999976],
        'fc_0.w_0_ema_0[:3] per step': [0.0100323586, 0.0408640802, 0.0253362451, 0.0206182711, 0.0804372281,
            0.0460754558, 0.0324686281, 0.120432965, 0.0627892166],
        'step': [3],
        'applied fc_0.b_0': [0.223529711, -0.0769379511, 0.0917387083, -0.339890122],
        'applied fc_0.w_0': [0.119810395, 0.44440195, 0.231694445, 0.0710304156, -0.356836349, 0.417702287, 0.298508704,
            -0.343371481, -0.392671794, -0.316267967, -0.315093189, -0.0331438072, 0.0885336846, -0.0741965696,
            -0.00694058603, 0.319407344, 0.252075464, 0.308265775, 0.24589625, -0.459626108],
        'applied fc_1.b_0': [0.463963896],
        'applied fc_1.w_0': [-0.24525024, -0.503483772, 0.2350609, -0.430866122],
        'trained fc_0.b_0': [0.23245351, -0.0482913777, 0.0730969906, -0.352412999],
        'applied twice fc_0.b_0': [0.824832618, -0.283903778, 0.338519096, -1.25420666],
    },
    'thres_int64': {
        'losses': [0.410227656, 3.20266151, 1.47884595, 1.38809633],
        'decay': [0.899999976, 0.899999976, 0.899999976, 0.899999976],
        'fc_0.w_0_ema_0[:3] per step': [0.0100323586, 0.0408640802, 0.0253362451, 0.0206182711, 0.0804372281,
            0.0460754558, 0.0324686281, 0.120432965, 0.0627892166, 0.0455619097, 0.156429127, 0.0774163902],
        'step': [4],
        'applied fc_0.b_0': [0.217868179, -0.0686080381, 0.089186199, -0.349923491],
        'applied fc_0.w_0': [0.132485896, 0.454867959, 0.225113034, 0.0790925696, -0.338471502, 0.424023688,
            0.285900116, -0.330637127, -0.386537939, -0.319855183, -0.318063915, -0.0266656727, 0.0824523866,
            -0.0826081783, -0.000661287922, 0.316147685, 0.257037461, 0.316265792, 0.246267751, -0.445293874],
        'applied fc_1.b_0': [0.502711058],
        'applied fc_1.w_0': [-0.216793865, -0.5242154, 0.218451008, -0.411366284],
        'trained fc_0.b_0': [0.204059705, -0.0482913777, 0.0829606354, -0.374394864],
        'applied twice fc_0.b_0': [0.633521736, -0.19949992, 0.259337544, -1.01751494],
    },
    'thres_float': {
        'losses': [0.410227656, 3.20266151, 1.47884595, 1.38809633],
        'decay': [0.181818187, 0.25, 0.307692319, 0.357142866],
        'fc_0.w_0_ema_0[:3] per step': [0.0820829198, 0.33434239, 0.207296491, 0.107439332, 0.41103214, 0.226370364,
            0.129373342, 0.459052235, 0.217261449, 0.151248544, 0.472772241, 0.211989701],
        'step': [4],
        'applied fc_0.b_0': [0.215513393, -0.0523582511, 0.0821654499, -0.369177371],
        'applied fc_0.w_0': [0.153749943, 0.480591118, 0.215495661, 0.0888321698, -0.318246573, 0.443545729,
            0.266511977, -0.317696482, -0.384449214, -0.329587579, -0.326149166, -0.0174688473, 0.0720414147,
            -0.0999095961, 0.0109484056, 0.311822534, 0.270225525, 0.33615163, 0.2447135, -0.432718813],
        'applied fc_1.b_0': [0.550324619],
        'applied fc_1.w_0': [-0.190065503, -0.572396159, 0.182994112, -0.390080482],
        'trained fc_0.b_0': [0.204059705, -0.0482913777, 0.0829606354, -0.374394864],
        'applied twice fc_0.b_0': [0.219077632, -0.0532241687, 0.0835243315, -0.375282943],
    },
}

# paddlepaddle 1.8.5: fluid.optimizer.SGD(0.1) + ModelAverage; per step the accumulators of fc_0.b_0
MODEL_AVERAGE_185 = {
    'window': {
        'losses': [0.410227656, 3.20266151, 1.47884595, 1.38809633, 1.95382726, 1.04306638],
        'num_accumulates': [1, 0, 1, 0, 1, 2],
        'old_num_accumulates': [0, 2, 2, 2, 2, 2],
        'num_updates': [1, 2, 3, 4, 5, 6],
        'sum_1[0]': [0.209580421, 0, 0.23245351, 0, 0.222451314, 0.455642521],
        'sum_2[0]': [0, 0, 0, 0, 0, 0],
        'sum_3[0]': [0, 0.435749233, 0.435749233, 0.436513215, 0.436513215, 0.436513215],
        'applied fc_0.b_0': [0.223038942, -0.033619754, 0.0738130808, -0.364953399],
        'applied fc_0.w_0': [0.156316608, 0.472170889, 0.216266721, 0.094715409, -0.313801706, 0.44800663, 0.25585106,
            -0.311885834, -0.376671612, -0.330584049, -0.320319563, -0.0155403661, 0.0708084852, -0.125674397,
            0.0152823282, 0.305288136, 0.272025108, 0.33502534, 0.239925608, -0.426795274],
        'applied fc_1.b_0': [0.440554887],
        'applied fc_1.w_0': [-0.206264645, -0.578468084, 0.164849192, -0.381072581],
    },
    'rate': {
        'losses': [0.410227656, 3.20266151, 1.47884595, 1.38809633, 1.95382726, 1.04306638],
        'num_accumulates': [0, 0, 0, 0, 0, 0],
        'old_num_accumulates': [1, 1, 1, 1, 1, 1],
        'num_updates': [1, 2, 3, 4, 5, 6],
        'sum_1[0]': [0, 0, 0, 0, 0, 0],
        'sum_2[0]': [0, 0, 0, 0, 0, 0],
        'sum_3[0]': [0.209580421, 0.226168811, 0.23245351, 0.204059705, 0.222451314, 0.233191207],
        'applied fc_0.b_0': [0.233191207, 0.000900704414, 0.0639439598, -0.358610898],
        'applied fc_0.w_0': [0.164898142, 0.459851801, 0.222562939, 0.113849744, -0.308662355, 0.460388958, 0.246164292,
            -0.309656233, -0.36934042, -0.340938926, -0.317823231, -0.0131245991, 0.067633599, -0.183213562,
            0.0274498202, 0.304658741, 0.272222221, 0.329061002, 0.244170278, -0.426728994],
        'applied fc_1.b_0': [0.282645524],
        'applied fc_1.w_0': [-0.212891638, -0.589021087, 0.154395536, -0.375516742],
    },
    'preset': {
        'losses': [0.410227656, 3.20266151],
        'num_accumulates': [8, 9],
        'old_num_accumulates': [3, 3],
        'num_updates': [16384, 16385],
        'sum_1[0]': [0, 0.226168811],
        'sum_2[0]': [11.2095804, 11.2095804],
        'sum_3[0]': [0.5, 0.5],
        'applied fc_0.b_0': [0.994645774, 1.85917437, 2.80898976, 3.65298104],
        'applied fc_0.w_0': [0.108107515, 0.422618061, 0.24304536, 0.0735362098, -0.360102385, 0.402381063, 0.315272212,
            -0.346194357, -0.389207363, -0.309718013, -0.31417644, -0.036931619, 0.100172475, -0.0568118058,
            -0.0180810839, 0.330956489, 0.241473675, 0.291059285, 0.258086383, -0.459532022],
        'applied fc_1.b_0': [0.47428906],
        'applied fc_1.w_0': [-0.228086293, -0.458862722, 0.280747354, -0.436604917],
    },
}


# --- Lamb and Ftrl: training numbers --------------------------------------------------------------------------------

FLUID_CASES = {
    'lamb': lambda: O.Lamb(learning_rate=0.01),
    'lamb_excl': lambda: O.LambOptimizer(0.02, lamb_weight_decay=0.1, beta1=0.8, epsilon=1e-4,
                                         exclude_from_weight_decay_fn=lambda p: p.name.endswith('.b_0')),
    'ftrl': lambda: O.Ftrl(learning_rate=0.1, l1=0.01, l2=0.2),
    'ftrl_pow': lambda: O.FtrlOptimizer(0.1, l1=0.0, l2=0.5, lr_power=-0.3),
    'ftrl_l1big': lambda: O.FtrlOptimizer(0.1, l1=0.05, l2=0.0),
}
PADDLE_CASES = {
    'lamb': lambda: P.Lamb(learning_rate=0.01),
    'lamb_excl': lambda: P.Lamb(learning_rate=0.02, lamb_weight_decay=0.1, beta1=0.8, epsilon=1e-4,
                                exclude_from_weight_decay_fn=lambda p: p.name.endswith('.b_0')),
    'lamb_nowd_adapt': lambda: P.Lamb(learning_rate=0.02, lamb_weight_decay=0.0, always_adapt=True),
}
# Paddle's CPU ftrl takes an approximate (Eigen fast-math) sqrt in its vectorised part: a few ulps per step
FTRL_TOL = dict(rtol=2e-6, atol=3e-7)


@pytest.mark.parametrize('case', sorted(FLUID_CASES))
def test_fluid_training_matches_paddle_185(case):
    main, startup, loss, _, _ = build(FLUID_CASES[case])
    losses, params, _ = train(main, startup, loss)
    check_training(FLUID_185[case], losses, params, **(FTRL_TOL if case.startswith('ftrl') else {}))


@pytest.mark.parametrize('case', sorted(PADDLE_CASES))
def test_paddle_lamb_training_matches_paddle_262(case):
    main, startup, loss, _, _ = build(PADDLE_CASES[case])
    losses, params, scope = train(main, startup, loss)
    check_training(PADDLE_262[case], losses, params)
    beta1 = 0.8 if case == 'lamb_excl' else 0.9
    check(value(scope, 'fc_0.w_0_beta1_pow_acc_0'), [beta1 ** 4], rtol=1e-6)   # 2.x advances the pows


@pytest.mark.parametrize('case', ['fluid 1.8.5', 'paddle 2.6.2'])
def test_sparse_lamb_matches_paddle(case):
    got = train_sparse(lambda: O.Lamb(learning_rate=0.01) if case.startswith('fluid') else P.Lamb(learning_rate=0.01))
    for name, want in SPARSE_LAMB[case].items():
        check(got[name], want, label=name)


# --- Lamb and Ftrl: the programs they build -------------------------------------------------------------------------

def startup_fills(startup):
    return {op.output('Out')[0]: op.attrs['value'] for op in startup.global_block().ops if op.type == 'fill_constant'}


def test_fluid_lamb_program_is_paddle_18s():
    main, startup, _, opt, _ = build(FLUID_CASES['lamb_excl'])
    ops = ops_of(main, 'lamb')
    assert [op.attrs['op_role_var'] for op in ops] == [[p, p + '@GRAD'] for p in sorted(PARAMS)]
    assert all(op.attrs['op_role'] == OpRole.Optimize for op in ops)
    first = ops[0]
    assert first.input('Moment1') == ['fc_0.b_0_moment1_0'] and first.input('Beta2Pow') == ['fc_0.b_0_beta2_pow_acc_0']
    assert first.output('Moment2Out') == ['fc_0.b_0_moment2_0'] and first.output('ParamOut') == ['fc_0.b_0']
    assert first.output('Beta1PowOut') == [] and first.attrs['bias_correction'] is False   # 1.8's op: no pow outputs
    decays = {op.input('Param')[0]: op.attrs['weight_decay'] for op in ops}
    assert decays == {'fc_0.b_0': 0.0, 'fc_0.w_0': 0.1, 'fc_1.b_0': 0.0, 'fc_1.w_0': 0.1}
    assert (first.attrs['beta1'], first.attrs['epsilon']) == (0.8, 1e-4)
    fills = startup_fills(startup)
    assert fills['fc_0.w_0_beta1_pow_acc_0'] == pytest.approx(0.8) and fills['fc_0.w_0_moment1_0'] == 0.0
    assert opt.get_opti_var_name_list()[:4] == ['fc_0.b_0_moment1_0', 'fc_0.b_0_moment2_0',
                                                'fc_0.b_0_beta1_pow_acc_0', 'fc_0.b_0_beta2_pow_acc_0']


def test_paddle_lamb_op_advances_the_pows():
    main = build(PADDLE_CASES['lamb_nowd_adapt'])[0]
    op = ops_of(main, 'lamb')[0]
    assert op.output('Beta1PowOut') == op.input('Beta1Pow') == ['fc_0.b_0_beta1_pow_acc_0']
    assert op.attrs['bias_correction'] is True and op.attrs['always_adapt'] is True


def test_ftrl_program_passes_l1_as_l2_like_paddle_18():
    main, startup, _, _, _ = build(FLUID_CASES['ftrl'])
    ops = ops_of(main, 'ftrl')
    assert len(ops) == 4
    op = [o for o in ops if o.input('Param') == ['fc_0.w_0']][0]
    assert op.input('SquaredAccumulator') == op.output('SquaredAccumOut') == ['fc_0.w_0_squared_0']
    assert op.input('LinearAccumulator') == op.output('LinearAccumOut') == ['fc_0.w_0_linear_0']
    assert (op.attrs['l1'], op.attrs['l2'], op.attrs['lr_power']) == (0.01, 0.01, -0.5)  # l2=0.2 is dropped
    assert startup_fills(startup)['fc_0.w_0_squared_0'] == 0.0


def test_ftrl_rejects_a_sparse_gradient_when_appended():
    with pytest.raises(ValueError, match="ftrl.*should be LoDTensor.*embedding_0.w_0@GRAD"):
        train_sparse(lambda: O.Ftrl(learning_rate=0.1))


# --- ExponentialMovingAverage ---------------------------------------------------------------------------------------

def ema_case(case):
    if case == 'plain':
        return lambda: O.ExponentialMovingAverage(0.9)
    counter = fluid.layers.autoincreased_step_counter()
    steps = counter if case == 'thres_int64' else fluid.layers.cast(counter, 'float32')
    return O.ExponentialMovingAverage(0.9, thres_steps=steps)


def build_ema(case):
    def after():
        ema = ema_case(case)() if case == 'plain' else ema_case(case)
        ema.update()
        return ema
    return build(lambda: O.SGD(0.1), after)


@pytest.mark.parametrize('case', sorted(EMA_185))
def test_ema_matches_paddle_185(case):
    want = EMA_185[case]
    main, startup, loss, _, ema = build_ema(case)
    losses, decays, heads = [], [], []
    with session(startup) as (exe, scope):
        for feed in feeds(len(want['losses'])):
            losses.append(float(exe.run(main, feed=feed, fetch_list=[loss])[0].ravel()[0]))
            decays.append(value(scope, 'scheduled_ema_decay_rate'))
            heads.append(value(scope, 'fc_0.w_0_ema_0').ravel()[:3])
        trained = values(scope)
        check(value(scope, '@EMA_STEP_COUNTER@'), want['step'])
        with ema.apply(exe):
            inside = values(scope)
        restored = values(scope)
        with ema.apply(exe, need_restore=False):   # Paddle corrects the stored EMA again: twice corrected
            pass
        twice = value(scope, 'fc_0.b_0')
        ema.restore(exe)
        restored_again = value(scope, 'fc_0.b_0')
    check(losses, want['losses'], label='losses')
    check(decays, want['decay'], label='decay')
    check(heads, want['fc_0.w_0_ema_0[:3] per step'], label='ema')
    check(trained['fc_0.b_0'], want['trained fc_0.b_0'])
    for name in PARAMS:
        check(inside[name], want['applied ' + name], label=name)
        np.testing.assert_array_equal(restored[name], trained[name])
    check(twice, want['applied twice fc_0.b_0'])
    np.testing.assert_array_equal(restored_again, trained['fc_0.b_0'])


def test_ema_program_structure():
    main, startup, _, _, ema = build_ema('thres_float')
    ops = main.global_block().ops
    # update() prepends its counter after the user's counter was made: Paddle 1.8's order
    assert [(op.type, op.input('X')) for op in ops[:2]] == [('increment', ['@EMA_STEP_COUNTER@']),
                                                           ('increment', ['@STEP_COUNTER@'])]
    names = {v.name for v in main.list_vars()}
    for p in PARAMS:
        assert {p + '_ema_0', p + '.ema_tmp_0'} <= names
        assert main.global_block().var(p + '_ema_0').persistable
        assert not main.global_block().var(p + '.ema_tmp_0').persistable
    update = [op for op in ops if 'moving_average' in op.attrs.get('op_namescope', '')]
    assert [op.type for op in update] == ['elementwise_mul', 'scale', 'elementwise_mul', 'elementwise_add',
                                          'assign'] * 4
    assert all(op.attrs['op_role'] == OpRole.Optimize for op in update)
    assert update[0].attrs['op_role_var'] == ['fc_0.w_0', 'fc_0.w_0.ema_tmp_0']
    assert update[4].output('Out') == ['fc_0.w_0_ema_0']
    schedule = [op for op in ops if op.attrs['op_role'] == OpRole.LRSched]
    assert schedule[-1].type == 'assign' and schedule[-1].output('Out') == ['scheduled_ema_decay_rate']
    fills = startup_fills(startup)
    assert fills['scheduled_ema_decay_rate'] == pytest.approx(0.9) and fills['fc_1.w_0_ema_0'] == 0.0
    assert fills['@EMA_STEP_COUNTER@'] == 0.0
    apply_ops = ema.apply_program.global_block().ops
    assert [op.type for op in apply_ops[:2]] == ['cast', 'elementwise_pow']
    assert sum(op.type == 'assign' for op in apply_ops) == 3 * 4   # backup, corrected EMA, parameter
    assert apply_ops[-1].type == 'assign' and apply_ops[-1].output('Out') == ['fc_1.b_0']
    assert ema.apply_program.global_block().var('fc_0.w_0.ema_tmp_0').persistable
    assert [(op.type, op.input('X'), op.output('Out')) for op in ema.restore_program.global_block().ops] == \
        [('assign', [p + '.ema_tmp_0'], [p]) for p in ('fc_0.w_0', 'fc_0.b_0', 'fc_1.w_0', 'fc_1.b_0')]


def test_ema_skips_parameters_without_model_average():
    def after():
        ema = O.ExponentialMovingAverage(0.9)
        ema.update()
        return ema
    main, _, _, _, ema = build(lambda: O.SGD(0.1), after, w0_attr=fluid.ParamAttr(do_model_average=False))
    assert not main.global_block().has_var('fc_0.w_0_ema_0') and main.global_block().has_var('fc_0.b_0_ema_0')
    assert 'fc_0.w_0' not in {v.name for v in ema.restore_program.list_vars()}


def test_ema_is_exported_where_paddle_has_it():
    assert static.ExponentialMovingAverage is fluid.optimizer.ExponentialMovingAverage
    with pytest.raises(TypeError, match='thres_steps must be a Variable'):
        static.ExponentialMovingAverage(0.9, thres_steps=3)


# --- ModelAverage ---------------------------------------------------------------------------------------------------

MODEL_AVERAGE_CASES = {
    'window': (lambda: O.ModelAverage(0.5, min_average_window=2, max_average_window=3), None),
    'rate': (lambda: O.ModelAverage(0.15, min_average_window=1, max_average_window=100), None),
    # sum_1 moves into sum_2 at the 16384th update (set the counters just before it)
    'preset': (lambda: O.ModelAverage(0.5, min_average_window=100, max_average_window=200),
               {'num_updates': np.array([16383], 'int64'), 'num_accumulates': np.array([7], 'int64'),
                'old_num_accumulates': np.array([3], 'int64'),
                'sum_1': np.array([1., 2., 3., 4.], 'float32'), 'sum_2': np.array([10., 20., 30., 40.], 'float32'),
                'sum_3': np.array([.5, .5, .5, .5], 'float32')}),
}
ACCUMULATORS = ('sum_1', 'sum_2', 'sum_3', 'num_accumulates', 'old_num_accumulates', 'num_updates')


@pytest.mark.parametrize('case', sorted(MODEL_AVERAGE_CASES))
def test_model_average_matches_paddle_185(case):
    make, preset = MODEL_AVERAGE_CASES[case]
    want = MODEL_AVERAGE_185[case]
    main, startup, loss, _, average = build(lambda: O.SGD(0.1), make)
    acc = {a: [] for a in ACCUMULATORS}
    with session(startup) as (exe, scope):
        for name, array in (preset or {}).items():
            scope.find_var('fc_0.b_0_%s_0' % name).get_tensor().set(array, fluid.CPUPlace())
        losses = []
        for feed in feeds(len(want['losses'])):
            losses.append(float(exe.run(main, feed=feed, fetch_list=[loss])[0].ravel()[0]))
            for a in ACCUMULATORS:
                acc[a].append(value(scope, 'fc_0.b_0_%s_0' % a).ravel()[0])
        trained = values(scope)
        with average.apply(exe):
            inside = values(scope)
        restored = values(scope)
        with average.apply(exe, need_restore=False):
            again = values(scope)
        average.restore(exe)
        restored_again = values(scope)
    check(losses, want['losses'], label='losses')
    for a in ('num_accumulates', 'old_num_accumulates', 'num_updates'):
        assert [int(n) for n in acc[a]] == want[a], a
    for a in ('sum_1', 'sum_2', 'sum_3'):
        check(acc[a], want[a + '[0]'], label=a)
    for name in PARAMS:
        check(inside[name], want['applied ' + name], label=name)
        np.testing.assert_array_equal(again[name], inside[name])      # apply does not change the averages
        np.testing.assert_array_equal(restored[name], trained[name])
        np.testing.assert_array_equal(restored_again[name], trained[name])


def test_model_average_program_structure():
    main, startup, _, _, average = build(lambda: O.SGD(0.1), MODEL_AVERAGE_CASES['window'][0])
    types = [op.type for op in main.global_block().ops]
    assert types[-8:] == ['sgd'] * 4 + ['average_accumulates'] * 4
    op = ops_of(main, 'average_accumulates')[0]
    assert op.input('param') == ['fc_0.w_0']
    for a in ACCUMULATORS:
        assert op.input('in_' + a) == op.output('out_' + a) == ['fc_0.w_0_%s_0' % a]
    assert (op.attrs['average_window'], op.attrs['min_average_window'], op.attrs['max_average_window']) == (0.5, 2, 3)
    assert op.attrs['op_role'] == OpRole.Optimize and op.attrs['op_role_var'] == ['fc_0.w_0', 'fc_0.w_0.tmp_0']
    assert 'move_average' in op.attrs['op_namescope']
    block = main.global_block()
    assert block.var('fc_0.w_0_num_updates_0').dtype == fluid.core.VarDesc.VarType.INT64
    assert block.var('fc_0.w_0_sum_1_0').shape == (D, HIDDEN) and block.var('fc_0.w_0_num_updates_0').shape == (1,)
    assert startup_fills(startup)['fc_1.b_0_old_num_accumulates_0'] == 0.0
    apply_ops = average.apply_program.global_block().ops
    assert [op.type for op in apply_ops[:6]] == ['assign', 'sum', 'sum', 'cast', 'cast', 'elementwise_div']
    assert apply_ops[5].output('Out') == ['fc_0.w_0'] and apply_ops[0].output('Out') == ['fc_0.w_0.tmp_0']
    assert [(op.type, op.input('X'), op.output('Out')) for op in average.restore_program.global_block().ops] == \
        [('assign', [p + '.tmp_0'], [p]) for p in ('fc_0.w_0', 'fc_0.b_0', 'fc_1.w_0', 'fc_1.b_0')]


def test_model_average_rejects_a_minimum_window_above_the_maximum():
    with pytest.raises(ValueError, match="min_average_window shouldn't be larger than max_average_window"):
        build(lambda: O.SGD(0.1), lambda: O.ModelAverage(0.5, min_average_window=5, max_average_window=3))
