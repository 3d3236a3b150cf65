"""The Boltzmann-Hamel equations in quasi-velocities: u = Y(q) q' (the generalized speeds) completed by
the constraint quasi-velocities u_c = C_bar_nh q', which vanish on every admissible motion, so that
q' = Z [u; u_c] with Z = [Y; C_bar_nh]^-1. With the kinetic energy T*(q, u) = T(q, Z u) and the
Hamel coefficients (from the transpositional relations)

    gamma^s_rl = sum_ij (dY_sj/dq_i - dY_si/dq_j) Z_jr Z_il,

the equation of each independent speed r reads

    d/dt dT*/du_r - sum_j Z_jr dT*/dq_j + sum_s,l gamma^s_rl u_l dT*/du_s = Pi_r,  Pi = Z^T Q,

evaluated at u_c = 0 after the derivatives are taken; the equations of the u_c hold the reactions.

References: L. Boltzmann, Sitzungsber. Akad. Wiss. Wien 111 (1902) 1603-1614; G. Hamel, Z. Math.
Phys. 50 (1904) 1-57; J. G. Papastavridis, Analytical Mechanics (2002), ch. 4.
"""
from __future__ import annotations

import sympy as sp

from .. import transcript as tr
from ..steps import Step
from .lagrange import RESIDUAL, opening_steps
from .mechanics import MethodEquations, speeds, velocity_map


def hamel_coefficients(mech, Y_full, Z, simp):
    """{(s, r, l): gamma^s_rl} of the nonzero coefficients (0-based indices), antisymmetric in r, l."""
    k = mech.k
    q = list(mech.q)
    out = {}
    for s in range(k):
        curl = sp.Matrix(k, k, lambda i, j: Y_full[s, j].diff(q[i]) - Y_full[s, i].diff(q[j]))
        if curl == sp.zeros(k, k):
            continue
        G = simp(Z.T * curl.T * Z)  # G[r, l] = sum_ij curl[i, j] Z_jr Z_il
        for r in range(k):
            for l_ in range(k):
                if G[r, l_] != 0:
                    out[(s, r, l_)] = G[r, l_]
    return out


def boltzmann_hamel(mech, simp, steps, given=None):
    steps += opening_steps(mech)
    u, Y = speeds(mech, given)
    Z, W = velocity_map(mech, Y, simp)
    u_c = sp.Matrix(mech.l, 1, [sp.Symbol(f"u_c{i + 1}", real=True) for i in range(mech.l)])
    u_all = u.col_join(u_c)
    Y_full = Y.col_join(mech.C_bar)
    M_star = simp(Z.T * mech.M * Z)  # T = q'^T M q' / 2 (scleronomic): a quadratic form in u
    T_star = sp.Add(*(M_star[i, j] * u_all[i] * u_all[j] / 2 for i in range(mech.k) for j in range(mech.k)))
    gamma = hamel_coefficients(mech, Y_full, Z, simp)
    defs = ", ".join(f"{sp.latex(tr.display_symbols(s))} = {sp.latex(tr.display_symbols(e))}"
                     for s, e in zip(u_all, Y_full * mech.qd))
    rows = ("" if not mech.l else ": the last is the constraint row and vanishes on every admissible motion"
            if mech.l == 1 else f": the last {mech.l} are the constraint rows and vanish on every admissible motion")
    steps.append(Step("quasi_velocities", "Quasi-velocities",
                      f"The quasi-velocities ${defs}${rows}. Their differentials are not those of coordinates "
                      "where the rows of $\\mathbf{Y}$ are not exact; the Hamel coefficients measure by how much.",
                      (r"\dot{\mathbf{q}} = \mathbf{Z}\,\mathbf{u}, \quad \mathbf{Z} = "
                       rf"\begin{{bmatrix}}\mathbf{{Y}} \\ {tr.NAMES['C_bar_nh'][0]}\end{{bmatrix}}^{{-1}}",
                       r"\gamma^{s}_{rl} = \sum_{i,j}\Big(\frac{\partial Y_{sj}}{\partial q_i} - \frac{\partial "
                       r"Y_{si}}{\partial q_j}\Big) Z_{jr} Z_{il}"),
                      (("Z", Z), ("T_star", T_star)) + tuple(_hamel_pieces(gamma, mech.k))))
    on_c = {s: 0 for s in u_c}
    grad_u = sp.Matrix([T_star]).jacobian(u_all).T
    udot, qdd = mech.accelerations(u, W, simp)
    d_dt = (grad_u.jacobian(mech.q) * (Z * u_all) + grad_u.jacobian(u) * udot).subs(on_c)
    dq = (Z.T * sp.Matrix([T_star]).jacobian(mech.q).T).subs(on_c)
    Pi = (Z.T * mech.Q.subs(dict(zip(mech.qd, Z * u_all)))).subs(on_c)
    residual = []
    for r in range(mech.r):
        hamel = sum((g * u_all[l_] * grad_u[s] for (s, rr, l_), g in gamma.items() if rr == r), sp.S.Zero)
        residual.append(d_dt[r] - dq[r] + sp.sympify(hamel).subs(on_c) - Pi[r])
    residual = simp(sp.Matrix(residual))
    steps.append(Step("equations", "The Boltzmann-Hamel equations",
                      "One equation per independent quasi-velocity; Lagrange's form gains the Hamel terms, which "
                      "vanish where the quasi-velocities are rates of coordinates." + RESIDUAL,
                      (r"\frac{d}{dt}\frac{\partial T^{*}}{\partial u_r} - \sum_j Z_{jr}\frac{\partial T^{*}}"
                       r"{\partial q_j} + \sum_{s,l}\gamma^{s}_{rl}\,u_l\frac{\partial T^{*}}{\partial u_s} = \Pi_r,"
                       r"\quad \Pi = \mathbf{Z}^{T}\mathbf{Q}",), (("residual", residual),)))
    gamma_1 = {(s + 1, r + 1, l_ + 1): g for (s, r, l_), g in gamma.items()}  # numbered from 1, as printed
    return ({"u": u, "Z": Z, "T_star": T_star, "gamma": gamma_1, "residual": residual},
            MethodEquations("boltzmann-hamel", tuple(udot), residual, qdd, dict(zip(u, Y * mech.qd))))


def _hamel_pieces(gamma, k):
    """(name, matrix) per s with a nonzero coefficient: gamma^s as a k x k matrix in (r, l)."""
    for s in sorted({s for s, _, _ in gamma}):
        G = sp.zeros(k, k)
        for (ss, r, l_), g in gamma.items():
            if ss == s:
                G[r, l_] = g
        yield f"gamma^{s + 1}", G
