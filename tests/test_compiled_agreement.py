"""The compiled backend agrees with the numpy backend: the primitives (numba kernels,
systems.numeric.codegen) give the same accelerations and multipliers to round-off for every catalogue
system and formulation; the fused evaluations (formulations.kernels: one numba function per
formulation and system) the same y', v', multipliers and dependent state at random consistent
states; and the compiled loops take the Python loops' steps, output grids, projections, charts and
stops."""
import numpy as np
import pytest

import formulations as F
import systems
from formulations.forms import COMPILED_ODE
from formulations.solvers.compiled_rk import compiled_module
from systems.numeric import codegen
from formulations import registry

# one xdist worker takes every test that compiles a formulation module (--dist loadgroup,
# xdist_group "compiled", with tests that share those modules in other files): each is compiled once;
# the primitives' agreement (kernels only) runs on any worker
pytestmark = pytest.mark.skipif(not codegen.available(), reason="numba is not installed")
COMPILED = pytest.mark.xdist_group("compiled")

# with -m slow: no embedding (q = p), an embedding with friction (non-ideal) rows and a tangent-space
# chart, each an evaluation of its own (some 25 s of compiling each on a new machine)
FAST = [pytest.param("knife_edge", "minimal", marks=pytest.mark.slow),
        pytest.param("rolling_disc", "reduced", marks=pytest.mark.slow),
        pytest.param("rolling_disc", "manifold", marks=pytest.mark.slow)]
COMPILED_FORMULATIONS = [n for n in registry.names() if registry.formulation_class(n).gives_compiled_rhs]
CATALOGUE = [(n, f) for n in systems.names() for f in COMPILED_FORMULATIONS
             if (n, f) not in (("knife_edge", "minimal"), ("rolling_disc", "reduced"), ("rolling_disc", "manifold"))]


def _states(system, count=3, seed=11):
    rng = np.random.default_rng(seed)
    p0, v0 = system.consistent_state(*system.default_state())  # a contact's ball may start open or sliding
    states = [(p0, v0)]
    while len(states) < count:
        try:
            states.append(system.consistent_state(p0 + rng.normal(0, 0.05, p0.shape),
                                                  v0 + rng.normal(0, 0.3 * (1 + np.abs(v0)), v0.shape)))
        except systems.InconsistentStateError:
            continue
    return states


def _options(system, formulation):
    """minimal: the compiled loop keeps one choice of u, here the one pivoting makes at the start.
    On charts: the chart tolerance at 1e-14, so that the two chart solves, which may start from
    different h (the numpy chart's last one), land on the same p to round-off."""
    if formulation == "minimal" and (system.embedding is not None or not system.m):  # not on charts
        first = F.create(formulation, system)
        first.prepare(*system.default_state())
        return dict(independent=first.choice, rechoose=False)
    if formulation == "manifold" or (formulation == "reduced" and system.embedding is None and system.m):
        return dict(utol=1e-14)
    return {}


def _agree(name, formulation):
    system = systems.load(name)
    if formulation == "manifold" and not (system.m or system.unit_norm_blocks):
        pytest.skip(f"{name} has no holonomic constraints: no charts")
    if system.redundant_constraints and formulation != "dependent":
        pytest.skip(f"{name} has dependent rows: coordinates q need independent ones")
    options = _options(system, formulation)
    reference = F.create(formulation, system, **options)
    fused = F.create(formulation, system, backend="compiled", **options)
    if fused.gives(COMPILED_ODE) is not None:
        pytest.skip(fused.gives(COMPILED_ODE))
    module = compiled_module(fused)
    params = np.asarray(fused.par, float)
    rng = np.random.default_rng(5)
    for p, v in _states(system):
        reference.prepare(p, v)
        fused.prepare(p, v)
        y = reference.initial_state(p, v)
        if getattr(fused, "on_charts", False):
            # the chart of the reference (the null-space basis V of an SVD is not unique, and the two
            # backends' Phi_p differ by round-off), away from its origin w = 0
            fused.geometry.p0, fused.geometry.U, fused.geometry.V = (
                reference.geometry.p0, reference.geometry.U, reference.geometry.V)
            y[:fused.geometry.k] = rng.uniform(-0.1, 0.1, fused.geometry.k)
        extra = fused.compiled_arguments()
        ydot, lam = np.empty_like(y), np.empty(system.m + system.l)
        pp, vv, vdot = np.empty(len(p)), np.empty(system.n), np.empty(system.n)
        assert module.evaluate(0.3, y, params, extra, ydot, lam, pp, vv, vdot, True, np.zeros(module.EVAL_WORK))
        expected = reference.evaluate(0.3, y)
        p_ref, v_ref = reference.state_at(y, 0.3)  # at the time of the evaluation (moving embeddings)
        for got, want in ((ydot, expected.ydot), (vdot, expected.vdot), (lam, expected.lam), (pp, p_ref),
                          (vv, v_ref)):
            scale = max(1.0, float(np.max(np.abs(want), initial=0.0)))
            assert np.max(np.abs(got - want), initial=0.0) <= 1e-11 * scale, (got, want)


