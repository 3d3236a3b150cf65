"""Optimal control through the formulations (formulations.optimal_control), against closed forms
(minimum-effort rest-to-rest moves, minimum time with bounded force), against each other, against
an independent CasADi transcription written here, under mesh refinement, and by re-simulating the
optimal inputs with simulate."""
import dataclasses
import math
import re

import numpy as np
import pytest
import sympy as sp

import formulations
import systems
from formulations import Status
from systems.errors import ArgumentError, UnknownNameError
from formulations import registry

casadi = pytest.importorskip("casadi")

ALL = ("dependent", "dependent+none", "reduced", "minimal")
REST = {"x": 0.0, "y": 0.0, "phi": 0.0, "x_dot": 0.0, "y_dot": 0.0, "phi_dot": 0.0}
SIDEWAYS = {"x": 0.0, "y": 1.0, "phi": 0.0, "x_dot": 0.0, "y_dot": 0.0, "phi_dot": 0.0}
KNIFE = dict(initial=REST, final=SIDEWAYS, inputs=["F", "tau"], path={"phi": (-1.2, 1.2)})


def _cart(m=2.0):
    """A mass m on a line pushed by a force F: m x'' = F."""
    x, xd, F, mass = sp.symbols("x x_dot F m", real=True)
    return systems.from_lagrangian("cart", (x,), mass * xd**2 / 2, velocities=(xd,), forces=(F,),
                                   parameters=(systems.Parameter(mass, m, "kg"), systems.Parameter(F, 0.0, "N")),
                                   default_p=(0,), default_v=(0,))


def _ring(m=2.0, L=0.5):
    """A bead of mass m on a ring of radius L in Cartesian coordinates (no gravity), turned by a
    torque tau about the centre: Phi = x^2 + y^2 - L^2, embedding (L cos th, L sin th)."""
    x, y, xd, yd, tau, mass, length = sp.symbols("x y x_dot y_dot tau m L", real=True)
    th = sp.Symbol("th", real=True)
    emb = systems.Embedding(coordinates=(th,), g=sp.Matrix([length * sp.cos(th), length * sp.sin(th)]),
                            inverse=sp.Matrix([sp.atan2(y, x)]))
    return systems.from_lagrangian(
        "ring", (x, y), mass * (xd**2 + yd**2) / 2, velocities=(xd, yd),
        forces=(-tau * y / length**2, tau * x / length**2), holonomic=[("ring force", (x**2 + y**2 - length**2) / 2)],
        parameters=(systems.Parameter(mass, m, "kg"), systems.Parameter(length, L, "m"),
                    systems.Parameter(tau, 0.0, "N m")), default_p=(L, 0), default_v=(0, 0), embedding=emb)


def test_rest_to_rest_move_matches_the_closed_form():
    # min int F^2 dt, x: 0 -> D in T at rest: F = 6 m D / T^2 (1 - 2 t / T), cost 12 m^2 D^2 / T^3
    m, D, T = 2.0, 1.0, 1.5
    exact = 12 * m**2 * D**2 / T**3
    cart = _cart(m)
    run = dict(initial={"x": 0.0, "x_dot": 0.0}, final={"x": D, "x_dot": 0.0}, inputs=["F"])
    hs = formulations.optimal_control(cart, "minimal", (0.0, T), nodes=8, scheme="hermite-simpson", **run)
    assert hs.success and hs.resimulation.largest_miss < 1e-8
    assert hs.cost == pytest.approx(exact, rel=1e-9)     # cubic x, linear F: Hermite-Simpson is exact
    assert np.allclose(hs.input("F"), 6 * m * D / T**2 * (1 - 2 * hs.t / T), atol=1e-7)
    written = formulations.optimal_control(cart, "minimal", (0.0, T), nodes=8, scheme="hermite-simpson",
                                           cost="F**2 + 0 * x_dot", check=False, **run)
    assert written.cost == pytest.approx(exact, rel=1e-9)     # the same integrand, given as an expression
    errors = [abs(formulations.optimal_control(cart, "dependent", (0.0, T), nodes=N, **run).cost - exact)
              for N in (8, 16, 32)]
    assert 3.5 < errors[0] / errors[1] < 4.5 and 3.5 < errors[1] / errors[2] < 4.5   # trapezoidal: order 2


