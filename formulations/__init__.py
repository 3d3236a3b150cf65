"""pfaff formulations: the equations of motion of a system in several forms (this package), the
solvers that integrate them (``solvers``), the results they produce (``results``) and the
workbench on top (``workbench``: comparison, reports, derivations, the command line).

    import systems, formulations
    system = systems.load("rolling_disc")
    form = formulations.create("minimal", system)
    traj = form.simulate((0.0, 10.0), system.default_state(), rtol=1e-10, atol=1e-10)
    traj.reactions["contact normal force"]
"""
from . import dependent, reduced, minimal, manifold, udwadia_kalaba  # noqa: F401  (registration, in this order)
from . import solvers
from .base import Evaluation, Formulation, create, names, register
from .errors import CapabilityError, ComparisonInterrupted, EnsembleInterrupted, NotSteadyError, RunInterrupted
from .linearization.linearize import linearize
from .linearization.modes import LinearEquations, Linearization
from .linearization.stability import Critical, StabilityResult, stability
from .workbench.plots import plot_stability
from .workbench import scene  # noqa: F401  (registers Trajectory.show)
from systems.errors import ArgumentError, ArgumentTypeError

from .results import ConstraintErrors, EnsembleResult, EventRecord, Stats, Status, Trajectory, reactions
from .solvers import Event, MissingDependencyError, Solver, simulate
from .solvers.augmented_lagrangian import AugmentedLagrangian
from .solvers.variational import VariationalMethod
from .version import version as _version
from .stabilization import GGL, Baumgarte, ConstraintDynamics, NoStabilization, Projection, Strategy
from .workbench.comparison.compare import Comparison, Configuration, compare, enforcement_configurations
from .workbench.advisor import Advice, advise
from .control import optimal_control
from .results.optimal_control import ControlStats, OptimalControlResult
from .workbench.derivation.derive import Derivation, derive
from .workbench.ensembles.ensemble import ensemble
from .workbench.ensembles.compare import EnsembleComparison, compare_ensemble
from .workbench.ensembles.variations import Inputs, grid, sample
from .workbench.contacts import simulate_contacts
from .workbench.parameters.identification import Identification, Trial, identify
from .workbench.parameters.sensitivity import Sensitivities, sensitivities
from .results.trajectory import ContactEvent, Mode

__version__ = _version()


def __getattr__(name):
    if name == "METHODS":  # the registered methods, read when asked (solvers may be registered later)
        return solvers.names()
    raise AttributeError(f"module 'formulations' has no attribute {name!r}")

__all__ = ["compare", "Comparison", "Configuration", "enforcement_configurations", "create", "names", "register",
           "Formulation", "Evaluation", "reactions", "simulate", "Baumgarte", "ConstraintDynamics", "Projection",
           "GGL", "NoStabilization", "Strategy", "AugmentedLagrangian", "VariationalMethod", "Trajectory", "Stats",
           "ConstraintErrors", "Event", "Solver", "CapabilityError", "MissingDependencyError", "METHODS", "solvers",
           "EventRecord", "ArgumentError", "ArgumentTypeError", "RunInterrupted", "ComparisonInterrupted",
           "ensemble", "grid", "sample", "Inputs", "EnsembleResult", "EnsembleInterrupted", "compare_ensemble",
           "EnsembleComparison", "linearize", "Linearization", "LinearEquations", "NotSteadyError", "stability",
           "StabilityResult", "Critical", "plot_stability", "derive", "Derivation", "Status", "advise", "Advice",
           "simulate_contacts", "ContactEvent", "Mode", "identify", "Identification", "Trial",
           "sensitivities", "Sensitivities", "__version__"]
