"""Quasi-velocities u = Y(p) v as the minimal formulation's independent velocities
(formulations.coordinates.speeds): against the dependent formulation, through the heading where every
partition of the knife edge's velocities fails, on both backends, in linearization, optimal control,
the derivation and the export."""
import numpy as np
import pytest
import sympy as sp

import formulations
import systems
from systems.errors import ArgumentError

FORWARD = ("forward_speed", "turning_rate")  # the knife edge's declared speeds
TURNING = (np.zeros(3), np.array([1.0, 0.0, 1.0]))  # heading 0, forward 1 m/s, turning 1 rad/s: past 90 deg at 1.57 s


def _run(system, formulation, state, t_end, backend="numpy", tol=1e-11, **options):
    form = formulations.create(formulation, system, backend=backend, **options)
    return formulations.simulate(form, (0.0, t_end), state, rtol=tol, atol=tol, t_eval=np.linspace(0, t_end, 31))


def test_the_knife_edge_in_forward_speed_and_turning_rate_turns_through_ninety_degrees():
    """(x_dot, phi_dot) stops where the blade turns across x; the forward speed and turning rate run
    on, through 90 and 270 degrees, along the dependent formulation's motion, and the forward speed and
    turning rate keep the values the blade's balance gives them (m v' = m g sin(alpha) cos(phi), J w' = 0)."""
    ke = systems.load("knife_edge")
    partition = _run(ke, "minimal", TURNING, 6.0, independent=("x_dot", "phi_dot"))
    assert partition.status == -1 and "near-singular" in partition.message and partition.t[-1] < np.pi / 2
    quasi = _run(ke, "minimal", TURNING, 6.0, independent=FORWARD)
    reference = _run(ke, "dependent", TURNING, 6.0)
    assert quasi.status == 0 and quasi.p[-1, 2] > 3 * np.pi / 2
    assert np.max(np.abs(quasi.p - reference.p)) < 1e-8 and np.max(np.abs(quasi.v - reference.v)) < 1e-8
    # the same choice written as expressions, and as named pairs, is the same formulation
    x_dot, y_dot, phi, phi_dot = sp.symbols("x_dot y_dot phi phi_dot", real=True)
    written = _run(ke, "minimal", TURNING, 6.0, independent=[sp.cos(phi) * x_dot + sp.sin(phi) * y_dot, "phi_dot"])
    pairs = formulations.create("minimal", ke, independent={"v_f": "cos(phi)*x_dot + sin(phi)*y_dot", "w": phi_dot})
    assert np.max(np.abs(written.p - quasi.p)) < 1e-12
    assert pairs.state_names()[-2:] == ("v_f", "w") and written.state_names[-2:] == ("u_1", "phi_dot")
    assert quasi.state_names[-2:] == FORWARD
    # turning at 1 rad/s from 1 m/s along the blade: v = 1 + g sin(alpha) sin(t) exactly
    g_sin = 9.81 * np.sin(0.3)
    form = formulations.create("minimal", ke, backend="numpy", independent=FORWARD)
    u = np.array([form.initial_state(p, v)[3:] for p, v in zip(quasi.p, quasi.v)])
    assert np.max(np.abs(u[:, 0] - (1.0 + g_sin * np.sin(quasi.t)))) < 1e-8 and np.allclose(u[:, 1], 1.0)


def test_the_rolling_disc_in_its_own_body_axis_rates_agrees_with_the_default_choice():
    """omega in the disc's own axes turns with the spin phi (Y depends on p): its time derivative
    enters the accelerations, and the motion is the default choice's."""
    disc = systems.load("rolling_disc")
    state = disc.default_state()
    default = _run(disc, "minimal", state, 2.0, tol=1e-12)
    body = _run(disc, "minimal", state, 2.0, tol=1e-12, independent=("omega_x", "omega_y", "omega_z"))
    assert default.status == 0 and body.status == 0
    assert np.max(np.abs(body.p - default.p)) < 1e-10 and np.max(np.abs(body.v - default.v)) < 1e-10


@pytest.mark.compiled
def test_both_backends_agree_in_quasi_velocities():
    ke = systems.load("knife_edge")
    numpy = _run(ke, "minimal", TURNING, 6.0, independent=FORWARD)
    compiled = _run(ke, "minimal", TURNING, 6.0, backend="compiled", independent=FORWARD)
    assert compiled.status == 0 and np.max(np.abs(compiled.p - numpy.p)) < 1e-10
    disc = systems.load("rolling_disc")
    rates = ("omega_x", "omega_y", "omega_z")
    a = _run(disc, "minimal", disc.default_state(), 2.0, independent=rates)
    b = _run(disc, "minimal", disc.default_state(), 2.0, backend="compiled", independent=rates)
    assert np.max(np.abs(a.p - b.p)) < 1e-10 and np.max(np.abs(a.v - b.v)) < 1e-10


