"""The common interface of the formulations and their registry.

Every formulation maps a consistent dependent state (p, v) of a system to its own state y and
back, and evaluates y' together with the accelerations v' and the multipliers lambda:

    dependent  y = (p, v)   p' = A v;  [[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi]
    reduced    y = (q, w)   q' = A_q w;  v = D w, v' = D w' + gamma,  D = A^+ g_q A_q  (n, k)
                            [[M_bar, C_bar_nh^T], [C_bar_nh, 0]] [w'; lambda_nh] = [f_bar - d_bar; -xi_bar]
                            M_bar = D^T M D, d_bar = D^T (M gamma + d), f_bar = D^T f, C_bar_nh = C_nh D
    minimal    y = (q, u)   w = D_bar u,  w' = D_bar u' + gamma_bar,  C_bar_nh D_bar = 0  (k, r)
                            M_barbar u' + d_barbar = f_barbar,  M_barbar = D_bar^T M_bar D_bar  (r, r)

(Blajer, *A geometrical framework for modeling and simulation of nonholonomic mechanical
systems*.) Where f depends on lambda (non-ideal constraints) each solves for its accelerations and
all multipliers together (see formulations.linalg). Reactions not carried by a formulation's own
multipliers follow in resolved form from C^T lambda = f - d - M v'.

A formulation gives equations; solvers (formulations.solvers) integrate them. It says which forms
it gives (``gives``: formulations.forms EXPLICIT_ODE, INDEX1_DAE, GGL_DAE, INDEX3, LIE_GROUP) and
what it needs from a solver (``needs``: e.g. a post-step hook for projection); the methods that
serve each form are listed in formulations.forms. ``simulate`` hands the formulation to
formulations.solvers.simulate, which matches it with the solver.

A new formulation is one module: subclass Formulation, set ``name`` and ``numeric_form``, and
decorate it with ``@register``; the layers that write a formulation out in their own terms
(linearization, the classroom derivation, optimal control) take a piece for it each
(formulations.registry, docs/extending.md).
"""
from __future__ import annotations

import copy
import os
from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from systems.numeric import background, codegen
from systems.catalogue import as_system
from systems.contacts import free_rows
from systems.errors import ArgumentError, ArgumentTypeError, InconsistentStateError, UnknownNameError
from systems.numeric.model import compile_system
from systems.state import renormalize

from . import registry
from .configuration import parse_configuration
from .coordinates.charts import Atlas
from .errors import CapabilityError
from .forms import (COMPILED_ODE, EXPLICIT_ODE, GGL_DAE, INDEX1_DAE, INDEX3, LIE_GROUP, POST_STEP, STATE_UPDATE,
                    VARIATIONAL, StepChange)
from .stabilization import STRATEGIES, NoStabilization, as_strategy, compiled_like, fastest_rate, takes

_SIMULATOR: list = []  # the function formulations.solvers installs: simulate(formulation, t_span, state0, **options)


def register(cls):
    """Class decorator: make a formulation available by its ``name`` (formulations.registry)."""
    return registry.register_class(cls)


def names() -> tuple:
    """Names of the registered formulations.

    Returns
    -------
    tuple of str
        The names ``create`` and ``compare`` accept, in the order of registration.

    See Also
    --------
    formulations.create

    Examples
    --------
    >>> import formulations
    >>> "dependent" in formulations.names() and "minimal" in formulations.names()
    True
    """
    return registry.names()


