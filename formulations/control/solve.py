"""formulations.optimal_control: direct collocation of a formulation's own equations, solved by IPOPT."""
from __future__ import annotations

import dataclasses
import time

import numpy as np

from systems.catalogue import as_system
from systems.errors import ArgumentError
from systems.state import normalize_blocks

from ..results.optimal_control import ControlStats, OptimalControlResult
from ..results.status import Status
from ..dependent import Dependent
from ..errors import CapabilityError
from ..minimal import Minimal
from .bridge import casadi
from .check import interval_errors, with_resimulation
from .model import _base_name, build, expression_function
from .problem import problem
from .transcription import transcribe

_CONVERGED = ("Solve_Succeeded", "Solved_To_Acceptable_Level")
OPTIMUM_TOL = 1e-6  # costs within this share of each other ...
PATH_TOL = 1e-3     # ... and coordinates within this share of their size: the same local optimum
SINGULAR_CHOICE = "the minimal formulation's choice"  # the message of an optimum that crosses its singular set


def optimal_control(system, formulation, t_span, initial=None, final=None, inputs=(), cost="effort", *,
                    path=None, nodes=40, scheme="trapezoidal", free_time=False, t1_bounds=None, guess=None,
                    independent=None, tol=1e-10, max_iter=1000, check=True, check_rtol=1e-10, mesh_tol=None,
                    max_nodes=640, starts=1, seed=0, budget=None):
    """Inputs that move ``system`` from ``initial`` to ``final`` at least ``cost``: direct collocation, by IPOPT.

    Parameters
    ----------
    system : System or str
        The system, or a catalogue name.
    formulation : str
        "dependent" (= "dependent+projection": the rows at every mesh node, slack multipliers keeping the
        collocated motion on them), "dependent+none" (index 1, the rows at t0 only, their drift reported), "reduced"
        (= "reduced+projection"), "reduced+none" or "minimal" (where the optimum crosses the singular set of its
        velocities, it is solved in the r speeds the system declares, ``System.speeds``, unless ``independent`` is
        given, else in the dependent formulation; ``note`` says so).
    independent : list, optional
        The minimal formulation's velocities: names of velocities or of the speeds the system declares, or
        expressions linear in v (quasi-velocities u = Y(p) v) (default: the system's choice, else pivoting).
    t_span, free_time, t1_bounds : tuple of float, bool, and tuple of float
        (t0, t1) in s; with free_time=True (default False) t1 is free, the given one its first guess, t1 - t0 within
        t1_bounds, (lo, hi) in s (default: from (t1 - t0) / 100 to 100 (t1 - t0)).
    initial, final : dict
        {name of p or v: value} in its unit; the names not given are free.
    inputs : list of str or dict
        Names of force or torque parameters, "NAME:lo:hi" or {name: (lo, hi)}, in their units (N, N m).
    cost, path : str and dict, optional
        "effort" (default: the integral of the sum of the inputs' squares), "time" or an integrand in the names of
        p, v, the inputs and t; {name of p, v, an input or a carried multiplier (constraint name): (lo, hi)}.
    nodes, scheme : int and str, optional
        Mesh intervals N (default 40); "trapezoidal" (default) or "hermite-simpson".
    guess : Trajectory or OptimalControlResult, optional
        Its states, and inputs, interpolated; None: a straight line between the boundary values (the rest from
        the default state) with a smooth bump on every coordinate, off the symmetries a straight line sits on,
        moved onto Phi = 0; for "minimal", the dependent formulation's optimum from it (``note`` says so).
    tol, max_iter : float and int, optional
        IPOPT's tolerance (default 1e-10) and iteration limit (default 1000).
    check, check_rtol : bool and float, optional
        Re-simulate the optimal inputs with ``simulate`` at rtol ``check_rtol`` (default True, 1e-10) and report the
        miss of the final conditions (``resimulation``); a miss above 1e-3 of the move's size makes the status WARNED.
    mesh_tol, max_nodes : float and int, optional
        Estimate the collocation error of every interval (``interval_errors``, by simulating each) and double the
        mesh, from the last solution, until the largest is below mesh_tol or nodes would pass max_nodes (default
        640; then the status is WARNED).
    starts, seed, budget : int, int and float, optional
        Solve from that many first guesses (default 1), the first as given, the others perturbed from its solution
        (smooth random bumps of 30 % of each coordinate's and velocity's range, the ends kept; ``seed`` for the random
        numbers), and return the best, with ``optima`` listing the distinct local optima found (cost, how many starts
        reached it, the coordinates' ranges along it; equal costs on different paths, such as mirror images, apart);
        a failed first solve is perturbed from its last iterate. No start begins after ``budget`` seconds (default
        None: no limit), and the message then says how many ran.

    Returns
    -------
    OptimalControlResult
        The states and inputs at the collocation points, the cost and the status.

    Examples
    --------
    >>> import formulations  # a knife edge pushed 1 m along its blade in 2 s, from rest to rest, by a force F in N
    >>> rest = {"x": 0.0, "y": 0.0, "phi": 0.0, "x_dot": 0.0, "phi_dot": 0.0}
    >>> res = formulations.optimal_control("knife_edge", "minimal", (0.0, 2.0), rest, {"x": 1.0, "x_dot": 0.0},
    ...                                    inputs=["F"], nodes=8, scheme="hermite-simpson")
    >>> res.status.name, round(res.cost, 6), res.inputs.shape  # cost in N² s
    ('SUCCESS', 18.309019, (17, 1))
    """
    began = time.perf_counter()
    _check_starts(starts, budget)
    system = as_system(system)
    prob = problem(system, t_span, initial, final, inputs, cost, path=path, nodes=nodes, scheme=scheme,
                   free_time=free_time, t1_bounds=t1_bounds)
    formulation, independent, result = _first_solve(system, formulation, prob, guess, independent, tol, max_iter)
    if starts > 1:
        result = _best_of(system, formulation, prob, result, independent, tol, max_iter, int(starts), seed,
                          budget, began)
    if mesh_tol is not None and result.success:
        result = _refined(system, formulation, prob, result, independent, tol, max_iter, float(mesh_tol),
                          int(max_nodes), check_rtol)
    return with_resimulation(result, system, prob, rtol=check_rtol) if check and result.success else result


