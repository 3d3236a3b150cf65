"""Chaplygin's and Voronets' reduced equations: with the coordinates split into q = (s, sigma) such that
the rows read sigma' = B(s, sigma) s', the Lagrangian with the rows substituted,
L~(s, sigma, s') = T(q, s', B s') - V(q), gives the r equations

    d/dt dL~/ds'_r - dL~/ds_r - sum_k B_kr dL~/dsigma_k - sum_k (dT/dsigma'_k) sum_j Omega^k_rj s'_j = Q~_r

with Q~ = Q_nc,s + B^T Q_nc,sigma and Omega^k_rj = (dB_kr/ds_j + sum_m dB_kr/dsigma_m B_mj) - (r <-> j)
(Voronets). Where B, T, V and Q~ do not depend on sigma the third term vanishes and Omega is the curl of
B in s: Chaplygin's equations, which no longer involve sigma at all.

References: S. A. Chaplygin, Mat. Sb. 20 (1897) 303-314; P. V. Voronets, Mat. Sb. 22 (1901) 659-686;
Neimark & Fufaev, Dynamics of Nonholonomic Systems (1972), ch. III.
"""
from __future__ import annotations

from itertools import combinations

import sympy as sp

from .. import transcript as tr
from ..steps import Step
from .lagrange import RESIDUAL, opening_steps
from .mechanics import MethodEquations, NotApplicable, rate_symbol

SPLITS = 40  # splits of the coordinates tried besides the first

def split(mech, chaplygin):
    """(independent indices, B) of the first split of q (the minimal formulation's choice first) where the
    rows solve for the dependent rates and, for Chaplygin, B, T and Q_nc do not depend on the dependent
    coordinates; or ValueError saying why none does."""
    k, l_ = mech.k, mech.l
    if not l_:
        raise NotApplicable(f"derive: {mech.name!r} has no nonholonomic rows, and without them Chaplygin's and "
                            f"Voronets' equations are Lagrange's (method 'lagrange')")
    first = tuple(mech.independent)
    others = [c for c in combinations(range(k), mech.r) if c != tuple(sorted(first))]
    choices = [first] + others[:SPLITS]
    reasons = []
    for ind in choices:
        dep = [j for j in range(k) if j not in ind]
        C_dep = mech.C_bar.extract(list(range(l_)), dep)
        if sp.simplify(C_dep.det()) == 0:
            continue
        B = sp.simplify(-C_dep.LUsolve(mech.C_bar.extract(list(range(l_)), list(ind))))
        sigma = {mech.q[j] for j in dep}
        found = {name: sorted(str(s) for s in expr.free_symbols & sigma)
                 for name, expr in (("B", B), ("T", mech.T), ("V", mech.V), ("Q_nc", mech.Q_nc))}
        if not chaplygin or not any(found.values()):
            return list(ind), dep, B
        reasons.append((ind, dep, found))
    if not reasons:
        raise NotApplicable(f"derive: no split of the coordinates of {mech.name!r} solves its rows for the "
                            f"dependent rates")
    ind, dep, found = reasons[0]
    named = "; ".join(f"{name} depends on {', '.join(syms)}" for name, syms in found.items() if syms)
    raise NotApplicable(f"derive: {mech.name!r} is not a Chaplygin system: with independent coordinates "
                        f"{', '.join(str(mech.q[j]) for j in ind)} and dependent "
                        f"{', '.join(str(mech.q[j]) for j in dep)}, {named} (and so for every other split"
                        f"{'' if len(others) <= SPLITS else f' of the {SPLITS + 1} tried'}); "
                        f"Voronets' equations (method 'voronets') allow this")


