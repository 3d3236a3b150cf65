"""The variational integrators DLA and NH-RATTLE (formulations.solvers.variational): second order
against a tight reference, RATTLE itself on a holonomic pendulum (a textbook RATTLE written here),
bounded energy error where RK4 at the same step drifts, reversibility to round-off, and clear
refusals."""
import dataclasses

import numpy as np
import pytest
import sympy as sp

import formulations as F
import systems
from formulations.errors import CapabilityError
from systems.errors import SystemDescriptionError

TIGHT = 1e-12  # rtol = atol of the reference runs


def _end(name, method, step, t_end, state=None):
    system = systems.load(name)
    traj = F.create("dependent", system, backend="numpy").simulate((0.0, t_end), state, method=method, step=step,
                                                                   t_eval=[0.0, t_end])
    # DLA's velocities at step points are off the constraints by O(h), which the run reports
    assert traj.status == 0 or (method == "DLA" and "velocity residual" in traj.message), traj.message
    return traj.p[-1], traj.v[-1]


@pytest.mark.parametrize("name, t_end", [("chaplygin_sleigh", 1.0), ("pendulum_cartesian", 1.0), ("knife_edge", 1.0)])
def test_both_methods_are_second_order_in_positions_and_rattle_in_velocities(name, t_end):
    """Errors at t_end against DOP853 at 1e-12 for h and h/2: positions converge at order 2 for both
    methods; velocities at order 2 for NH-RATTLE and order 1 for DLA, whose momentum at a step point
    is not put on the velocity constraints."""
    system = systems.load(name)
    ref = F.create("dependent", system, stabilization="projection", backend="numpy").simulate(
        (0.0, t_end), rtol=TIGHT, atol=TIGHT, t_eval=[0.0, t_end])
    orders = {}
    for method in ("DLA", "NH-RATTLE"):
        errors = []
        for h in (0.02, 0.01):
            p, v = _end(name, method, h, t_end)
            errors.append((np.max(np.abs(p - ref.p[-1])), np.max(np.abs(v - ref.v[-1]))))
        orders[method] = np.log2(np.array(errors[0]) / np.array(errors[1]))
    assert abs(orders["DLA"][0] - 2) < 0.1 and abs(orders["NH-RATTLE"][0] - 2) < 0.1, orders
    assert abs(orders["NH-RATTLE"][1] - 2) < 0.1, orders
    assert abs(orders["DLA"][1] - 1) < 0.15, orders


def _textbook_rattle(x, u, h, steps, m, g, L):
    """RATTLE for a point mass m on a rod of length L (x in R^2, gravity -g along y): a
    Stormer-Verlet step with the rod's impulse found by Newton's method on |x_new|^2 = L^2 and the
    velocity then made tangent (Hairer, Lubich & Wanner, VII.1.4)."""
    force = np.array([0.0, -m * g])
    for _ in range(steps):
        half = u + h / (2 * m) * force
        nu = 0.0
        for _ in range(50):  # x_new = x + h (half - nu x / m): |x_new|^2 = L^2 for nu
            x_new = x + h * (half - nu * x / m)
            r = x_new @ x_new - L**2
            nu -= r / (2 * x_new @ (-h * x / m))
            if abs(r) < 1e-15:
                break
        x_new = x + h * (half - nu * x / m)
        u_new = (x_new - x) / h + h / (2 * m) * force
        u_new -= (x_new @ u_new) / (x_new @ x_new) * x_new  # onto x . u = 0
        x, u = x_new, u_new
    return x, u