def _check_starts(starts, budget):
    """ArgumentError unless starts is an int >= 1 and budget None or seconds > 0."""
    if isinstance(starts, bool) or not isinstance(starts, (int, np.integer)) or starts < 1:
        raise ArgumentError(f"optimal_control got starts={starts!r} but expected an int >= 1", "starts")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, (int, float)) or not budget > 0):
        raise ArgumentError(f"optimal_control got budget={budget!r} but expected seconds > 0 or None", "budget")


def _first_solve(system, formulation, prob, guess, independent, tol, max_iter):
    """(formulation, independent, result) of the first solve. Where the minimal formulation's choice
    is singular along its solution, the solve is repeated in the r speeds the system declares (if
    the choice was not given), else in the dependent formulation, and the note says why."""
    seeded, seed = guess is None and _base_name(formulation) == Minimal.name, None
    if seeded:  # the minimal NLP's basins are narrower (its velocities are solved from the rows at every node)
        try:
            seed = _solve(system, Dependent.name, prob, None, None, tol, max_iter)
        except (ArgumentError, CapabilityError):  # the problem's own error comes from its own formulation
            seed = None
        guess = seed if seed is not None and seed.success else None
    first = "; first guess: the dependent formulation's optimum from the default guess" if seeded and guess else ""
    result = _solve(system, formulation, prob, guess, independent, tol, max_iter)
    result = dataclasses.replace(result, note=f"{result.note}{first}".lstrip("; "))
    speeds = tuple(system.speeds)
    if not result.success and SINGULAR_CHOICE in result.message and independent is None and len(speeds) == system.r:
        regular = _solve(system, formulation, prob, guess, speeds, tol, max_iter)  # the system's quasi-velocities
        if regular.success:
            independent, result = speeds, dataclasses.replace(regular, note=(
                f"{regular.note}, the speeds the system declares: by default {_why(result)}{first}"))
    if not result.success and SINGULAR_CHOICE in result.message:  # fall back on the dependent formulation
        fallback = seed if seeded and guess is not None else _solve(system, Dependent.name, prob, guess, None, tol,
                                                                    max_iter)
        if fallback.success:
            formulation, result = Dependent.name, dataclasses.replace(fallback, note=(
                f"solved in the dependent formulation: in {result.formulation!r}, {_why(result)}"))
    return formulation, independent, result


