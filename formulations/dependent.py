"""Formulation 1, dependent variables: states (p, v), multipliers for every constraint.

    p' = A v,   [[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]
Baumgarte and constraint dynamics replace -xi by -xi - 2 alpha (C v + c) - beta^2 [Phi; 0]; Projection
moves (p, v) back onto the constraint manifold Phi(p, t) = 0, C v + c = 0 after every accepted step
(Blajer 2002); GGL is the stabilized index-2 DAE form, solved by IDA (formulations.solvers.ida).
Rheonomic and affine rows enter through c = [Phi_t; c_nh] and the time terms of xi. Dependent
constraint rows (rank C < m + l: Bricard's mechanism, a singular position passed through) leave v'
unique and lambda undetermined along ker C^T: the saddle-point solve then returns the minimum-norm
lambda.
"""
from __future__ import annotations

from functools import cached_property

import numpy as np

from systems.state import project_positions, project_velocities, renormalize

from .base import Formulation, Saddle, register
from .discrete_lagrangian import why_not as no_discrete_lagrangian
from .forms import INDEX3, LIE_GROUP, VARIATIONAL, not_made_of_bodies
from .equations import Equations, primitive_pieces
from .linalg import minimum_norm_multipliers, saddle_system, solve_saddle
from .stabilization import Projection


