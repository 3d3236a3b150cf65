"""Formulation 2, reduced coordinates: holonomic constraints eliminated by p = g(q).

States (q, w) with q' = A_q w (w = q' unless q holds Euler parameters); v = D w,
v' = D w' + gamma; nonholonomic multipliers only:
    [[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = [f_bar - d_bar; -xi_bar]
    M_bar = D^T M D,  d_bar = D^T (M gamma + d),  f_bar = D^T f,  C_bar_nh = C_nh D,
    xi_bar = xi_nh + C_nh gamma.
Holonomic reactions are recovered afterwards in resolved form, C^T lambda = f - d - M v'.
A moving embedding p = g(q, t) gives v = D w + d_0 (formulations.coordinates.embedding); the nonholonomic rows
then read C_bar_nh w + c_bar_nh = 0 with c_bar_nh = C_nh d_0 + c_nh, and xi, gamma carry their terms
in t. Stabilization: Baumgarte or constraint dynamics on the velocity residual C_bar_nh w + c_bar_nh,
or Projection of w onto C_bar_nh w + c_bar_nh = 0 in the metric M_bar after every step. Systems without
an embedding run on the tangent-space charts of formulations.coordinates.charts.
"""
from __future__ import annotations


import numpy as np

from .base import Formulation, Saddle, register
from .coordinates.charts import make_geometry
from .equations import Equations, embedding_pieces, primitive_pieces
from .errors import CapabilityError
from .forms import STATE_UPDATE, StepChange
from .coordinates.embedding import c_bar_nh, unit_norm_constraints
from .linalg import resolved_reactions, saddle_system, solve_square