def _why(failed) -> str:
    """What made a minimal solve fail: the singular choice and where, from its message."""
    return failed.message.split(", but ")[-1].split(". Choose")[0]


def _best_of(system, formulation, prob, first, independent, tol, max_iter, starts, seed, budget, began):
    """The best of ``starts`` solves (the first given), within ``budget`` seconds from ``began``, with
    the distinct local optima (docstring of optimal_control)."""
    rng = np.random.default_rng(seed)
    found = [first]
    while len(found) < starts and (budget is None or time.perf_counter() - began < budget):
        found.append(_solve(system, formulation, prob, _perturbed(first, rng), independent, tol, max_iter))
    ran = "" if len(found) == starts else f"; {len(found)} of {starts} starts within the budget of {budget:g} s"
    solved = sorted((r for r in found if r.success), key=lambda r: r.cost)
    if not solved:
        return dataclasses.replace(first, message=f"{first.message}; none of {len(found)} starts converged{ran}")
    optima = []  # [cost, count, description, a solution that reached it]
    for r in solved:
        same = next((o for o in optima if _same_optimum(o[3], r)), None)
        if same is None:
            twin = any(_same_cost(o[3], r) for o in optima)
            optima.append([r.cost, 1, _described(r) + ("; the cost of an optimum above, on another path" if twin else
                                                       ""), r])
        else:
            same[1] += 1
    return dataclasses.replace(solved[0], optima=tuple(tuple(o[:3]) for o in optima),
                               message=solved[0].message + ran)


def _same_optimum(a, b) -> bool:
    """Two solutions on one mesh reached the same local optimum: their costs agree to OPTIMUM_TOL
    and their coordinates to PATH_TOL of the coordinates' size. Equal costs on different paths (a
    mirror image of an optimum, where the problem has a symmetry) are distinct optima."""
    return _same_cost(a, b) and bool(np.max(np.abs(a.p - b.p)) <= PATH_TOL * max(1.0, np.max(np.abs(a.p))))


def _same_cost(a, b) -> bool:
    """The costs of two solutions agree to OPTIMUM_TOL (relative, absolute below 1)."""
    return abs(a.cost - b.cost) <= OPTIMUM_TOL * max(1.0, abs(a.cost))


def _perturbed(result, rng):
    """``result`` with smooth random bumps added to p, v and the inputs, zero at both ends."""
    tau = (result.t - result.t[0]) / max(result.t[-1] - result.t[0], 1e-300)
    modes = np.array([np.sin((k + 1) * np.pi * tau) for k in range(3)])  # (3, K)

    def bumped(values):
        span = np.ptp(values, axis=0) + 0.1 * (1.0 + np.max(np.abs(values), axis=0))
        return values + 0.3 * span * (rng.standard_normal((3, values.shape[1])).T @ modes).T / 3.0

    return dataclasses.replace(result, p=bumped(result.p), v=bumped(result.v), inputs=bumped(result.inputs))


def _described(result) -> str:
    """The ranges of the coordinates along a solution, one line."""
    return ", ".join(f"{name} in [{np.min(result.p[:, i]):.3g}, {np.max(result.p[:, i]):.3g}]"
                     for i, name in enumerate(result.coordinate_names))


def _refined(system, formulation, prob, result, independent, tol, max_iter, mesh_tol, max_nodes, rtol):
    """Double the mesh from the last solution until every interval's error is below mesh_tol."""
    while True:
        errors = interval_errors(result, system, rtol)
        result = dataclasses.replace(result, interval_errors=errors)
        if np.max(errors) <= mesh_tol or not result.success:
            return result
        if 2 * prob.nodes > max_nodes:
            return dataclasses.replace(result, status=Status.WARNED, message=(
                f"{result.message}; the largest collocation error {np.max(errors):.3g} is above mesh_tol = "
                f"{mesh_tol:g} at {prob.nodes} intervals, and {2 * prob.nodes} would pass max_nodes = {max_nodes}"))
        prob = dataclasses.replace(prob, nodes=2 * prob.nodes)
        result = _solve(system, formulation, prob, result, independent, tol, max_iter)


