"""minitorch.optim.lr_scheduler against the closed forms and recursions PyTorch documents."""

import math
import pickle
import warnings

import pytest

import minitorch
from minitorch import optim
from minitorch.optim import lr_scheduler as sched


def make_opt(cls=optim.SGD, groups=1, **kw):
    kw.setdefault("lr", 0.1)
    params = [{"params": [minitorch.zeros(2, requires_grad=True)]} for _ in range(groups)]
    return cls(params, **kw)


def lrs_over(opt, s, n):
    """The learning rate of each group at epochs 0..n-1 (the optimizer steps before the scheduler)."""
    out = []
    for _ in range(n):
        out.append([g["lr"] for g in opt.param_groups])
        opt.step()
        s.step()
    return out


def approx(a, b):
    return pytest.approx(b, rel=1e-12, abs=1e-15) == a


def test_step_lr():
    opt = make_opt()
    s = sched.StepLR(opt, step_size=3, gamma=0.5)
    got = lrs_over(opt, s, 10)
    assert approx([g[0] for g in got], [0.1 * 0.5 ** (e // 3) for e in range(10)])
    assert s.get_last_lr() == [opt.param_groups[0]["lr"]]
    assert s.last_epoch == 10


def test_multistep_lr_with_repeated_milestone():
    opt = make_opt()
    s = sched.MultiStepLR(opt, milestones=[2, 5, 5], gamma=0.1)
    got = [g[0] for g in lrs_over(opt, s, 8)]
    expected = [0.1, 0.1, 0.01, 0.01, 0.01, 1e-4, 1e-4, 1e-4]
    assert approx(got, expected)


def test_exponential_lr_two_groups():
    opt = optim.SGD(
        [
            {"params": [minitorch.zeros(1, requires_grad=True)]},
            {"params": [minitorch.zeros(1, requires_grad=True)], "lr": 1.0},
        ],
        lr=0.1,
    )
    s = sched.ExponentialLR(opt, gamma=0.9)
    got = lrs_over(opt, s, 6)
    assert approx([g[0] for g in got], [0.1 * 0.9**e for e in range(6)])
    assert approx([g[1] for g in got], [1.0 * 0.9**e for e in range(6)])
    assert s.base_lrs == [0.1, 1.0]
    assert all("initial_lr" in g for g in opt.param_groups)


def test_cosine_annealing_matches_closed_form_and_restarts():
    T, eta_min = 10, 0.001
    opt = make_opt()
    s = sched.CosineAnnealingLR(opt, T_max=T, eta_min=eta_min)
    got = [g[0] for g in lrs_over(opt, s, 3 * T + 1)]
    # the recursive form stays on eta_min + (base - eta_min)(1 + cos(pi t / T)) / 2, also past T_max
    expected = [eta_min + (0.1 - eta_min) * (1 + math.cos(math.pi * t / T)) / 2 for t in range(3 * T + 1)]
    assert pytest.approx(expected, rel=1e-9, abs=1e-12) == got
    assert got[T] == pytest.approx(eta_min)
    assert got[2 * T] == pytest.approx(0.1)


def test_cosine_annealing_follows_external_lr_changes():
    # the recursive form scales the current lr, so a change made between steps carries on (PyTorch's design)
    opt = make_opt()
    s = sched.CosineAnnealingLR(opt, T_max=10)
    opt.step()
    s.step()
    opt.param_groups[0]["lr"] *= 0.5
    before = opt.param_groups[0]["lr"]
    opt.step()
    s.step()
    ratio = (1 + math.cos(math.pi * 2 / 10)) / (1 + math.cos(math.pi * 1 / 10))
    assert opt.param_groups[0]["lr"] == pytest.approx(before * ratio)


def test_step_with_epoch_uses_closed_form():
    opt = make_opt()
    s = sched.StepLR(opt, step_size=2, gamma=0.5)
    opt.step()
    with pytest.warns(UserWarning, match="epoch parameter in `scheduler.step\\(\\)` was not necessary"):
        s.step(7)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1 * 0.5**3)


def test_lambda_lr_per_group():
    opt = optim.SGD(
        [
            {"params": [minitorch.zeros(1, requires_grad=True)]},
            {"params": [minitorch.zeros(1, requires_grad=True)]},
        ],
        lr=0.5,
    )
    s = sched.LambdaLR(opt, [lambda e: 0.9**e, lambda e: 1.0 / (e + 1)])
    got = lrs_over(opt, s, 5)
    assert approx([g[0] for g in got], [0.5 * 0.9**e for e in range(5)])
    assert approx([g[1] for g in got], [0.5 / (e + 1) for e in range(5)])
    with pytest.raises(ValueError, match="Expected 2 lr_lambdas, but got 1"):
        sched.LambdaLR(opt, [lambda e: 1.0])
    sd = s.state_dict()
    assert sd["lr_lambdas"] == [None, None] and "optimizer" not in sd


def one_cycle_reference(step, total, max_lr, pct, div, final_div, strategy, three_phase):
    """The 1cycle schedule as PyTorch documents it, written out phase by phase."""
    initial = max_lr / div
    min_lr = initial / final_div

    def anneal(a, b, p):
        if strategy == "cos":
            return b + (a - b) / 2.0 * (math.cos(math.pi * p) + 1)
        return (b - a) * p + a

    e1 = float(pct * total) - 1
    if three_phase:
        e2 = float(2 * pct * total) - 2
        phases = [(0.0, e1, initial, max_lr), (e1, e2, max_lr, initial), (e2, total - 1, initial, min_lr)]
    else:
        phases = [(0.0, e1, initial, max_lr), (e1, total - 1, max_lr, min_lr)]
    for i, (s0, s1, a, b) in enumerate(phases):
        if step <= s1 or i == len(phases) - 1:
            return anneal(a, b, (step - s0) / (s1 - s0))
    raise AssertionError


@pytest.mark.parametrize("strategy", ["cos", "linear"])
@pytest.mark.parametrize("three_phase", [False, True])
def test_one_cycle_lr(strategy, three_phase):
    total = 20
    opt = make_opt(momentum=0.9)
    s = sched.OneCycleLR(
        opt, max_lr=1.0, total_steps=total, anneal_strategy=strategy, three_phase=three_phase
    )
    got = [g[0] for g in lrs_over(opt, s, total)]
    expected = [
        one_cycle_reference(t, total, 1.0, 0.3, 25.0, 1e4, strategy, three_phase) for t in range(total)
    ]
    assert pytest.approx(expected, rel=1e-12) == got
    assert got[0] == pytest.approx(1.0 / 25.0)
    assert max(got) == pytest.approx(1.0, rel=1e-2)
    with pytest.raises(ValueError, match="Tried to step 21 times. The specified number of total steps is 20"):
        opt.step()
        s.step()


def test_one_cycle_cycles_momentum_and_beta1():
    opt = make_opt(momentum=0.9)
    s = sched.OneCycleLR(opt, max_lr=1.0, total_steps=10)
    assert opt.param_groups[0]["momentum"] == pytest.approx(0.95)  # starts at max_momentum
    moms = []
    for _ in range(9):
        opt.step()
        s.step()
        moms.append(opt.param_groups[0]["momentum"])
    assert min(moms) == pytest.approx(0.85, abs=1e-2)  # base_momentum at the lr peak
    assert moms[-1] == pytest.approx(0.95)
    adam = make_opt(optim.Adam, lr=0.01)
    s = sched.OneCycleLR(adam, max_lr=0.1, epochs=2, steps_per_epoch=5)
    assert s.total_steps == 10
    assert adam.param_groups[0]["betas"] == (0.95, 0.999)
    adam.step()
    s.step()
    assert adam.param_groups[0]["betas"][0] < 0.95 and adam.param_groups[0]["betas"][1] == 0.999
    with pytest.raises(ValueError, match="optimizer must support momentum or beta1"):
        sched.OneCycleLR(make_opt(optim.Adagrad), max_lr=0.1, total_steps=10)


def test_one_cycle_bad_inputs():
    opt = make_opt(momentum=0.9)
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        sched.OneCycleLR(opt, max_lr=0.1)
    with pytest.raises(ValueError, match="Expected positive integer total_steps, but got 0"):
        sched.OneCycleLR(opt, max_lr=0.1, total_steps=0)
    with pytest.raises(ValueError, match="Expected float between 0 and 1 pct_start, but got 1.5"):
        sched.OneCycleLR(opt, max_lr=0.1, total_steps=10, pct_start=1.5)
    with pytest.raises(ValueError, match="anneal_strategy must be one of 'cos' or 'linear', instead got exp"):
        sched.OneCycleLR(opt, max_lr=0.1, total_steps=10, anneal_strategy="exp")
    with pytest.raises(ValueError, match="max_lr must have the same length as optimizer.param_groups"):
        sched.OneCycleLR(opt, max_lr=[0.1, 0.2], total_steps=10)


def test_reduce_lr_on_plateau_min_rel():
    opt = make_opt(lr=1.0)
    s = sched.ReduceLROnPlateau(
        opt, mode="min", factor=0.5, patience=2, threshold=0.1, cooldown=1, min_lr=0.2
    )
    # 10 is the best; 9.5 is not 10% better; three bad epochs > patience 2 -> halve, then a cooldown epoch
    lrs = []
    for m in [10, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5, 9.5]:
        s.step(m)
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs[:4] == [1.0, 1.0, 1.0, 0.5]
    assert lrs[4:8] == [0.5, 0.5, 0.5, 0.25]  # cooldown epoch, then three more bad ones
    assert lrs[-1] == 0.2  # clamped at min_lr
    assert s.get_last_lr() == [0.2]


def test_reduce_lr_on_plateau_max_abs_and_eps():
    opt = make_opt(lr=1.0)
    s = sched.ReduceLROnPlateau(opt, mode="max", factor=0.1, patience=0, threshold=1.0, threshold_mode="abs")
    s.step(5.0)
    assert opt.param_groups[0]["lr"] == 1.0
    s.step(5.5)  # not 1.0 better than 5 -> bad epoch, patience 0 -> reduce
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    s.step(7.0)
    assert opt.param_groups[0]["lr"] == pytest.approx(0.1)
    # a reduction smaller than eps is skipped
    opt2 = make_opt(lr=1e-9)
    s2 = sched.ReduceLROnPlateau(opt2, factor=0.5, patience=0)
    s2.step(1.0)
    s2.step(2.0)
    assert opt2.param_groups[0]["lr"] == 1e-9


def test_reduce_lr_on_plateau_bad_inputs_and_state():
    opt = make_opt()
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        sched.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode avg is unknown!"):
        sched.ReduceLROnPlateau(opt, mode="avg")
    with pytest.raises(ValueError, match="threshold mode pct is unknown!"):
        sched.ReduceLROnPlateau(opt, threshold_mode="pct")
    with pytest.raises(ValueError, match="expected 1 min_lrs, got 2"):
        sched.ReduceLROnPlateau(opt, min_lr=[0.1, 0.2])
    s = sched.ReduceLROnPlateau(opt, patience=3)
    s.step(1.0)
    s.step(2.0)
    sd = s.state_dict()
    s2 = sched.ReduceLROnPlateau(make_opt(), patience=7)
    s2.load_state_dict(sd)
    assert s2.patience == 3 and s2.num_bad_epochs == 1 and s2.best == 1.0


def test_scheduler_state_dict_round_trip():
    opt = make_opt(momentum=0.9)
    s = sched.StepLR(opt, step_size=2, gamma=0.5)
    lrs_over(opt, s, 3)
    sd = pickle.loads(pickle.dumps(s.state_dict()))
    assert "optimizer" not in sd and sd["last_epoch"] == 3
    opt2 = make_opt(momentum=0.9)
    opt2.load_state_dict(opt.state_dict())
    s2 = sched.StepLR(opt2, step_size=99, gamma=0.9, last_epoch=2)
    s2.load_state_dict(sd)
    assert (s2.step_size, s2.gamma, s2.last_epoch, s2.get_last_lr()) == (2, 0.5, 3, s.get_last_lr())
    a = lrs_over(opt, s, 4)
    b = lrs_over(opt2, s2, 4)
    assert a == b


def test_resuming_needs_initial_lr():
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        sched.StepLR(make_opt(), step_size=1, last_epoch=3)


def _resumed(name, **kw):
    """A scheduler built with last_epoch=3 over an optimizer whose lr (0.1) differs from its initial_lr (0.2)."""
    opt = make_opt()
    opt.param_groups[0]["initial_lr"] = 0.2
    return opt, getattr(sched, name)(opt, last_epoch=3, **kw)


def test_resumed_scheduler_keeps_the_restored_lr():
    # PyTorch 2.15: the constructor's step leaves the restored lr as it is (it was stepped once too often before);
    # the following steps apply the recursion from there
    cases = {
        "ExponentialLR": ({"gamma": 0.9}, lambda lr, e: lr * 0.9),
        "MultiplicativeLR": ({"lr_lambda": lambda e: 0.5}, lambda lr, e: lr * 0.5),
        "LinearLR": (
            {"start_factor": 0.3, "total_iters": 6},
            lambda lr, e: lr * (1 + 0.7 / (6 * 0.3 + (e - 1) * 0.7)),
        ),
        "PolynomialLR": (
            {"total_iters": 6, "power": 2.0},
            lambda lr, e: lr * ((1 - e / 6) / (1 - (e - 1) / 6)) ** 2,
        ),
        "CosineAnnealingLR": (
            {"T_max": 5, "eta_min": 0.01},
            lambda lr, e: (
                (1 + math.cos(math.pi * e / 5)) / (1 + math.cos(math.pi * (e - 1) / 5)) * (lr - 0.01) + 0.01
            ),
        ),
    }
    for name, (kw, step) in cases.items():
        opt, s = _resumed(name, **kw)
        assert s.last_epoch == 4 and opt.param_groups[0]["lr"] == 0.1, name
        opt.step()
        s.step()
        assert approx([opt.param_groups[0]["lr"]], [step(0.1, 5)]), name
        assert s.state_dict()["_is_initial"] is False and "verbose" not in s.state_dict(), name


def test_verbose_is_gone():
    # PyTorch 2.15 removed the deprecated verbose= argument from every scheduler
    for make in (
        lambda o: sched.StepLR(o, 1, verbose=False),
        lambda o: sched.ExponentialLR(o, 0.9, verbose=True),
        lambda o: sched.ReduceLROnPlateau(o, verbose=False),
    ):
        with pytest.raises(TypeError, match="unexpected keyword argument 'verbose'"):
            make(make_opt())


def test_not_an_optimizer():
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        sched.StepLR([], step_size=1)


def test_warns_when_scheduler_steps_before_optimizer():
    opt = make_opt()
    s = sched.StepLR(opt, step_size=1)
    with pytest.warns(
        UserWarning, match="Detected call of `lr_scheduler.step\\(\\)` before `optimizer.step\\(\\)`"
    ):
        s.step()
    opt = make_opt()
    s = sched.StepLR(opt, step_size=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt.step()
        s.step()
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        s.get_lr()


def test_multiplicative_lr():
    opt = make_opt()
    s = sched.MultiplicativeLR(opt, lambda e: 0.5 + 0.1 * e)
    got = [g[0] for g in lrs_over(opt, s, 5)]
    expected = [0.1 * math.prod(0.5 + 0.1 * k for k in range(1, e + 1)) for e in range(5)]
    assert approx(got, expected)


def test_constant_lr():
    opt = make_opt()
    s = sched.ConstantLR(opt, factor=0.5, total_iters=3)
    assert approx([g[0] for g in lrs_over(opt, s, 6)], [0.05, 0.05, 0.05, 0.1, 0.1, 0.1])
    with pytest.raises(ValueError, match="Constant multiplicative factor expected to be between 0 and 1."):
        sched.ConstantLR(make_opt(), factor=2.0)


def test_linear_lr_matches_closed_form():
    opt = make_opt()
    s = sched.LinearLR(opt, start_factor=0.25, end_factor=1.0, total_iters=4)
    got = [g[0] for g in lrs_over(opt, s, 7)]
    assert pytest.approx([0.1 * (0.25 + 0.75 * min(4, e) / 4) for e in range(7)], rel=1e-12) == got
    with pytest.raises(ValueError, match="Starting multiplicative factor expected to be greater than 0"):
        sched.LinearLR(make_opt(), start_factor=0)


def test_polynomial_lr_matches_closed_form():
    opt = make_opt()
    s = sched.PolynomialLR(opt, total_iters=4, power=2.0)
    got = [g[0] for g in lrs_over(opt, s, 7)]
    assert pytest.approx([0.1 * (1 - min(4, e) / 4) ** 2 for e in range(7)], rel=1e-12, abs=1e-15) == got


def test_cosine_warm_restarts():
    T0, mult, eta = 3, 2, 0.01
    opt = make_opt()
    s = sched.CosineAnnealingWarmRestarts(opt, T_0=T0, T_mult=mult, eta_min=eta)
    got = [g[0] for g in lrs_over(opt, s, 20)]

    def expected(e):
        t_i, t_cur = T0, e
        while t_cur >= t_i:
            t_cur -= t_i
            t_i *= mult
        return eta + (0.1 - eta) * (1 + math.cos(math.pi * t_cur / t_i)) / 2

    assert pytest.approx([expected(e) for e in range(20)], rel=1e-12) == got
    s.step(4.5)  # a fractional epoch: 1.5 into the second period of 6
    assert opt.param_groups[0]["lr"] == pytest.approx(
        eta + (0.1 - eta) * (1 + math.cos(math.pi * 1.5 / 6)) / 2
    )
    with pytest.raises(ValueError, match="Expected positive integer T_0, but got 0"):
        sched.CosineAnnealingWarmRestarts(make_opt(), T_0=0)
    with pytest.raises(ValueError, match="Expected non-negative epoch, but got -1"):
        s.step(-1)


def test_sequential_lr_warmup_then_decay():
    opt = make_opt()
    warm = sched.LinearLR(opt, start_factor=0.1, total_iters=2)
    decay = sched.ExponentialLR(opt, gamma=0.5)
    s = sched.SequentialLR(opt, schedulers=[warm, decay], milestones=[3])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the switch must not surface the epoch-argument deprecation
        got = [g[0] for g in lrs_over(opt, s, 6)]
    assert pytest.approx([0.01, 0.055, 0.1, 0.1, 0.05, 0.025], rel=1e-12) == got
    sd = s.state_dict()
    assert len(sd["_schedulers"]) == 2 and "optimizer" not in sd
    with pytest.raises(ValueError, match="expects number of schedulers provided to be one more"):
        sched.SequentialLR(opt, schedulers=[warm, decay], milestones=[])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        sched.SequentialLR(opt, schedulers=[warm, sched.ReduceLROnPlateau(opt)], milestones=[2])


def test_chained_scheduler():
    opt = make_opt(lr=1.0)
    s = sched.ChainedScheduler(
        [sched.ConstantLR(opt, factor=0.1, total_iters=2), sched.ExponentialLR(opt, 0.9)]
    )
    got = [g[0] for g in lrs_over(opt, s, 5)]
    assert pytest.approx([(0.1 if k < 2 else 1.0) * 0.9**k for k in range(5)], rel=1e-12) == got
    assert s.get_last_lr() == [opt.param_groups[0]["lr"]]


# ---- PyTorch as a second oracle (the GPU machine has it; skipped elsewhere)

ORACLE_CASES = [
    ("SGD", {"momentum": 0.9}, "StepLR", {"step_size": 3, "gamma": 0.5}),
    ("SGD", {}, "MultiStepLR", {"milestones": [2, 5, 5], "gamma": 0.3}),
    ("SGD", {}, "ExponentialLR", {"gamma": 0.9}),
    ("SGD", {}, "CosineAnnealingLR", {"T_max": 7, "eta_min": 0.001}),
    ("SGD", {}, "CosineAnnealingWarmRestarts", {"T_0": 3, "T_mult": 2, "eta_min": 0.01}),
    ("SGD", {}, "LinearLR", {"start_factor": 0.2, "total_iters": 4}),
    ("SGD", {}, "ConstantLR", {"factor": 0.5, "total_iters": 3}),
    ("SGD", {}, "PolynomialLR", {"total_iters": 6, "power": 2.0}),
    ("SGD", {"momentum": 0.9}, "OneCycleLR", {"max_lr": 1.0, "total_steps": 25}),
    (
        "SGD",
        {"momentum": 0.9},
        "OneCycleLR",
        {"max_lr": 1.0, "total_steps": 25, "anneal_strategy": "linear", "three_phase": True},
    ),
    ("Adam", {}, "OneCycleLR", {"max_lr": 0.1, "epochs": 5, "steps_per_epoch": 5}),
]


@pytest.mark.parametrize(
    "opt_name,opt_kw,name,kw", ORACLE_CASES, ids=[c[2] + str(i) for i, c in enumerate(ORACLE_CASES)]
)
def test_matches_pytorch(opt_name, opt_kw, name, kw):
    from conftest import REAL_TORCH as pt

    if pt is None:
        pytest.skip("PyTorch is not installed")

    def run(lib, lib_sched):
        opt = getattr(lib.optim, opt_name)([lib.zeros(2, requires_grad=True)], lr=0.1, **opt_kw)
        s = getattr(lib_sched, name)(opt, **kw)
        out = []
        for _ in range(24):
            g = opt.param_groups[0]
            out.append((g["lr"], g.get("momentum"), g.get("betas")))
            opt.step()
            s.step()
        return out

    ours = run(minitorch, sched)
    theirs = run(pt, pt.optim.lr_scheduler)
    assert pytest.approx([x[0] for x in theirs], rel=1e-12, abs=1e-15) == [x[0] for x in ours]
    for (_, m1, b1), (_, m2, b2) in zip(ours, theirs):  # momentum / betas cycled by OneCycleLR
        assert (m1 is None) == (m2 is None) and (m1 is None or math.isclose(m1, m2, rel_tol=1e-12))
        assert (b1 is None) == (b2 is None)
        assert b1 is None or all(math.isclose(x, y, rel_tol=1e-12) for x, y in zip(b1, b2))


def test_plateau_matches_pytorch():
    from conftest import REAL_TORCH as pt

    if pt is None:
        pytest.skip("PyTorch is not installed")
    metrics = [5, 4, 4.5, 4.2, 4.1, 4.3, 4.0, 4.0, 3.9, 4.0, 4.0, 4.0, 4.0, 3.0, 3.1, 3.2, 3.3]

    def run(lib, lib_sched, **kw):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        s = lib_sched.ReduceLROnPlateau(opt, **kw)
        out = []
        for m in metrics:
            s.step(m)
            out.append(opt.param_groups[0]["lr"])
        return out

    for kw in [
        {"patience": 1, "factor": 0.5},
        {"patience": 0, "cooldown": 2, "threshold": 0.05, "threshold_mode": "abs", "min_lr": 0.1},
        {"mode": "max", "patience": 1},
    ]:
        assert run(minitorch, sched, **kw) == pytest.approx(run(pt, pt.optim.lr_scheduler, **kw))