@COMPILED
@pytest.mark.parametrize("name, formulation", FAST)
def test_fused_evaluation_agrees_with_numpy(name, formulation):
    _agree(name, formulation)


@COMPILED
@pytest.mark.slow
@pytest.mark.parametrize("name, formulation", CATALOGUE)
def test_fused_evaluation_agrees_with_numpy_on_the_catalogue(name, formulation):
    """Every catalogue system (about 20 s of compiling each): python -m pytest -m slow tests/test_compiled_agreement.py"""
    _agree(name, formulation)


# each case compiles a module of its own kind (45-75 s on a new machine): all with -m slow; the default
# suite compiles the dependent formulation's module only (its dopri5 loop: tests/test_backends.py)
LOOPS = [pytest.param(n, f, m, marks=pytest.mark.slow) for n, f, m in (
    ("knife_edge", "minimal", "DOP853"), ("knife_edge", "minimal", "dopri5"), ("rolling_disc", "reduced", "dopri5"),
    ("rolling_disc", "minimal", "dopri5"), ("rolling_disc", "minimal", "DOP853"))]


@COMPILED
@pytest.mark.parametrize("name, formulation, method", LOOPS)
def test_compiled_loop_takes_the_python_loops_steps(name, formulation, method):
    """Same tableau, controller and right-hand side to round-off: the same accepted steps (DOP853:
    scipy's own loop on the numpy backend). The knife edge runs to phi = 1 rad, short of its
    choice's singular phi = pi/2."""
    system = systems.load(name)
    options = _options(system, formulation)
    t_end = 0.5 if name == "knife_edge" else 1.0
    runs = {b: F.create(formulation, system, backend=b, **options).simulate(
        (0.0, t_end), method=method, rtol=1e-9, atol=1e-9) for b in ("numpy", "compiled")}
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == 0
    assert abs(len(a.t) - len(b.t)) <= 1  # a borderline step may flip
    assert np.max(np.abs(a.p[-1] - b.p[-1])) < 1e-9 and np.max(np.abs(a.v[-1] - b.v[-1])) < 1e-9
    n = min(len(a.t), len(b.t)) // 2
    # the step sizes agree to the round-off of the error estimate (relative 1e-7 here), so the rows'
    # times differ by that much: the multipliers agree up to their rate of change times the offset
    slope = np.abs(np.gradient(a.multipliers[:n], a.t[:n], axis=0)) if n > 1 else 0.0
    offset = np.abs(a.t[:n] - b.t[:n])[:, None]
    assert np.all(np.abs(a.multipliers[:n] - b.multipliers[:n]) <= 1e-9 + 2 * slope * offset)
    assert np.nanmax(b.constraint_errors.velocity) < 1e-8
    assert b.stats.backend == "compiled"


@COMPILED
@pytest.mark.parametrize("name, stabilization", [  # projection compiles a module of its own kind: slow
    ("knife_edge", "none"), pytest.param("slider_crank", "projection", marks=pytest.mark.slow)])
def test_compiled_rk4_takes_the_python_steps(name, stabilization):
    """The fixed-step RK4 loop in machine code: the steps, evaluations (four a step, one at the
    start, and with projection one after each) and output (the cubic Hermite interpolant of each
    step) of the Python stepper, to round-off."""
    system = systems.load(name)
    t_eval = np.linspace(0.0, 2.0, 21)
    a, b = (F.create("dependent", system, stabilization=stabilization, backend=backend).simulate(
        (0.0, 2.0), method="rk4", step=0.003, t_eval=t_eval) for backend in ("numpy", "compiled"))
    assert b.stats.backend == "compiled" and a.status == b.status == 0
    evaluations = 1 + 667 * (4 if stabilization == "none" else 5)
    assert (a.stats.steps, a.stats.rhs_evaluations) == (b.stats.steps, b.stats.rhs_evaluations) == (667, evaluations)
    assert np.max(np.abs(a.p - b.p)) < 1e-12 and np.max(np.abs(a.v - b.v)) < 1e-12 * (1 + np.abs(a.v).max())


