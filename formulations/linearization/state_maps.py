"""The map from a formulation's own state to the states it linearizes in: one piece per formulation,
registered with formulations.registry (layer "linearization").

A state map gives y = T Y(z) + E z at the operating point z0 = (p0, v0): Y is the map of the
formulation's geometry (the identity for the dependent formulation; q = h(p), w = h_p A v for an
embedding; q = V^T (p - p0), w = V^T A v for a tangent-space chart), T selects or combines its rows
(the independent coordinates and velocities), E = S_v on v (the minimal formulation's u = S_w w +
S_v v); quasi-velocities u = Y(p) v add their own rows (Speeds). Each piece is
``(form, pieces, at, p0, v0, independent) -> StateMap``.
"""
from __future__ import annotations

import numpy as np
import sympy as sp
from scipy.linalg import null_space

from systems.dependent_rows import independent_rows
from systems.errors import ArgumentError, UnknownNameError

from .. import registry
from ..coordinates.charts import Atlas
from ..dependent import Dependent
from ..errors import CapabilityError
from ..minimal import Minimal
from ..reduced import Reduced


class StateMap:
    """y = T Y(z) + E z: the names of y, whether each is a coordinate ("q") or a velocity ("u"), T,
    E and the kind of geometry Y ("identity", "embedding" or "chart")."""

    def __init__(self, names, kind, T, E, geometry, speeds=None):
        self.names, self.kind, self.T, self.E, self.geometry = tuple(names), list(kind), T, E, geometry
        self.speeds = speeds


class Speeds:
    """The rows of quasi-velocities u = Y(p) v (from row ``first`` of y on): their Jacobian Q_u =
    d(Y v)/d(p, v) and H_u = d/d(p, v) (Q_u z') at z' = (p', v') held fixed, as sympy matrices in
    p, v, the parameters and the symbols pd, vd of p', v'."""

    def __init__(self, system, quasi, first):
        p, v = list(system.coordinates), list(system.velocities)
        self.pd = sp.symbols(f"pd_0:{len(p)}", real=True)
        self.vd = sp.symbols(f"vd_0:{len(v)}", real=True)
        u = quasi.Y * sp.Matrix(v)
        self.Q = u.jacobian(p + v)
        self.H = (self.Q * sp.Matrix(self.pd + self.vd)).jacobian(p + v)
        self.first, self.system = first, system

    def at(self, values, F0, exact=False):
        """(Q_u, H_u) at ``values`` ({symbol: value} of p, v and the parameters) with z' = F0,
        as sympy matrices (exact) or arrays."""
        where = dict(values) | dict(zip(self.pd + self.vd, list(F0)))
        Q, H = self.Q.xreplace(where), self.H.xreplace(where)
        return (Q, H) if exact else (np.array(Q.evalf(), float), np.array(H.evalf(), float))


def dependent_map(form, pieces, at, p0, v0, independent) -> StateMap:
    """The dependent formulation: chosen components of (p, v)."""
    system, n_p, n = form.system, len(p0), len(v0)
    names = system.coordinate_names + system.velocity_names
    keep = _choose(form, names, np.eye(n_p + n), at["G"], (range(n_p), range(n_p, n_p + n)), (), independent)
    return StateMap([names[i] for i in keep], ["q" if i < n_p else "u" for i in keep],
                    np.eye(n_p + n)[keep], np.zeros((len(keep), n_p + n)), "identity")


def reduced_map(form, pieces, at, p0, v0, independent) -> StateMap:
    """The reduced formulation (and the manifold formulation, on charts): chosen components of (q, w)."""
    n_p, n = len(p0), len(v0)
    kind = _geometry_kind(form, pieces, p0, v0)
    geometry = form.geometry
    k_q, k = len(geometry.q_names), len(geometry.w_names)
    names = geometry.q_names + geometry.w_names
    Q_all = geometry_rows(kind, geometry, pieces, at)[0]
    keep = _choose(form, names, Q_all, at["G"], (range(k_q), range(k_q, len(names))), range(k_q), independent)
    return StateMap([names[i] for i in keep], ["q" if i < k_q else "u" for i in keep],
                    np.eye(k_q + k)[keep], np.zeros((len(keep), n_p + n)), kind)


def minimal_map(form, pieces, at, p0, v0, independent) -> StateMap:
    """The minimal formulation: q and its own u = S_w w + S_v v, or u = Y(p) v (Speeds) for
    quasi-velocities (on the turned chart where there is one)."""
    if independent is not None:
        raise ArgumentError("linearize got independent= and a created minimal formulation: expected the "
                            "independent velocities in formulations.create('minimal', ..., independent=...)",
                            "independent")
    n_p, n = len(p0), len(v0)
    geometry = form.geometry
    kind = _geometry_kind(form, pieces, p0, v0, before_check=lambda kind: (
        form.prepare(p0, v0, t0=at["t"]) if kind != "chart" else form._choose(np.zeros(len(geometry.q_names)),
                                                                               form.requested)))
    k_q, k = len(geometry.q_names), len(geometry.w_names)
    r = len(form.choice)
    T = np.block([[np.eye(k_q), np.zeros((k_q, k))], [np.zeros((r, k_q)), form.S_w]])
    E = np.zeros((k_q + r, n_p + n))
    E[k_q:, n_p:] = form.S_v
    speeds = Speeds(form.system, form.quasi, k_q) if form.quasi is not None else None
    return StateMap(geometry.q_names + form.choice, ["q"] * k_q + ["u"] * r, T, E, kind, speeds)


