"""Moreau-Jean time stepping for contacts (systems.contacts): impacts at velocity level, as many
as they come, on the dependent variables (J. J. Moreau, "Unilateral contact and dry friction in
finite freedom dynamics", 1988; M. Jean, "The non-smooth contact dynamics method", 1999).

One step of size h from (p_k, v_k):

    p_m = p_k + (h/2) A(p_m) v_k                      midpoint configuration (unit blocks renormalized)
    active rows: every row no contact owns, and the rows of each contact whose predicted gap
                 g(p_m) + (h/2) g'(p_m, v_k) <= 0
    M (v_k+1 - v_k) = h (f - d)(t_m, p_m, v_k) - C^T Lambda       Lambda: impulses over the step
    rows no contact owns:  C v_k+1 + c = 0
    normal rows (Newton):  0 <= U_k+1 + e U_k  _|_  Lambda_n >= 0,   U = -(C_n v + c_n) = g'
    friction rows:         |Lambda_t| <= mu Lambda_n, sticking (C_t v + c_t = 0) inside the cone
    p_k+1 = p_m + (h/2) A(p_m) v_k+1

The impulses come from projected Gauss-Seidel on the Delassus matrix W = C M^-1 C^T, row by row; a
friction block takes one scalar step 1 / lambda_max(W_tt) before its projection onto the disc, so
that at the fixed point a sliding impulse opposes the slip (Coulomb) whatever W_tt, to a relative
change of PGS_TOL. It takes any number of
impacts per step, so a ball bouncing to rest (impacts accumulating in finite time) comes to rest
within a step of the closed form. Positions of the rows no contact owns are held at velocity level
only (they drift at O(h^2) per step, reported in the constraint errors).
"""
from __future__ import annotations

import time as _time

import numpy as np

from systems.errors import ArgumentError
from systems.state import renormalize

from ...results.trajectory import FAILED, SUCCESS, ConstraintErrors, ContactEvent, Mode, Stats, Trajectory

class ImpulsesNotFound(ArithmeticError):
    """Projected Gauss-Seidel did not converge on a step's or an impact's impulses."""


PGS_TOL = 1e-12
PGS_ITERATIONS = 500


def moreau_jean(system, t_span, state0, step, *, rest_speed):
    """The run of ``system`` (with contacts) over t_span by Moreau-Jean steps of size ``step`` (s)."""
    if not (isinstance(step, (int, float)) and np.isfinite(step) and step > 0):
        raise ArgumentError(f"moreau_jean got step {step!r} but expected a step size in s > 0")
    if system.is_nonideal:
        raise ArgumentError(f"system {system.name!r}: its forces depend on the multipliers (non-ideal rows); the "
                            f"Moreau-Jean steps take ideal rows only (use the event-driven scheme)")
    t0, t1 = (float(x) for x in t_span)
    p, v = (np.array(x, dtype=float) for x in state0)
    n_steps = max(1, int(np.ceil((t1 - t0) / step - 1e-9)))
    h = (t1 - t0) / n_steps
    rows = _Rows(system)
    out = {"t": [t0], "p": [p], "v": [v], "lam": [np.full(rows.count, np.nan)]}
    events, modes, status, message = [], [], SUCCESS, ""
    started = _time.perf_counter()
    active_before = frozenset()
    for k in range(n_steps):
        t = t0 + k * h
        try:
            p_new, v_new, lam, active = _step(system, rows, t, h, p, v)
        except (np.linalg.LinAlgError, FloatingPointError, ImpulsesNotFound) as exc:
            status, message = FAILED, (f"system {system.name!r}: the Moreau-Jean step at t = {t:.9g} failed "
                                       f"({exc}); the steps before are kept")
            break
        for name in sorted(active - active_before):
            approach = rows.approach(name, p, v, t)
            kind = "impact" if approach > rest_speed else "closes"
            events.append(ContactEvent(t + h, f"{kind} {name}", -1, kind, name, (p, v), (p_new, v_new)))
        for name in sorted(active_before - active):
            events.append(ContactEvent(t + h, f"opens {name}", -1, "opens", name, (p, v), (p_new, v_new)))
        if not modes or active != active_before:
            modes.append([t, t + h, active])
        modes[-1][1] = t + h
        active_before, p, v = active, p_new, v_new
        for key, value in (("t", t + h), ("p", p), ("v", v), ("lam", lam)):
            out[key].append(value)
    if status == SUCCESS:
        message = (f"finished over t_span in {len(out['t']) - 1} Moreau-Jean steps of {h:.3g} s, {len(events)} "
                   f"contact events")
    return _trajectory(system, out, events, modes, status, message, h, rest_speed, _time.perf_counter() - started)


class _Rows:
    """Which rows of the system each contact owns, and its gap and approach speed."""

    def __init__(self, system):
        self.system = system
        names = system.constraint_names
        self.count = len(names)
        self.contacts = {c.name: c for c in system.contacts}
        for c in system.contacts:
            if names.index(c.normal) >= system.m:
                raise ArgumentError(f"system {system.name!r}: contact {c.name!r} has a velocity row as its normal "
                                    f"row; Moreau-Jean steps need its gap, a holonomic row")

    def index(self, row):
        return self.system.constraint_names.index(row)

    def approach(self, name, p, v, t):
        """-g' = C_n v + c_n of a contact at (t, p, v): positive where it closes."""
        return float(self.system.residuals(p, v, t)[1][self.index(self.contacts[name].normal)])


