"""Formulation 3, minimal: both kinds of constraint eliminated, a pure ODE in (q, u).

The independent velocities are u = E w, E chosen by name (components of w, or of v through
E = S_v D), as quasi-velocities u = Y(p) v (E = Y D; formulations.coordinates.speeds) or
automatically by pivoting on C_bar_nh (coordinate partitioning). Then
    [C_bar_nh; E] D_bar = [0; I],   w = D_bar u,   w' = D_bar u' + gamma_bar,
    [C_bar_nh; E] gamma_bar = [-xi_bar; -E' w],   E' w = Y gamma + Y' v  (Y = S_v for names),
    M_barbar u' + d_barbar = f_barbar,  M_barbar = D_bar^T M_bar D_bar   (r, r).
Rheonomic or affine rows, C_bar_nh w + c_bar_nh = 0 (c_bar_nh = C_nh d_0 + c_nh, v = D w + d_0 with a
moving embedding), make the velocity map affine: u = E w + Y d_0 and
    w = D_bar u + d_bar_0,   [C_bar_nh; E] d_bar_0 = [-c_bar_nh; -Y d_0],
the particular solution d_bar_0 carrying the prescribed motion; the accelerations keep the form
above, xi and gamma holding their terms in t.
All reactions follow in resolved form, C^T lambda = f - d - M v'. Where [C_bar_nh; E] becomes
singular along the run, the run stops with a message, or (rechoose=True) the velocities are
chosen anew by pivoting at the last accepted state.
"""
from __future__ import annotations

import numpy as np

from systems.dependent_rows import velocity_partition
from systems.errors import ArgumentError, UnknownNameError

from .base import Formulation, register
from .coordinates.charts import make_geometry
from .coordinates.embedding import c_bar_nh
from .coordinates.speeds import QuasiVelocities, parse
from .equations import Equations, embedding_pieces, primitive_pieces
from .errors import StopRun
from .forms import COMPILED_ODE, POST_STEP, StepChange
from .linalg import SingularMatrixError, resolved_reactions, solve_accelerations, solve_square


