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
    """Analyse the constraints of a system: exactness, integrability, distribution growth and ranks.

    Per nonholonomic row the exactness and Frobenius tests; for the set of rows the growth of the
    distribution of admissible directions by Lie brackets and the classification; the ranks of
    Phi_p and C, singular configurations and dependent rows (DESIGN section 4). Every numeric result
    comes first, symbolic proofs follow while time remains; each conclusion says how it was reached.

    Parameters
    ----------
    system : System or str
        A System, or the name of a catalogue system (loaded with its default parameters).
    point : array_like, shape (n_p,), optional
        The configuration p at which the rank of Phi_p is reported; default: the system's default
        state.
    seconds : float, optional
        Bound on each symbolic step, in s (default 5).
    time_limit : float or None, optional
        Bound on the whole analysis, in s (default 60; None: no bound). The analysis always returns
        and lists what stayed undecided.
    seed : int, optional
        Seed of the random points of the numeric tests (default 1).
    singular_search : bool, optional
        Look numerically for configurations where Phi_p loses rank (default True).
    assumptions : dict, optional
        {parameter name: {"positive": True}, ...}: assumptions that hold for the symbolic tests of
        the rows.
    values : dict, optional
        {parameter name: number}: values that replace the system's parameter values in the numeric
        tests.

    Returns
    -------
    ConstraintAnalysis
        A printable report (``print`` gives the text, ``to_markdown()`` Markdown) with the fields
        ``classification`` ("holonomic", "partially nonholonomic", "completely nonholonomic", or
        "undetermined" within the time bound), ``growth_vector``, ``hidden_holonomic``, ``rows``
        (one report per nonholonomic row), ``jacobian_rank``, ``singular_points``, ``undecided``,
        and ``dof``, the velocity degrees of freedom n - rank C.

    Raises
    ------
    UnknownNameError
        ``system`` is a name that is not in the catalogue.
    ArgumentTypeError
        ``system`` is neither a System nor a str.
    ValueError
        ``point`` does not have the shape (n_p,).

    See Also
    --------
    systems.check_pfaffian : The same tests on Pfaffian rows given directly.
    systems.redundancy : Rank of C and its dependent rows.

    Examples
    --------
    >>> import systems
    >>> analysis = systems.analyze_constraints("knife_edge")
    >>> analysis.classification, analysis.growth_vector, analysis.dof
    ('completely nonholonomic', (2, 3), 2)
    """
    from .analysis.constraints import analyze_constraints as run

    return run(as_system(system), **options)


def from_sympy(model, parameters=None, **options):
    """Build a System from a sympy.physics.mechanics ``KanesMethod``, ``LagrangesMethod`` or ``System``.

    The model's generalized coordinates become p and its generalized speeds v (v = p' for a
    ``LagrangesMethod``, named ``<q>_dot``); its kinematic differential equations q' = A(q) u give A,
    its bodies and loads M v' + d = f over all speeds, its configuration constraints Phi, and its
    velocity constraints that are not time derivatives of those the rows of C_nh.

    Parameters
    ----------
    model : sympy.physics.mechanics.KanesMethod, LagrangesMethod or System
        The model, its equations formed or not.
    parameters : dict or None
        {name or Symbol: value} for every free symbol of the model other than time; a missing or
        unknown name is an error that names it (no default values are made up; None: no free symbols).
    name : str, optional
        The system's name (default "from_sympy").
    state : tuple of two sequences or of two dict, optional
        The default (p, v): two sequences in the order of the model's coordinates and speeds, or two
        {name: value} dicts; default p = 0 moved onto Phi = 0 by Newton's method, v = 0.
    constraint_names : list of str, optional
        The m + l reaction names, holonomic rows first (in the order of the model's configuration
        constraints), then the nonholonomic rows (in the order of its velocity constraints); default
        "configuration constraint i" and, for a KanesMethod, "velocity constraint j" (j the row's
        place among its velocity constraints), for a LagrangesMethod or a System "nonholonomic
        constraint j". The multipliers carry the sign of the rows: the constraint force is -C^T lambda.
    potential : Expr, optional
        V(p) for the energy v^T M v / 2 + V, written in the model's symbols (a LagrangesMethod gives
        it: minus the part of the Lagrangian free of velocities).
    simplify : bool, optional
        The builders' cheap simplification (expand, sin^2 -> 1 - cos^2) of A, M, d, f (default True).
    description : str, optional
        Text of the system's description (default "imported from a sympy <kind>").
    **system_fields
        Remaining keywords go to System (e.g. ``independent_velocities``, ``embedding``,
        ``reference``).

    Returns
    -------
    System
        The system; a warning says where M is singular at the default state (velocities written
        with the constraints applied).

    Raises
    ------
    SystemDescriptionError
        Listing every problem: a parameter without a value or unknown, auxiliary speeds, kinematic
        equations that are not q' = A(q) u, speeds without a coordinate, functions of time that are
        neither coordinates nor speeds, a bad ``state`` or ``constraint_names``.

    See Also
    --------
    systems.from_lagrangian : A System from T and V written directly.

    Examples
    --------
    >>> import sympy as sp, sympy.physics.mechanics as me, systems
    >>> q = me.dynamicsymbols("q")
    >>> m, g, l = sp.symbols("m g l", positive=True)
    >>> L = m * l**2 * q.diff()**2 / 2 + m * g * l * sp.cos(q)
    >>> pendulum = systems.from_sympy(me.LagrangesMethod(L, [q]), {"m": 1.0, "g": 9.81, "l": 0.5},
    ...                               name="pendulum")
    >>> pendulum.coordinate_names, pendulum.velocity_names, pendulum.parameter_names
    (('q',), ('q_dot',), ('g', 'l', 'm'))
    """
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
