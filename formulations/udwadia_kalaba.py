"""Formulation 5, Udwadia–Kalaba: dependent variables (p, v), and no multipliers solved for.

    p' = A v,   v' = a + M^(-1/2) B^+ (b - C a),   a = M^-1 (f - d),   B = C M^(-1/2),   b = -xi

the fundamental equation of F. E. Udwadia and R. E. Kalaba, *A new perspective on constrained
motion*, Proc. R. Soc. Lond. A 439 (1992) 407-410: the constrained acceleration is the one closest to
the unconstrained a in the metric of M (Gauss's principle) among those with C v' = b. B^+, the
Moore-Penrose inverse, takes dependent rows as they come (Bricard's mechanism): nothing is set aside.
The constraint force is Q = M^(1/2) B^+ (b - C a) = -C^T lambda, whose minimum-norm lambda are the
reactions. Where the applied forces depend on the reactions (non-ideal rows: f = f0 + F lambda),
Q(lambda) is linear in lambda and C^T lambda = -Q(lambda) reads

    (C^T - M^(1/2) B^+ B M^(-1/2) F) lambda = -M^(1/2) B^+ (b - C M^-1 (f0 - d)),

solved in the least-squares sense. Baumgarte and constraint dynamics change b as in the dependent
formulation; projection moves (p, v) back onto the constraints after each step. M must be positive
definite (M^(-1/2)); a run stops where it is not, naming the time.
"""
from __future__ import annotations

import numpy as np

from .base import Formulation, register
from .dependent import Dependent
from .equations import Equations, primitive_pieces
from .forms import INDEX3, LIE_GROUP, VARIATIONAL
from .linalg import SADDLE_RTOL, SingularMatrixError

# M counts as positive definite where its smallest eigenvalue exceeds this share of its largest
DEFINITE_RTOL = 1e-13


@register
class UdwadiaKalaba(Dependent):
    """Dependent variables with the fundamental equation of Udwadia and Kalaba (no saddle-point solve)."""

    name = "udwadia_kalaba"
    numeric_form = "explicit ODE in (p, v); v' from the fundamental equation (Moore-Penrose inverse of C M^-1/2)"
    stabilizations = ("none", "baumgarte", "constraint_dynamics", "projection")
    system_matrix = "the mass matrix M"
    gives_saddle = False
    gives_compiled_rhs = False      # on the compiled backend its Python evaluation calls the compiled primitives
    compiled_projection = False
    compiled_dae = False
    compiled_python_rhs = False
    compiled_rheonomic = False
    comparison = ("udwadia_kalaba",)

    def accelerations(self, t, y, multipliers=True):
        v, pieces, b, _ = self.acceleration_rows(t, y)
        M, d, f0, F, C, A = pieces.M, pieces.d, pieces.f0, pieces.F, pieces.C, pieces.A
        root, inverse_root = _square_roots(M)
        h = f0 - d
        a = inverse_root @ (inverse_root @ h)
        if not C.shape[0]:
            return np.concatenate([A @ v, a]), a, np.zeros(0)
        B_plus = np.linalg.pinv(C @ inverse_root, rcond=SADDLE_RTOL)
        Q = root @ (B_plus @ (b - C @ a))  # the constraint force where f holds no reactions
        if self.nonideal and np.any(F):
            lam = np.linalg.lstsq(C.T - root @ (B_plus @ (C @ inverse_root @ (inverse_root @ F))), -Q,
                                  rcond=SADDLE_RTOL)[0]
            vdot = inverse_root @ (inverse_root @ (h + F @ lam - C.T @ lam))
            return np.concatenate([A @ v, vdot]), vdot, lam
        vdot = a + inverse_root @ (B_plus @ (b - C @ a))
        lam = np.linalg.lstsq(C.T, -Q, rcond=SADDLE_RTOL)[0] if multipliers else None
        return np.concatenate([A @ v, vdot]), vdot, lam

    def gives(self, form):
        if form in (INDEX3, LIE_GROUP, VARIATIONAL):  # methods of the dependent formulation's own equations
            return Formulation.gives(self, form)
        return super().gives(form)

    def compiled_model(self):
        return None

    def equations(self, expanded=False):
        return Equations(self.name, self.system.name, (
            "p' = A v",
            "M v' + d = f + Q,   Q = -C^T lambda,  C = [C_h; C_nh],  C_h = Phi_p A",
            "C v' = b,   b = -xi,   xi = (d/dp (C v + c)) A v + d/dt (C v + c)",
            "v' = a + M^(-1/2) (C M^(-1/2))^+ (b - C a),   a = M^-1 (f - d)"), primitive_pieces(self.system))


def _square_roots(M):
    """(M^(1/2), M^(-1/2)) of the symmetric positive definite M, from its eigenvalues; a
    SingularMatrixError where M is not positive definite (massless coordinates; the solver's
    message adds the system and the time)."""
    mu, Q = np.linalg.eigh(0.5 * (M + M.T))
    if not np.all(np.isfinite(mu)) or mu[0] <= DEFINITE_RTOL * max(mu[-1], 0.0) or mu[-1] <= 0.0:
        raise SingularMatrixError("the mass matrix M", f"its smallest eigenvalue is {mu[0]:.3e} against a largest of "
                                  f"{mu[-1]:.3e}, and the fundamental equation of Udwadia and Kalaba needs M positive "
                                  f"definite (M^-1/2); use 'dependent', whose saddle-point matrix may still be regular")
    s = np.sqrt(mu)
    return (Q * s) @ Q.T, (Q / s) @ Q.T
