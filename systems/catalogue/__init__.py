"""The catalogue of example systems: one module per system, each with NAME and build().

``build`` takes keyword-only structural options (if any); physical parameters are set afterwards
with :meth:`System.with_parameters`, so :func:`load` accepts both kinds by name.
"""
from __future__ import annotations

import importlib
import inspect
import pkgutil
import re

from ..arguments import _show, whole
from ..description import System
from ..errors import ArgumentTypeError, UnknownNameError
from ..numeric.model import store_sources
from ..numeric.stored import stored_build


def _modules():
    found = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        found[module.NAME] = module
    return found


_REGISTRY = _modules()
_BUILT: dict = {}


def names() -> tuple:
    """Names of the catalogue systems, sorted.

    Every name is accepted by :func:`systems.load` and :func:`systems.describe`, and wherever an
    argument takes a System or the name of a catalogue system.

    Returns
    -------
    tuple of str
        The names, in alphabetical order.

    See Also
    --------
    systems.load : The catalogue system of a name.
    systems.describe : Its description.

    Examples
    --------
    >>> import systems
    >>> "rolling_disc" in systems.names()
    True
    >>> list(systems.names()) == sorted(systems.names())
    True
    """
    return tuple(sorted(_REGISTRY))


def load(name: str, **values):
    """Load catalogue system ``name``, with structural options and parameter values overridden.

    A keyword that is a structural option of the system's build (e.g. ``n`` of ``n_pendulum``, a
    whole number) changes its structure; every other keyword sets a parameter value. Each value is
    checked and a bad one named. The symbolic build is done once per structure and kept on disk.

    Parameters
    ----------
    name : str
        A catalogue name, one of :func:`systems.names`.
    **values
        Structural options (an int option takes 3, 3.0 or "3"; 2.5 and True are refused) and
        parameter values (numbers or their text, in the parameter's unit, e.g. ``r=0.3`` in m;
        names as in ``System.parameter_names``). Parameters not given keep their defaults.

    Returns
    -------
    System
        The system, immutable: for the same options and no parameter values, the same shared
        object on every call.

    Raises
    ------
    UnknownNameError
        ``name`` is not a catalogue name, or a keyword is neither an option nor a parameter.
    ArgumentError, ArgumentTypeError
        A structural option or a parameter value is not a number of the kind expected.
    SystemDescriptionError
        A parameter value is out of range (e.g. of the wrong sign), or the description is not
        valid with it.

    See Also
    --------
    systems.names : The catalogue names.
    systems.describe : What a catalogue system models.
    systems.System.with_parameters : A copy with other parameter values.

    Examples
    --------
    >>> import systems
    >>> disc = systems.load("rolling_disc", r=0.3)
    >>> disc.coordinate_names
    ('x', 'y', 'z', 'psi', 'theta', 'phi')
    >>> disc.parameter_dict["r"], disc.unit_of("r")
    (0.3, 'm')
    >>> systems.load("n_pendulum", n=3).n
    9
    """
    if not isinstance(name, str) or name not in _REGISTRY:
        raise UnknownNameError("system", name, names())
    build = _REGISTRY[name].build
    signature = inspect.signature(build).parameters
    options = {k: _option(name, k, signature[k].default, values.pop(k)) for k in list(values) if k in signature}
    key = (name, tuple(sorted(options.items())))
    if key not in _BUILT:  # systems are immutable: the symbolic build is shared, and kept on disk
        _BUILT[key] = stored_build(name, options, build, System, built=store_sources)
    system = _BUILT[key]
    if not values:
        return system
    varied = system.with_parameters(**values)
    if hasattr(system, "stored_as"):  # the same structure: the same stored numpy functions
        object.__setattr__(varied, "stored_as", system.stored_as)
    return varied


def _option(system, key, default, value):
    """A structural option converted to the type of its default: whole numbers for int options
    (3, 3.0 and "3" give 3; 2.5 and True are refused)."""
    if isinstance(default, int) and not isinstance(default, bool):
        return whole(f"option {key} of system {system!r}", value, minimum=1 if default >= 1 else None)
    return value


def describe(name: str) -> str:
    """The description of catalogue system ``name``: the docstring of its catalogue module.

    It says what the system models, what p and v are, and what each constraint row (and so each
    reaction) means.

    Parameters
    ----------
    name : str
        A catalogue name, one of :func:`systems.names`.

    Returns
    -------
    str
        The text ("" where the module has none).

    Raises
    ------
    UnknownNameError
        ``name`` is not a catalogue name.

    See Also
    --------
    systems.load : The system itself.

    Examples
    --------
    >>> import systems
    >>> print(systems.describe("rolling_disc").splitlines()[0])
    The rolling disc: a thin disc or a coin rolling without slipping on a horizontal plane.
    """
    if name not in _REGISTRY:
        raise UnknownNameError("system", name, names())
    return inspect.getdoc(_REGISTRY[name]) or ""


def first_sentence(name: str) -> str:
    """The first sentence of describe(name), whole: the first paragraph's lines joined and cut after
    the first full stop that ends a sentence (one followed by a capital letter or the end)."""
    paragraph = " ".join(describe(name).strip().split("\n\n")[0].split())
    end = re.search(r"[.!?](?=\s+[A-Z(]|$)", paragraph)
    return paragraph[:end.end()] if end else paragraph


def as_system(value, argument="system"):
    """A System: ``value`` itself, or the catalogue system of that name (systems.load)."""
    if isinstance(value, System):
        return value
    if isinstance(value, str):
        return load(value)
    raise ArgumentTypeError(f"{argument} got {_show(value)} ({type(value).__name__}) but expected a systems.System "
                            f"or the name of a catalogue system (systems.names())", argument)
