"""The Pfaffian rows as forms over independent coordinates, the extended rows of the distribution,
and random configurations on Phi = 0 (shared by the numeric and the symbolic phases)."""
from __future__ import annotations

import numpy as np
import sympy as sp


def _time_column(system):
    """(timed, c_nh (l, 1)): whether the rows depend on time, and their velocity-free term."""
    t = system.time
    c_nh = getattr(system, "c_nh", None)
    c_nh = sp.Matrix(c_nh) if c_nh is not None else sp.zeros(system.l, 1)
    emb = system.embedding
    symbols = sp.Matrix(system.C_nh).free_symbols | sp.Matrix(system.Phi).free_symbols | c_nh.free_symbols
    timed = t in symbols or any(e != 0 for e in c_nh) or (emb is not None and t in sp.Matrix(emb.g).free_symbols)
    return timed, c_nh


def _row_forms(system, seconds, clock):
    """(coordinates x, forms (l, len(x)), label): rows of C_nh as forms a(x) . dx, with the dt
    column a_t last (x ends with the time) where the rows depend on time."""
    timed, c_nh = _time_column(system)
    t = system.time
    tail = ", t" if timed else ""
    emb = system.embedding
    if emb is not None and emb.A_q == sp.eye(len(emb.coordinates)):
        q = list(emb.coordinates)
        subs = dict(zip(system.coordinates, emb.g))
        g = sp.Matrix(emb.g)
        G = g.jacobian(q + ([t] if timed else []))
        A = sp.Matrix(system.A).subs(subs)
        D = G if A == sp.eye(A.shape[0]) else clock.run(lambda: sp.simplify(A.LUsolve(G)), seconds * 4,
                                                       label="the velocity map D = A^-1 g_q")
        if D is not None:
            forms = clock.run(lambda: sp.simplify(sp.Matrix(system.C_nh).subs(subs) * D), seconds * 4,
                              label="the rows in reduced coordinates")
            if forms is not None:
                if timed:
                    forms = sp.Matrix(forms)
                    forms[:, -1] = forms[:, -1] + c_nh.subs(subs)
                return (q + ([t] if timed else []), forms,
                        "reduced coordinates q = (" + ", ".join(s.name for s in q) + tail + ")")
    A = sp.Matrix(system.A)
    if A.shape[0] == A.shape[1]:
        Ainv = sp.eye(A.shape[0]) if A == sp.eye(A.shape[0]) else clock.run(lambda: sp.simplify(A.inv()),
                                                                            seconds * 4, label="the inverse of A")
        if Ainv is not None:
            forms = sp.Matrix(system.C_nh) * Ainv
            if timed:
                forms = forms.row_join(c_nh)
            return (list(system.coordinates) + ([t] if timed else []), forms,
                    "coordinates p = (" + ", ".join(system.coordinate_names) + tail + ")")
        return None, None, "the rows' form in p was not found within the time bound"
    return None, None, ("the kinematics A is not square (Euler parameters), so the rows have no form in "
                        "independent coordinates; they are analysed as a distribution only")


def _manifold_points(system, rng, count=6, timed=False):
    """Random configurations on Phi = 0 (exact through the embedding where there is one), each
    followed by a random time where the rows depend on time. A projection that does not reach
    Phi = 0 (|Phi| > 1e-8) is drawn again, up to 3 count draws; the points found are returned."""
    p0 = system.default_state()[0]
    points = []
    moving = timed and system.time in (sp.Matrix(system.Phi).free_symbols
                                       | (sp.Matrix(system.embedding.g).free_symbols if system.embedding else set()))
    for _ in range(3 * count):
        t = float(rng.uniform(0.3, 1.2))
        at = {"t": t} if moving else {}
        p = _consistent_point(system, p0, rng, at)
        if p is not None:
            points.append(np.append(p, t) if timed else p)
        if len(points) == count:
            break
    return points


def _consistent_point(system, p0, rng, at):
    """A random configuration near p0 on Phi = 0 at the time ``at``, or None where the projection fails."""
    from ..state import normalize_blocks, project_positions, renormalize

    num, par = system.numeric, system.params
    if system.embedding is not None:
        q0 = num.inverse(p0, par, **at)
        q = normalize_blocks(q0 + rng.uniform(-0.6, 0.6, q0.shape), system.embedding.unit_norm_blocks)
        return num.embedding(q, par, **at)[0]
    guess = renormalize(system, p0 + rng.uniform(-0.3, 0.3, p0.shape))
    with np.errstate(all="ignore"):
        p = project_positions(system, guess, **at)[0]
        ok = np.all(np.isfinite(p)) and (not system.m or np.max(np.abs(num.Phi(p, par, **at))) <= 1e-8)
    return p if ok else None


def _extended_rows(system, subs):
    """(x, C, A, timed) of the distribution: over p, or over (p, t) where the rows depend on time,
    with C extended by the column c = [Phi_t; c_nh] and A by a 1 for t' = 1."""
    timed, c_nh = _time_column(system)
    P = list(system.coordinates)
    C = sp.Matrix(system.C).xreplace(subs)
    A = sp.Matrix(system.A).xreplace(subs)
    if not timed:
        return P, C, A, False
    Phi_t = sp.Matrix(system.Phi).diff(system.time) if system.m else sp.zeros(0, 1)
    c = sp.Matrix.vstack(Phi_t, c_nh).xreplace(subs)
    return P + [system.time], C.row_join(c), sp.diag(A, 1), True