@register
class Reduced(Formulation):
    name = "reduced"
    gives_saddle = True
    gives_compiled_rhs = True
    numeric_form = "explicit ODE in (q, w); w' and lambda_nh from the reduced saddle-point system"
    stabilizations = ("none", "baumgarte", "constraint_dynamics", "projection", "ggl")

    options = ("utol", "w_limit", "cond_limit", "singular")
    comparison = ("reduced", "reduced+projection")
    passes_singular = True  # through an embedding (Formulation._singular_option)
    system_matrix = "the reduced matrix [[M_bar, C_bar_nh^T], [C_bar_nh, 0]]"

    def _configure(self, singular="stop", **chart_options):
        """Chart options (utol, w_limit, cond_limit) apply where the system has no embedding.
        singular: "stop" (default) ends a run where Phi_p loses rank; "pass", with an embedding,
        goes on, the embedding's coordinates being regular there (Formulation._singular_option)."""
        self.geometry = make_geometry(self.system, self.name, **chart_options)
        self._singular_option(singular)

    @property
    def uses_post_step(self):
        return self.on_charts or super().uses_post_step

    @property
    def reject_singular_stages(self):
        return self.on_charts  # a trial stage too far from the chart origin shrinks the step

    def post_step(self, t, y):
        charted = self.on_charts and self.geometry.needs_new_chart(self._split(y)[0], t)
        if charted:
            y = np.concatenate(self.geometry.from_dependent(*self.dependent_state(y, t), t))
        projected = self.stabilization.projects
        if projected:
            y = self.project(t, y)
        return StepChange(y, projected=projected, charted=charted) if charted or projected else None

    def state_names(self):
        return self.geometry.q_names + self.geometry.w_names

    def initial_state(self, p, v, t=0.0):
        return np.concatenate(self.geometry.from_dependent(p, v, t))

    def _split(self, y):
        k_q = len(self.geometry.q_names)
        return y[:k_q], y[k_q:]

    def dependent_state(self, y, t=0.0):
        q, w = self._split(y)
        p, D, _, A, _ = self.geometry.at(q, t)
        return p, D @ w + self.geometry.drift(q, A, t)

    def _no_dae(self):
        if self.on_charts:
            return (f"formulation {self.name!r} on tangent-space charts cannot be solved as a DAE (method 'IDA'): its "
                    f"coordinates change with every new chart; expected a system with an embedding p = g(q) or "
                    f"without holonomic constraints")
        return None

    def saddle(self, t, y):
        if self.on_charts:
            raise CapabilityError(self._no_dae())
        return self._reduced_saddle(t, y)

    def needs(self):
        needs = super().needs()
        if self.on_charts:
            needs.setdefault(STATE_UPDATE, (f"formulation {self.name!r} on tangent-space charts",
                                            "a new chart changes the state"))
        return needs

    def _reduced_saddle(self, t, y):
        m = self.system.m
        q, w = self._split(y)
        p, D, A_q, A, _ = self.geometry.at(q, t)
        d_0 = self.geometry.drift(q, A, t)
        v = D @ w + d_0
        pieces = self.num.dynamics(t, p, v, self.params_at(t, p, v))
        M, d, f0, F, C, xi = pieces.M, pieces.d, pieces.f0, pieces.F, pieces.C, pieces.xi
        gamma = self.geometry.gamma(q, w, A, pieces.pdd2, t)
        C_nh = C[m:]
        b = -xi[m:] - C_nh @ gamma
        offset = None
        if self.system.is_rheonomic:
            offset = c_bar_nh(self.num, self.par, m, p, t, C, d_0)
        gains = self._gains()
        if gains is not None and self.system.l:
            b = b - 2 * gains[0] * (C_nh @ D @ w + (0.0 if offset is None else offset))
        K, rhs, na = saddle_system(M, f0 - d, D, gamma, C_nh @ D, b, F=F if self.nonideal else None, C=C)
        return Saddle(A_q @ w, K, rhs, na, w, self.system.l, D, gamma, pieces, offset)

    @property
    def compiled_rheonomic(self):
        """The fused module serves rheonomic and affine rows through an embedding, not on charts."""
        return not self.on_charts

    def compiled_model(self):
        """(functions, model) of the whole evaluation through the embedding or on a chart
        (formulations.kernels.compiled.embedded); extra = (alpha, beta) then, on charts, the chart
        (Atlas.compiled_chart)."""
        from .kernels.embedded import embedded_functions, embedded_model

        evaluation = "evaluate_chart" if self.on_charts else "evaluate_reduced"
        return embedded_functions(evaluation), embedded_model(self, minimal=False)

    def compiled_arguments(self):
        extra = super().compiled_arguments()
        return np.concatenate([extra, self.geometry.compiled_chart()]) if self.on_charts else extra

    def compiled_restart(self, module, t, y, params, extra):
        """A new chart at the dependent state of y (chart coordinates on the chart of ``extra``), by
        the module's new_chart; where that fails, the Python chart's (the same chart, solved the same
        way), which says why: a ChartError naming the system, the time and the residual where the
        chart no longer reaches y, a singular configuration where Phi_p loses rank."""
        y_new, p0, U, V, B, ok = module.new_chart(t, y, params, extra)
        if ok:
            self.geometry.adopt_chart(p0, U, V, B)
            return y_new
        return self.initial_state(*self.dependent_state(y, t), t)

    def position_constraints(self, y_pos, t=0.0):
        return unit_norm_constraints(y_pos, self.geometry.unit_blocks)

    def accelerations(self, t, y, multipliers=True):
        s = self._reduced_saddle(t, y)
        sol = solve_square(s.K, s.rhs, self.system_matrix)
        a = sol[:s.na]
        vdot = s.T @ a + s.tau
        M, d, f0, F, C = s.dynamics.M, s.dynamics.d, s.dynamics.f0, s.dynamics.F, s.dynamics.C
        lam = sol[s.na:] if self.nonideal and F.any() else (
            resolved_reactions(C, f0 - d - M @ vdot) if multipliers else None)
        return np.concatenate([s.kinematics, a]), vdot, lam

    def project(self, t, y):
        if not self.system.l:
            return y
        q, w = self._split(y)
        q = self.geometry.renormalize(q)
        p, D, _, A, C = self.geometry.at(q, t)
        d_0 = self.geometry.drift(q, A, t)
        M = self.num.dynamics(t, p, D @ w + d_0, self.par).M  # inputs enter f only
        m = self.system.m
        C_bar = C[m:] @ D
        c_bar = c_bar_nh(self.num, self.par, m, p, t, C, d_0)
        M_bar = D.T @ M @ D
        Minv_Ct = np.linalg.solve(M_bar, C_bar.T)
        w = w - Minv_Ct @ np.linalg.solve(C_bar @ Minv_Ct, C_bar @ w + c_bar)
        return np.concatenate([q, w])

    def equations(self, expanded=False):
        pieces = primitive_pieces(self.system)
        pieces.update(embedding_pieces(self.system, expanded))
        return Equations(self.name, self.system.name, (
            "p = g(q, t),  q' = A_q w,  v = D w + d_0,  D = A^-1 g_q A_q,  d_0 = A^-1 g_t,  v' = D w' + gamma",
            "M_bar = D^T M D,  d_bar = D^T (M gamma + d),  f_bar = D^T f,  C_bar_nh = C_nh D",
            "[[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = [f_bar - d_bar; -xi_bar]",
            "holonomic reactions: C^T lambda = f - d - M v' (resolved)"), pieces)