def test_suslov_follows_its_closed_form_at_second_order_and_spins_up_about_e2():
    """Suslov's problem (systems.catalogue.suslov: a rigid body in angles whose body angular velocity
    has no e3 component) against its closed form omega1 = w sech(k t), omega2 = c tanh(k t): NH-RATTLE's
    angular-velocity error at t = 4 s falls by 4 when h is halved, its energy error stays at the
    level of the first seconds while the motion settles, and by t = 20 s the body turns about e2 at
    the rate c the energy allows."""
    from systems.catalogue import suslov

    system = systems.load("suslov")
    values = system.parameter_dict
    omega = sp.lambdify([system.coordinates, system.velocities],
                        suslov.body_angular_velocity(system.coordinates, system.velocities))
    errors = []
    for h in (0.02, 0.01):
        traj = F.create("dependent", system, backend="numpy").simulate((0.0, 4.0), method="NH-RATTLE", step=h,
                                                                       t_eval=[0.0, 4.0])
        exact = suslov.angular_velocity([4.0], values["I1"], values["I2"], values["I13"])[0]
        errors.append(np.max(np.abs(np.ravel(omega(traj.p[-1], traj.v[-1])) - exact)))
    assert 3.6 < errors[0] / errors[1] < 4.4, errors
    traj = F.create("dependent", system, backend="numpy").simulate((0.0, 20.0), method="NH-RATTLE", step=0.04,
                                                                   t_eval=np.linspace(0.0, 20.0, 201))
    energy_error = np.abs(traj.energy - traj.energy[0])
    assert energy_error[100:].max() < 1.05 * energy_error[:100].max()
    c = suslov.SPIN * np.sqrt(values["I1"] / values["I2"])
    assert np.allclose(np.ravel(omega(traj.p[-1], traj.v[-1])), [0.0, c, 0.0], atol=1e-3)


def test_a_gauge_term_keeps_the_motion_and_the_order_but_breaks_reversibility():
    """Modin & Verdier's construction: NH-RATTLE on L + dS/dt, S = cos z, for the contact oscillator.
    dS/dt changes no equation of motion, so the method still converges at order 2 to the same
    motion (DOP853 at 1e-12 on the unchanged description); but the trapezoidal rule does not
    integrate dS/dt exactly, and the discrete flow is no longer reversible under v -> -v: the run
    forward, flipped and back misses its start by far more than round-off, where the plain method
    returns to it. (tests/test_variational.py's compiled-loop test runs the gauge on both backends.)"""
    system = systems.load("contact_oscillator", epsilon=0.1)
    z = system.coordinates[2]
    gauged = F.VariationalMethod("NH-RATTLE", gauge=sp.cos(z))
    reference = F.create("dependent", system, backend="numpy").simulate(
        (0.0, 2.0), method="DOP853", rtol=TIGHT, atol=TIGHT, t_eval=[0.0, 2.0])
    errors = []
    for h in (0.02, 0.01):
        traj = F.create("dependent", system, backend="numpy").simulate((0.0, 2.0), method=gauged, step=h,
                                                                       t_eval=[0.0, 2.0])
        errors.append(np.max(np.abs(traj.p[-1] - reference.p[-1])))
    assert 3.6 < errors[0] / errors[1] < 4.4, errors
    p0, v0 = system.default_state()
    h, span = 2 * np.sin(np.pi / 40), (0.0, 100 * 2 * np.sin(np.pi / 40))
    missed = {}
    for label, method in (("plain", "NH-RATTLE"), ("gauged", gauged)):
        formulation = F.create("dependent", system, backend="numpy")
        there = formulation.simulate(span, method=method, step=h, t_eval=list(span))
        back = formulation.simulate(span, (there.p[-1], -there.v[-1]), method=method, step=h, t_eval=list(span),
                                    check_initial=False)
        missed[label] = max(np.max(np.abs(back.p[-1] - p0)), np.max(np.abs(-back.v[-1] - v0)))
    assert missed["plain"] < 1e-11 and missed["gauged"] > 1e-4, missed
    with pytest.raises(CapabilityError, match="gauge term S .* w are neither"):
        F.create("dependent", system, backend="numpy").simulate(
            (0.0, 0.1), method=F.VariationalMethod("DLA", gauge=sp.Symbol("w") * z), step=0.01)
    as_text = F.create("dependent", system, backend="numpy").simulate(  # symbols are matched by name
        (0.0, 2.0), method=F.VariationalMethod("NH-RATTLE", gauge="cos(z)"), step=0.01, t_eval=[0.0, 2.0])
    assert np.max(np.abs(as_text.p[-1] - traj.p[-1])) < 1e-14 and as_text.settings["gauge"] == "cos(z)"
    with pytest.raises(CapabilityError, match="expected one of DLA, NH-RATTLE"):
        F.VariationalMethod("rk4")


