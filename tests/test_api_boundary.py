"""The Python API at its boundary: bad arguments are named with the value and the fix, faults are
named where they appear, and a run never reports plain success when its result is not what its
settings promise."""
import re
import warnings

import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from systems import ArgumentError, ArgumentTypeError, InconsistentStateError, SystemDescriptionError

DISC = systems.load("rolling_disc")
P0, V0 = DISC.default_state()


def _run(**options):
    t_span = options.pop("t_span", (0.0, 0.2))
    return F.create("dependent", DISC).simulate(t_span, options.pop("state0", None), **options)


BAD_SIMULATE_ARGUMENTS = [
    (dict(rtol=10), ArgumentError, ["rtol", "10", "0.1"]),
    (dict(rtol=1e300, atol=1e300), ArgumentError, ["rtol", "1e+300"]),
    (dict(rtol="1e-6"), ArgumentTypeError, ["rtol", "'1e-6'", "str"]),
    (dict(atol="x"), ArgumentTypeError, ["atol", "'x'"]),
    (dict(rtol=np.inf), ArgumentError, ["rtol", "inf"]),
    (dict(rtol=True), ArgumentTypeError, ["rtol", "bool"]),
    (dict(atol=1e6), ArgumentError, ["atol", "1e+06", "0.1 x (1 + max"]),
    (dict(t_span=(1.0, 0.0)), ArgumentError, ["t_span", "t1 > t0"]),
    (dict(t_span=(0.0, "1")), ArgumentTypeError, ["t_span[1]", "'1'"]),
    (dict(t_span=5.0), ArgumentTypeError, ["t_span", "(t0, t1)"]),
    (dict(t_eval=[0.1, 0.05]), ArgumentError, ["t_eval", "increasing"]),
    (dict(t_eval=[0.1, 5.0]), ArgumentError, ["t_eval", "inside t_span"]),
    (dict(t_eval=[]), ArgumentError, ["t_eval", "empty"]),
    (dict(t_eval=[0.1, np.nan]), ArgumentError, ["t_eval", "non-finite"]),
    (dict(method="rk4", step=1.0), ArgumentError, ["step", "0.2"]),
    (dict(method="rk4", step="0.01"), ArgumentTypeError, ["step", "'0.01'"]),
    (dict(method="rk4", step=0.0), ArgumentError, ["step", "positive"]),
    (dict(method="augmented_lagrangian", step=1.0), ArgumentError, ["step", "interval"]),
    (dict(method="rk4", step=1e-9), ArgumentError, ["max_steps", "steps"]),
    (dict(state0=(P0[:4], V0)), ArgumentError, ["state0 p", "(6,)", "theta"]),
    (dict(state0=(P0, V0[:2])), ArgumentError, ["state0 v", "(6,)", "omega_1"]),
    (dict(state0=np.concatenate([P0, V0])), ArgumentTypeError, ["state0", "(p, v)", "y[:6]"]),
    (dict(state0=(np.full(6, np.nan), V0)), ArgumentError, ["state0 p", "non-finite"]),
    (dict(events=[42]), ArgumentTypeError, ["events[0]", "42", "callable"]),
    (dict(events=[lambda t, p, v: p]), ArgumentError, ["events[0]", "shape (6,)"]),
    (dict(events=[F.Event(lambda t, p, v: p[4], direction=5)]), ArgumentError, ["direction", "5"]),
    (dict(max_step=-1.0), ArgumentError, ["max_step", "-1"]),
    (dict(first_step=10.0), ArgumentError, ["first_step", "10"]),
    (dict(max_steps=2.5), ArgumentError, ["max_steps", "2.5"]),
    (dict(t_eval=["0", "0.1"]), ArgumentTypeError, ["t_eval", "numbers"]),  # text that spells numbers is not one
]


@pytest.mark.parametrize("options, error, words", BAD_SIMULATE_ARGUMENTS,
                         ids=[f"{i}-{'-'.join(options)}" for i, (options, _, _) in enumerate(BAD_SIMULATE_ARGUMENTS)])
def test_simulate_names_the_bad_argument(options, error, words):
    with pytest.raises(error) as info:
        _run(**options)
    for word in words:
        assert word in str(info.value)