@COMPILED
@pytest.mark.parametrize("name, formulation", [
    pytest.param("rolling_disc", "manifold", marks=pytest.mark.slow),
    pytest.param("spinning_top", "manifold", marks=pytest.mark.slow),
    pytest.param("spherical_three_bar", "reduced", marks=pytest.mark.slow)])
def test_compiled_loop_takes_new_charts_like_the_python_loop(name, formulation):
    """DOP853 on tangent-space charts (the rolling disc, the top, whose A is not square, and the
    three-bar linkage without an embedding; slow, the chart evaluation's module): the compiled loop stops for a new chart where the
    Python loop's post-step hook takes one and goes on from it; the same steps and charts, on every
    step and on an output grid that spans many charts. The two solve h(w) by the same Newton's method
    to utol = 1e-12, from the last h each found (the Python loop's also at the dense output's extra
    stages), which may move the error estimates and so the step sizes a little."""
    system = systems.load(name)
    grid = np.linspace(0.0, 2.0, 41)
    for t_eval in (None, grid):
        runs = {b: F.create(formulation, system, backend=b).simulate(
            (0.0, 2.0), method="DOP853", rtol=1e-9, atol=1e-9, t_eval=t_eval) for b in ("numpy", "compiled")}
        a, b = runs["numpy"], runs["compiled"]
        assert a.status == b.status == 0 and b.stats.backend == "compiled"
        assert b.stats.charts > 5
        if t_eval is None or name == "rolling_disc":
            assert abs(a.stats.charts - b.stats.charts) <= 1
            # a borderline step may flip (the three-bar linkage: 81 and 79 steps)
            assert abs(a.stats.steps - b.stats.steps) <= 1 + 0.03 * a.stats.steps
        if t_eval is not None or a.stats.steps == b.stats.steps:
            assert len(a.t) == len(b.t) and np.max(np.abs(a.t - b.t)) < 1e-5
        assert a.t[-1] == b.t[-1] == 2.0
        rows = slice(None) if t_eval is not None else slice(-1, None)  # the same times
        # as many steps, of sizes that the Newton solves may have moved a little: agreement to about the
        # tolerance (the three-bar linkage on the grid: 1.4e-9); else two solutions to rtol 1e-9 over 2 s
        close = 1e-8 if a.stats.steps == b.stats.steps else 1e-6
        scale_p, scale_v = (max(1.0, float(np.max(np.abs(x[rows])))) for x in (a.p, a.v))  # rtol is relative
        assert np.max(np.abs(a.p[rows] - b.p[rows])) < close * scale_p
        assert np.max(np.abs(a.v[rows] - b.v[rows])) < close * scale_v
        assert np.nanmax(np.abs(a.multipliers[rows] - b.multipliers[rows])) < 100 * close
        assert np.max(b.constraint_errors.position) < 1e-11  # every point on the manifold


