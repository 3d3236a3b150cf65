"""The discrete Lagrangian of a description, for the variational integrators (formulations.solvers.variational).

With p' = A(p) v and A square and invertible, the Lagrangian in (p, p') is

    L(p, p') = v^T M(p) v / 2 - V(p),   v = A(p)^-1 p',

and its derivatives need no inverse in closed form:

    dL/dp'   = A^-T M v                                     (the momentum P, (n,))
    dL/dp_j  = v^T M_,j v / 2 - P^T A_,j v - V_,j           (M_,j, A_,j the derivatives by p_j)

The trapezoidal discrete Lagrangian L_d(p0, p1) = h/2 [L(p0, d) + L(p1, d)], d = (p1 - p0)/h,
has D1 L_d = h/2 L_p(p0, d) - [L_p'(p0, d) + L_p'(p1, d)]/2 and D2 L_d = h/2 L_p(p1, d) +
[L_p'(p0, d) + L_p'(p1, d)]/2; with M and A constant it gives the Stormer-Verlet method and, with
holonomic constraints, RATTLE (Hairer, Lubich & Wanner, Geometric Numerical Integration, VI.6 and
VII.1; Marsden & West, Discrete mechanics and variational integrators, Acta Numerica 2001).
Forces other than -grad V (A^-T f + grad V, in p coordinates) enter as the discrete forces
h/2 Q(p0, A(p0)^-1 d) and h/2 Q(p1, A(p1)^-1 d) at the two ends.

A gauge term: the discrete Lagrangian of L + dS/dt = L + grad S(p) . p' for a function S(p). The
continuous motion is that of L (a total derivative changes no Euler-Lagrange equation), but the
trapezoidal rule does not integrate dS/dt exactly, so the discrete equations differ: their momentum
is dL/dp' + grad S and dL/dp_j gains (d grad S / dp_j) . p'. Modin & Verdier (What makes nonholonomic
integrators work?, Numer. Math. 145, 2020) build their non-reversible test problems so: the
canonical momenta shifted by grad S, which is the same motion with other discrete equations.

A constraint force on the p equations is a(p)^T mu + Phi_p(p)^T nu with a = C_nh A^-1 (so that
a p' = C_nh v): the multipliers of the discrete equations are impulses over a step, not the forces
lambda of DESIGN section 2 (the recorded lambda are those of the state, from the dependent
formulation).
"""
from __future__ import annotations

import weakref

import numpy as np
import sympy as sp


_REASONS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()
_MODELS: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def why_not(system) -> str | None:
    """None where ``system`` has the structure the variational integrators need; otherwise why not
    (worked out once per System: solvers ask it whenever they match a formulation)."""
    if system not in _REASONS:
        _REASONS[system] = (_why_not(system),)
    return _REASONS[system][0]


def _why_not(system) -> str | None:
    n_p, n = len(system.coordinates), len(system.velocities)
    if n_p != n:
        return (f"the variational methods write the Lagrangian in (p, p') with p' = A v, A square and invertible: "
                f"system {system.name!r} has {n_p} coordinates and {n} velocities (p has more entries than v, as with "
                f"Euler parameters); expected a description in angles, or the Lie-group methods (RKMK4-SE3) for "
                f"rigid bodies")
    if system.redundant_constraints:
        return (f"the variational methods solve for one impulse per constraint row: the rows "
                f"{', '.join(repr(r) for r in system.redundant_constraints)} of system {system.name!r} depend on the "
                f"others (redundant constraints); expected independent rows")
    if system.is_rheonomic:
        return (f"the variational methods are written for constraints that do not depend on time: system "
                f"{system.name!r} has rheonomic or affine rows")
    if sp.Matrix(system.f).subs(system.parameter_map).free_symbols & set(system.multipliers):
        return (f"the variational methods need ideal constraints: the forces of system {system.name!r} depend on "
                f"the multipliers (a non-ideal constraint)")
    return None


def model_of(system, gauge=None) -> "DiscreteLagrangian":
    """The DiscreteLagrangian of ``system`` with the gauge term S (a sympy expression in its
    coordinates and parameters; None or 0: none), built once per System and S (a sympy build of
    tenths of a s)."""
    models = _MODELS.setdefault(system, {})
    key = sp.srepr(sp.sympify(gauge or 0))
    if key not in models:
        models[key] = DiscreteLagrangian(system, gauge)
    return models[key]