def test_lists_are_accepted_where_arrays_are_expected():
    as_lists = _run(state0=(P0.tolist(), V0.tolist()), t_eval=[0.0, 0.1, 0.2])
    as_arrays = _run(state0=(P0, V0), t_eval=np.array([0.0, 0.1, 0.2]))
    assert as_lists.status == 0 and np.array_equal(as_lists.p, as_arrays.p)


def test_a_single_callable_is_one_event_and_events_say_which_fired():
    lean = F.Event(lambda t, p, v: p[4] - 0.31, terminal=False, name="lean 0.31")
    tr = _run(t_span=(0.0, 1.0), events=[lambda t, p, v: p[0] - 10.0, lean])
    assert tr.events and all(e.name == "lean 0.31" and e.index == 1 for e in tr.events)
    assert tr.t_events == tuple(e.t for e in tr.events)  # the times, as before
    for e in tr.events:  # each crossing is where the event's function is zero
        row = np.argmin(np.abs(tr.t - e.t))
        assert abs(tr.t[row] - e.t) > 0 or abs(tr.p[row, 4] - 0.31) < 1e-6
    single = _run(t_span=(0.0, 1.0), events=lambda t, p, v: p[4] - 0.31)
    assert single.status == 1 and single.events[0].name == "event 0"
    assert abs(single.p[-1, 4] - 0.31) < 1e-7


def test_create_takes_a_stabilization_label_and_a_system_name():
    form = F.create("dependent+projection", "rolling_disc")
    assert form.label() == "dependent+projection" and form.system is DISC
    with pytest.raises(ArgumentError, match="stabilization in one place"):
        F.create("dependent+projection", DISC, stabilization="baumgarte")
    with pytest.raises(systems.UnknownNameError, match="did you mean 'dependent'"):
        F.create("dependant", DISC)
    with pytest.raises(ArgumentTypeError, match="system got None"):
        F.create("dependent", None)
    assert systems.analyze_constraints("knife_edge").classification == "completely nonholonomic"


def test_compare_checks_its_arguments_before_any_run():
    calls = []
    progress = lambda i, n, label: calls.append(label)  # noqa: E731
    with pytest.raises(systems.UnknownNameError, match=r"configurations\[1\].*dependnt.*expected one of: dependent"):
        F.compare(DISC, ["minimal", "dependnt"], (0.0, 0.1), progress=progress)
    with pytest.raises(ArgumentError, match=r"configurations\[0\].*projektion"):
        F.compare(DISC, ["dependent+projektion"], (0.0, 0.1), progress=progress)
    for samples in (0, 1, -5):
        with pytest.raises(ArgumentError, match="samples"):
            F.compare(DISC, ["dependent"], (0.0, 0.1), samples=samples, progress=progress)
    with pytest.raises(ArgumentTypeError, match="samples"):
        F.compare(DISC, ["dependent"], (0.0, 0.1), samples="x", progress=progress)
    with pytest.raises(ArgumentError, match="rtol"):
        F.compare(DISC, ["dependent"], (0.0, 0.1), rtol=10, progress=progress)
    with pytest.raises(ArgumentTypeError, match="sweep"):
        F.compare(DISC, ["dependent"], (0.0, 0.1), sweep="1e-6", progress=progress)
    assert calls == []  # nothing ran


def test_compare_takes_one_configuration_as_a_string_and_has_a_short_repr():
    c = F.compare("rolling_disc", "dependent+projection", (0.0, 0.1), samples=3001)
    assert [r.label for r in c.rows] == ["dependent+projection"]
    assert len(repr(c)) < 2048 and len(repr(c.trajectories[0])) < 2048
    assert "dependent+projection" in repr(c) and "3001 points" in repr(c.reference)


@pytest.mark.parametrize("value, error, words", [
    ("abc", ArgumentTypeError, ["parameter r", "'abc'", "m", "default 0.5"]),
    (1e200, SystemDescriptionError, ["parameter r got 1e+200", "magnitude"]),
    (float("nan"), SystemDescriptionError, ["parameter r got nan"]),
    (None, ArgumentTypeError, ["parameter r", "None"]),
], ids=["text", "huge", "nan", "none"])
def test_parameter_values_are_named_with_their_range(value, error, words):
    with pytest.raises(error) as info:
        systems.load("rolling_disc", r=value)
    for word in words:
        assert word in str(info.value)
    assert systems.load("rolling_disc", r="0.3").parameter_dict["r"] == 0.3