@pytest.mark.parametrize("formulation", ALL)
def test_rest_to_rest_turn_on_a_holonomic_ring(formulation):
    # the ring's angle is a double integrator with J = m L^2: cost 12 J^2 Theta^2 / T^3 = 12 m^2 L^4 Theta^2 / T^3.
    # In the angle (reduced, minimal) the states are cubic and Hermite-Simpson is exact; in x, y they are not
    m, L, angle, T = 2.0, 0.5, 1.0, 2.0
    ring = _ring(m, L)
    res = formulations.optimal_control(ring, formulation, (0.0, T), initial={"x": L, "y": 0.0, "x_dot": 0.0,
                                                                            "y_dot": 0.0},
                                       final={"x": L * math.cos(angle), "y": L * math.sin(angle), "x_dot": 0.0,
                                              "y_dot": 0.0},
                                       inputs=["tau"], nodes=16, scheme="hermite-simpson")
    assert res.status == Status.SUCCESS, res.message
    exact = formulation in ("reduced", "minimal")
    assert res.cost == pytest.approx(12 * m**2 * L**4 * angle**2 / T**3, rel=1e-9 if exact else 1e-3)
    assert res.resimulation.largest_miss < (1e-8 if exact else 1e-5) * res.resimulation.scale
    if formulation != "dependent+none":   # on the circle at every mesh node (midpoints: collocation error)
        x, y = res.p[::2].T
        assert np.max(np.abs(x**2 + y**2 - L**2)) < 1e-10
    assert ("ring force" in res.multiplier_names) == formulation.startswith("dependent")


def test_knife_edge_parking_is_the_same_problem_in_every_formulation():
    seed = formulations.optimal_control("knife_edge", "minimal", (0.0, 2.0), nodes=20, scheme="hermite-simpson",
                                        check=False, **KNIFE)
    assert seed.success
    costs, sizes = {}, {}
    for formulation in registry.having("optimal control"):
        res = formulations.optimal_control("knife_edge", formulation, (0.0, 2.0), nodes=20, scheme="hermite-simpson",
                                           guess=seed, check=False, **KNIFE)
        assert res.success, res.message
        costs[formulation], sizes[formulation] = res.cost, res.stats.variables
    assert costs["dependent"] == pytest.approx(costs["reduced"], rel=1e-8)   # m = 0: the same equations
    assert costs["minimal"] == pytest.approx(costs["dependent"], rel=1e-4)
    assert sizes["minimal"] < sizes["reduced"]      # the minimal NLP is the smaller one


def test_knife_edge_costs_converge_at_hermite_simpson_order_and_the_inputs_reach_the_target():
    runs = {}
    guess = None
    for N in (20, 40, 140):
        runs[N] = formulations.optimal_control("knife_edge", "dependent", (0.0, 2.0), nodes=N,
                                               scheme="hermite-simpson", guess=guess, check=N == 140, **KNIFE)
        guess = runs[N]
        assert runs[N].success
    ratio = abs(runs[20].cost - runs[140].cost) / abs(runs[40].cost - runs[140].cost)
    assert ratio > 8          # 16 for order 4 against an exact reference; 10 measured against N = 140
    fine = runs[140]
    assert fine.resimulation.largest_miss < 1e-6 * fine.resimulation.scale
    assert np.max(np.abs(fine.state("phi"))) <= 1.2 + 1e-6         # the path bound holds


def _hand_written_knife_edge(N, T=2.0, start=None):
    """The parking problem transcribed by hand (Hermite-Simpson, separated) on the knife edge's
    equations in the forward speed s along the blade: x' = s cos phi, y' = s sin phi,
    m s' = F + m g sin(alpha) cos(phi), J omega' = tau (Bloch 2003, section 1.6). start: a solution
    on the same 2N + 1 points to start IPOPT from (default: y along a straight line, the rest 0)."""
    ca = casadi
    m, J, g, alpha = 1.0, 0.1, 9.81, 0.3

    def rate(z, u):
        x, y, phi, s, w = (z[i] for i in range(5))
        return ca.vertcat(s * ca.cos(phi), s * ca.sin(phi), w, (u[0] + m * g * ca.sin(alpha) * ca.cos(phi)) / m,
                          u[1] / J)
    Z = [ca.SX.sym(f"z{k}", 5) for k in range(2 * N + 1)]
    U = [ca.SX.sym(f"u{k}", 2) for k in range(2 * N + 1)]
    h, g_, J_ = T / N, [], 0
    for k in range(0, 2 * N, 2):
        f0, fm, f1 = rate(Z[k], U[k]), rate(Z[k + 1], U[k + 1]), rate(Z[k + 2], U[k + 2])
        g_ += [Z[k + 1] - (Z[k] + Z[k + 2]) / 2 - h / 8 * (f0 - f1), Z[k + 2] - Z[k] - h / 6 * (f0 + 4 * fm + f1)]
        J_ += h / 6 * (ca.sumsqr(U[k]) + 4 * ca.sumsqr(U[k + 1]) + ca.sumsqr(U[k + 2]))
    g_ += [Z[0], Z[-1] - ca.DM([0, 1, 0, 0, 0])]
    w = ca.vertcat(*Z, *U)
    lb = np.concatenate([np.tile([-np.inf, -np.inf, -1.2, -np.inf, -np.inf], 2 * N + 1), np.full(2 * (2 * N + 1), -np.inf)])
    solver = ca.nlpsol("hand", "ipopt", {"x": w, "f": J_, "g": ca.vertcat(*g_)},
                       {"ipopt.print_level": 0, "print_time": False, "ipopt.sb": "yes", "ipopt.tol": 1e-10})
    guess = np.zeros(w.shape[0])
    guess[1:5 * (2 * N + 1):5] = np.linspace(0, 1, 2 * N + 1)
    if start is not None:
        phi = start.state("phi")
        speed = start.state("x_dot") * np.cos(phi) + start.state("y_dot") * np.sin(phi)
        states = np.column_stack([start.state("x"), start.state("y"), phi, speed, start.state("phi_dot")])
        guess = np.concatenate([states.ravel(), start.inputs.ravel()])
    out = solver(x0=guess, lbx=lb, ubx=-lb, lbg=0, ubg=0)
    return float(out["f"]), solver.stats()["return_status"]