@pytest.mark.compiled
def test_the_export_of_quasi_velocities_runs_with_numpy_alone(tmp_path):
    """The exported module writes the speeds' kernel in; its right-hand side is the formulation's."""
    import importlib.util

    from formulations.workbench.derivation.export import export_python

    ke = systems.load("knife_edge")
    form = formulations.create("minimal", ke, backend="compiled", independent=FORWARD)
    form.prepare(*ke.default_state())
    path = tmp_path / "knife_quasi.py"
    path.write_text(export_python(form))
    spec = importlib.util.spec_from_file_location("knife_quasi", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    y = np.array([0.1, 0.2, 1.2, 0.7, -0.4])
    assert module.STATE_NAMES[-2:] == FORWARD
    assert np.allclose(module.rhs(0.0, y), form.accelerations(0.0, y, multipliers=False)[0], rtol=1e-12, atol=1e-12)


def test_bad_quasi_velocities_are_refused_with_the_reason():
    ke = systems.load("knife_edge")
    cases = {("x_dot**2", "phi_dot"): "linear in the velocities", ("x_dot + 1", "phi_dot"): "without a constant",
             ("forward", "phi_dot"): "forward_speed, turning_rate", ("forward_speed", "forward_speed"): "repeat"}
    for independent, words in cases.items():
        with pytest.raises(ArgumentError, match=words):
            formulations.create("minimal", ke, independent=independent)
    # along the blade's normal, the speed is the constraint row itself: singular everywhere, said where
    along_row = formulations.create("minimal", ke, independent=("sin(phi)*x_dot - cos(phi)*y_dot", "phi_dot"))
    with pytest.raises(ArgumentError, match=r"do not determine the velocities at q = \(x=0, y=0, phi=0\)"):
        along_row.prepare(*TURNING)
    x, x_dot = sp.symbols("x x_dot", real=True)
    with pytest.raises(systems.SystemDescriptionError, match="must be linear in the velocities"):
        systems.from_lagrangian("cart", (x,), x_dot**2 / 2, velocities=(x_dot,), default_p=(0,), default_v=(1,),
                                speeds={"s": x_dot**2})


def test_linearization_in_quasi_velocities():
    """Straight across the slope (heading 90 deg, where (x_dot, phi_dot) is singular) the motion is
    steady and its linearization in (forward speed, turning rate) has the dependent formulation's
    eigenvalues; the rolling disc's body-axis rates turn with the spin, which is said."""
    ke = systems.load("knife_edge")
    p0, v0 = [0.0, 0.0, np.pi / 2], [0.0, 1.0, 0.0]
    quasi = formulations.linearize(ke, p0, v0, independent=FORWARD)
    dependent = formulations.linearize(ke, p0, v0, formulation="dependent")
    assert quasi.state_names[-2:] == FORWARD
    assert np.allclose(np.sort_complex(np.linalg.eigvals(quasi.A)), np.sort_complex(np.linalg.eigvals(dependent.A)))
    # d(forward speed)'/d(phi) = -g sin(alpha) sin(phi): gravity along the blade once it turns down the slope
    assert quasi.A[3, 2] == pytest.approx(-9.81 * np.sin(0.3))
    symbolic = formulations.linearize(ke, [0, 0, sp.pi / 2], [0, 1, 0], independent=FORWARD, method="symbolic")
    g, alpha = sp.symbols("g alpha", positive=True)
    assert sp.simplify(symbolic.equations().A[3, 2] + g * sp.sin(alpha)) == 0
    disc = systems.load("rolling_disc")
    p0, v0 = disc.family("rolling").state(disc, lean=0.0, spin=5.0)
    with pytest.raises(formulations.NotSteadyError, match="turn with phi"):
        formulations.linearize(disc, p0, v0, independent=("omega_x", "omega_y", "omega_z"))


def test_optimal_control_in_quasi_velocities_reaches_the_optimum_past_ninety_degrees():
    """Parking the blade sideways without a heading bound: the best manoeuvre turns past 90 deg,
    where (x_dot, phi_dot) fails; in (forward speed, turning rate) the minimal transcription represents
    that optimum and reaches the dependent formulation's cost."""
    pytest.importorskip("casadi")
    rest = {"x": 0.0, "y": 0.0, "phi": 0.0, "x_dot": 0.0, "y_dot": 0.0, "phi_dot": 0.0}
    run = dict(initial=rest, final={**rest, "y": 0.5}, inputs=["F", "tau"], nodes=40, scheme="hermite-simpson",
               check=False)
    dependent = formulations.optimal_control("knife_edge", "dependent", (0.0, 2.0), **run)
    quasi = formulations.optimal_control("knife_edge", "minimal", (0.0, 2.0), independent=FORWARD, **run)
    assert dependent.status == 0 and quasi.status == 0, quasi.message
    assert "quasi-velocities" in quasi.note and np.max(np.abs(quasi.p[:, 2])) > np.pi / 2
    assert quasi.cost == pytest.approx(dependent.cost, rel=1e-4)


def test_the_derivation_in_quasi_velocities_gives_the_blades_textbook_equations():
    """m v' = F + m g sin(alpha) cos(phi), J omega' = tau, x' = v cos(phi), y' = v sin(phi)."""
    ke = systems.load("knife_edge")
    derivation = formulations.derive(ke, "minimal", speeds=list(FORWARD))
    m, J, g, alpha = sp.symbols("m J g alpha", positive=True)
    F, tau, phi = sp.symbols("F tau phi", real=True)
    v, w = sp.symbols("forward_speed turning_rate", real=True)
    assert sp.simplify(derivation["M_barbar"] - sp.diag(m, J)) == sp.zeros(2, 2)
    assert sp.simplify(derivation["f_barbar"] - derivation["d_barbar"]
                       - sp.Matrix([F + m * g * sp.sin(alpha) * sp.cos(phi), tau])) == sp.zeros(2, 1)
    q_dot = derivation["D_bar"] * derivation["u"]
    assert sp.simplify(q_dot - sp.Matrix([v * sp.cos(phi), v * sp.sin(phi), w])) == sp.zeros(3, 1)
    assert derivation["independent"] == list(FORWARD)