def test_whole_number_options_accept_integral_values_only():
    for n in (3, 3.0, "3"):
        assert systems.load("n_pendulum", n=n).n == 9
    for n, error in ((2.5, ArgumentError), (True, ArgumentTypeError), (0, ArgumentError)):
        with pytest.raises(error, match="option n of system 'n_pendulum'"):
            systems.load("n_pendulum", n=n)


def test_consistent_state_raises_its_own_error_at_singular_or_meaningless_guesses():
    pendulum = systems.load("pendulum_cartesian")
    p, v = pendulum.default_state()
    with pytest.raises(InconsistentStateError, match="singular"):
        pendulum.consistent_state(np.zeros_like(p), v)  # Phi_p is not defined at the pivot
    sphere = systems.load("sphere_in_cylinder")
    p, v = sphere.default_state()
    for value, words in ((np.nan, "non-finite"), (0.0, "zero norm")):
        guess = p.copy()
        guess[3:7] = value
        with pytest.raises(InconsistentStateError, match=words):
            sphere.consistent_state(guess, v)


def test_reactions_refuse_an_inconsistent_state_and_take_a_name():
    with pytest.raises(InconsistentStateError, match="longitudinal friction force"):
        F.reactions(DISC, 0.0, P0, V0 + 1.0)
    assert F.reactions("rolling_disc", 0.0, P0, V0) == F.reactions(DISC, 0.0, P0, V0)
    with pytest.raises(ArgumentError, match=r"state p got shape \(3,\)"):
        F.reactions(DISC, 0.0, P0[:3], V0)


def _pushed_particle(force):
    x, y = sp.symbols("x y", real=True)
    xd, yd = sp.symbols("x_dot y_dot", real=True)
    return systems.from_lagrangian("pushed_particle", (x, y), (xd**2 + yd**2) / 2, forces=[force(systems.TIME), 0],
                                   nonholonomic=[("rail force", yd)], default_p=(0, 0), default_v=(1, 0))


@pytest.mark.parametrize("method", ["DOP853", "dopri5", "RK45"])
def test_a_force_that_turns_nan_is_named_with_the_time(method):
    system = _pushed_particle(lambda t: sp.sqrt(1 - t))
    tr = F.create("dependent", system).simulate((0.0, 2.0), method=method, rtol=1e-8, atol=1e-8)
    assert tr.status == -1 and "the forces f are not finite" in tr.message and "pushed_particle" in tr.message
    assert "singular" not in tr.message
    assert tr.t.size > 1 and 0.9 < tr.t[-1] <= 1.0  # kept up to where the force stops being defined


def test_a_force_that_blows_up_is_named_instead_of_the_step_size():
    system = _pushed_particle(lambda t: 1 / (1 - t) ** 2)
    tr = F.create("dependent", system).simulate((0.0, 2.0), rtol=1e-8, atol=1e-8)
    assert tr.status == -1 and "Required step size" not in tr.message
    assert "spacing of floating-point numbers" in tr.message and "the forces f grew" in tr.message
    assert tr.t[-1] == pytest.approx(1.0, abs=1e-6) and tr.t.size > 10


def test_the_flat_disc_does_not_report_success():
    p = P0.copy()
    p[4] = np.pi / 2
    p, v = DISC.consistent_state(p, V0, fix=("theta",))
    tr = F.create("dependent", DISC).simulate((0.0, 0.5), (p, v), rtol=1e-8, atol=1e-8)
    assert tr.status == 2 and not tr.success
    assert "kinematic matrix A is singular at t = 0" in tr.message and tr.warnings


def test_the_manifold_formulation_from_the_flat_disc_stops_at_once():
    """Its steps collapsed towards 1e-300 s near t = 0 (scipy's floor is the spacing at t itself), so the
    run crawled for about an hour; a step finer than the resolution of t_span now ends it."""
    p = P0.copy()
    p[4] = np.pi / 2
    p, v = DISC.consistent_state(p, V0, fix=("theta",))
    tr = F.create("manifold", DISC).simulate((0.0, 1.0), (p, v), max_steps=20000)
    assert tr.status == -1 and "max_steps" not in tr.message
    assert "spacing of floating-point numbers" in tr.message and tr.stats.steps < 20000