def test_an_independent_transcription_finds_the_same_optimum():
    # started from pfaff's solution so that both polish the same local optimum (an NLP guarantees
    # no more); the hand-written equations and coordinates are the independent part
    N = 40
    ours = formulations.optimal_control("knife_edge", "minimal", (0.0, 2.0), nodes=N, scheme="hermite-simpson",
                                        check=False, **KNIFE)
    assert ours.success
    theirs, status = _hand_written_knife_edge(N, start=ours)
    assert status == "Solve_Succeeded"
    assert ours.cost == pytest.approx(theirs, rel=2e-4)   # different coordinates, each within ~1e-4 of the limit


@pytest.mark.parametrize("resistance", [0.0, 0.02])
def test_rolling_disc_moved_sideways_by_its_torques(resistance):
    """With rolling resistance (a moment proportional to the normal force: non-ideal rows) the
    reduced and minimal transcriptions carry every multiplier and meet the dependent one's."""
    disc = systems.load("rolling_disc").with_parameters(rolling_resistance=resistance)
    p, v = disc.family("rolling").state(disc, spin=5.0)
    initial = dict(zip(disc.coordinate_names, p)) | dict(zip(disc.velocity_names, v))
    final = {"y": 0.5, "psi": 0.0, "theta": 0.0, "omega_1": 0.0, "omega_3": 0.0, "omega_2": 5.0}
    runs = {}
    for formulation in registry.having("optimal control"):
        res = formulations.optimal_control(disc, formulation, (0.0, 2.0), initial, final,
                                           ["tau_drive", "tau_steer"], nodes=24, scheme="hermite-simpson")
        assert res.converged, res.message
        runs[formulation] = res
        assert res.resimulation.largest_miss < 2e-3 * res.resimulation.scale   # spin, lean rates: order 4 in h
    dependent = runs["dependent"]
    for formulation in ("reduced", "minimal"):
        assert runs[formulation].cost == pytest.approx(dependent.cost, rel=1e-4)
        if resistance:
            assert runs[formulation].multiplier_names == dependent.multiplier_names == disc.constraint_names
            scale = np.max(np.abs(dependent.multipliers))
            assert np.max(np.abs(runs[formulation].multipliers - dependent.multipliers)) < 2e-4 * scale


def test_minimum_time_with_a_bounded_force_is_bang_bang():
    # |F| <= F_max, x: 0 -> D at rest: T* = 2 sqrt(m D / F_max)
    m, D, F_max = 2.0, 1.0, 4.0
    res = formulations.optimal_control(_cart(m), "minimal", (0.0, 1.0), {"x": 0.0, "x_dot": 0.0},
                                       {"x": D, "x_dot": 0.0}, [f"F:{-F_max}:{F_max}"], cost="time", free_time=True,
                                       nodes=40, check=False)
    assert res.success
    assert res.cost == pytest.approx(2 * math.sqrt(m * D / F_max), rel=2e-3) and res.t[-1] == pytest.approx(res.cost)
    assert np.all(np.abs(res.input("F")) <= F_max + 1e-7)


def test_path_bounds_on_a_multiplier_hold_and_are_refused_where_none_is_carried():
    ring = _ring()
    args = dict(initial={"x": 0.5, "y": 0.0, "x_dot": 0.0, "y_dot": 0.0},
                final={"x": 0.0, "y": 0.5, "x_dot": 0.0, "y_dot": 0.0}, inputs=["tau"], nodes=10,
                scheme="hermite-simpson", check=False)
    free = formulations.optimal_control(ring, "dependent", (0.0, 1.0), **args)
    bound = 0.8 * float(np.max(np.abs(free.multipliers[:, 0])))
    held = formulations.optimal_control(ring, "dependent", (0.0, 1.0), path={"ring force": (-bound, bound)}, **args)
    assert held.success and np.max(np.abs(held.multipliers[:, 0])) <= bound + 1e-7 and held.cost > free.cost
    with pytest.raises(ArgumentError, match="carries no multipliers"):
        formulations.optimal_control(ring, "minimal", (0.0, 1.0), path={"ring force": (-bound, bound)}, **args)