def reduced_equations(mech, simp, steps, chaplygin, given=None):
    """Chaplygin's (``chaplygin``) or Voronets' equations."""
    name = "chaplygin" if chaplygin else "voronets"
    ind, dep, B = split(mech, chaplygin)
    steps += opening_steps(mech)
    s, sigma = [mech.q[j] for j in ind], [mech.q[j] for j in dep]
    sd, sigd = sp.Matrix([mech.qd[j] for j in ind]), sp.Matrix([mech.qd[j] for j in dep])
    on_rows = dict(zip(sigd, B * sd))
    T_tilde = simp(sp.expand(mech.T.xreplace(on_rows)))
    p_sigma = simp(sp.Matrix([mech.T]).jacobian(sigd).T.xreplace(on_rows))
    Q_tilde = simp((sp.Matrix([mech.Q_nc[j] for j in ind]) + B.T * sp.Matrix([mech.Q_nc[j] for j in dep]))
                   .xreplace(on_rows))
    r = len(ind)

    def total(expr, j):  # d expr / d s_j along the rows: through s_j and through sigma
        return expr.diff(s[j]) + sum((expr.diff(sigma[m]) * B[m, j] for m in range(len(dep))), sp.S.Zero)

    Omega = [simp(sp.Matrix(r, r, lambda a, b: total(B[kk, a], b) - total(B[kk, b], a))) for kk in range(len(dep))]
    sdd = sp.Matrix([rate_symbol(x) for x in sd])
    grad = sp.Matrix([T_tilde]).jacobian(sd).T
    d_dt = grad.jacobian(s) * sd + grad.jacobian(sigma) * (B * sd) + grad.jacobian(sd) * sdd
    L_tilde = T_tilde - mech.V
    residual = d_dt - sp.Matrix([L_tilde]).jacobian(s).T - B.T * sp.Matrix([L_tilde]).jacobian(sigma).T
    residual -= sp.Matrix([sum((p_sigma[kk] * (Omega[kk] * sd)[a] for kk in range(len(dep))), sp.S.Zero)
                           for a in range(r)])
    residual = simp(residual - Q_tilde)
    _steps(steps, name, mech, s, sigma, B, T_tilde, p_sigma, Omega, residual)
    qdd = sp.zeros(mech.k, 1)
    acc_sigma = B * sdd + sp.Matrix([sum((total(B[m, a], j) * sd[j] * sd[a] for a in range(r) for j in range(r)),
                                         sp.S.Zero) for m in range(len(dep))])
    for row, j in enumerate(ind):
        qdd[j] = sdd[row]
    for row, j in enumerate(dep):
        qdd[j] = acc_sigma[row]
    pieces = {"B": B, "T_tilde": T_tilde, "p_sigma": p_sigma, "Omega": Omega, "residual": residual}
    return pieces, MethodEquations(name, tuple(sdd), residual, qdd, {x: x for x in sd})


def _steps(steps, name, mech, s, sigma, B, T_tilde, p_sigma, Omega, residual):
    s_tex = ", ".join(sp.latex(tr.display_symbols(x)) for x in s)
    sigma_tex = ", ".join(sp.latex(tr.display_symbols(x)) for x in sigma)
    free = ("neither $\\mathbf{B}$ nor $T$, $V$ and the forces depend on $\\boldsymbol{\\sigma}$: a Chaplygin system"
            if name == "chaplygin" else "$\\mathbf{B}$ and $T$ may depend on $\\boldsymbol{\\sigma}$ (Voronets)")
    steps.append(Step("split", "Split of the coordinates",
                      f"With $\\mathbf{{s}} = ({s_tex})$ independent and $\\boldsymbol{{\\sigma}} = ({sigma_tex})$ "
                      f"dependent, the rows give the dependent rates; {free}.",
                      (r"\dot{\boldsymbol{\sigma}} = \mathbf{B}\,\dot{\mathbf{s}}",), (("B", B),)))
    omega_pieces = tuple((f"Omega^{i + 1}", om) for i, om in enumerate(Omega) if om != sp.zeros(*om.shape))
    steps.append(Step("constrained_energy", "Kinetic energy with the rows substituted",
                      "The rows substituted before differentiating: the terms lost that way come back through "
                      "the momenta of the dependent coordinates and the coefficients $\\Omega$.",
                      (r"\tilde{L}(\mathbf{s}, \boldsymbol{\sigma}, \dot{\mathbf{s}}) = "
                       r"T(\mathbf{q}, \dot{\mathbf{s}}, \mathbf{B}\dot{\mathbf{s}}) - V(\mathbf{q})",
                       r"\Omega^{\kappa}_{rj} = \frac{\bar\partial B_{\kappa r}}{\bar\partial s_j} - "
                       r"\frac{\bar\partial B_{\kappa j}}{\bar\partial s_r}, \quad "
                       r"\frac{\bar\partial}{\bar\partial s_j} = \frac{\partial}{\partial s_j} + "
                       r"\sum_{\mu} B_{\mu j}\frac{\partial}{\partial \sigma_\mu}"),
                      (("T_tilde", T_tilde), ("p_sigma", p_sigma)) + omega_pieces))
    third = ("" if name == "chaplygin" else
             r" - \sum_{\kappa} B_{\kappa r}\frac{\partial \tilde{L}}{\partial \sigma_\kappa}")
    title = "Chaplygin's equations" if name == "chaplygin" else "Voronets' equations"
    steps.append(Step("equations", title,
                      "Lagrange's form in the independent coordinates alone, with a correction for the rows "
                      "substituted into $T$; the reactions do not appear." + RESIDUAL,
                      (r"\frac{d}{dt}\frac{\partial \tilde{L}}{\partial \dot{s}_r} - \frac{\partial \tilde{L}}"
                       rf"{{\partial s_r}}{third} - \sum_{{\kappa}} \Big(\frac{{\partial T}}{{\partial "
                       r"\dot{\sigma}_\kappa}\Big)_{\dot{\boldsymbol\sigma} = \mathbf{B}\dot{\mathbf{s}}} \sum_j "
                       r"\Omega^{\kappa}_{rj}\dot{s}_j = \tilde{Q}_{nc,r}",), (("residual", residual),)))