def test_reactions_name_a_piece_of_the_model_that_is_not_finite():
    system = _pushed_particle(lambda t: sp.sqrt(1 - t))
    p, v = system.default_state()
    assert np.isfinite(F.reactions(system, 0.5, p, v, as_dict=False)).all()
    with pytest.raises(ArgumentError, match="the forces f are not finite at t = 1.5"):
        F.reactions(system, 1.5, p, v)


def test_a_run_whose_result_exceeds_its_tolerance_is_not_plain_success():
    """rk4 with a step near the interval: the residuals reach several % of the scale."""
    tr = _run(t_span=(0.0, 0.5), method="rk4", step=0.25)
    assert tr.status == 2 and "residual" in tr.message and not tr.success
    fine = _run(t_span=(0.0, 0.5), method="rk4", step=1e-3)
    assert fine.status == 0 and fine.success and not fine.warnings


def test_max_steps_stops_cleanly_and_keeps_the_points():
    tr = _run(t_span=(0.0, 1.0), max_steps=5)
    assert tr.status == -1 and "max_steps = 5" in tr.message
    assert tr.t.size == 6 and tr.t[-1] < 1.0  # the start and five steps
    full = _run(t_span=(0.0, 1.0))
    assert np.allclose(tr.p, full.p[:6])


def test_a_long_t_eval_warns_up_front_with_its_cost(monkeypatch):
    from formulations.solvers import options as inputs

    monkeypatch.setattr(inputs, "LARGE_OUTPUT", 100)
    with pytest.warns(UserWarning, match="t_eval has 201 points.*s in all"):
        _run(t_eval=np.linspace(0.0, 0.2, 201))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _run(t_eval=np.linspace(0.0, 0.2, 100))


@pytest.mark.parametrize("build, words", [
    (lambda x, y, xd, yd: dict(T=(xd**2 - yd**2) / 2), ["indefinite", "kinetic energy"]),
    (lambda x, y, xd, yd: dict(holonomic=[x**2 + y**2 - 1], default_p=(1, 0)), ["(name, expression) pair"]),
    (lambda x, y, xd, yd: dict(nonholonomic=[xd - yd]), ["nonholonomic constraint 1", "name"]),
    (lambda x, y, xd, yd: dict(forces=[1, 2, 3]), ["forces", "expected 2 entries", "x_dot, y_dot"]),
    (lambda x, y, xd, yd: dict(coordinates=("x", "y")), ["coordinates[0]", "sympy Symbol"]),
    (lambda x, y, xd, yd: dict(default_p=(np.nan, 0)), ["default state", "non-finite", "x"]),
    (lambda x, y, xd, yd: dict(parameters=(sp.Symbol("m"),)), ["parameters[0]", "systems.Parameter"]),
], ids=["indefinite-M", "unnamed-holonomic", "unnamed-nonholonomic", "forces-length", "string-coordinates",
        "nan-default", "bare-symbol-parameter"])
def test_user_lagrangians_are_checked_with_named_problems(build, words):
    x, y = sp.symbols("x y", real=True)
    xd, yd = sp.symbols("x_dot y_dot", real=True)
    fields = dict(coordinates=(x, y), T=(xd**2 + yd**2) / 2, default_p=(0, 0), default_v=(0, 0))
    fields.update(build(x, y, xd, yd))
    with pytest.raises(SystemDescriptionError) as info:
        systems.from_lagrangian("user", fields.pop("coordinates"), fields.pop("T"), **fields)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("field, value, words", [
    ("inertia", sp.eye(2), ["inertia", "(2, 2)", "3 x 3"]),
    ("inertia", [1, 2, 3], ["inertia", "sympy.diag"]),
    ("inertia", sp.Matrix([[1, 0.5, 0], [0, 1, 0], [0, 0, 1]]), ["non-symmetric"]),
    ("position", (0, 0), ["position", "3 world-axes"]),
], ids=["inertia-2x2", "inertia-vector", "inertia-asymmetric", "position-2"])
def test_rigid_bodies_are_checked_with_named_problems(field, value, words):
    th = sp.Symbol("theta", real=True)
    fields = dict(name="b", mass=1, inertia=sp.eye(3), position=(0, 0, 0), rotation=sp.Matrix(
        [[sp.cos(th), -sp.sin(th), 0], [sp.sin(th), sp.cos(th), 0], [0, 0, 1]]))
    fields[field] = value
    with pytest.raises(SystemDescriptionError) as info:
        systems.RigidBody(**fields)
    for word in words:
        assert word in str(info.value)