def test_mesh_refinement_on_request_brings_every_interval_below_the_tolerance():
    res = formulations.optimal_control(_cart(), "dependent", (0.0, 1.0), {"x": 0.0, "x_dot": 0.0},
                                       {"x": 1.0, "x_dot": 0.0}, ["F"], nodes=4, mesh_tol=1e-4, check=False)
    assert res.success and np.max(res.interval_errors) <= 1e-4
    assert len(res.t) - 1 > 4 and len(res.interval_errors) == len(res.t) - 1


def test_simulate_takes_inputs_as_samples_and_as_feedback():
    m = 2.0
    cart = _cart(m)
    form = formulations.create("minimal", cart)
    t = np.linspace(0.0, 1.0, 11)
    ramp = form.simulate((0.0, 1.0), ([0.0], [0.0]), rtol=1e-12, atol=1e-12, inputs={"F": (t, 3.0 * t)})
    assert ramp.p[-1][0] == pytest.approx(3.0 / (6 * m), rel=1e-9)         # x = F' t^3 / (6 m)
    assert ramp.status == Status.SUCCESS and ramp.settings["inputs"] == ("F",)
    k = 0.7
    damped = form.simulate((0.0, 1.0), ([0.0], [1.0]), rtol=1e-12, atol=1e-12,
                           inputs={"F": lambda time, p, v: -k * v[0]})
    assert damped.v[-1][0] == pytest.approx(math.exp(-k / m), rel=1e-9)   # m v' = -k v
    plain = form.simulate((0.0, 1.0), ([0.0], [1.0]), rtol=1e-12, atol=1e-12)
    assert plain.v[-1][0] == pytest.approx(1.0) and "inputs" not in plain.settings


@pytest.mark.parametrize("inputs, match", [
    ({"G": ([0, 1], [0, 0])}, "'G'"),
    ({"m": ([0, 1], [1, 1])}, "does not enter only the forces"),
    ({"F": ([0, 0.5], [0, 0])}, "does not cover t_span"),
    ({"F": ([0, 1, 0.5], [0, 0, 0])}, "not increasing"),
    ({"F": "fast"}, "expected \\(times, values\\)"),
])
def test_simulate_refuses_bad_inputs(inputs, match):
    form = formulations.create("minimal", _cart())
    with pytest.raises((ArgumentError, UnknownNameError), match=match):
        form.simulate((0.0, 1.0), ([0.0], [0.0]), inputs=inputs)


@pytest.mark.parametrize("change, error, match", [
    (dict(inputs=["push"]), UnknownNameError, "'push'"),
    (dict(inputs=["alpha"]), None, None),      # the slope enters f only: a legitimate input
    (dict(final={"z": 1.0}), UnknownNameError, "'z'"),
    (dict(inputs=["F:2:1"]), ArgumentError, "lo < hi"),
    (dict(cost="time"), ArgumentError, "free_time=True"),
    (dict(cost="F**2 + speed"), ArgumentError, "unknown names \\['speed'\\]"),
    (dict(path={"phi": (0.5, 1.0)}), ArgumentError, "exclude the initial value"),
    (dict(nodes=1), ArgumentError, "nodes"),
    (dict(starts=0), ArgumentError, "starts=0"),
    (dict(starts=2, budget=-1.0), ArgumentError, "budget=-1.0"),
    (dict(scheme="euler"), UnknownNameError, "euler"),
    (dict(formulation="manifold"), ArgumentError, "formulation='manifold'"),
    (dict(initial=REST | {"y_dot": 1.0}), ArgumentError, "y_dot = 1 does not follow from the others"),
    (dict(initial=REST | {"y_dot": 1.0}, formulation="dependent"), ArgumentError,
     "violate the constraint 'lateral blade force'"),
])
def test_bad_problems_are_named_before_any_solve(change, error, match):
    args = dict(formulation="minimal", initial=REST, final=SIDEWAYS, inputs=["F", "tau"], nodes=4, check=False,
                max_iter=3)
    args.update(change)
    formulation = args.pop("formulation")
    if error is None:
        formulations.optimal_control("knife_edge", formulation, (0.0, 2.0), **args)
        return
    with pytest.raises(error, match=match):
        formulations.optimal_control("knife_edge", formulation, (0.0, 2.0), **args)


