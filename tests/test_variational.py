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