@pytest.mark.parametrize("q, qdot, words", [
    ([np.nan], [0.0], ["q has non-finite entries (theta)"]),
    ([0.1], [np.inf], ["qdot has non-finite entries (theta_dot)"]),
    ([0.1, 0.2], [0.0], ["q got shape (2,) but expected (1,): theta"]),
], ids=["nan-q", "inf-qdot", "q-length"])
def test_state_from_q_refuses_non_finite_or_misshapen_input(q, qdot, words):
    crank = systems.load("slider_crank")
    with pytest.raises(ArgumentError) as info:
        crank.state_from_q(q, qdot)
    assert info.value.argument in ("q", "qdot") and all(w in str(info.value) for w in words)


def test_check_pfaffian_takes_coordinate_names_and_names_a_bad_one():
    x, y, z = sp.symbols("x y z")
    by_name = systems.check_pfaffian([["1", "0", "-sin(x)"]], ["x", "y", "z"])
    by_symbol = systems.check_pfaffian([[1, 0, -sp.sin(x)]], [x, y, z])
    assert by_name.classification == by_symbol.classification == "holonomic"
    for coordinates, words in (("x y z", "coordinates got 'x y z'"), ([x, 2, z], "coordinates[1] got 2 (int)")):
        with pytest.raises(ArgumentTypeError) as info:
            systems.check_pfaffian([[1, 0, 0]], coordinates)
        assert info.value.argument == "coordinates" and words in str(info.value)
        assert "sympy Symbol" in str(info.value)


def test_a_run_from_a_singular_configuration_names_state0():
    """The triple slider-crank where the crank stands at q2 = pi/2 over the first slider: no chart
    of the constraint manifold there."""
    crank = systems.load("triple_slider_crank", domain=1)
    p = np.array([0.19845526249121906, np.pi / 2, 0.19845526249121906, 1.9901295206065213])
    with pytest.raises(ArgumentError) as info:
        F.create("minimal", crank).simulate((0.0, 0.1), (p, np.zeros(4)))
    text = str(info.value)
    assert info.value.argument == "state0" and text.startswith("state0 got a singular configuration")
    assert "Phi_p loses rank" in text and "start from a configuration away from it" in text


def test_compare_refuses_a_time_grid_too_large_to_record_at_once():
    import time

    started = time.perf_counter()
    with pytest.raises(ArgumentError) as info:
        F.compare("slider_crank", ["dependent", "minimal"], (0.0, 1.0), samples=10**9)
    assert time.perf_counter() - started < 10
    text = str(info.value)
    assert info.value.argument == "samples" and text.startswith("samples got 1000000000 but expected at most")
    assert "GiB" in text and "samples=501" in text


def test_an_unknown_reaction_name_lists_the_names():
    traj = _run(t_span=(0.0, 0.05))
    for reactions in (traj.reactions, F.reactions(DISC, 0.0, P0, V0)):
        with pytest.raises(systems.UnknownNameError) as info:
            reactions["contact normal forse"]
        assert isinstance(info.value, KeyError) and info.value.argument == "reactions"
        text = str(info.value)
        assert "expected one of: contact normal force, longitudinal friction force" in text
        assert "did you mean 'contact normal force'?" in text
    assert set(traj.reactions) == set(DISC.constraint_names)


def test_a_mass_matrix_that_becomes_singular_during_a_run_is_named_with_where():
    """T = ((1 - x^2) x'^2 + y'^2)/2 is positive at the start and singular at x = 1, which the motion
    x = sin t reaches at t = pi/2: the run stops there and says that M became singular, and where."""
    x, y, xd, yd = sp.symbols("x y x_dot y_dot", real=True)
    soft = systems.from_lagrangian("soft", (x, y), ((1 - x**2) * xd**2 + yd**2) / 2, 0, velocities=(xd, yd),
                                   default_p=(0.0, 0.0), default_v=(0.5, 0.0))
    run = F.create("dependent", soft, backend="numpy").simulate((0.0, 5.0))
    assert run.status == -1 and run.t[-1] < 5.0
    assert "the mass matrix M became singular there" in run.message
    at = float(re.search(r"at p = \(x=([-0-9.e]+)", run.message).group(1))
    assert abs(at - 1.0) < 1e-3