@register
class Minimal(Formulation):
    name = "minimal"
    gives_compiled_rhs = True
    numeric_form = "explicit ODE in (q, u) with the minimal mass matrix M_barbar (r, r)"
    options = ("independent", "rechoose", "cond_limit", "singular")
    comparison = ("minimal",)
    passes_singular = True  # through an embedding (Formulation._singular_option)
    system_matrix = "[C_bar_nh; E] or the minimal mass matrix M_barbar"
    compiled_rheonomic = True  # through an embedding (on charts it has no compiled module at all)

    def _configure(self, independent=None, rechoose=None, cond_limit=100.0, singular="stop"):
        """independent: names of w or v components (default: the system's choice, else pivoting), or
        quasi-velocities u = Y(p) v: speeds the system declares by name, expressions linear in v,
        pairs (name, expression) or a dict of them (formulations.coordinates.speeds); these are kept
        over the run (rechoose=True is refused with them).

        After every accepted step the choice is checked: it has become singular where
        cond([C_bar_nh; E]) passes cond_limit or det([C_bar_nh; E]) changed sign (the step went
        through a singular configuration, a 0/0 point an integrator steps over with a silent loss of
        accuracy). Then the run stops with a message, or with rechoose the independent velocities
        are chosen anew by pivoting — already when the condition number passes ten times its value
        at the last choice (default: re-choose only when the choice was automatic).

        singular: "stop" (default) ends a run where Phi_p loses rank; "pass", with an embedding,
        goes on, the embedding's coordinates being regular there (Formulation._singular_option).
        """
        self.geometry = make_geometry(self.system, self.name)
        self._singular_option(singular)
        if isinstance(independent, str):  # one name, not its characters
            independent = (independent,)
        elif isinstance(independent, dict):
            independent = tuple(independent.items())
        self.requested = tuple(independent) if independent is not None else self.system.independent_velocities
        self.rechoose_requested = rechoose
        self.rechoose = bool(rechoose)
        self.cond_limit = float(cond_limit)
        self.monitor = False  # whether the choice is watched after every step (set by prepare)
        if self.requested:
            self._set_choice(self.requested)
        else:
            self.choice = None
        if self.rechoose and getattr(self, "quasi", None) is not None:
            raise ArgumentError(f"minimal formulation of {self.system.name!r}: rechoose=True chooses components of w "
                                f"by pivoting, which would replace the quasi-velocities ({', '.join(self.choice)}); "
                                f"leave it out", "rechoose")

    # -- the choice of u ------------------------------------------------------------------------
    def _set_choice(self, entries):
        sysm, g = self.system, self.geometry
        if len(entries) != sysm.r:
            raise ValueError(f"minimal formulation of {sysm.name!r}: got {len(entries)} independent velocities "
                             f"{tuple(entries)} but expected r = n - m - l = {sysm.r}")
        names, Y = parse(sysm, entries, components=g.w_names)
        S_w, S_v = np.zeros((sysm.r, g.k)), np.zeros((sysm.r, sysm.n))
        self.quasi = None if Y is None else QuasiVelocities(sysm, names, Y)
        for i, name in enumerate(names if Y is None else ()):
            if name in g.w_names:
                S_w[i, g.w_names.index(name)] = 1.0
            elif name in sysm.velocity_names:
                S_v[i, sysm.velocity_names.index(name)] = 1.0
            else:
                raise UnknownNameError(f"velocity of system {sysm.name!r}", name, g.w_names + sysm.velocity_names)
        self.choice, self.S_w, self.S_v = tuple(names), S_w, S_v
        self.uses_v = bool(np.any(S_v)) or self.quasi is not None
        self._det_sign = None  # not watched yet (_watch)

    def _pivot_choice(self, q, t=0.0):
        """Independent velocities by QR with column pivoting on C_bar_nh at (q, t)."""
        p, D, _, _, C = self.geometry.at(q, t)
        C_bar = C[self.system.m:] @ D
        if C_bar.shape[0] == 0:
            return self.geometry.w_names
        kept = velocity_partition(C_bar)[2]
        return tuple(self.geometry.w_names[j] for j in kept)

    def _choose(self, q, names=None, t=0.0):
        """Take the independent velocities ``names`` (default: by pivoting at q) and record the sign of
        det([C_bar_nh; E]) and its condition number there, which post_step watches."""
        self._set_choice(names or self._pivot_choice(q, t))
        self._watch(q, t)

    def _watch(self, q, t=0.0):
        """Record the sign of det([C_bar_nh; E]) and its condition number at q, which post_step watches;
        ArgumentError where [C_bar_nh; E] is singular there (the velocities do not determine w)."""
        K = self._partition(q, t)[5]
        self._det_sign, self._cond_at_choice = np.sign(np.linalg.det(K)), np.linalg.cond(K)
        if not self._cond_at_choice < 1e12:
            where = ", ".join(f"{n}={x:.4g}" for n, x in zip(self.geometry.q_names, q))
            raise ArgumentError(f"minimal formulation of {self.system.name!r}: the independent velocities "
                                f"({', '.join(self.choice)}) and the nonholonomic rows do not determine the velocities "
                                f"at q = ({where}): [C_bar_nh; E] is singular there "
                                f"(cond = {self._cond_at_choice:.3g}); choose other independent velocities",
                                "independent")

    def choice_condition(self, q, t=0.0) -> float:
        """cond([C_bar_nh; E]) (2-norm) at the reduced coordinates q and time t: how well the
        independent velocities and the nonholonomic rows determine w (1 at best, inf where singular)."""
        return float(np.linalg.cond(self._partition(np.asarray(q, float), t)[5]))

    def _u_of(self, w, p, v):
        """u = S_w w + Y(p) v (u = E w, E = S_w + Y D, for a fixed embedding)."""
        return self.S_w @ w + self._Y(p) @ v

    def _Y(self, p):
        """Y (r, n) of u = S_w w + Y v at p: S_v for names, Y(p) for quasi-velocities."""
        if self.quasi is None:
            return self.S_v
        return self.quasi.at(p, np.zeros(self.system.n), self.par, self.backend)[0]

    def _E_dot_w(self, p, v, gamma):
        """E' w = Y gamma + Y' v (r,): u' = E w' + E' w."""
        if self.quasi is None:
            return self.S_v @ gamma if self.uses_v else np.zeros(self.system.r)
        Y, Y_dot_v = self.quasi.at(p, v, self.par, self.backend)
        return Y @ gamma + Y_dot_v

    def needs(self):
        if self.on_charts:
            return {POST_STEP: ("formulation 'minimal' on tangent-space charts", "re-charting changes the state")}
        if self.rechoose_requested:
            return {POST_STEP: ("minimal with rechoose=True", "re-choosing changes the state")}
        return {}

    def prepare(self, p0, v0, offers=frozenset(), t0=0.0):
        """Choose u at (p0, v0) at time t0; the choice is watched after every step where the solver
        offers a post-step hook."""
        self.t0 = float(t0)
        on_charts = self.on_charts
        if on_charts and any(n in self.geometry.w_names for n in self.requested):
            raise ValueError(f"minimal formulation of {self.system.name!r} runs on charts, whose velocities change "
                             f"from chart to chart: name components of v ({', '.join(self.system.velocity_names)}) "
                             f"or let them be chosen by pivoting")
        if self.rechoose_requested is None:
            self.rechoose = not self.requested
        self.monitor = POST_STEP in offers
        q0, _ = self.geometry.from_dependent(p0, v0, self.t0)
        self._choose(q0, self.requested, self.t0)

    @property
    def uses_post_step(self):
        return getattr(self, "monitor", False)

    @property
    def reject_singular_stages(self):
        return (self.rechoose or self.on_charts) and self.monitor

    def state_names(self):
        return self.geometry.q_names + (self.choice or ("u",) * self.system.r)

    # -- kinematics of u -------------------------------------------------------------------------
    def _partition(self, q, t=0.0):
        """(p, D, A_q, A, C, K = [C_bar_nh; E]) at (q, t); u chosen at q first where no choice is made
        yet (a formulation used before any run)."""
        if self.choice is None:
            self._choose(q, self.requested, t)
        p, D, A_q, A, C = self.geometry.at(q, t)
        E = self.S_w + self._Y(p) @ D
        return p, D, A_q, A, C, np.vstack([C[self.system.m:] @ D, E])

    def _affine_part(self, q, t, p, A, C, K):
        """(d_0, d_bar_0): v = D w + d_0 and w = D_bar u + d_bar_0 at (q, t), zeros for fixed,
        homogeneous rows."""
        if not self.system.is_rheonomic:
            return 0.0, 0.0
        m = self.system.m
        d_0 = self.geometry.drift(q, A, t)
        c_bar = c_bar_nh(self.num, self.par, m, p, t, C, d_0)
        return d_0, solve_square(K, np.concatenate([-c_bar, -self._Y(p) @ d_0]), self._singular_quantity())

    def _D_bar(self, K):
        r = self.system.r
        rhs = np.zeros((K.shape[0], r))
        rhs[K.shape[0] - r:] = np.eye(r)
        D_bar = solve_square(K, rhs, self._singular_quantity())
        # |D_bar| |K| bounds cond(K) from below: a cheap test for a choice that has become singular
        if not np.all(np.isfinite(D_bar)) or np.max(np.abs(D_bar)) * np.max(np.abs(K)) > 1e8:
            raise SingularMatrixError(self._singular_quantity())
        return D_bar

    def _singular_quantity(self):
        return (f"[C_bar_nh; E] for the independent velocities ({', '.join(self.choice)}); pass rechoose=True or "
                f"choose other independent velocities")

    def initial_state(self, p, v, t=0.0):
        q, w = self.geometry.from_dependent(p, v, t)
        if self.choice is None:
            self._choose(q, self.requested, t)
        return np.concatenate([q, self._u_of(w, p, np.asarray(v, float))])

    def _split(self, y):
        k_q = len(self.geometry.q_names)
        return y[:k_q], y[k_q:]

    def dependent_state(self, y, t=0.0):
        q, u = self._split(y)
        p, D, _, A, C, K = self._partition(q, t)
        d_0, d_bar_0 = self._affine_part(q, t, p, A, C, K)
        return p, D @ (self._D_bar(K) @ u + d_bar_0) + d_0

    def accelerations(self, t, y, multipliers=True):
        sysm, m = self.system, self.system.m
        q, u = self._split(y)
        p, D, A_q, A, C, K = self._partition(q, t)
        D_bar = self._D_bar(K)
        d_0, d_bar_0 = self._affine_part(q, t, p, A, C, K)
        w = D_bar @ u + d_bar_0
        v = D @ w + d_0
        pieces = self.num.dynamics(t, p, v, self.params_at(t, p, v))
        M, d, f0, F, C, xi, pdd2 = pieces.M, pieces.d, pieces.f0, pieces.F, pieces.C, pieces.xi, pieces.pdd2
        gamma = self.geometry.gamma(q, w, A, pdd2, t)
        xi_bar = xi[m:] + C[m:] @ gamma
        gamma_bar = solve_square(K, np.concatenate([-xi_bar, -self._E_dot_w(p, v, gamma)]), self._singular_quantity())
        T = D @ D_bar
        tau = D @ gamma_bar + gamma
        u_dot, vdot, mu = solve_accelerations(M, f0 - d, T, tau, np.zeros((0, sysm.r)), np.zeros(0), F=F if self.nonideal else None, C=C,
                                              quantity="the minimal mass matrix M_barbar")
        lam = mu if self.nonideal and F.any() else (
            resolved_reactions(C, f0 - d - M @ vdot) if multipliers else None)
        return np.concatenate([A_q @ w, u_dot]), vdot, lam

    def post_step(self, t, y):
        q, u = self._split(y)
        if self.on_charts and self.geometry.needs_new_chart(q, t):
            p, v = self.dependent_state(y, t)
            q, w = self.geometry.from_dependent(p, v, t)
            self._choose(q, self.requested if self.quasi is not None else None, t=t)  # quasi-velocities are kept
            return StepChange(np.concatenate([q, self._u_of(w, p, v)]), charted=True)
        if self._det_sign is None:
            self._watch(q, t)
        p, D, _, A, C, K = self._partition(q, t)
        cond, sign = np.linalg.cond(K), np.sign(np.linalg.det(K))
        limit = min(self.cond_limit, 10 * self._cond_at_choice) if self.rechoose else self.cond_limit
        if cond <= limit and sign == self._det_sign:
            return None
        if not self.rechoose:
            raise StopRun(self._choice_message(q, sign != self._det_sign, cond) + "; pass rechoose=True or choose "
                          "other independent velocities", quantity="[C_bar_nh; E]")
        # the step itself went through regular configurations only if the sign held; w from the
        # accepted state is exact either way up to the loss of accuracy the cond bounds
        d_0, d_bar_0 = self._affine_part(q, t, p, A, C, K)
        w = np.linalg.lstsq(K, np.concatenate([np.zeros(self.system.l), u]), rcond=None)[0] + d_bar_0
        self._choose(q, t=t)
        return StepChange(np.concatenate([q, self._u_of(w, p, D @ w + d_0)]), rechosen=True)

    # -- the compiled right-hand side ---------------------------------------------------------------
    def gives(self, form):
        if form == COMPILED_ODE and self.backend == "compiled":
            if self.on_charts:
                return (f"formulation {self.name!r} on tangent-space charts has no compiled right-hand side: its charts "
                        f"change along the run; expected a system with an embedding p = g(q) or without holonomic "
                        f"constraints")
            if self.system.l and (self.rechoose_requested or (self.rechoose_requested is None and not self.requested)):
                return (f"formulation {self.name!r} re-chooses its independent velocities along the run, which the "
                        f"compiled loop cannot; name them (independent=...) with rechoose=False for it")
        return super().gives(form)

    def compiled_model(self):
        """(functions, model) of the whole evaluation through the embedding (formulations.kernels.compiled.embedded);
        extra = the choice of u as (S_w, S_v) row-major."""
        from .kernels.embedded import embedded_functions, embedded_model

        return embedded_functions("evaluate_minimal"), embedded_model(self, minimal=True)

    def compiled_arguments(self):
        return np.concatenate([self.S_w.ravel(), self.S_v.ravel()])

    def compiled_stop(self, module, ys, params, extra, ts=None):
        """The watch of post_step over the recorded states of a compiled run: the run ends at the first
        state where [C_bar_nh; E] passed cond_limit or its determinant changed sign, which is kept."""
        watch = module.choice_all(np.ascontiguousarray(ys), params, extra, np.zeros(len(ys)) if ts is None else ts)
        bad = np.flatnonzero((watch[:, 0] > self.cond_limit) | (np.sign(watch[:, 1]) != self._det_sign))
        if not bad.size:
            return None
        k = int(bad[0])
        message = self._choice_message(self._split(ys[k])[0], np.sign(watch[k, 1]) != self._det_sign, watch[k, 0])
        return k + 1, message + "; choose other independent velocities, or pass rechoose=True with backend 'numpy'"

    def _choice_message(self, q, crossed, cond):
        where = ", ".join(f"{n}={x:.4g}" for n, x in zip(self.geometry.q_names, q))
        how = "passed through a singular configuration" if crossed else \
            f"is near-singular (cond = {cond:.3g} > {self.cond_limit:g})"
        return f"the choice of independent velocities ({', '.join(self.choice)}) {how}: [C_bar_nh; E] at q = ({where})"

    def equations(self, expanded=False):
        pieces = primitive_pieces(self.system)
        pieces.update(embedding_pieces(self.system, expanded))
        return Equations(self.name, self.system.name, (
            "p = g(q, t),  q' = A_q w,  v = D w + d_0,  v' = D w' + gamma",
            f"u = E w  (independent velocities: {', '.join(self.choice) if self.choice else 'chosen by pivoting'})",
            "[C_bar_nh; E] D_bar = [0; I],  w = D_bar u + d_bar_0,  w' = D_bar u' + gamma_bar",
            "M_barbar = D_bar^T M_bar D_bar,  d_barbar = D_bar^T (M_bar gamma_bar + d_bar),  f_barbar = D_bar^T f_bar",
            "M_barbar u' + d_barbar = f_barbar",
            "reactions: C^T lambda = f - d - M v' (resolved)"), pieces)