def _geometry_kind(form, pieces, p0, v0, before_check=None) -> str:
    """The kind of the formulation's geometry at p0 ("chart": a chart taken there, its axes turned
    to follow the coordinates); refused where an embedding's A_q is not the identity."""
    geometry, system = form.geometry, form.system
    kind = "chart" if isinstance(geometry, Atlas) else "identity" if geometry.trivial else "embedding"
    if kind == "chart":
        geometry.from_dependent(p0, v0)
        _align_chart(geometry, system.numeric.constraints(p0, system.params)[1])
    if before_check is not None:
        before_check(kind)
    if kind == "embedding" and pieces.embedding is None:
        raise CapabilityError(f"linearize got system {system.name!r}, whose embedding has a kinematic matrix A_q other "
                              f"than the identity, but expected q' = w; use the 'dependent' formulation")
    return kind


def _align_chart(geometry, Phi_p):
    """Turn the chart's orthonormal basis V of the null space of Phi_p so that its axes follow the
    coordinates as far as they can (Gram-Schmidt on the projected coordinate axes, the coordinates
    that Phi_p involves least first): a coordinate the constraints do not involve is then a chart
    coordinate of its own, and is found ignorable where it is."""
    V = geometry.V
    projected = V @ V.T
    order = np.argsort(np.abs(Phi_p).sum(axis=0), kind="stable")
    basis = []
    for i in order:
        x = projected[:, i].copy()
        for b in basis:
            x -= (b @ x) * b
        if np.linalg.norm(x) > 1e-8:
            basis.append(x / np.linalg.norm(x))
        if len(basis) == V.shape[1]:
            break
    geometry.V = np.array(basis).T[:, np.argsort([int(np.argmax(np.abs(b))) for b in basis], kind="stable")]
    geometry._last = None


def rows(state, geometry, pieces, at):
    """(Q, H) of the state map at the point."""
    Q_all, H_all = geometry_rows(state.geometry, geometry, pieces, at)
    Q, H = state.T @ Q_all + state.E, state.T @ H_all
    if state.speeds is not None:
        system = state.speeds.system
        values = dict(zip(system.coordinates, at["p"])) | dict(zip(system.velocities, at["v"]))
        values |= dict(zip((par.symbol for par in system.parameters), at["par"]))
        Q_u, H_u = state.speeds.at(values, at["F0"])
        Q[state.speeds.first:] += Q_u
        H[state.speeds.first:] += H_u
    return Q, H


def geometry_rows(kind, geometry, pieces, at):
    """(Q, H) of y = (q, w) for a chart at p0 (q = V^T (p - p0), w = V^T A v), the embedding
    (q = h(p), w = h_p A v) or the identity."""
    p, v, par, F0 = at["p"], at["v"], at["par"], at["F0"]
    n_p, n = len(p), len(v)
    if kind == "chart":
        V = geometry.V
        Q = np.vstack([np.hstack([V.T, np.zeros((V.shape[1], n))]), V.T @ pieces.kinematics(p, v, par)])
        H = np.vstack([np.zeros((V.shape[1], n_p + n)), V.T @ pieces.kinematics_second(p, v, par, F0)])
        return Q, H
    if kind == "identity":
        return np.eye(n_p + n), np.zeros((n_p + n, n_p + n))
    return pieces.embedding(p, v, par), pieces.embedding_second(p, v, par, F0)


def _choose(form, names, Q_all, G, groups, forced, independent):
    """Indices of the rows of Q_all that make the independent state: the ``independent`` names, or
    by QR with column pivoting on the tangent basis, group by group (coordinates, then velocities)."""
    N = null_space(G)
    X = Q_all @ N
    if independent is not None:
        if isinstance(independent, str):
            independent = (independent,)
        for name in independent:
            if name not in names:
                raise UnknownNameError(f"coordinate or velocity of formulation {form.name!r}", name, names,
                                       argument="independent")
        keep = sorted(set(range(len(names))) & ({names.index(x) for x in independent} | set(forced)))
        if len(keep) != N.shape[1]:
            raise ArgumentError(f"independent got {len(set(independent))} names but {form.system.name!r} moves with "
                                f"{N.shape[1] - len(forced)} independent components in formulation {form.name!r}"
                                f" besides {len(forced)} coordinates", "independent")
        return keep
    keep = list(forced)
    for group in groups:
        rest = [i for i in group if i not in keep]
        if not rest:
            continue
        basis = X[keep].T if keep else np.zeros((N.shape[1], 0))
        projector = np.eye(N.shape[1]) - basis @ np.linalg.pinv(basis) if keep else np.eye(N.shape[1])
        Y = X[rest] @ projector
        rank, order = independent_rows(Y, tol=1e-9, scale=1.0)
        keep += [rest[j] for j in order[:rank]]
    return sorted(keep)


registry.provide("linearization", Dependent, dependent_map)
registry.provide("linearization", Reduced, reduced_map)  # and the manifold formulation, which extends it
registry.provide("linearization", Minimal, minimal_map)