def test_unreachable_targets_and_unconverged_solves_say_so():
    cart = _cart()
    weak = formulations.optimal_control(cart, "minimal", (0.0, 1.0), {"x": 0.0, "x_dot": 0.0},
                                        {"x": 10.0, "x_dot": 0.0}, ["F:-0.1:0.1"], nodes=10)
    assert weak.status == Status.FAILED and "did not converge" in weak.message and weak.resimulation is None
    short = formulations.optimal_control("knife_edge", "dependent", (0.0, 2.0), nodes=10, max_iter=2, **KNIFE)
    assert short.status == Status.FAILED and "Maximum_Iterations_Exceeded" in short.message
    assert "failed" in str(short)


@pytest.mark.parametrize("formulation", registry.having("optimal control"))
def test_the_exported_residual_vanishes_on_a_simulated_motion(formulation):
    # a driven run of the rolling disc (numpy backend), its own states and rates fed to the export
    from formulations.control.export import implicit_residual

    disc = systems.load("rolling_disc")
    drive = {"tau_drive": lambda t, p, v: 0.2 * math.sin(t), "tau_steer": lambda t, p, v: 0.05}
    form = formulations.create(formulation, disc, backend="numpy")
    traj = form.simulate((0.0, 1.0), rtol=1e-10, atol=1e-10, inputs=drive)
    residual = implicit_residual(disc, formulation, inputs=list(drive), parameters="values")
    F = residual.casadi_functions()["F"]
    for k in (3, len(traj.t) // 2, len(traj.t) - 1):
        t, y, p, v = traj.t[k], traj.state[k], traj.p[k], traj.v[k]
        r = [drive[name](t, p, v) for name in residual.names["r"]]
        form.inputs = formulations.inputs.InputSchedule(disc, drive)
        ydot, _, lam = form.accelerations(t, y)
        form.inputs = None
        carried = [lam[disc.constraint_names.index(name)] for name in residual.names["lambda"]]
        value = np.array(F(ydot, y, carried, r, [])).ravel()
        assert np.max(np.abs(value)) < 1e-8, (formulation, k, value)


def test_the_sympy_residual_is_the_description_and_its_jacobians_are_sparse():
    from formulations.control.export import implicit_residual

    knife = systems.load("knife_edge")
    residual = implicit_residual(knife, "dependent", inputs=["F", "tau"])
    symbol = {par.name: par.symbol for par in knife.parameters}
    phi = knife.coordinates[2]
    assert residual.jacobian("r") == sp.Matrix([[0, 0], [0, 0], [0, 0], [-sp.cos(phi), 0], [-sp.sin(phi), 0],
                                                [0, -1], [0, 0]])
    assert residual.pattern("lambda") == [(3, 0), (4, 0)]            # the blade force acts on x and y only
    assert residual.names["par"] == ("m", "J", "g", "alpha") and symbol["m"] in residual.symbols["par"]
    three = implicit_residual(knife, "dependent", inputs=["F", "tau"], form="index-3")
    assert three.F[-1] == sp.sin(phi) * knife.velocities[0] - sp.cos(phi) * knife.velocities[1]
    with pytest.raises(ArgumentError, match="index-3 form is that of the dependent"):
        implicit_residual(knife, "minimal", form="index-3")


@pytest.mark.xdist_group("compiled")
def test_simulate_with_inputs_agrees_on_both_backends():
    knife = systems.load("knife_edge")
    drive = {"F": ([0.0, 1.0, 2.0], [1.0, -0.5, 0.3]), "tau": lambda t, p, v: 0.2 * math.cos(3 * t) - 0.1 * v[2]}
    runs = {backend: formulations.create("dependent", knife, backend=backend).simulate(
        (0.0, 2.0), rtol=1e-11, atol=1e-11, t_eval=np.linspace(0.0, 2.0, 5), inputs=drive)
        for backend in ("numpy", "compiled")}
    assert runs["compiled"].stats.backend == "compiled"
    assert np.allclose(runs["compiled"].p, runs["numpy"].p, atol=1e-9)
    assert np.allclose(runs["compiled"].reactions["lateral blade force"], runs["numpy"].reactions["lateral blade force"],
                       atol=1e-8)


def test_pfaff_optimize_prints_the_table_and_writes_the_report(tmp_path, capsys):
    from formulations.workbench.cli.main import main

    args = ["optimize", "knife_edge", "--from", "x=0", "y=0", "phi=0", "x_dot=0", "y_dot=0", "phi_dot=0",
            "--to", "x=0", "y=0.2", "phi=0", "x_dot=0", "y_dot=0", "phi_dot=0", "--inputs", "F", "tau:-5:5",
            "--path", "phi:-1:1", "--t-end", "2", "--nodes", "10", "--formulation", "minimal",
            "--formulation", "dependent"]
    assert main(args + ["--out", str(tmp_path / "report")]) in (0, 1)
    out = capsys.readouterr().out
    assert "| minimal |" in out and "| dependent+projection |" in out
    written = {p.name for p in (tmp_path / "report").iterdir() if not p.name.startswith(".")}
    assert written == {"report.md", "solutions.json", "minimal.png", "dependent_projection.png"}
    assert main(args[:-4] + ["--json"]) in (0, 1)
    import json
    record = json.loads(capsys.readouterr().out)
    assert record["table"][0]["formulation"] == "minimal" and len(record["solutions"][0]["t"]) == 21
    assert main(args[:-2] + ["--starts", "2", "--seed", "3"]) in (0, 1)
    assert re.search(r"minimal: local optimum [0-9.]+ reached from [12] starts?; x in \[",
                     capsys.readouterr().out)
    for bad, match in ((["--to", "y=abc"], "--to takes NAME=VALUE"), (["--path", "phi"], "--path takes NAME:LO:HI"),
                       (["--inputs", "push"], "'push'"), (["--t-end", "soon"], "--t-end takes")):
        assert main(args[:2] + ["--inputs", "F"] + bad) == 2
        assert match in capsys.readouterr().err


@pytest.mark.parametrize("heading", [0.3, 1.2, 2.0])
def test_minimal_and_its_transcription_choose_the_same_velocities(heading):
    """One pivoting rule (systems.dependent_rows.velocity_partition): the minimal formulation's
    choice of u at a state and optimal control's at the same first node agree, on either side of
    the heading where the sleigh's partition turns singular."""
    from formulations.control.model import build

    sleigh = systems.load("chaplygin_sleigh")
    p, v = sleigh.default_state()
    p = p.copy()
    p[sleigh.coordinate_names.index("theta")] = heading
    p, v = sleigh.consistent_state(p, v)
    form = formulations.create("minimal", sleigh, backend="numpy")
    form.prepare(p, v)
    model = build(sleigh, "minimal", (), q_guess=p)
    assert model.note.startswith(f"u = ({', '.join(form.choice)})"), (model.note, form.choice)


def test_a_guess_off_the_boundary_values_is_accepted_by_every_formulation():
    """The guess ends 10 cm, 0.6 rad and some speed away from the target: which boundary conditions
    are independent is decided at the boundary values (the state nearest the guess that meets them),
    not at the guess, and every formulation reaches the optimum of the guess that meets them."""

    seed = formulations.optimal_control("knife_edge", "minimal", (0.0, 2.0), nodes=20, scheme="hermite-simpson",
                                        check=False, **KNIFE)
    names = systems.load("knife_edge").coordinate_names
    ramp = np.linspace(0.0, 1.0, seed.p.shape[0])
    p, v = seed.p.copy(), seed.v.copy()
    p[:, names.index("y")] += 0.1 * ramp
    p[:, names.index("phi")] += 0.6 * ramp
    v[:, 0] += 0.05 * ramp
    v[:, 1] += 0.03 * ramp
    off = dataclasses.replace(seed, p=p, v=v)
    for formulation in ("dependent", "reduced", "minimal"):
        res = formulations.optimal_control("knife_edge", formulation, (0.0, 2.0), nodes=20, scheme="hermite-simpson",
                                           guess=off, check=False, **KNIFE)
        assert res.status == 0, res.message
        assert res.cost == pytest.approx(seed.cost, rel=1e-4)


def test_an_optimum_across_the_minimal_formulations_singular_set_is_solved_in_the_systems_speeds():
    """Without a heading bound the best parking manoeuvre turns the blade past 90 degrees, where
    u = (x_dot, phi_dot) is singular: the minimal formulation solves it again in the speeds the knife
    edge declares (forward speed, turning rate) and says so; from that solution as a guess the dependent
    formulation finds the same optimum. Without declared speeds it hands the problem to the dependent
    formulation."""
    free = dict(initial=REST, final=SIDEWAYS, inputs=["F", "tau"])
    minimal = formulations.optimal_control("knife_edge", "minimal", (0.0, 2.0), nodes=40, scheme="hermite-simpson",
                                           check=False, **free)
    assert minimal.status == 0, minimal.message
    assert "forward_speed, turning_rate" in minimal.note and "(x_dot, phi_dot) is singular" in minimal.note
    assert np.max(np.abs(minimal.p[:, 2])) > np.pi / 2
    dependent = formulations.optimal_control("knife_edge", "dependent", (0.0, 2.0), nodes=40,
                                             scheme="hermite-simpson", check=False, guess=minimal, **free)
    assert dependent.status == 0 and minimal.cost == pytest.approx(dependent.cost, rel=1e-4)
    bare = dataclasses.replace(systems.load("knife_edge"), speeds={})
    fallback = formulations.optimal_control(bare, "minimal", (0.0, 2.0), nodes=40, scheme="hermite-simpson",
                                            check=False, **free)
    if "solved in the dependent formulation" in fallback.note:  # the optimum it found turns past 90 degrees
        assert "singular" in fallback.note and fallback.status == 0
    else:  # an optimum the minimal formulation reached on its own never crosses the singular heading
        assert np.max(np.abs(fallback.p[:, 2])) < np.pi / 2


def test_the_default_guess_leads_every_formulation_to_the_same_optimum():
    """Parked beside where it starts, with the same heading and no heading bound: the straight line
    between the ends keeps the heading (a symmetric guess from which no sideways move is possible);
    the default guess's bumps leave it, and every formulation reaches the same optimum, which turns
    the blade past 90 degrees (the minimal formulation in the declared speeds)."""
    free = dict(initial=REST, final=SIDEWAYS, inputs=["F", "tau"], nodes=40, scheme="hermite-simpson", check=False)
    results = {name: formulations.optimal_control("knife_edge", name, (0.0, 2.0), **free) for name in ALL}
    assert all(res.status == 0 for res in results.values()), {k: r.message for k, r in results.items()}
    best = results["dependent"].cost
    assert all(res.cost == pytest.approx(best, rel=1e-4) for res in results.values()), \
        {k: r.cost for k, r in results.items()}
    assert all(np.max(np.abs(res.p[:, 2])) > np.pi / 2 for res in results.values())


def _turning_ball():
    """A ball (inertia I = 2 kg m^2 about every axis) held by Euler parameters, turned by three torques."""
    from systems.builders.rigid_body import RigidBody, from_rigid_bodies
    from systems.builders.rotations import quaternion_rates_world_matrix

    e = sp.symbols("e0:4", real=True)
    omega = sp.symbols("omega_x omega_y omega_z", real=True)
    inertia = sp.Symbol("I", positive=True)
    tau = sp.symbols("tau_x tau_y tau_z", real=True)
    body = RigidBody("ball", 1, inertia * sp.eye(3), sp.Matrix([0, 0, 0]), angular_velocity=sp.Matrix(omega),
                     axes="world", torque=sp.Matrix(tau))
    return systems.from_rigid_bodies(
        "turning_ball", e, omega, quaternion_rates_world_matrix(e), [body],
        parameters=[systems.Parameter(inertia, 2.0, "kg m^2", "moment of inertia")]
        + [systems.Parameter(t, 0.0, "N m", "torque (an input)") for t in tau],
        default_p=(1, 0, 0, 0), default_v=(0, 0, 0), unit_norm_blocks=((0, 1, 2, 3),))


@pytest.mark.parametrize("formulation", ALL + ("reduced+none",))
def test_a_rest_to_rest_turn_in_euler_parameters_is_the_eigenaxis_turn(formulation):
    """Turned by 90 degrees about z in T = 2 s at least torque effort: the turn about the fixed axis with
    the angle (pi / 2) (3 s^2 - 2 s^3), cost 12 I^2 theta^2 / T^3; the quaternion stays unit at every point."""
    still = {"omega_x": 0.0, "omega_y": 0.0, "omega_z": 0.0}
    upright = {"e0": 1.0, "e1": 0.0, "e2": 0.0, "e3": 0.0} | still
    turned = {"e0": math.cos(math.pi / 4), "e1": 0.0, "e2": 0.0, "e3": math.sin(math.pi / 4)} | still
    turn = formulations.optimal_control(_turning_ball(), formulation, (0.0, 2.0), upright, turned,
                                        ["tau_x", "tau_y", "tau_z"], nodes=20, scheme="hermite-simpson")
    assert turn.status == 0, turn.message
    assert turn.cost == pytest.approx(12 * 2.0**2 * (math.pi / 2) ** 2 / 2.0**3, rel=1e-5)
    assert np.max(np.abs(turn.inputs[:, :2])) < 1e-6  # about z only
    s = turn.t / 2.0
    assert np.max(np.abs(2 * np.arctan2(turn.p[:, 3], turn.p[:, 0]) - math.pi / 2 * (3 * s**2 - 2 * s**3))) < 1e-4
    if formulation != "dependent+none":  # projected: unit at the mesh nodes; the midpoints to the collocation error
        assert np.max(np.abs(np.linalg.norm(turn.p, axis=1) - 1)) < 1e-5


@pytest.mark.slow
@pytest.mark.parametrize("formulation", ("dependent", "reduced", "minimal"))
def test_the_sphere_in_the_cylinder_collocated_is_its_simulated_motion(formulation):
    """Euler parameters through an embedding, with nonholonomic rows: with the only 'input' (gravity)
    held by its bounds, the collocated motion over 0.1 s is the simulated one."""
    sphere = systems.load("sphere_in_cylinder")
    p0, v0 = sphere.default_state()
    start = dict(zip(sphere.coordinate_names, p0)) | dict(zip(sphere.velocity_names, v0))
    run = formulations.optimal_control(sphere, formulation, (0.0, 0.1), start, {}, {"g": (9.81, 9.81 + 1e-7)},
                                       nodes=20, scheme="hermite-simpson", check=False)
    truth = formulations.create("dependent", sphere, backend="numpy").simulate((0.0, 0.1), (p0, v0), rtol=1e-12,
                                                                                 atol=1e-12)
    assert run.status == 0 and np.max(np.abs(run.p[-1] - truth.p[-1])) < 1e-6


def test_several_starts_return_the_best_and_the_local_optima_they_reached():
    """From the default guess and two perturbed ones: the best is at least as good as the single
    start, and the result lists the optima the starts reached, with their counts."""
    one = formulations.optimal_control("knife_edge", "dependent", (0.0, 2.0), nodes=20, scheme="hermite-simpson",
                                       check=False, **KNIFE)
    best = formulations.optimal_control("knife_edge", "dependent", (0.0, 2.0), nodes=20, scheme="hermite-simpson",
                                        check=False, starts=3, seed=1, **KNIFE)
    assert best.status == 0 and best.cost <= one.cost * (1 + 1e-9)
    # the first start converges (it is the single start above); a perturbed one may not
    assert 1 <= sum(count for _, count, _ in best.optima) <= 3 and best.optima[0][0] == pytest.approx(best.cost)
    assert "local optimum" in str(best) and "phi in [" in best.optima[0][2]
    # a budget spent by the first solve: no other start begins, and the message says so
    spent = formulations.optimal_control("knife_edge", "dependent", (0.0, 2.0), nodes=20, scheme="hermite-simpson",
                                         check=False, starts=3, budget=1e-9, **KNIFE)
    assert spent.cost == one.cost and "1 of 3 starts within the budget" in spent.message
    assert [count for _, count, _ in spent.optima] == [1]


def _phi_range(description):
    low, high = description.split("phi in [")[1].split("]")[0].split(", ")
    return float(low), float(high)


def _mirrored(res):
    """The image of a parking solution under t -> T - t, y -> 0.5 - y, phi -> -phi: x_dot changes
    sign, y_dot and phi_dot keep it; F keeps its sign and tau changes it (the blade's direction is
    mirrored)."""
    p, v, u = res.p[::-1].copy(), res.v[::-1].copy(), res.inputs[::-1].copy()
    p[:, 1], p[:, 2], v[:, 0], u[:, 1] = 0.5 - p[:, 1], -p[:, 2], -v[:, 0], -u[:, 1]
    return dataclasses.replace(res, p=p, v=v, inputs=u)


def test_several_starts_list_the_mirror_image_optimum_apart_with_the_same_cost():
    """Parked beside where it starts, the knife edge's problem maps onto itself under t -> T - t,
    y -> 0.5 - y, phi -> -phi (the blade's rows and gravity down the slope are unchanged by it), so
    an optimum that turns the blade one way has an image that turns it the other way, at the same
    cost. Without projection slacks (placed at the end of each interval, not symmetric in time) the
    transcription keeps that symmetry: solved from the mirrored optimum it gives the image at the same
    cost to 1e-9, which multi-start tells apart from the optimum (another path). Which images the
    random starts reach depends on the solver's path; those listed with the best cost are images."""
    problem = dict(initial=REST, final=SIDEWAYS | {"y": 0.5}, inputs=["F", "tau"], nodes=40, scheme="hermite-simpson",
                   check=False)
    res = formulations.optimal_control("knife_edge", "dependent+none", (0.0, 2.0), starts=8, seed=0, **problem)
    assert res.status == 0
    image = formulations.optimal_control("knife_edge", "dependent+none", (0.0, 2.0), guess=_mirrored(res), **problem)
    assert image.status == 0 and image.cost == pytest.approx(res.cost, rel=1e-9)
    assert np.max(np.abs(image.p - _mirrored(res).p)) < 1e-6
    assert max(abs(np.min(res.p[:, 2])), abs(np.max(res.p[:, 2]))) > np.pi / 2  # turned past 90 degrees
    from formulations.control.solve import _same_cost, _same_optimum
    assert _same_cost(res, image) and not _same_optimum(res, image)   # listed apart, at the same cost
    best = [o for o in res.optima if o[0] == pytest.approx(res.cost, rel=1e-9)]
    assert 1 <= len(best) <= 2, res.optima
    if len(best) == 2:
        (low_a, high_a), (low_b, high_b) = (_phi_range(o[2]) for o in best)
        assert low_a == pytest.approx(-high_b, abs=2e-3) and high_a == pytest.approx(-low_b, abs=2e-3)
        assert "on another path" in best[1][2] and "on another path" not in best[0][2]