@pytest.mark.parametrize("name", ["slider_crank", "rolling_disc"])
def test_a_step_to_an_output_time_just_after_another_keeps_the_velocity(name):
    """Newton's method solves for the rate (p1 - p0) / h, with the rows of Phi divided by h: a step
    of 1e-11 s, to an output time just after another, converges, and its velocity is the one before
    it up to what the round-off of positions makes over 1e-11 s (some 1e-9 here; the tolerance
    relative to |p| it replaces gave about 4e-7)."""
    traj = F.create("dependent", systems.load(name), backend="numpy").simulate(
        (0.0, 1.5), method="NH-RATTLE", step=0.01, t_eval=[0.0, 1.0, 1.0 + 1e-11, 1.5])
    assert traj.status == 0, traj.message
    assert np.max(np.abs(traj.v[2] - traj.v[1])) < 5e-8


def _heavy_top_in_angles():
    """A symmetric heavy top in Euler angles z-x-z (psi, theta, phi): T = I1 (theta'^2 + psi'^2 sin^2
    theta) / 2 + I3 (phi' + psi' cos theta)^2 / 2, V = m g l cos theta; no constraint rows, A = I.
    From theta = 0.6 rad and a fast spin it nutates between fixed bounds, away from theta = 0."""
    from systems.builders.lagrangian import from_lagrangian
    from systems.description import Parameter

    psi, theta, phi = sp.symbols("psi theta phi", real=True)
    rates = sp.symbols("psi_dot theta_dot phi_dot", real=True)
    I1, I3, mgl = sp.symbols("I1 I3 mgl", positive=True)
    T = I1 / 2 * (rates[1]**2 + rates[0]**2 * sp.sin(theta)**2) + I3 / 2 * (rates[2] + rates[0] * sp.cos(theta))**2
    return from_lagrangian("heavy_top_in_angles", (psi, theta, phi), T, mgl * sp.cos(theta), velocities=rates,
                           parameters=(Parameter(I1, 0.02, "kg m^2", "transverse moment"),
                                       Parameter(I3, 0.01, "kg m^2", "axial moment"),
                                       Parameter(mgl, 0.2, "N m", "weight times the height of the centre")),
                           default_p=(0.0, 0.6, 0.0), default_v=(0.0, 0.0, 40.0))


@pytest.mark.xdist_group("compiled")
@pytest.mark.slow  # 10^5 steps and a module of its own kind: about 55 s on 2 cores (the loop's steps are tested below)
@pytest.mark.parametrize("name", ["pendulum_cartesian", "heavy_top_in_angles"])
def test_rattle_keeps_the_energy_error_bounded_over_1e5_steps(name):
    """NH-RATTLE on a holonomic system (the Cartesian pendulum: RATTLE) and on a top in angles (no
    rows: the variational integrator of a Lagrangian that is not separable), 10^5 steps in machine
    code: the largest energy error over the last tenth is that of the first tenth, with no drift."""
    system = systems.load(name) if name in systems.names() else _heavy_top_in_angles()
    h = 0.05 if name == "pendulum_cartesian" else 0.002
    t_end = 1e5 * h
    traj = F.create("dependent", system, backend="compiled").simulate(
        (0.0, t_end), method="NH-RATTLE", step=h, t_eval=np.linspace(0.0, t_end, 2001))
    assert traj.status == 0 and traj.stats.steps == 100000, traj.message
    error = np.abs(traj.energy - traj.energy[0])
    first, last = error[1:201].max(), error[-200:].max()
    assert 0 < last < 1.1 * first, (first, last)
    if name == "heavy_top_in_angles":
        assert traj.p[:, 1].min() > 0.3  # theta stays away from the angles' singularity at 0


def test_on_holonomic_rows_alone_nh_rattle_is_rattle():
    system = systems.load("pendulum_cartesian")
    values = system.parameter_dict
    p0, v0 = system.default_state()
    h, steps = 0.01, 200
    p, v = _end("pendulum_cartesian", "NH-RATTLE", h, h * steps)
    x, u = _textbook_rattle(p0, v0, h, steps, values["m"], values["g"], values["L"])
    assert np.max(np.abs(p - x)) < 1e-12 and np.max(np.abs(v - u)) < 1e-11


