"""Formulation 1, dependent variables: states (p, v), multipliers for every constraint.

    p' = A v,   [[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]
Baumgarte and constraint dynamics replace -xi by -xi - 2 alpha C v - beta^2 [Phi; 0]; Projection
moves (p, v) back onto the constraint manifold after every accepted step (Blajer 2002); GGL is the
stabilized index-2 DAE form, solved by IDA (formulations.solvers.ida).
"""
from __future__ import annotations

import numpy as np

from systems.state import project_positions, project_velocities, renormalize

from .base import Formulation, Saddle, register
from .forms import INDEX3, LIE_GROUP
from .equations import Equations, primitive_pieces
from .linear import saddle_system, solve_square
from .stabilization import GGL, NoStabilization


@register
class Dependent(Formulation):
    name = "dependent"
    numeric_form = "explicit ODE in (p, v); v' and lambda from the augmented (saddle-point) system each evaluation"
    stabilizations = ("none", "baumgarte", "constraint_dynamics", "projection", "ggl")

    def state_names(self):
        return self.system.coordinate_names + self.system.velocity_names

    def initial_state(self, p, v):
        return np.concatenate([p, v])

    def dependent_state(self, y):
        n_p = len(self.system.coordinates)
        return renormalize(self.system, y[:n_p]) if self.system.unit_norm_blocks else y[:n_p], y[n_p:]

    def saddle(self, t, y):
        p, v = self.dependent_state(y)
        p, (M, d, f0, F, C, xi, A, _) = self.dynamics(t, p, v)
        b = -xi
        gains = self._gains()
        if gains is not None and C.shape[0]:
            alpha, beta = gains
            b = b - 2 * alpha * (C @ v)
            if self.system.m:
                b[: self.system.m] -= beta**2 * self.num.Phi(p, self.par)
        K, rhs, na = saddle_system(M, f0 - d, None, None, C, b, F=F if self.nonideal else None, C=C)
        return Saddle(A @ v, K, rhs, na, v, C.shape[0], None, None)

    def accelerations(self, t, y, multipliers=True):
        s = self.saddle(t, y)
        sol = solve_square(s.K, s.rhs, "the augmented matrix [[M, C^T], [C, 0]]")
        vdot = sol[:s.na]
        return np.concatenate([s.kinematics, vdot]), vdot, sol[s.na:]

    def compiled_rhs_source(self):
        """The whole evaluation — primitives, the augmented matrix, its solve — as one numba function
        (backend "compiled"; stabilization none, Baumgarte or constraint dynamics): rhs, and
        evaluate_all for the accelerations and multipliers of all recorded points in one pass."""
        sysm = self.system
        n_p, n, c, m = len(sysm.coordinates), sysm.n, sysm.m + sysm.l, sysm.m
        sizes = [n * n, n, n, n * c, c * n, c, n_p * n, n_p]
        o = np.cumsum([0] + sizes).tolist()
        dyn, con, energy = self.num._dynamics.kernel, self.num._constraints.kernel, self.num._energy.kernel
        blocks = [list(b) for b in sysm.unit_norm_blocks]
        return f"""import math

import numba
import numpy as np

from {dyn.__module__} import {dyn.__name__} as _dynamics
from {con.__module__} import {con.__name__} as _constraints
from {energy.__module__} import {energy.__name__} as _energy

N_P, N, C, M_H = {n_p}, {n}, {c}, {m}
BLOCKS = np.array({blocks or [[0, 0, 0, 0]]}, dtype=np.int64)[:{len(blocks)}]


@numba.njit(cache=True)
def evaluate(t, y, params, alpha, beta, out, lam):
    \"\"\"y' of the dependent formulation of {sysm.name}: p' = A v, [[M, C^T - F], [C, 0]] [v'; lambda] =
    [f0 - d; -xi - 2 alpha C v - beta^2 [Phi; 0]]; lambda into lam. False where the matrix is singular.\"\"\"
    p = y[:N_P].copy()
    for i in range(BLOCKS.shape[0]):
        norm = 0.0
        for j in range(4):
            norm += p[BLOCKS[i, j]] ** 2
        for j in range(4):
            p[BLOCKS[i, j]] /= math.sqrt(norm)
    v = y[N_P:]
    buf = np.zeros({o[-1]})
    _dynamics(t, p, v, params, buf)
    M = buf[{o[0]}:{o[1]}].reshape((N, N))
    d = buf[{o[1]}:{o[2]}]
    f0 = buf[{o[2]}:{o[3]}]
    F = buf[{o[3]}:{o[4]}].reshape((N, C))
    Cm = buf[{o[4]}:{o[5]}].reshape((C, N))
    xi = buf[{o[5]}:{o[6]}]
    A = buf[{o[6]}:{o[7]}].reshape((N_P, N))
    K = np.zeros((N + C, N + C))
    b = np.empty(N + C)
    K[:N, :N] = M
    K[:N, N:] = Cm.T - F
    K[N:, :N] = Cm
    b[:N] = f0 - d
    b[N:] = -xi - 2 * alpha * (Cm @ v)
    if beta != 0.0 and M_H > 0:
        cbuf = np.zeros(M_H + M_H * N_P + C * N)
        _constraints(p, params, cbuf)
        b[N:N + M_H] -= beta**2 * cbuf[:M_H]
    if not np.all(np.isfinite(K)):
        return False
    try:
        sol = np.linalg.solve(K, b)
    except Exception:
        return False
    if not np.all(np.isfinite(sol)):
        return False
    out[:N_P] = A @ v
    out[N_P:] = sol[:N]
    lam[:] = sol[N:]
    return True


@numba.njit(cache=True)
def rhs(t, y, params, alpha, beta, out):
    \"\"\"y' only (the multipliers into scratch space).\"\"\"
    return evaluate(t, y, params, alpha, beta, out, np.empty(C))


@numba.njit(cache=True)
def evaluate_all(ts, ys, params, alpha, beta):
    \"\"\"(y' (N, n_y), lambda (N, c), ok (N,)) at the recorded points, in one compiled pass.\"\"\"
    ydot = np.full(ys.shape, np.nan)
    lam = np.full((ys.shape[0], C), np.nan)
    ok = np.zeros(ys.shape[0], dtype=np.bool_)
    for i in range(ys.shape[0]):
        ok[i] = evaluate(ts[i], ys[i], params, alpha, beta, ydot[i], lam[i])
    return ydot, lam, ok


@numba.njit(cache=True)
def check_all(ts, ps, vs, vdots, ok, params):
    \"\"\"Per recorded point: max |Phi|, max |C v|, max |C v' + xi| (NaN where v' is missing), the
    energy, sigma_min / sigma_max of Phi_p and det(Phi_p(p_k) Phi_p(p_k-1)^T) (1 at k = 0).\"\"\"
    count = ts.size
    out = np.full((count, 6), np.nan)
    buf = np.zeros({o[-1]})
    cbuf = np.zeros(M_H + M_H * N_P + C * N)
    ebuf = np.zeros(1)
    previous = np.zeros((M_H, N_P))
    for i in range(count):
        p, v = ps[i], vs[i]
        _constraints(p, params, cbuf)
        Phi = cbuf[:M_H]
        Phi_p = cbuf[M_H:M_H + M_H * N_P].reshape((M_H, N_P))
        Cm = cbuf[M_H + M_H * N_P:].reshape((C, N))
        out[i, 0] = np.max(np.abs(Phi)) if M_H else 0.0
        out[i, 1] = np.max(np.abs(Cm @ v)) if C else 0.0
        if ok[i]:
            buf[:] = 0.0
            _dynamics(ts[i], p, v, params, buf)
            xi = buf[{o[5]}:{o[6]}]
            out[i, 2] = np.max(np.abs(Cm @ vdots[i] + xi)) if C else 0.0
        ebuf[0] = 0.0
        _energy(p, v, params, ebuf)
        out[i, 3] = ebuf[0]
        if M_H:
            s = np.linalg.svd(Phi_p)[1]
            out[i, 4] = s[-1] / s[0] if s[0] > 0 else 0.0
            out[i, 5] = np.linalg.det(Phi_p @ np.ascontiguousarray(previous.T)) if i > 0 else 1.0
            previous[:, :] = Phi_p
    return out
"""

    def position_constraints(self, y_pos):
        Phi_a, Phi_a_p = self.num.holonomic_chart(y_pos, np.zeros_like(y_pos), self.par)[:2]
        return Phi_a, Phi_a_p

    def gives(self, form):
        if form == INDEX3 and not isinstance(self.stabilization, NoStabilization):
            return (f"the augmented Lagrangian method enforces the constraints itself: got stabilization "
                    f"{self.stabilization.name!r} but expected 'none'")
        if form in (INDEX3, LIE_GROUP) and isinstance(self.stabilization, GGL):
            return super().gives(form)
        if form == INDEX3:
            return None
        if form == LIE_GROUP:
            return None if self.system.made_of_bodies else (
                f"Lie-group integration got system {self.system.name!r} whose coordinates and velocities are not all "
                f"rigid-body blocks but expected a system built from body frames (systems.builders.body_frames)")
        return super().gives(form)

    def project(self, t, y):
        stab = self.stabilization
        p, v = self.dependent_state(y)
        if stab.positions:
            p = project_positions(self.system, p, tol=stab.tol, max_iter=stab.max_iter)[0]
        if stab.velocities:
            v = project_velocities(self.system, p, v)[0]
        return np.concatenate([p, v])

    def equations(self, expanded=False):
        return Equations(self.name, self.system.name, (
            "p' = A v",
            "M v' + d = f - C^T lambda,   C = [C_h; C_nh],  C_h = Phi_p A",
            "C v' + xi = 0,   xi = (dC/dt) v",
            "[[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]"), primitive_pieces(self.system))