def _solve(system, formulation, prob, guess, independent, tol, max_iter):
    ca = casadi()
    start = time.perf_counter()
    guesser = _Guess(system, prob, guess)
    model = build(system, formulation, prob.inputs, independent, guesser.q_start())
    guesser.attach(model)
    named = _named(system, model)
    trans = _transcribe(system, model, prob, guesser, named)
    solver = ca.nlpsol("optimal_control", "ipopt", trans.nlp,
                       {"ipopt.print_level": 0, "print_time": False, "ipopt.sb": "yes", "ipopt.tol": tol,
                        "ipopt.max_iter": int(max_iter)})
    build_seconds = time.perf_counter() - start
    start = time.perf_counter()
    out = solver(x0=trans.x0, lbx=trans.lbx, ubx=trans.ubx, lbg=trans.lbg, ubg=trans.ubg)
    seconds = time.perf_counter() - start
    return _result(system, model, prob, trans, solver, out, solver.stats(), seconds, build_seconds)


def _transcribe(system, model, prob, guesser, named):
    ca = casadi()
    integrand = _integrand(system, model, prob, ca)
    return transcribe(model, prob, guesser, named, integrand, _path(system, model, prob, ca))


def _named(system, model):
    """(q, s, t) -> {name of p or v: CasADi value}, through the model's map to (p, v)."""
    def named(q, s, t):
        p, v = model.dependent(q, s, t)
        out = {name: p[i] for i, name in enumerate(system.coordinate_names)}
        out.update({name: v[i] for i, name in enumerate(system.velocity_names)})
        return out
    return named


def _integrand(system, model, prob, ca):
    if prob.cost == "time":
        return None
    if prob.cost == "effort":
        return lambda q, s, u, t: ca.sumsqr(u)
    value = expression_function(system, prob.inputs, prob.cost, "cost")

    def integrand(q, s, u, t):
        p, v = model.dependent(q, s, t)
        return value(p, v, u, t)
    return integrand


def _path(system, model, prob, ca):
    """{name: (function (q, s, z, u, t) -> value, lo, hi)} for the path bounds."""
    out = {}
    for name, (lo, hi) in prob.path.items():
        if name in prob.inputs:
            i = prob.inputs.index(name)
            out[name] = (lambda q, s, z, u, t, i=i: u[i], lo, hi)
        elif name in model.carried:
            i = model.carried.index(name)
            out[name] = (lambda q, s, z, u, t, i=i: z[i], lo, hi)
        elif name in system.coordinate_names or name in system.velocity_names:
            out[name] = (lambda q, s, z, u, t, name=name: _named(system, model)(q, s, t)[name], lo, hi)
        else:
            carried = f"; formulation {model.label!r} carries the multipliers {', '.join(model.carried)}" \
                if model.carried else f"; formulation {model.label!r} carries no multipliers: use 'dependent'"
            raise ArgumentError(f"optimal_control got path bounds on {name!r} but expected a name of p, v or an "
                                f"input of {system.name}{carried}", "path")
    return out


BUMP = 0.3  # the default guess's bump on each coordinate, relative to the largest change between the ends