def create(name: str, system, **options):
    """An instance of formulation ``name`` for ``system``.

    The name may carry the stabilization and the formulation's options, written as in ``compare``;
    the integration method is an option of ``simulate``, not of the formulation.

    Parameters
    ----------
    name : str
        A registered formulation (``names()``), optionally with its stabilization as in ``compare``
        (``"dependent+projection"`` is ``create("dependent", system, stabilization="projection")``) and
        its options in brackets (``"dependent[singular=pass]"`` is
        ``create("dependent", system, singular="pass")``).
    system : System or str
        A System, or the name of a catalogue system (loaded with its default parameters).
    **options
        As the formulation documents (see Formulation): ``stabilization``, ``backend`` and the
        formulation's own keyword options (its class's ``options``, e.g. ``singular``).

    Returns
    -------
    Formulation
        The formulation, ready for ``simulate`` and ``equations``.

    Raises
    ------
    systems.ArgumentTypeError
        If ``name`` is not a str.
    systems.UnknownNameError
        If ``name`` is no registered formulation (the message lists them).
    systems.ArgumentError
        If ``name`` holds a method (``@...``), or an option or the stabilization is given twice, with different values.
    formulations.CapabilityError
        If the formulation does not take the stabilization or cannot run ``system``.
    TypeError
        For an option the formulation does not know.

    See Also
    --------
    formulations.names, formulations.compare, formulations.simulate

    Examples
    --------
    >>> import systems, formulations
    >>> system = systems.load("rolling_disc")
    >>> formulations.create("dependent+projection", system).label()
    'dependent+projection'
    >>> formulations.create("minimal", "rolling_disc", backend="numpy").backend
    'numpy'
    """
    if not isinstance(name, str):
        raise ArgumentTypeError(f"create got name={name!r} ({type(name).__name__}) but expected a formulation name, "
                                f"one of: {', '.join(names())}", "name")
    parts = parse_configuration(name, "name")
    base, stabilization = parts.formulation, parts.stabilization
    if base not in registry.names():
        raise UnknownNameError("formulation", base, names(), argument="create")
    if parts.method is not None:
        raise ArgumentError(f"create got name={name!r}: the method is an option of simulate, e.g. "
                            f"create({base + ('+' + stabilization if stabilization else '')!r}, ...)"
                            f".simulate(..., method={parts.method!r})", "name")
    for option, value in parts.options:
        if option in options and options[option] != value:
            raise ArgumentError(f"create got name={name!r} and {option}={options[option]!r}: expected the option in "
                                f"one place", option)
        options[option] = value
    if stabilization:
        if options.get("stabilization") not in (None, stabilization):
            raise ArgumentError(f"create got name={name!r} and stabilization={options['stabilization']!r}: expected "
                                f"the stabilization in one place", "stabilization")
        options["stabilization"] = stabilization
    return registry.formulation_class(base)(as_system(system), **options)


def install_simulator(function):
    """Called once by formulations.solvers: the function behind Formulation.simulate."""
    _SIMULATOR[:] = [function]


@dataclass(frozen=True)
class Evaluation:
    """y' (n_y,), v' (n,) and multipliers lambda (m + l,) at one state."""

    ydot: np.ndarray
    vdot: np.ndarray
    lam: np.ndarray


@dataclass(frozen=True)
class Saddle:
    """The square system of one state: K [a; mu] = rhs (formulations.linalg.saddle_system).

    kinematics: the position part of y' (n_q,); na: number of acceleration unknowns a (the
    velocity part of y' is a); velocity: the velocity part of y (na,), on which the kept rows act
    (G velocity + offset = 0); rows: number of kept constraint rows, the last rows of K; T, tau:
    v' = T a + tau (T None: v' = a); dynamics: the system's dynamics pieces at the state (a
    systems.numeric.model.Dynamics record, for what the formulation does after the solve); offset:
    the velocity-free term of the kept rows (rows,), None where it is zero (scleronomic, homogeneous
    rows).
    """

    kinematics: np.ndarray
    K: np.ndarray
    rhs: np.ndarray
    na: int
    velocity: np.ndarray
    rows: int
    T: object
    tau: object
    dynamics: object = None
    offset: object = None