def test_the_energy_error_stays_bounded_where_rk4_drifts():
    """The knife edge on a slope (reversible, integrable; Bloch section 1.6) over 2000 steps of 0.1 s,
    about 130 periods: the largest energy error of the last quarter of the run is that of the first
    for the variational methods, while RK4's grows with time."""
    system = systems.load("knife_edge")
    quarters = {}
    for method in ("NH-RATTLE", "DLA", "rk4"):
        traj = F.create("dependent", system, backend="numpy").simulate((0.0, 200.0), method=method, step=0.1,
                                                                       t_eval=np.linspace(0.0, 200.0, 401))
        error = np.abs(traj.energy - traj.energy[0])
        quarters[method] = (error[:100].max(), error[300:].max())
    for method in ("NH-RATTLE", "DLA"):
        first, last = quarters[method]
        assert last < 1.05 * first, quarters
    first, last = quarters["rk4"]
    assert last > 3 * first, quarters


def test_both_methods_run_back_to_their_start_and_share_their_positions():
    """Forward 200 steps, flip the velocities, 200 steps again: the knife edge (reversible under
    v -> -v) returns to its start to round-off under NH-RATTLE, a symmetric method. DLA takes the
    same positions (NH-RATTLE's end impulse is absorbed by the next step's, as RATTLE's is by SHAKE's),
    so its positions come back as well; its velocity at a step point, the discrete momentum off the
    constraints, is what misses (the run back starts unchecked)."""
    system = systems.load("knife_edge")
    p0, v0 = system.default_state()
    ends = {}
    for method in ("NH-RATTLE", "DLA"):
        formulation = F.create("dependent", system, backend="numpy")
        there = formulation.simulate((0.0, 10.0), method=method, step=0.05, t_eval=np.linspace(0.0, 10.0, 11))
        back = formulation.simulate((0.0, 10.0), (there.p[-1], -there.v[-1]), method=method, step=0.05,
                                    t_eval=[0.0, 10.0], check_initial=False)
        ends[method] = (there, np.max(np.abs(back.p[-1] - p0)), np.max(np.abs(-back.v[-1] - v0)))
    assert ends["NH-RATTLE"][1] < 1e-10 and ends["NH-RATTLE"][2] < 1e-10, ends
    assert ends["DLA"][1] < 1e-10 < 1e-3 < ends["DLA"][2], ends
    assert np.max(np.abs(ends["DLA"][0].p - ends["NH-RATTLE"][0].p)) < 1e-12  # the same positions


def test_what_the_methods_cannot_take_is_refused_with_the_reason():
    with pytest.raises(CapabilityError, match="Euler parameters"):
        F.create("dependent", systems.load("sphere_in_cylinder"), backend="numpy").simulate(
            (0.0, 0.1), method="NH-RATTLE", step=0.01)
    with pytest.raises(CapabilityError, match="impose the constraints themselves"):
        F.create("dependent", systems.load("knife_edge"), stabilization="projection", backend="numpy").simulate(
            (0.0, 0.1), method="DLA", step=0.01)
    with pytest.raises(CapabilityError, match="needs a fixed step"):
        F.create("dependent", systems.load("knife_edge"), backend="numpy").simulate((0.0, 0.1), method="DLA")
    with pytest.raises(CapabilityError, match="expected 'dependent'"):
        F.create("minimal", systems.load("knife_edge"), backend="numpy").simulate((0.0, 0.1), method="DLA", step=0.01)


def test_a_step_newton_cannot_solve_ends_the_run_with_the_time_and_the_residual():
    traj = F.create("dependent", systems.load("pendulum_cartesian"), backend="numpy").simulate(
        (0.0, 10.0), method="NH-RATTLE", step=2.5)
    assert traj.status == -1
    assert "pendulum_cartesian" in traj.message and "t = 0" in traj.message and "residual" in traj.message
    assert traj.t[0] == 0.0  # what was computed is kept