def _step(system, rows, t, h, p, v):
    """(p_k+1, v_k+1, multipliers (m + l,) as the impulses over h, names of the closed contacts)."""
    num, par = system.numeric, system.params
    A = num.A(p, par)
    p_m = renormalize(system, p + 0.5 * h * A @ v) if system.unit_norm_blocks else p + 0.5 * h * A @ v
    t_m = t + 0.5 * h
    dyn = num.dynamics(t_m, p_m, v, par)
    Phi, _, C, c = num.constraint_terms(p_m, par, t_m)
    gap_rate = -(C @ v + c)  # g' of each row at the midpoint
    closed = [name for name, con in rows.contacts.items()  # the gap predicted at the step's end
              if -Phi[rows.index(con.normal)] + 0.5 * h * gap_rate[rows.index(con.normal)] <= 0.0]
    v_free = v + h * np.linalg.solve(dyn.M, dyn.f0 - dyn.d)
    v_new, impulses = impulses_of(system, contact_blocks(system, closed), dyn.M, C, c, v_free, C @ v + c)
    lam = impulses / h
    A_m = num.A(p_m, par)
    p_new = p_m + 0.5 * h * A_m @ v_new
    if system.unit_norm_blocks:
        p_new = renormalize(system, p_new)
    return p_new, v_new, lam, frozenset(closed)


def contact_blocks(system, closed):
    """The blocks (kind, row indices, contact) of the rows a contact step or an impact holds: each row no
    contact owns ("bilateral"), and the normal row ("normal") and friction rows ("friction") of each
    contact named in ``closed``."""
    names = system.constraint_names
    owned = {r for c in system.contacts for r in (c.normal, *c.tangential)}
    blocks = [("bilateral", [i], None) for i, name in enumerate(names) if name not in owned]
    for con in system.contacts:
        if con.name in closed:
            blocks.append(("normal", [names.index(con.normal)], con))
            if con.tangential:
                blocks.append(("friction", [names.index(r) for r in con.tangential], con))
    return blocks


def impulses_of(system, blocks, M, C, c, v_free, u_prev):
    """(v+, Lambda (m + l,)): the velocity after the impulses Lambda on the blocks' rows,
    M (v+ - v_free) = -C^T Lambda, with Newton's law on the normal rows (against u_prev = C v- + c, the
    approach before) and Coulomb's cone on the friction rows, by projected Gauss-Seidel (module
    docstring); Lambda is zero on the other rows."""
    active = [i for _, idx, _ in blocks for i in idx]
    lam = np.zeros(C.shape[0])
    if not active:
        return v_free, lam
    Ca = C[active]
    MinvCt = np.linalg.solve(M, Ca.T)
    impulses = _pgs(system, blocks, active, Ca @ MinvCt, Ca @ v_free + c[active], u_prev[active])
    lam[active] = impulses
    return v_free - MinvCt @ impulses, lam


def _pgs(system, blocks, active, W, b, u_prev):
    """Impulses Lambda (len(active),) by projected Gauss-Seidel (module docstring)."""
    where = {i: k for k, i in enumerate(active)}
    x = np.zeros(len(active))
    scale = max(float(np.max(np.abs(b), initial=0.0)), 1e-300)
    for _ in range(PGS_ITERATIONS):
        largest = 0.0
        for kind, idx, con in blocks:
            k = [where[i] for i in idx]
            u = b[k] - W[k] @ x
            old = x[k].copy()
            if kind == "bilateral":
                x[k] = old + u / W[k, k]
            elif kind == "normal":
                e = con.restitution_coefficient(system)
                x[k] = np.maximum(0.0, old + (u + e * np.maximum(u_prev[k], 0.0)) / W[k, k])
            else:
                trial = old + u / np.linalg.eigvalsh(W[np.ix_(k, k)])[-1]  # one step: the fixed point is Coulomb's
                bound = con.friction_coefficient(system)
                limit = np.inf if bound is None else bound * x[where[system.constraint_names.index(con.normal)]]
                size = np.linalg.norm(trial)
                x[k] = trial if size <= limit else trial * (limit / size)
            largest = max(largest, float(np.max(np.abs((x[k] - old) @ W[np.ix_(k, k)]))))
        if largest <= PGS_TOL * scale:
            return x
    raise ImpulsesNotFound(f"projected Gauss-Seidel did not converge in {PGS_ITERATIONS} sweeps (change {largest:.2e} "
                     f"against {PGS_TOL * scale:.2e})")


def _trajectory(system, out, events, modes, status, message, h, rest_speed, wall):
    t, P, V = np.array(out["t"]), np.array(out["p"]), np.array(out["v"])
    errors = [system.residuals(p, v, s) for s, p, v in zip(t, P, V)]
    Phi = np.array([np.max(np.abs(e[0]), initial=0.0) for e in errors])
    Cv = np.array([np.max(np.abs(e[1]), initial=0.0) for e in errors])
    energy = np.array([system.energy(p, v) for p, v in zip(P, V)])
    names = system.coordinate_names + system.velocity_names
    return Trajectory(
        system_name=system.name, formulation="moreau-jean", t=t, p=P, v=V, state=np.concatenate([P, V], axis=1),
        state_names=names, vdot=np.full_like(V, np.nan), multipliers=np.array(out["lam"]),
        constraint_names=system.constraint_names,
        constraint_errors=ConstraintErrors(Phi, Cv, np.full(t.size, np.nan)), energy=energy,
        stats=Stats(wall_time=wall, steps=t.size - 1, rhs_evaluations=t.size - 1, rejected=None), status=status,
        message=message, events=tuple(events), settings={"step": h, "rest_speed": rest_speed, "backend": "numpy"},
        system=system, modes=tuple(Mode(a, b, tuple(sorted(set(_names(system)) - set(closed))), ())
                                   for a, b, closed in modes))


def _names(system):
    return [c.name for c in system.contacts]