class Formulation(ABC):
    """One way of writing the equations of motion of a system.

    A formulation maps a consistent dependent state (p, v) to its own state y and back, evaluates
    y' with the accelerations v' and the multipliers lambda, and gives its symbolic pieces
    (``equations``); ``simulate`` integrates it. Create one with ``formulations.create``; a new
    formulation is a subclass that sets ``name`` and ``numeric_form`` and is decorated with ``register``.

    Parameters
    ----------
    system : System
        The system it writes the equations of.
    stabilization : str or Strategy, optional
        One of the class's ``stabilizations`` (e.g. ``"projection"``, ``"baumgarte"``) or a strategy
        object of one of their kinds; None (default) for none.
    backend : str, optional
        ``"numpy"`` (lambdified primitives, no compile step: the reference), ``"compiled"`` (the
        primitives and, where the formulation gives it, its whole evaluation and integration loop as
        numba code cached on disk, compiled now where the cache lacks it) or ``"auto"``: compiled where
        the machine code a run needs is ready, otherwise numpy now while a background process prepares
        it for the next run. Default: ``$PFAFF_BACKEND``, else ``"auto"``; a run's is ``stats.backend``.
    **options
        The subclass's own keyword options (its ``options``).

    Attributes
    ----------
    name : str
        The registered name, e.g. ``"minimal"``.
    system : System
        The system.
    stabilization : Strategy
        The stabilization as run (``requested_stabilization``: as asked for).
    backend : str
        ``"numpy"`` or ``"compiled"``: the backend the formulation starts on.

    Raises
    ------
    formulations.CapabilityError
        If the formulation does not take the stabilization or cannot run the system (``refusal``).
    TypeError
        For an unknown option.

    See Also
    --------
    formulations.create, formulations.simulate

    Examples
    --------
    >>> import systems, formulations
    >>> form = formulations.create("minimal", systems.load("rolling_disc"))
    >>> isinstance(form, formulations.Formulation), form.name
    (True, 'minimal')
    >>> form.state_names()
    ('x', 'y', 'psi', 'theta', 'phi', 'psi_dot', 'theta_dot', 'phi_dot')
    """

    name: ClassVar[str]
    numeric_form: ClassVar[str]          # PyDy-style name of the numeric form produced
    stabilizations: ClassVar[tuple] = ("none",)
    options: ClassVar[tuple] = ()        # extra keyword options of the subclass
    geometry = None                      # reduced coordinates: an embedding Geometry or an Atlas of charts
    compiled_projection = False          # whether the compiled module projects (stabilization 'projection')
    compiled_dae = False                 # whether the compiled module serves IDA and the augmented Lagrangian
    compiled_python_rhs = False          # whether Python loops may call the compiled rhs (constants fixed for a run)
    compiled_rheonomic = False           # whether the compiled module serves rheonomic and affine rows
    redundant_rows = False               # whether it runs systems whose constraint rows are dependent
    inputs = None                        # an InputSchedule on a run's copy (for_run) that runs with inputs
    stop_at_singular = True              # whether a run stops where Phi_p loses rank (solvers.monitor)
    system_matrix: ClassVar[str] = "the system matrix"  # named where a solve fails
    gives_saddle: ClassVar[bool] = False      # whether ``saddle`` is served: the DAE forms (IDA)
    gives_compiled_rhs: ClassVar[bool] = False  # compiled_model served (COMPILED_ODE)
    singular_ratio = 1e-3  # a run stops where sigma_min / sigma_max of Phi_p falls below this share of its start value
    comparison: ClassVar[tuple] = ()     # its configurations in a comparison by default (formulations.compare)
    passes_singular: ClassVar[bool] = False  # whether singular="pass" goes on through a singular configuration

    def __init__(self, system, *, stabilization=None, backend=None, **options):
        """backend: "numpy" (lambdified primitives, no compile step: the reference), "compiled" (the
        primitives and, where the formulation gives it, its whole evaluation and integration loop as
        numba code cached on disk, systems.numeric.codegen; compiled now where the cache lacks it) or
        "auto": compiled where the machine code a run needs is ready, otherwise numpy now while a
        background process prepares the machine code for the next run (formulations.solvers.tiers).
        Default: $PFAFF_BACKEND, else "auto". The backend of a run is its ``stats.backend``."""
        self.system = system
        self.stabilization = as_strategy(stabilization)
        self.requested_stabilization = self.stabilization  # as asked for; ``stabilization`` is as run
        if not takes(self.stabilizations, self.stabilization):
            kinds = sorted({STRATEGIES[name].kind for name in self.stabilizations})
            raise CapabilityError(
                f"formulation {self.name!r} got stabilization {self.stabilization.label()!r} but expected one of: "
                f"{', '.join(self.stabilizations)} (or a strategy of one's own of kind {', '.join(kinds)})")
        if (reason := self.refusal(system)) is not None:
            raise CapabilityError(reason)
        unknown = set(options) - set(self.options)
        if unknown:
            raise TypeError(f"formulation {self.name!r} got unknown options {sorted(unknown)}; "
                            f"expected some of {list(self.options) or 'none'}")
        self.creation = (stabilization, dict(options))  # as given: the same formulation on another backend
        self.requested_backend = backend or os.environ.get("PFAFF_BACKEND") or "auto"
        self.backend = self._first_backend()
        self.num = system.numeric if self.backend == "numpy" else compile_system(system, self.backend)
        self.par = system.params
        self.nonideal = system.is_nonideal
        self._configure(**options)
        self.requested_stabilization = self.stabilization  # a subclass's _configure may choose its own
        if self.geometry is not None:
            self.geometry.num = self.num

    def for_run(self):
        """This formulation for one run: a copy on which a run sets what changes during it (the run's
        inputs and stabilization, the current chart, the minimal formulation's choice of u), so that
        the formulation itself is never written to by a run and may run in several threads at once.
        It shares the system, the numeric model and the compiled module (``origin``)."""
        run = copy.copy(self)
        run.origin = self.origin
        if self.geometry is not None:
            run.geometry = copy.copy(self.geometry)  # its state is rebound, never changed in place
        return run

    @property
    def origin(self):
        """The formulation as created, of which this one may be a run's copy (``for_run``)."""
        return self.__dict__.get("origin", self)

    @origin.setter
    def origin(self, formulation):
        self.__dict__["origin"] = formulation

    @classmethod
    def refusal(cls, system) -> str | None:
        """Why this formulation cannot run ``system`` by the system's structure, or None: dependent
        constraint rows where it needs independent ones (``redundant_rows``); formulations that need
        more of a system add what."""
        if system.redundant_constraints and not cls.redundant_rows:
            return (f"formulation {cls.name!r} got system {system.name!r}, whose constraint rows are dependent "
                    f"({', '.join(system.redundant_constraints)} combine the others: systems.redundancy(system)), but "
                    f"expected independent rows: its coordinates q need a full-rank Phi_p. Use 'dependent' "
                    f"(minimum-norm multipliers), or leave the dependent rows out of the description")
        return None

    def _first_backend(self) -> str:
        """The backend asked for; for "auto", "compiled" where the machine code of a run with the
        default method is ready in the cache (systems.numeric.background), else "numpy": nothing waits
        for a compile (simulate chooses again for the run's own method, formulations.solvers.tiers)."""
        if self.requested_backend != "auto":
            return codegen.resolve_backend(self.requested_backend)
        if not background.available():
            return "numpy"
        return "compiled" if background.ready(self.job()) and codegen.importable() else "numpy"

    def job(self, method="DOP853", step=None, state=None, t0=0.0) -> background.Job:
        """What a run of this formulation (as created) with ``method`` needs compiled, from ``state``
        ((p, v), None: the system's default) at time t0 (systems.numeric.background)."""
        stabilization, options = self.creation
        like = compiled_like(stabilization)
        return background.Job.make(self.system, self.name, like, like.name, options, method, step, state, t0)

    def _configure(self, **options):
        """Subclass hook for its options."""

    def _singular_option(self, singular):
        """Sets stop_at_singular from the option ``singular``: "stop" ends a run where Phi_p loses
        rank, naming the configuration; "pass" goes on. Own coordinates on charts come from Phi_p
        and cannot pass; through an embedding p = g(q) they need only g's Jacobian, which a
        singular configuration of Phi_p leaves regular where g follows one branch (the N-four-bar)."""
        if singular not in ("stop", "pass"):
            raise ValueError(f"formulation {self.name!r} got singular={singular!r} but expected 'stop' or 'pass'")
        if singular == "pass" and getattr(self, "geometry", None) is not None and self.on_charts:
            raise ValueError(f"formulation {self.name!r} got singular='pass' but {self.system.name!r} has no embedding: "
                             f"coordinates on charts come from Phi_p, which loses rank there; expected an embedding "
                             f"p = g(q) regular along the branch, or the dependent formulation")
        self.stop_at_singular = singular == "stop"

    # -- the contract --------------------------------------------------------------------------
    @abstractmethod
    def state_names(self) -> tuple:
        """Names of the formulation's own state variables."""

    @abstractmethod
    def initial_state(self, p, v, t=0.0) -> np.ndarray:
        """Own state from a consistent dependent state at time t."""

    @abstractmethod
    def dependent_state(self, y, t=0.0):
        """(p, v) from the own state at time t (the time matters only where the embedding moves)."""

    @abstractmethod
    def accelerations(self, t, y, multipliers=True) -> tuple:
        """(y', v', lambda) at (t, y): the hot path of the explicit ODE. With multipliers=False the
        multipliers a formulation does not need for y' may be left out (None)."""

    @abstractmethod
    def equations(self, expanded: bool = False):
        """The symbolic pieces, named as in the notation (expanded forms on request).

        Parameters
        ----------
        expanded : bool, optional
            Also give the expanded forms (through an embedding, e.g. D, M_bar and C_bar_nh, each
            simplified within a time bound). Default False.

        Returns
        -------
        Equations
            ``relations``: the equations as plain text; ``pieces``: the sympy matrices by name (p, v,
            A, M, d, f, Phi, C_h, C_nh, C, xi, and the formulation's own, e.g. q, g, A_q), also as
            ``equations["M"]``; ``to_latex()`` writes the pieces out.

        Examples
        --------
        >>> import systems, formulations
        >>> eqs = formulations.create("minimal", systems.load("rolling_disc")).equations()
        >>> eqs["M"].shape, "xi" in eqs.pieces
        ((6, 6), True)
        """

    def state_at(self, y, t):
        """(p, v) of the own state y at time t: ``dependent_state`` given the time where the
        constraints depend on it (a formulation written for fixed constraints may take y alone)."""
        return self.dependent_state(y, t) if self.system.is_rheonomic else self.dependent_state(y)

    def own_state(self, p, v, t):
        """The own state of (p, v) at time t: ``initial_state`` given the time where the constraints
        depend on it."""
        return self.initial_state(p, v, t) if self.system.is_rheonomic else self.initial_state(p, v)

    def evaluate(self, t, y) -> Evaluation:
        """y', v' and lambda at (t, y)."""
        return Evaluation(*self.accelerations(t, y))

    def rhs(self, t, y):
        """y' at (t, y): the explicit ODE."""
        return self.accelerations(t, y, False)[0]

    def saddle(self, t, y) -> Saddle:
        """The saddle-point system at (t, y), for the DAE forms; see ``gives``."""
        raise CapabilityError(self._no_dae())

    def position_constraints(self, y_pos, t=0.0):
        """(Psi, Psi_y): the position constraints on the own coordinates at time t, for the GGL form."""
        raise CapabilityError(f"formulation {self.name!r} has no GGL form")

    def _gains(self):
        """(alpha, beta) of a feedback stabilization (Baumgarte, constraint dynamics), or None."""
        gains = getattr(self.stabilization, "gains", None)
        return gains() if gains is not None else None

    def dynamics(self, t, p, v):
        """(p renormalized, the system's dynamics pieces at (t, p, v): a systems.numeric.model.Dynamics
        record (M, d, f0, F, C, xi, A, pdd2))."""
        p = renormalize(self.system, p) if self.system.unit_norm_blocks else p
        return p, self.num.dynamics(t, p, v, self.params_at(t, p, v))

    def params_at(self, t, p, v):
        """The parameter vector at (t, p, v): the system's, with the run's inputs where it has them."""
        return self.par if self.inputs is None else self.inputs.params(self.par, t, p, v)

    def compiled_model(self):
        """(functions, model) of the formulation's compiled evaluation: ordinary modules of numba
        functions (formulations.kernels.compiled), each taking the model of its system first; None
        where the formulation has none (formulations that give COMPILED_ODE override this)."""
        return None

    def compiled_arguments(self) -> np.ndarray:
        """The run-time constants of the compiled module (``extra``), fixed for a run."""
        gains = self._gains() or (0.0, 0.0)
        return np.array(gains, float)

    def compiled_restart(self, module, t, y, params, extra) -> np.ndarray:
        """The state to go on from where the compiled loop stopped for it (status 1: the module's
        post_step asked for a new chart at (t, y)); formulations on charts override this."""
        raise CapabilityError(f"formulation {self.name!r} has no compiled restart")

    def compiled_stop(self, module, ys, params, extra, ts=None):
        """(number of recorded points to keep, message) or None: the formulation's own watch over a
        compiled run, applied to its recorded states ys at their times ts after it (see
        formulations.minimal)."""
        return None

    def project(self, t, y):
        """The state moved back onto the constraints (stabilization Projection); default: unchanged."""
        return y

    def post_step(self, t, y) -> StepChange | None:
        """Called after every accepted step: the changed state and what changed it
        (formulations.forms.StepChange), or None."""
        if self.stabilization.projects:
            return StepChange(self.project(t, y), projected=True)
        return None

    @property
    def on_charts(self) -> bool:
        """True where the own coordinates live on tangent-space charts (formulations.coordinates.charts)."""
        return isinstance(self.geometry, Atlas)

    @property
    def uses_post_step(self) -> bool:
        return self.stabilization.projects

    @property
    def reject_singular_stages(self) -> bool:
        """True where a singular matrix at a trial stage should shrink the step instead of ending
        the run (the post-step hook then repairs the cause, e.g. by a new choice of u)."""
        return False

    def label(self) -> str:
        stab = self.stabilization
        return self.name if stab.name == "none" else f"{self.name}+{stab.label()}"

    # -- forms and needs -------------------------------------------------------------------------
    def gives(self, form: str) -> str | None:
        """None where the formulation, as configured, gives ``form`` (formulations.forms); otherwise
        the reason it does not."""
        if self.stabilization.dae_only:
            if form != GGL_DAE:
                return "stabilization 'ggl' is the GGL form, a DAE: expected method 'IDA'"
            return self._no_dae()
        if form == EXPLICIT_ODE:
            return None
        if form == COMPILED_ODE:
            if self.backend != "compiled":
                return "the compiled right-hand side needs backend='compiled'"
            if self.inputs is not None:
                return ("inputs that vary during the run are evaluated in Python, on the compiled primitives (the "
                        "compiled loops hold the parameters fixed)")
            if self.system.is_rheonomic and not self.compiled_rheonomic:
                return (f"formulation {self.name!r} has no compiled right-hand side for rheonomic or affine "
                        f"constraints (system {self.system.name!r}); its evaluation in Python on "
                        f"the compiled primitives serves them, and so do the fused modules of 'dependent', and of "
                        f"'reduced' and 'minimal' through an embedding")
            return None if self.gives_compiled_rhs else (
                f"formulation {self.name!r} has no compiled right-hand side yet")
        if form == INDEX1_DAE:
            return self._no_dae()
        if form == GGL_DAE:
            return self._no_dae() or "the GGL form is given with stabilization='ggl'"
        if form == INDEX3:
            return (f"the index-3 equations are those of the dependent variables: got formulation {self.name!r} "
                    f"but expected 'dependent'")
        if form == LIE_GROUP:
            return (f"Lie-group integration updates the bodies' configurations, the dependent coordinates: got "
                    f"formulation {self.name!r} but expected 'dependent'")
        if form == VARIATIONAL:
            return (f"the variational methods step the dependent coordinates and their momenta: got formulation "
                    f"{self.name!r} but expected 'dependent'")
        return f"unknown form {form!r}"

    def _no_dae(self) -> str | None:
        """None where ``saddle`` is served (gives_saddle); otherwise why not."""
        if self.gives_saddle:
            return None
        return (f"formulation {self.name!r} cannot be solved as a DAE (method 'IDA'); expected formulation "
                f"'dependent' or 'reduced'")

    def needs(self) -> dict:
        """{capability: (what needs it, why)}: what a solver must offer for this formulation as configured."""
        if self.stabilization.projects:
            return {STATE_UPDATE if self.compiled_projection else POST_STEP: (
                "stabilization 'projection'", "it moves the state back onto the constraints after every step")}
        return {}

    def prepare(self, p0, v0, offers=frozenset(), t0=0.0):
        """Hook run once before integration at time t0 (e.g. choosing independent velocities);
        ``offers`` are the solver's capabilities."""

    def resolve_stabilization(self, t_span, y0):
        """``stabilization``, the strategy of the run over t_span from y0, from the one asked for
        (``requested_stabilization``, never changed): see the strategies' ``for_run``."""
        requested = self.requested_stabilization

        def fastest():
            self.stabilization = NoStabilization()  # the rate of the motion itself
            try:
                return fastest_rate(self.rhs, t_span[0], y0)
            finally:
                self.stabilization = requested

        self.stabilization = requested.for_run(fastest, t_span)
        gains = self._gains()
        if gains is not None and not (len(gains) == 2 and all(np.isfinite(g) and g >= 0 for g in gains)):
            raise ValueError(f"stabilization {self.stabilization.label()!r} gave gains {gains!r} for this run but "
                             f"expected (alpha, beta), both finite and >= 0, in 1/s")

    # -- states ----------------------------------------------------------------------------------
    def check_state(self, p, v, tol=1e-8, t=0.0):
        """Raise InconsistentStateError listing the residuals when (p, v) violates the constraints at
        time t."""
        Phi, Cv = self.system.residuals(p, v, t)
        scale_p = 1 + np.max(np.abs(p))
        scale_v = 1 + np.max(np.abs(v))
        bad = [f"{name}: {val:.3e}" for name, val in zip(self.system.holonomic_names, Phi) if abs(val) > tol * scale_p]
        bad += [f"{name} (velocity): {val:.3e}" for name, val in zip(self.system.constraint_names, Cv)
                if abs(val) > tol * scale_v]
        if bad:
            held_Phi, held_Cv = free_rows(self.system, Phi, Cv, tol * scale_p)  # the rows no contact may leave
            free = bool(self.system.contacts) and bool(np.all(np.abs(held_Phi) <= tol * scale_p) and np.all(
                np.abs(held_Cv) <= tol * scale_v))
            contacts = (" Its contacts are open or sliding there: formulations.simulate_contacts runs it with them "
                        "opening, closing and sliding." if free else "")
            raise InconsistentStateError(
                f"system {self.system.name!r}: the initial state violates the constraints ({'; '.join(bad)}). "
                f"Use system.consistent_state(p, v, fix=...) or simulate(..., project_initial=True); to continue a "
                f"run, start from its final_state(), which is on the constraints.{contacts}")

    def simulate(self, t_span, state0=None, **options):
        """Integrate from the dependent state ``state0`` = (p, v) (default: the system's).

        The options and the result are those of ``formulations.simulate``, which matches the
        formulation with the solver.

        Parameters
        ----------
        t_span : tuple of float
            (t0, t1) in s, with t1 > t0.
        state0 : tuple of ndarray, optional
            (p, v), arrays or lists, consistent with the constraints; default: the system's default state.
        **options
            As ``formulations.simulate``: ``rtol``, ``atol``, ``method``, ``t_eval``, ``step``, ``events`` ...

        Returns
        -------
        Trajectory
            The run in dependent variables: t, p, v, reactions, constraint errors, energy, stats, status.

        See Also
        --------
        formulations.simulate

        Examples
        --------
        >>> import systems, formulations
        >>> system = systems.load("rolling_disc")
        >>> form = formulations.create("minimal", system)
        >>> traj = form.simulate((0.0, 0.5), system.default_state(), rtol=1e-8, atol=1e-8)
        >>> bool(traj.success), float(traj.t[-1]), traj.p.shape[1]
        (True, 0.5, 6)
        """
        return _SIMULATOR[0](self, t_span, state0, **options)