@pytest.mark.xdist_group("compiled")
@pytest.mark.slow  # the variational loop is a module of its own kind: about 35 s of compiling on a new machine
@pytest.mark.parametrize("name, method, values", [
    ("knife_edge", "NH-RATTLE", {}), ("slider_crank", "DLA", {}), ("rolling_disc", "NH-RATTLE", {}),
    ("contact_oscillator", "NH-RATTLE", {"epsilon": 0.1, "b": 0.5}),
    ("contact_oscillator", "gauged DLA", {"epsilon": 0.1}), ("contact_oscillator", "gauged NH-RATTLE", {"epsilon": 0.1})])
def test_the_compiled_loop_takes_the_python_steps(name, method, values):
    """On the compiled backend the whole run is one call into machine code: the same predictor,
    Newton iterations and impulses as the Python stepper, so the same number of residual evaluations
    (up to iterations that end at round-off) and the same states to round-off — on nonholonomic rows
    (the knife edge), on holonomic rows alone (the slider-crank in absolute coordinates), on both
    with A not the identity (the rolling disc: solves with A and A^T, the terms in dA, C = [Phi_p A;
    C_nh]), with a force the potential does not hold (the gyroscopic oscillator: the discrete forces
    at both ends), and with a gauge term (both methods: NH-RATTLE adds grad S after its projection)."""
    system = systems.load(name, **values)
    if method.startswith("gauged"):  # the methods on L + dS/dt
        method = F.VariationalMethod(method.split()[1], gauge=sp.cos(system.coordinates[2]))
    t_eval = np.linspace(0.0, 3.0, 31)
    runs = [F.create("dependent", system, backend=backend).simulate((0.0, 3.0), method=method, step=0.01,
                                                                    t_eval=t_eval)
            for backend in ("numpy", "compiled")]
    numpy_run, compiled_run = runs
    assert compiled_run.stats.backend == "compiled" and compiled_run.status == numpy_run.status
    # the same iterations, but where an increment reaches round-off the two may stop one apart
    assert abs(compiled_run.stats.rhs_evaluations - numpy_run.stats.rhs_evaluations) <= 0.05 * numpy_run.stats.rhs_evaluations
    assert np.array_equal(compiled_run.t, numpy_run.t)
    assert np.max(np.abs(compiled_run.p - numpy_run.p)) < 1e-12
    assert np.max(np.abs(compiled_run.v - numpy_run.v)) < 1e-10 * (1 + np.max(np.abs(numpy_run.v)))
    lam = numpy_run.multipliers
    assert np.max(np.abs(compiled_run.multipliers - lam)) < 1e-8 * (1 + np.max(np.abs(lam)))


@pytest.mark.xdist_group("compiled")
@pytest.mark.slow  # the variational loop's module (above)
def test_a_step_the_compiled_loop_cannot_solve_ends_the_run_with_the_time_and_the_residual():
    """As in Python: the message names the system, the step's time and the residual, and the states
    computed before it are kept."""
    traj = F.create("dependent", systems.load("pendulum_cartesian"), backend="compiled").simulate(
        (0.0, 10.0), method="NH-RATTLE", step=2.5)
    assert traj.status == -1 and traj.stats.backend == "compiled"
    assert "pendulum_cartesian" in traj.message and "t = 0" in traj.message and "residual" in traj.message
    assert traj.t[0] == 0.0


@pytest.mark.parametrize("name, values", [("knife_edge", {}), ("vertical_disc", {}), ("contact_oscillator", {"epsilon": 0.1})])
def test_declared_invariants_hold_along_a_tight_run_and_nh_rattle_keeps_the_rates(name, values):
    """The invariants a catalogue system declares are conserved by DOP853 at 1e-11 (which checks
    the declarations); NH-RATTLE keeps the knife edge's and the vertical disc's rates to round-off."""
    system = systems.load(name, **values)
    t_eval = np.linspace(0.0, 10.0, 51)
    ref = F.create("dependent", system, stabilization="projection", backend="numpy").simulate(
        (0.0, 10.0), rtol=1e-11, atol=1e-11, t_eval=t_eval)
    assert ref.invariants and all(np.ptp(values) < 1e-9 for values in ref.invariants.values()), ref.invariants
    if name != "contact_oscillator":
        traj = F.create("dependent", system, backend="numpy").simulate((0.0, 10.0), method="NH-RATTLE", step=0.1,
                                                                       t_eval=t_eval)
        assert all(np.ptp(values) < 1e-12 for values in traj.invariants.values()), traj.invariants