class DiscreteLagrangian:
    """The numeric pieces of the trapezoidal discrete Lagrangian of ``system`` at its parameter values.

    ``at(p)`` -> the pieces at one configuration (A, its derivatives, M, its derivatives, grad V,
    Phi, Phi_p, C_nh, grad S, its derivatives); ``D(h, p0, p1, ...)`` -> (D1 L_d, D2 L_d) with the
    discrete forces; ``momentum(pieces, v)`` = A^-T M v + grad S and ``velocity(pieces, P)`` =
    M^-1 A^T (P - grad S), the Legendre map and its inverse. ``gauge``: S(p), see the module
    docstring (None: none)."""

    def __init__(self, system, gauge=None):
        reason = why_not(system)
        if reason is not None:
            raise ValueError(reason)
        S = _gauge(system, gauge)
        self.system = system
        p, v, t = list(system.coordinates), list(system.velocities), system.time
        values = system.parameter_map
        n = len(p)
        A, M = sp.Matrix(system.A), sp.Matrix(system.M)
        V = sp.sympify(system.potential)
        dA = [A.diff(q) for q in p]
        dM = [M.diff(q) for q in p]
        grad_V = sp.Matrix([V.diff(q) for q in p])
        grad_S = sp.Matrix([S.diff(q) for q in p])
        pieces = [A, *dA, M, *dM, grad_V, sp.Matrix(system.Phi), sp.Matrix(system.Phi_p), sp.Matrix(system.C_nh),
                  grad_S, grad_S.jacobian(p)]
        self.n, self.m, self.l = n, system.m, system.l
        self.gauged = S != 0
        self._shapes = [(n, n), (n, n, n), (n, n), (n, n, n), (n,), (self.m,), (self.m, n), (self.l, n), (n,), (n, n)]
        self._slices, k = [], 0
        for shape in self._shapes:
            size = int(np.prod(shape))
            self._slices.append((k, k + size, shape))
            k += size
        self.offsets = np.array([a for a, _, _ in self._slices] + [k], np.int64)  # of the pieces in the flat output
        self.identity_A = A == sp.eye(n)  # p' = v: no solves with A
        # symbolic in the parameters, for the compiled kernels (formulations.solvers.compiled_variational)
        self.entries = [sp.sympify(x) for piece in pieces for x in piece]
        self._pieces = sp.lambdify([p], [x.subs(values) for x in self.entries], modules="numpy", cse=True)
        self.force_entries = list(sp.Matrix(system.f))
        f = sp.Matrix(self.force_entries).subs(values)
        # the forces that the potential does not hold (A^T grad V + f = 0 for a conservative system)
        remainder = ((A.T * grad_V).subs(values) + f).applyfunc(sp.expand)
        self.forced = any(x != 0 for x in remainder)
        self._f = sp.lambdify([p, v, t], f, modules="numpy", cse=True) if self.forced else None
        self._check_inertia_terms()

    def _check_inertia_terms(self, states=3, seed=7):
        """The method rebuilds the equations from T = v^T M v / 2 and V, so the description's d must
        be T's inertia terms: d = M' v - (A')^T P - A^T dT/dp at fixed p' (P = A^-T M v, ' = d/dt
        along p' = A v). Compared at a few states near the default one; a ValueError names the
        largest difference (a damping or other force written into d belongs in f)."""
        system, rng = self.system, np.random.default_rng(seed)
        p0, _ = system.default_state()
        worst = (0.0, None)
        for _ in range(states):
            p, v = p0 + 0.1 * rng.standard_normal(self.n), rng.standard_normal(self.n)
            pieces = self.at(p)
            A, dA, M, dM = pieces[:4]
            pdot = A @ v
            P = self.solve_A(pieces, M @ v, transposed=True)  # A^-T M v
            T_p = 0.5 * np.einsum("a,jab,b->j", v, dM, v) - np.einsum("a,jab,b->j", P, dA, v)
            expected = np.einsum("jab,j->ab", dM, pdot) @ v - np.einsum("jab,j->ab", dA, pdot).T @ P - A.T @ T_p
            given = np.asarray(system.numeric.dynamics(0.0, p, v, system.params).d, float)
            scale = 1.0 + np.max(np.abs(expected)) + np.max(np.abs(given))
            gap = np.max(np.abs(expected - given)) / scale
            if gap > worst[0]:
                worst = (gap, int(np.argmax(np.abs(expected - given))))
        if worst[0] > 1e-8:
            raise ValueError(f"the variational methods rebuild the equations from T = v^T M v / 2 and V, but the inertia "
                             f"terms d of system {system.name!r} differ from T's (row {worst[1] + 1} of d, relative "
                             f"difference {worst[0]:.1e} near the default state): a damping or other force written "
                             f"into d belongs in f")

    def at(self, p):
        """(A, dA (n, n, n): dA[j] = A_,j, M, dM, grad V (n,), Phi (m,), Phi_p (m, n), C_nh (l, n),
        grad S (n,), its Jacobian (n, n), symmetric)."""
        flat = np.array(self._pieces(p), float)
        return tuple(flat[a:b].reshape(shape) for a, b, shape in self._slices)

    def solve_A(self, pieces, x, transposed=False):
        """A^-1 x (A^-T x where ``transposed``) at a configuration's pieces."""
        if self.identity_A:
            return x
        return np.linalg.solve(pieces[0].T if transposed else pieces[0], x)

    def momentum(self, pieces, v):
        """P = A^-T M v + grad S."""
        return self.solve_A(pieces, pieces[2] @ v, transposed=True) + pieces[8]

    def velocity(self, pieces, P):
        """v = M^-1 A^T (P - grad S)."""
        A, M = pieces[0], pieces[2]
        P = P - pieces[8]
        return np.linalg.solve(M, P if self.identity_A else A.T @ P)

    def partials(self, p, pieces, d, t):
        """(L_p (n,), L_p' (n,), Q (n,) or None) at p (its ``pieces``) and p' = d: Q = A^-T f + grad V,
        the forces the potential does not hold (None for a conservative system)."""
        dA, dM, gV = pieces[1], pieces[3], pieces[4]
        v = self.solve_A(pieces, d)
        P = self.solve_A(pieces, pieces[2] @ v, transposed=True)  # A^-T M v
        L_p = 0.5 * np.einsum("a,jab,b->j", v, dM, v) - gV
        if not self.identity_A:
            L_p -= np.einsum("a,jab,b->j", P, dA, v)
        if self.gauged:
            L_p += pieces[9] @ d
            P = P + pieces[8]
        Q = None
        if self.forced:
            Q = self.solve_A(pieces, np.asarray(self._f(p, v, t), float).reshape(self.n), transposed=True) + gV
        return L_p, P, Q

    def D(self, h, p0, p1, pieces0, pieces1, t0, rate=None):
        """(D1 L_d + h/2 Q0, D2 L_d + h/2 Q1) for the step p0 -> p1 of size h from t0: the two
        momentum equations' sides without the constraint impulses. ``rate``: (p1 - p0) / h where it
        is known more exactly than the difference (the unknown of the Newton iteration)."""
        d = (p1 - p0) / h if rate is None else rate
        L_p0, P0, Q0 = self.partials(p0, pieces0, d, t0)
        L_p1, P1, Q1 = self.partials(p1, pieces1, d, t0 + h)
        mean = 0.5 * (P0 + P1)
        D1, D2 = 0.5 * h * L_p0 - mean, 0.5 * h * L_p1 + mean
        if self.forced:
            D1, D2 = D1 + 0.5 * h * Q0, D2 + 0.5 * h * Q1
        return D1, D2


def _gauge(system, gauge):
    """S as a sympy expression in the coordinates and parameters of ``system`` (0 for None), given
    as an expression or as text; symbols are matched by name (so "cos(z)" or a sp.Symbol("z") with
    other assumptions mean the coordinate z). A ValueError names any other symbol."""
    known = {str(s): s for s in (*system.coordinates, *(par.symbol for par in system.parameters))}
    try:
        S = sp.sympify(0 if gauge is None else gauge, locals=dict(known))
    except (sp.SympifyError, TypeError, SyntaxError) as exc:
        raise ValueError(f"the gauge term S of the variational methods got {gauge!r}, which is not an expression "
                         f"({exc})") from None
    if not isinstance(S, sp.Expr):
        raise ValueError(f"the gauge term S of the variational methods got {gauge!r} but expected a scalar expression")
    S = S.xreplace({s: known[str(s)] for s in S.free_symbols if str(s) in known})
    stray = S.free_symbols - set(known.values())
    if stray:
        raise ValueError(f"the gauge term S of the variational methods got {S} but expected an expression in the "
                         f"coordinates ({', '.join(map(str, system.coordinates))}) and parameters of system "
                         f"{system.name!r}: {', '.join(sorted(map(str, stray)))} are neither")
    return S
