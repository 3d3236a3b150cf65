"""pfaff systems: the shared description of constrained mechanical systems, its builders, the
constraint analysis and the catalogue of examples.

    import systems
    systems.names()
    system = systems.load("rolling_disc", r=0.3)
    p, v = system.default_state()
    print(systems.analyze_constraints(system))
"""
from .builders import (BodyFrame, Kinematics, RigidBody, from_body_frames, from_lagrangian, from_rigid_bodies,
                       pfaffian_matrix, spherical_joint)
from .catalogue import as_system, describe, load, names
from .contacts import Contact
from .description import TIME, BodyBlock, Embedding, Parameter, System
from .families import Outcome, StateFamily, StateVariable
from .visuals import Poses, Visual
from .errors import (ArgumentError, ArgumentTypeError, InconsistentStateError, SystemDescriptionError,
                     UnknownNameError)

__all__ = ["System", "Contact", "Parameter", "Embedding", "BodyBlock", "TIME", "names", "load", "describe", "from_lagrangian",
           "from_rigid_bodies", "from_sympy", "RigidBody", "Kinematics", "from_body_frames", "BodyFrame",
           "spherical_joint", "pfaffian_matrix", "analyze_constraints", "check_pfaffian", "redundancy",
           "SystemDescriptionError", "InconsistentStateError", "UnknownNameError", "ArgumentError",
           "ArgumentTypeError", "StateFamily", "StateVariable", "Outcome", "Visual", "Poses"]


def analyze_constraints(system, **options):
    """Constraint analysis of ``system`` (a System or a catalogue name, DESIGN section 4); a
    printable report object."""
    from .analysis.constraints import analyze_constraints as run

    return run(as_system(system), **options)


def from_sympy(model, parameters=None, **options):
    """A System from a sympy.physics.mechanics KanesMethod, LagrangesMethod or System, with
    ``parameters`` {name: value} for every free symbol of the model (see
    systems.builders.from_sympy.from_sympy for the options)."""
    from .builders.from_sympy import from_sympy as build  # local: sympy.physics.mechanics loads on use

    return build(model, parameters, **options)


def check_pfaffian(rows, coordinates, **options):
    """Exactness and integrability of Pfaffian forms a(q) . dq given directly as rows."""
    from .analysis.constraints import check_pfaffian as run

    return run(rows, coordinates, **options)


def redundancy(system, p=None, **options):
    """Rank of C at p (default: the default configuration), its dependent rows by name and the
    mobility (Gruebler count n - m - l against n - rank C); see systems.dependent_rows."""
    from .dependent_rows import redundancy as run

    return run(as_system(system), p, **options)