@register
class Dependent(Formulation):
    name = "dependent"
    gives_saddle = True
    gives_compiled_rhs = True
    numeric_form = "explicit ODE in (p, v); v' and lambda from the augmented (saddle-point) system each evaluation"
    stabilizations = ("none", "baumgarte", "constraint_dynamics", "projection", "ggl")
    system_matrix = "the augmented matrix [[M, C^T], [C, 0]]"
    compiled_projection = True
    compiled_dae = True
    compiled_python_rhs = True
    compiled_rheonomic = True
    redundant_rows = True  # dependent rows: minimum-norm multipliers (formulations.linalg.solve_saddle)
    options = ("singular",)
    comparison = ("dependent", "dependent+baumgarte", "dependent+projection")

    def _configure(self, singular="stop"):
        """singular: "stop" (default) ends a run where Phi_p loses rank, naming the configuration;
        "pass" goes through it, the saddle-point solve taking the minimum-norm multipliers there (the
        N-four-bar mechanism's flat positions). Rows dependent from the start (Bricard's mechanism)
        are set aside in the rank watch either way."""
        self._singular_option(singular)

    @cached_property
    def dropped(self) -> np.ndarray:
        """(m + l,) bool: the rows dependent at the default state (system.redundant_constraints), set
        aside in the solve (lambda_i = 0); the multipliers are spread afterwards as the minimum-norm
        set with the same force C^T lambda. Off the constraint manifold those rows are nearly, not
        exactly, dependent, and keeping them would make the saddle-point matrix nearly singular."""
        return np.array([name in self.system.redundant_constraints for name in self.system.constraint_names], bool)

    def state_names(self):
        return self.system.coordinate_names + self.system.velocity_names

    def initial_state(self, p, v, t=0.0):
        return np.concatenate([p, v])

    def dependent_state(self, y, t=0.0):
        n_p = len(self.system.coordinates)
        return renormalize(self.system, y[:n_p]) if self.system.unit_norm_blocks else y[:n_p], y[n_p:]

    def acceleration_rows(self, t, y):
        """(v, pieces, b, offset) at (t, y): the velocities, the dynamics pieces (M, d, f0, F, C, xi,
        A, pdd2), the right-hand side b of the acceleration-level rows C v' = b (-xi, with the
        stabilization's feedback -2 alpha (C v + c) - beta^2 [Phi; 0]) and c, the velocity-free term
        of the rows (None where it is not needed)."""
        p, v = self.dependent_state(y, t)
        p, pieces = self.dynamics(t, p, v)
        C = pieces.C
        b = -pieces.xi
        gains = self._gains()
        offset = None
        if self.system.is_rheonomic or (gains is not None and C.shape[0]):
            Phi, _, _, offset = self.num.constraint_terms(p, self.par, t)
        if gains is not None and C.shape[0]:
            alpha, beta = gains
            b = b - 2 * alpha * (C @ v + offset)
            if self.system.m:
                b[: self.system.m] -= beta**2 * Phi
        return v, pieces, b, offset

    def saddle(self, t, y):
        v, pieces, b, offset = self.acceleration_rows(t, y)
        M, d, f0, F, C, A = pieces.M, pieces.d, pieces.f0, pieces.F, pieces.C, pieces.A
        K, rhs, na = saddle_system(M, f0 - d, None, None, C, b, F=F if self.nonideal else None, C=C)
        if self.dropped.any():
            rows = na + np.flatnonzero(self.dropped)
            K[rows, :], K[:, rows], rhs[rows] = 0.0, 0.0, 0.0
            K[rows, rows] = 1.0
        return Saddle(A @ v, K, rhs, na, v, C.shape[0], None, None, pieces, offset=offset)

    def accelerations(self, t, y, multipliers=True):
        s = self.saddle(t, y)
        sol, _ = solve_saddle(s.K, s.rhs, self.system_matrix)
        vdot, lam = sol[:s.na], sol[s.na:]
        if self.dropped.any():
            lam = minimum_norm_multipliers(s.dynamics.C, lam)
        return np.concatenate([s.kinematics, vdot]), vdot, lam

    def compiled_model(self):
        """The whole evaluation in machine code (formulations.kernels.compiled.dependent), and the
        projection after a step; extra = (alpha, beta, projecting, tol, max_iter, positions,
        velocities, then one flag per constraint row: set aside as dependent)."""
        from .kernels.dependent import dependent_functions, dependent_model

        return dependent_functions(), dependent_model(self)

    def compiled_arguments(self):
        stab = self.stabilization
        if not stab.projects:
            return np.concatenate([super().compiled_arguments(), np.zeros(5), self.dropped])
        return np.concatenate([[0.0, 0.0, 1.0, stab.tol, stab.max_iter, stab.positions, stab.velocities],
                               self.dropped])

    def position_constraints(self, y_pos, t=0.0):
        Phi_a, Phi_a_p = self.num.holonomic_chart(y_pos, np.zeros_like(y_pos), self.par, t)[:2]
        return Phi_a, Phi_a_p

    def gives(self, form):
        if form == VARIATIONAL:
            if self.stabilization.kind != "none":
                return (f"the variational methods impose the constraints themselves: got stabilization "
                        f"{self.stabilization.name!r} but expected 'none'")
            return no_discrete_lagrangian(self.system)
        if form == INDEX3 and self.stabilization.kind != "none":
            return (f"the augmented Lagrangian method enforces the constraints itself: got stabilization "
                    f"{self.stabilization.name!r} but expected 'none'")
        if form in (INDEX3, LIE_GROUP) and self.stabilization.dae_only:
            return super().gives(form)
        if form == INDEX3:
            return None
        if form == LIE_GROUP:
            return None if self.system.made_of_bodies else not_made_of_bodies(self.system)
        return super().gives(form)

    def project(self, t, y):
        """y moved onto the constraints: p by Newton in the kinetic-energy metric, v by the
        M-orthogonal projection (Blajer), with the Projection strategy's settings (its defaults where
        the formulation runs another stabilization)."""
        stab = self.stabilization if self.stabilization.projects else Projection()
        p, v = self.dependent_state(y)
        if stab.positions:
            p = project_positions(self.system, p, tol=stab.tol, max_iter=stab.max_iter, t=t)[0]
        if stab.velocities:
            v = project_velocities(self.system, p, v, t=t)[0]
        return np.concatenate([p, v])

    def equations(self, expanded=False):
        return Equations(self.name, self.system.name, (
            "p' = A v",
            "M v' + d = f - C^T lambda,   C = [C_h; C_nh],  C_h = Phi_p A",
            "C v' + xi = 0,   xi = (d/dp (C v + c)) A v + d/dt (C v + c),  c = [Phi_t; c_nh]",
            "[[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]"), primitive_pieces(self.system))