class _Guess:
    """The first guess at a point of the horizon, in the model's own variables. Without a trajectory:
    the straight line between the boundary values (the free ones from the default state) plus a smooth
    bump BUMP sin^2(pi s) on every coordinate, of alternating sign, scaled by the largest change
    between the ends (at least 0.1): a straight line often sits on a symmetry of the problem (a blade parked beside
    where it starts keeps its heading along the line, where no sideways move is possible), from
    which the solver cannot leave."""

    def __init__(self, system, prob, trajectory):
        self.system, self.prob, self.trajectory = system, prob, trajectory
        p, v = system.default_state()
        v = np.zeros_like(v)
        names_p, names_v = system.coordinate_names, system.velocity_names
        self.ends = []
        for conditions in (prob.initial, {**prob.initial, **prob.final}):
            pe, ve = p.copy(), v.copy()
            for name, value in conditions.items():
                if name in names_p:
                    pe[names_p.index(name)] = value
                else:
                    ve[names_v.index(name)] = value
            self.ends.append((pe, ve))
        change = np.max(np.abs(self.ends[1][0] - self.ends[0][0]), initial=0.0)
        self.bump = BUMP * max(change, 0.1) * np.array([(-1.0) ** i for i in range(len(p))])

    def dependent(self, fraction):
        if self.trajectory is not None:
            traj = self.trajectory
            tt = traj.t[0] + fraction * (traj.t[-1] - traj.t[0])
            p = np.array([np.interp(tt, traj.t, traj.p[:, i]) for i in range(traj.p.shape[1])])
            v = np.array([np.interp(tt, traj.t, traj.v[:, i]) for i in range(traj.v.shape[1])])
            return p, v
        (p0, v0), (p1, v1) = self.ends
        p = p0 + fraction * (p1 - p0) + self.bump * np.sin(np.pi * fraction) ** 2
        p = self._on_constraints(p, fraction)
        p_rate = self.bump * np.pi * np.sin(2 * np.pi * fraction) / (self.prob.t1 - self.prob.t0)  # the bump's
        A = np.asarray(self.system.numeric.A(p, self.system.params), float)
        return p, v0 + fraction * (v1 - v0) + np.linalg.lstsq(A, p_rate, rcond=None)[0]

    def _on_constraints(self, p, fraction):
        """p moved onto Phi = 0 through the embedding (p = g(h(p))), where the system has one: a
        straight line in p between the boundary values leaves the constraint manifold."""
        system = self.system
        if system.unit_norm_blocks:  # a straight line between unit quaternions leaves the unit sphere
            p = normalize_blocks(np.array(p, float), system.unit_norm_blocks)
        if not system.m or system.embedding is None:
            return p
        t = self.prob.t0 + fraction * (self.prob.t1 - self.prob.t0)
        return np.asarray(system.numeric.embedding(self._q(p), system.params, t)[0], float).ravel()

    def q_start(self):
        return self._q(self.dependent(0.0)[0])

    def _q(self, p):
        system = self.system
        if not system.m:
            return p
        return np.asarray(system.numeric.inverse(p, system.params, self.prob.t0), float).ravel()

    def attach(self, model):
        ca = casadi()
        nq, ns, _, _ = model.sizes
        q, s, t = ca.SX.sym("q", nq), ca.SX.sym("s", ns), ca.SX.sym("t")
        _, v = model.dependent(q, s, t)
        self.model = model
        self.velocity = ca.Function("velocity", [q, t], [ca.substitute(v, s, ca.DM.zeros(ns)), ca.jacobian(v, s)])
        self.uses_p = model.q_names == self.system.coordinate_names

    def __call__(self, fraction):
        p, v = self.dependent(fraction)
        t = self.prob.t0 + fraction * (self.prob.t1 - self.prob.t0)
        q = p if self.uses_p else self._q(p)
        V0, B = (np.array(x) for x in self.velocity(q, t))
        s = np.linalg.lstsq(B, v - V0.ravel(), rcond=None)[0]
        return q, s, self._inputs(fraction)

    def _inputs(self, fraction):
        """The guessed inputs: those of a previous solution where the guess is one, else 0."""
        source = self.trajectory
        if source is None or not hasattr(source, "input_names"):
            return np.zeros(len(self.prob.inputs))
        tt = source.t[0] + fraction * (source.t[-1] - source.t[0])
        return np.array([np.interp(tt, source.t, source.input(name)) if name in source.input_names else 0.0
                         for name in self.prob.inputs])


