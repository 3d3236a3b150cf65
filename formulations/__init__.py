"""pfaff formulations: the equations of motion of a system in several forms, simulation,
constraint stabilization, reactions and the command line.

    import systems, formulations
    system = systems.load("rolling_disc")
    form = formulations.create("minimal", system)
    traj = form.simulate((0.0, 10.0), system.default_state(), rtol=1e-10, atol=1e-10)
    traj.reactions["contact normal force"]
"""
from . import dependent, minimal, reduced  # noqa: F401  (registration; reduced also registers manifold)
from .augmented_lagrangian import AugmentedLagrangian
from .base import Evaluation, Formulation, create, names, register
from .compare import Comparison, Configuration, compare, enforcement_configurations
from .dae import MissingDependencyError
from .integrators import METHODS, CapabilityError, Event
from .reactions import reactions
from .stabilization import GGL, Baumgarte, ConstraintDynamics, NoStabilization, Projection
from .trajectory import ConstraintErrors, Stats, Trajectory

__all__ = ["compare", "Comparison", "Configuration", "enforcement_configurations", "create", "names", "register",
           "Formulation", "Evaluation", "reactions", "Baumgarte", "ConstraintDynamics", "Projection", "GGL",
           "NoStabilization", "AugmentedLagrangian", "Trajectory", "Stats", "ConstraintErrors", "Event",
           "CapabilityError", "MissingDependencyError", "METHODS"]