@pytest.mark.slow  # the minimal formulation's module
@COMPILED
def test_compiled_minimal_stops_where_its_choice_of_velocities_turns_singular():
    """knife edge, u = (x', phi'): det [C_nh; E] = cos(phi) vanishes at phi = pi/2; both loops stop
    at the first recorded state past cond = 100 and keep it."""
    system = systems.load("knife_edge")
    p, v = system.default_state()
    runs = {b: F.create("minimal", system, backend=b, independent=("x_dot", "phi_dot"), rechoose=False).simulate(
        (0.0, 5.0), (p, np.array([0.0, 0.0, 2.0])), method="DOP853", rtol=1e-9, atol=1e-9) for b in ("numpy", "compiled")}
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == -1
    assert "choice of independent velocities (x_dot, phi_dot)" in b.message and "cond" in b.message
    def cond(phi):
        return np.linalg.cond(np.array([[np.sin(phi), -np.cos(phi), 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]))

    assert cond(b.p[-1, 2]) > 100 and all(cond(phi) <= 100 for phi in b.p[:-1, 2])
    # the same recorded state: scipy's DOP853 and the compiled one take the same steps, to round-off
    # that the controller amplifies as the choice turns singular (1e-9 s seen)
    assert len(a.t) == len(b.t) and abs(a.t[-1] - b.t[-1]) < 1e-6


@pytest.mark.slow  # the minimal formulation's module
@COMPILED
def test_compiled_dop853_dense_output_on_t_eval():
    """The 7th-order interpolant of the compiled DOP853 loop against scipy's, on a grid."""
    system = systems.load("knife_edge")
    grid = np.linspace(0.0, 0.6, 31)
    options = _options(system, "minimal")
    runs = {b: F.create("minimal", system, backend=b, **options).simulate(
        (0.0, 0.6), method="DOP853", rtol=1e-10, atol=1e-10, t_eval=grid) for b in ("numpy", "compiled")}
    a, b = runs["numpy"], runs["compiled"]
    assert np.array_equal(b.t, grid) and np.array_equal(a.t, grid)
    assert np.max(np.abs(a.p - b.p)) < 1e-10 and np.max(np.abs(a.v - b.v)) < 1e-10


@COMPILED
def test_one_independent_velocity_may_be_given_as_a_name():
    """A string is one name, not its characters (knife edge: r = 2, so one name is one too few)."""
    with pytest.raises(ValueError, match=r"got 1 independent velocities \('x_dot',\)"):
        F.create("minimal", systems.load("knife_edge"), independent="x_dot")


@COMPILED
def test_minimal_that_re_chooses_its_velocities_runs_the_python_loop():
    """Knife edge, no velocities named: u is chosen by pivoting and chosen anew along the run, which
    only the Python loop can do; the compiled backend then serves the primitives only and the run
    goes past phi = pi/2 like the numpy one."""
    system = systems.load("knife_edge")
    form = F.create("minimal", system, backend="compiled")
    assert "re-chooses" in form.gives(COMPILED_ODE)
    run = form.simulate((0.0, 2.0), method="DOP853")
    assert run.status == 0 and run.stats.backend == "compiled" and run.p[-1, 2] > np.pi / 2


# the default suite compiles the primitives of two systems (an embedding with rolling, a closed loop
# on charts); every other catalogue system runs with -m slow (a few s of compiling each)
FAST_SYSTEMS = ("rolling_disc", "triple_slider_crank")


CASES = [pytest.param(name, formulation, id=f"{name}-{formulation}",
                      marks=() if name in FAST_SYSTEMS else pytest.mark.slow)
         for name in systems.names() for formulation in COMPILED_FORMULATIONS]


def _applies(system, formulation):
    if system.redundant_constraints and formulation != "dependent":
        return False  # coordinates q need independent rows (Bricard's mechanism: dependent only)
    if formulation == "manifold":  # charts of the holonomic constraints (fixed or moving)
        return bool(system.m or system.unit_norm_blocks)
    if formulation in ("reduced", "minimal"):
        return True  # on charts where there is no embedding
    return True


def _random_states(system, rng, count=3, t=0.0):
    """States consistent at time t near the default one: random guesses moved onto the constraints
    (where they move with time, the default state too)."""
    p0, v0 = system.default_state()
    if system.is_rheonomic:
        p0, v0 = system.consistent_state(p0, v0, t=t)
    states = [(p0, v0)]
    while len(states) < count:
        guess_p = p0 + rng.normal(0.0, 0.05, p0.shape)
        guess_v = v0 + rng.normal(0.0, 0.3 * (1 + np.abs(v0)), v0.shape)
        try:
            states.append(system.consistent_state(guess_p, guess_v, t=t))
        except systems.InconsistentStateError:
            continue
    return states


@COMPILED  # the worker whose cache holds these systems' kernels already
def test_every_system_shares_the_dependent_formulations_machine_code():
    """The dependent formulation's model has one numba type for every system — nonholonomic rows
    only, holonomic rows only, Euler parameters, rows that depend on time — the type its module's
    functions are compiled for, so its machine code is compiled once for all of them."""
    import numba

    from formulations.kernels.compiled.dependent import MODEL_TYPE
    from formulations.kernels.dependent import dependent_model

    names = [("rolling_disc", {}), ("slider_crank", {}), ("heavy_top", {}), ("bead_on_rotating_hoop", {})]
    kinds = {numba.typeof(dependent_model(F.create("dependent", systems.load(name, **options), backend="compiled")))
             for name, options in names}
    assert kinds == {MODEL_TYPE}


@COMPILED
def test_every_system_shares_the_reduced_and_minimal_formulations_machine_code():
    """The reduced and minimal formulations' model has one numba type for every system and kind —
    without holonomic rows (identity), through an embedding, a moving embedding, on a chart, with
    Euler parameters — the type their module's functions are compiled for, so its machine code is
    compiled once for all of them."""
    import numba

    from formulations.kernels.compiled.embedded import CHART, EMBEDDING, IDENTITY, MODEL_TYPE
    from formulations.kernels.embedded import embedded_model

    cases = [("reduced", "knife_edge", {}), ("minimal", "rolling_disc", {}), ("minimal", "slider_crank", {}),
             ("reduced", "bead_on_rotating_hoop", {}), ("reduced", "spherical_three_bar", {}),
             ("reduced", "heavy_top", {})]
    models = [embedded_model(F.create(kind, systems.load(name, **options), backend="compiled"), kind == "minimal")
              for kind, name, options in cases]
    assert {numba.typeof(model) for model in models} == {MODEL_TYPE}
    assert {model.GEOMETRY for model in models} == {IDENTITY, EMBEDDING, CHART}
    assert any(model.MOVING for model in models)


@pytest.mark.parametrize("name, formulation", CASES)
def test_compiled_backend_agrees_with_numpy(name, formulation):
    system = systems.load(name)
    if not _applies(system, formulation):
        pytest.skip(f"{formulation} does not apply to {name}")
    rng = np.random.default_rng(7)
    t = 0.3  # where constraints move with time, the states are consistent then
    for p, v in _random_states(system, rng, t=t):
        values = {}
        for backend in ("numpy", "compiled"):
            form = F.create(formulation, system, backend=backend)
            form.prepare(p, v, t0=t)
            y = form.own_state(p, v, t)
            values[backend] = form.evaluate(t, y)
        a, b = values["numpy"], values["compiled"]
        for field in ("ydot", "vdot", "lam"):
            x, z = getattr(a, field), getattr(b, field)
            scale = max(1.0, float(np.max(np.abs(x), initial=0.0)))
            assert np.max(np.abs(x - z), initial=0.0) <= 1e-12 * scale, (field, x, z)


@COMPILED  # one worker compiles each module once
def test_compiled_run_reports_its_backend_and_matches():
    """The default method DOP853: scipy's loop on numpy, the machine-code loop on compiled; the same
    steps up to a round-off flip, so the runs agree to the tolerance's order."""
    system = systems.load("rolling_disc")  # the dependent formulation: the module the default suite compiles
    runs = {b: F.create("dependent", system, backend=b).simulate((0.0, 0.5), rtol=1e-10, atol=1e-10)
            for b in ("numpy", "compiled")}
    assert runs["compiled"].stats.backend == "compiled" and runs["numpy"].stats.backend == "numpy"
    assert np.max(np.abs(runs["compiled"].p[-1] - runs["numpy"].p[-1])) < 1e-8


@COMPILED
@pytest.mark.parametrize("name, stabilization", [("rolling_disc", "none"), ("rolling_disc", "baumgarte"),
                                                 pytest.param("spinning_top", "none", marks=pytest.mark.slow)])
def test_compiled_loop_takes_the_steps_of_the_python_loop(name, stabilization):
    """Same tableau, controller and initial step: the machine-code dopri5 on the fused dependent
    right-hand side takes the Python dopri5's steps (to the odd step a round-off difference may
    flip at a borderline error test) and lands on its state to the tolerance."""
    system = systems.load(name)
    runs = {b: F.create("dependent", system, stabilization=stabilization, backend=b).simulate(
        (0.0, 1.0), rtol=1e-9, atol=1e-9, method="dopri5") for b in ("numpy", "compiled")}
    a, b = runs["numpy"], runs["compiled"]
    assert a.status == b.status == 0
    assert abs(a.stats.steps - b.stats.steps) <= 2 + 0.02 * a.stats.steps  # equal here; round-off may flip one
    assert abs(a.stats.rhs_evaluations - b.stats.rhs_evaluations) <= 14 + 0.02 * a.stats.rhs_evaluations
    assert np.max(np.abs(a.p - b.p)) < 1e-8 * (1 + np.max(np.abs(a.p)))  # round-off, grown over the run
    assert np.max(np.abs(a.multipliers - b.multipliers)) < 1e-6 * (1 + np.max(np.abs(a.multipliers)))


@COMPILED
def test_compiled_loop_serves_an_output_grid_and_projects():
    """The dependent formulation projects inside the compiled loop (the Python loop's projection:
    the same steps, the same states to round-off)."""
    system = systems.load("rolling_disc")
    grid = np.linspace(0.0, 1.0, 11)
    fast = F.create("dependent", system, backend="compiled").simulate((0.0, 1.0), method="dopri5", t_eval=grid)
    slow = F.create("dependent", system).simulate((0.0, 1.0), method="dopri5", t_eval=grid)
    assert np.array_equal(fast.t, grid) and np.max(np.abs(fast.p - slow.p)) < 1e-9
    for t_eval in (None, grid):
        runs = [F.create("dependent", system, stabilization="projection", backend=b).simulate(
            (0.0, 2.0), method="dopri5", rtol=1e-6, atol=1e-6, t_eval=t_eval) for b in ("numpy", "compiled")]
        a, b = runs
        assert a.status == b.status == 0 and b.stats.backend == "compiled"
        assert a.stats.steps == b.stats.steps == b.stats.projections and a.stats.projections == a.stats.steps
        assert a.stats.rhs_evaluations == b.stats.rhs_evaluations  # y' anew after every projection
        assert np.max(np.abs(a.p - b.p)) < 1e-11 and np.max(np.abs(a.v - b.v)) < 1e-11
        # at rtol 1e-6 the steps leave the constraints by far more than the projection's 1e-12
        assert np.max(b.constraint_errors.position) <= 1e-12 and np.max(b.constraint_errors.velocity) < 1e-13
    plain = F.create("dependent", system, backend="compiled").simulate((0.0, 2.0), method="dopri5", rtol=1e-6,
                                                                       atol=1e-6)
    assert np.max(plain.constraint_errors.position) > 1e-9


@pytest.mark.slow  # the reduced formulation's evaluation: a module of its own kind
@COMPILED
def test_reduced_projection_on_the_compiled_backend_runs_the_python_loop():
    system = systems.load("rolling_disc")
    reduced = F.create("reduced", system, stabilization="projection", backend="compiled").simulate(
        (0.0, 1.0), method="dopri5")
    assert reduced.success and reduced.stats.projections > 0  # the Python loop, which has the hook


@COMPILED
def test_compiled_loop_stops_where_the_python_loop_stops():
    """The flat disc (lean angle pi/2): both loops stop at once with status -1 and say why, keeping
    the initial point."""
    system = systems.load("rolling_disc")
    p, v = system.default_state()
    p = p.copy()
    p[system.coordinate_names.index("theta")] = np.pi / 2
    flat = system.consistent_state(p, v, fix=("theta",))
    runs = [F.create("dependent", system, backend=b).simulate((0.0, 1.0), flat, method="dopri5")
            for b in ("numpy", "compiled")]
    for run in runs:  # the matrix is singular, or so near it that the step size collapses
        assert run.status == -1 and ("step size" in run.message or "singular" in run.message)
        assert "rolling_disc" in run.message and run.t.size >= 1 and run.t[-1] < 1e-3


@COMPILED
@pytest.mark.parametrize("name, stabilization", [("rolling_disc", "baumgarte"), ("slider_crank", "none")])
def test_python_loops_call_the_compiled_rhs(name, stabilization):
    """The Python and scipy loops on the compiled backend evaluate y' by one machine-code call: it
    equals the numpy backend's y' at random consistent states, and scipy's RK45 takes the same steps
    on both backends (up to a round-off flip)."""
    from formulations.solvers.compiled_rk import machine_code_rhs

    system = systems.load(name)
    made = {b: F.create("dependent", system, stabilization=stabilization, backend=b) for b in ("numpy", "compiled")}
    rhs = machine_code_rhs(made["compiled"])
    assert rhs is not None and machine_code_rhs(made["numpy"]) is None
    assert machine_code_rhs(F.create("minimal", systems.load("knife_edge"), backend="compiled")) is None  # re-chooses
    for p, v in _states(system):
        y = made["numpy"].initial_state(p, v)
        expected = made["numpy"].rhs(0.3, y)
        assert np.max(np.abs(rhs(0.3, y) - expected)) <= 1e-12 * (1 + np.max(np.abs(expected)))
    runs = {b: f.simulate((0.0, 0.5), method="RK45", rtol=1e-9, atol=1e-9) for b, f in made.items()}
    assert abs(runs["compiled"].stats.steps - runs["numpy"].stats.steps) <= 1  # round-off may flip one
    assert np.max(np.abs(runs["compiled"].p[-1] - runs["numpy"].p[-1])) < 1e-8