def _result(system, model, prob, trans, solver, out, info, seconds, build_seconds):
    x = np.array(out["x"]).ravel()
    g = np.array(out["g"]).ravel()
    T = float(x[trans.duration][0]) if trans.duration is not None else prob.t1 - prob.t0
    t = prob.t0 + trans.fractions * T
    P, V, U, Z = [], [], [], []
    for point, tk in zip(trans.points, t):
        p, v = model.dependent(x[point["q"]], x[point["s"]], tk)
        P.append(np.array(p).ravel()), V.append(np.array(v).ravel())
        U.append(x[point["u"]]), Z.append(x[point["z"]][:len(model.carried)])
    P, V = np.array(P), np.array(V)
    converged = info.get("return_status") in _CONVERGED
    jac = solver.get_function("nlp_jac_g") if hasattr(solver, "get_function") else None
    nnz = int(jac.sparsity_out(1).nnz()) if jac is not None else -1
    stats = ControlStats(int(trans.nlp["x"].shape[0]), int(trans.nlp["g"].shape[0]), nnz,
                         int(info.get("iter_count", -1)), seconds, build_seconds,
                         float(np.max(np.abs(g[trans.defects]), initial=0.0)), _constraint_residual(system, t, P, V))
    message = info.get("return_status", "unknown")
    missed = _missed(system, prob, P, V)
    crossed = _partition_crossed(model, [x[point["q"]] for point in trans.points], t)
    if not converged:
        message = f"IPOPT did not converge ({message}); the last iterate is kept"
    elif crossed:
        converged, message = False, (f"IPOPT converged ({message}), but {SINGULAR_CHOICE} "
                                     f"u = ({', '.join(model.s_names)}) is singular {crossed}: the collocation steps over "
                                     f"the singularity and the solution is not a motion. Choose other independent "
                                     f"velocities (independent=...), bound the path away from it, or use "
                                     f"'dependent' or 'reduced'")
    elif missed:
        converged, message = False, (f"IPOPT converged ({message}), but the solution misses {missed}: a condition "
                                     f"that the others imply near the first guess was not imposed; give a guess "
                                     f"nearer the target")
    return OptimalControlResult(system.name, model.label, prob.scheme, t, P, V, prob.inputs, np.array(U),
                                model.carried, np.array(Z) if model.carried else None, float(out["f"]),
                                Status.SUCCESS if converged else Status.FAILED, message, stats,
                                system.coordinate_names, system.velocity_names, model.note,
                                units={name: system.unit_of(name) for name in
                                       (*system.coordinate_names, *system.velocity_names, *prob.inputs)})


def _partition_crossed(model, qs, t):
    """Where the minimal formulation's partition is singular along the solution, as text ('' where
    it is not): det of the columns of C_bar_nh solved for changes sign between two points, or falls
    below 1e-6 of its largest value."""
    if model.partition is None:
        return ""
    det = np.array([float(model.partition(q, tk)) for q, tk in zip(qs, t)])
    flips = np.nonzero(np.sign(det[:-1]) * np.sign(det[1:]) < 0)[0]
    if flips.size:
        k = int(flips[0])
        return f"between t = {t[k]:.4g} and {t[k + 1]:.4g} s (det C_bar_nh,dependent changes sign)"
    small = np.nonzero(np.abs(det) <= 1e-6 * np.max(np.abs(det)))[0]
    return f"at t = {t[int(small[0])]:.4g} s (det C_bar_nh,dependent = {det[int(small[0])]:.2g})" if small.size else ""


def _missed(system, prob, P, V):
    """The boundary conditions the solution misses by more than 1e-6 (1 + |value|), as text."""
    out = []
    for where, conditions, p, v in (("initial", prob.initial, P[0], V[0]), ("final", prob.final, P[-1], V[-1])):
        for name, value in conditions.items():
            got = p[system.coordinate_names.index(name)] if name in system.coordinate_names \
                else v[system.velocity_names.index(name)]
            if not abs(got - value) <= 1e-6 * (1 + abs(value)):
                out.append(f"the {where} {name} = {value:g} (reached {got:.6g})")
    return "; ".join(out)


def _constraint_residual(system, t, P, V):
    """max |Phi(p)| and |C v + c| over the points, by the system's numeric functions."""
    if not system.m + system.l:
        return 0.0
    worst = 0.0
    for tk, p, v in zip(t, P, V):
        Phi, _, C, c = system.numeric.constraint_terms(p, system.params, tk)
        worst = max(worst, float(np.max(np.abs(Phi), initial=0.0)), float(np.max(np.abs(C @ v + c), initial=0.0)))
    return worst