def test_an_invariant_in_undeclared_symbols_is_refused():
    with pytest.raises(SystemDescriptionError, match="invariant 'spin' depends on w"):
        dataclasses.replace(systems.load("knife_edge"), invariants=[("spin", sp.Symbol("w"))])


def test_the_long_comparison_from_the_command_line(tmp_path, capsys):
    """``pfaff compare SYSTEM --long T``: the table names every method, the folder gets the report,
    the JSON and the figure; a system the variational methods cannot take is refused before any run."""
    from formulations.workbench.cli.main import main

    out = tmp_path / "long"
    assert main(["compare", "knife_edge", "--long", "5", "--step", "0.1", "--out", str(out), "--quiet"]) == 0
    printed = capsys.readouterr().out
    for label in ("NH-RATTLE", "DLA", "rk4, same step", "rk4, equal cost", "DOP853 + projection"):
        assert f"| {label}" in printed
    assert {"long_time.json", "long_time.md", "long_time.png"} <= {p.name for p in out.iterdir()}
    assert main(["compare", "sphere_in_cylinder", "--long", "5"]) == 2
    assert "Euler parameters" in capsys.readouterr().err
    assert main(["compare", "contact_oscillator", "--long", "3", "--step", "0.1", "--gauge", "cos(z)", "--quiet"]) == 0
    assert "L + dS/dt with S = cos(z)" in capsys.readouterr().out
    assert main(["compare", "contact_oscillator", "--long", "3", "--gauge", "cos(w)"]) == 2
    assert "w are neither" in capsys.readouterr().err
    assert main(["compare", "contact_oscillator", "--gauge", "cos(z)"]) == 2
    assert "expected --long" in capsys.readouterr().err


def test_a_dla_run_continues_from_its_final_state_along_the_positions_of_one_longer_run():
    """DLA's velocity is its discrete momentum, off the velocity rows by O(h); final_state() moves it onto
    them by the M-orthogonal projection, which changes the momentum only along the rows: the next
    step's impulses absorb that, so the continued run takes the positions of one run over both spans."""
    system = systems.load("chaplygin_sleigh")
    settings = dict(method="DLA", step=0.01)
    whole = F.create("dependent", system, backend="numpy").simulate((0.0, 5.0), **settings)
    first = F.create("dependent", system, backend="numpy").simulate((0.0, 2.5), **settings)
    assert np.max(np.abs(system.residuals(first.p[-1], first.v[-1])[1])) > 1e-8  # the recorded velocity is off
    p, v = first.final_state()
    assert np.max(np.abs(system.residuals(p, v)[1])) < 1e-12 and np.array_equal(p, first.p[-1])
    second = F.create("dependent", system, backend="numpy").simulate((2.5, 5.0), (p, v), **settings)
    # equal up to the steps' Newton solves (stopped at round-off: increments below 1e-10 of the rate); here 4e-15
    assert second.status == 0 and np.max(np.abs(second.p[-1] - whole.p[-1])) < 1e-9
    back = F.create("dependent", system, backend="numpy").simulate((5.0, 5.5), (p, -v), **settings)  # reversed
    assert back.status == 0


def test_final_state_of_an_unstabilized_run_is_on_the_constraints():
    system = systems.load("slider_crank")
    run = F.create("dependent", system, backend="numpy").simulate((0.0, 5.0), rtol=1e-5, atol=1e-5)
    Phi, Cv = system.residuals(*run.final_state())
    assert np.max(np.abs(system.residuals(run.p[-1], run.v[-1])[0])) > 1e-9   # it drifted
    assert max(np.max(np.abs(Phi)), np.max(np.abs(Cv))) < 1e-12
