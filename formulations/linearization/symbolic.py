"""The symbolic variant of formulations.linearization.linearize: the same steps in sympy, with the
parameters as symbols (for the classroom: ``Linearization.equations()``).
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.linalg import qr

from systems.errors import ArgumentError, ArgumentTypeError


def symbolic_point(system, p0, v0):
    def column(value, length, names, what):
        if isinstance(value, (str, bytes)) or not hasattr(value, "__len__") or len(value) != length:
            raise ArgumentTypeError(f"{what} got {value!r} but expected {length} numbers or sympy expressions in the "
                                    f"parameters ({', '.join(names)})", what)
        entries = [sp.nsimplify(x) if isinstance(x, (int, float, np.floating)) else sp.sympify(x) for x in value]
        known = {par.symbol for par in system.parameters}
        for name, x in zip(names, entries):
            extra = x.free_symbols - known
            if extra:
                raise ArgumentError(f"{what} {name} = {x} has symbols {sorted(map(str, extra))} that are not "
                                    f"parameters of {system.name!r}", what)
        return entries
    return (column(p0, len(system.coordinates), system.coordinate_names, "p0"),
            column(v0, system.n, system.velocity_names, "v0"))


def symbolic_linearization(system, pieces, geometry, state, t, z0, G_num, C_num, inputs, fixed):
    """(A, B, y') as sympy matrices with the parameters as symbols, by the steps of the numeric
    variant (a chart's basis V enters as numbers, rational where they are so)."""
    p0, v0 = z0
    n_p, n = len(p0), len(v0)
    p0, v0 = [sp.sympify(x).xreplace(fixed) for x in p0], [sp.sympify(x).xreplace(fixed) for x in v0]
    at = dict(zip(pieces.p, p0)) | dict(zip(pieces.v, v0)) | {pieces.t: sp.nsimplify(t)} | fixed
    lam = pieces.lam
    F = sp.Matrix(system.f).jacobian(lam).xreplace(at) if lam else sp.zeros(n, 0)
    M, C = sp.Matrix(system.M).xreplace(at), sp.Matrix(system.C).xreplace(at)
    c = C.shape[0]
    K = sp.Matrix(sp.BlockMatrix([[M, C.T - F], [C, sp.zeros(c, c)]])) if c else M
    kept = list(range(n)) + [n + i for i in _independent(C_num)]
    K = K.extract(kept, kept)
    zero = {s: 0 for s in pieces.a} | {s: 0 for s in lam}
    RS = sp.Matrix.vstack(pieces.R, pieces.S)
    sol = K.solve(-RS.xreplace(zero).xreplace(at).extract(kept, [0])).applyfunc(_tidy)
    lam_values = [sp.S.Zero] * c
    for j, row in enumerate(kept[n:]):
        lam_values[row - n] = sol[n + j]
    at |= dict(zip(pieces.a, sol[:n])) | dict(zip(lam, lam_values))
    a_z = -K.solve(pieces.dynamics.matrix.xreplace(at).extract(kept, list(range(n_p + n))))[:n, :]
    F0 = sp.Matrix.vstack(pieces.rho.xreplace(at), sp.Matrix(sol[:n]))
    J = sp.Matrix.vstack(pieces.kinematics.matrix.xreplace(at), a_z)
    if state.geometry == "identity":
        Q_all, H_all = sp.eye(n_p + n), sp.zeros(n_p + n, n_p + n)
    elif state.geometry == "chart":
        V = _exact(geometry.V)
        Q_all = sp.Matrix.vstack(sp.Matrix.hstack(V.T, sp.zeros(V.shape[1], n)), V.T * pieces.kinematics.matrix.xreplace(at))
        H_all = sp.Matrix.vstack(sp.zeros(V.shape[1], n_p + n),
                                 V.T * pieces.kinematics_second.matrix.xreplace(dict(zip(pieces.phi, F0))).xreplace(at))
    else:
        Q_all = pieces.embedding.matrix.xreplace(at)
        H_all = pieces.embedding_second.matrix.xreplace(dict(zip(pieces.phi, F0))).xreplace(at)
    T, E = _exact(state.T), _exact(state.E)
    Q, H = T * Q_all + E, T * H_all
    if state.speeds is not None:  # quasi-velocities u = Y(p) v
        Q_u, H_u = state.speeds.at(at, F0, exact=True)
        first = state.speeds.first
        Q[first:, :] = Q[first:, :] + Q_u
        H[first:, :] = H[first:, :] + H_u
    Phi_p = sp.Matrix(system.Phi_p).xreplace(at) if system.m else sp.zeros(0, n_p)
    G = sp.Matrix.vstack(sp.Matrix.hstack(Phi_p, sp.zeros(system.m, n)),
                         sp.Matrix.hstack(pieces.tangent.matrix.xreplace(at), C))
    keep = _independent(G_num)
    QG = sp.Matrix.vstack(Q, G.extract(keep, list(range(n_p + n))))
    P = QG.solve(sp.Matrix.vstack(sp.eye(Q.shape[0]), sp.zeros(len(keep), Q.shape[0])))
    A = (Q * J + H) * P
    B = sp.zeros(Q.shape[0], len(inputs))
    if inputs:
        cols = [pieces.params[system.parameter_names.index(name)] for name in inputs]
        RS_u = RS.jacobian(cols).xreplace(at).extract(kept, list(range(len(cols))))
        B = Q * sp.Matrix.vstack(sp.zeros(n_p, len(inputs)), -K.solve(RS_u)[:n, :])
    return A.applyfunc(_tidy), B.applyfunc(_tidy), (Q * F0).applyfunc(_tidy)


def _independent(X, tol=1e-10):
    """Indices of linearly independent rows of X (QR with column pivoting on X^T)."""
    if X.shape[0] == 0:
        return []
    _, R, piv = qr(X.T, pivoting=True)
    diag = np.abs(np.diag(R))
    return sorted(piv[: int(np.sum(diag > tol * max(1.0, diag.max(initial=0.0))))].tolist())


def _exact(X):
    """A numeric matrix in sympy, entries rational where they are so to 1e-13."""
    def entry(x):
        x = float(x)
        r = sp.nsimplify(x, rational=True, tolerance=1e-14)
        return r if abs(float(r) - x) <= 1e-13 * max(1.0, abs(x)) and sp.denom(r) < 10**6 else sp.Float(x)
    return sp.Matrix(np.atleast_2d(np.asarray(X, dtype=float))).applyfunc(entry) if np.size(X) else \
        sp.zeros(*np.shape(X))


def _tidy(x):
    """Rational functions cancelled; trigonometric entries simplified."""
    if not x.free_symbols:
        return x
    return sp.simplify(x) if x.has(sp.sin, sp.cos, sp.tan, sp.sign, sp.Abs) else sp.factor(sp.cancel(x))
