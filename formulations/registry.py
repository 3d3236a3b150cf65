"""The registry of the formulations: the one place that says which formulations exist and what each
layer offers for each of them.

A formulation class registers once (``formulations.base.register``). Every other layer that must
know a formulation — the classroom derivation, linearization, optimal control and its export —
registers *its piece for that formulation* here, under its layer's name, with ``provide``; the
registry imports none of them, so the import direction (systems -> formulations -> solvers ->
results -> control -> workbench) holds. A layer then asks ``piece(layer, name)`` and says which
formulations it serves with ``having(layer)``; nothing else keeps lists of formulation names.

    from formulations import registry
    registry.names()                        # ('dependent', 'reduced', 'minimal', 'manifold', ...)
    registry.having("derivation")           # the formulations derive() can write out
    registry.missing()                      # {formulation: layers without its piece}

Capabilities that are facts about a formulation's equations (which stabilizations it takes,
whether it runs dependent rows, whether it has a compiled module) stay class attributes of the
formulation (formulations.base.Formulation) and are read from the class.
"""
from __future__ import annotations

from dataclasses import dataclass

from systems.errors import UnknownNameError

from .errors import CapabilityError


@dataclass(frozen=True)
class Layer:
    """A layer that keeps a piece per formulation: what the piece is, the module that registers
    it, and whether every formulation must have one (required) or may be refused by it."""

    name: str
    piece: str
    module: str
    required: bool


LAYERS = {layer.name: layer for layer in (
    Layer("linearization", "the map from the formulation's own state to the states linearized",
          "formulations.linearization.state_maps", True),
    Layer("derivation", "the classroom derivation's steps, in the notation of DESIGN section 2",
          "formulations.workbench.derivation.steps", False),
    Layer("optimal control", "the CasADi model of the equations of motion (direct collocation)",
          "formulations.control.model", False),
)}

_CLASSES: dict = {}  # name -> Formulation subclass, in the order of registration
_PIECES: dict = {name: {} for name in LAYERS}  # layer -> {formulation name: piece}


def register_class(cls):
    """Make the formulation class ``cls`` available by its ``name`` (formulations.base.register)."""
    _CLASSES[cls.name] = cls
    return cls


def names() -> tuple:
    """Names of the registered formulations, in the order of registration."""
    return tuple(_CLASSES)


def formulation_class(name: str):
    """The registered class of formulation ``name``; an UnknownNameError lists the others."""
    if name not in _CLASSES:
        raise UnknownNameError("formulation", name, names())
    return _CLASSES[name]


@dataclass(frozen=True)
class Refusal:
    """A layer's word that it does not serve a formulation (where the formulation would otherwise
    inherit the piece of the class it extends), and why."""

    reason: str


def provide(layer: str, formulation, piece) -> None:
    """Layer ``layer`` registers its ``piece`` for ``formulation``: its class (or its name, for a
    formulation that a module registers later: pieces may be provided before their class). A
    Refusal says that the layer does not serve the formulation. A formulation without an entry of
    its own takes the piece of the registered formulation its class extends (a subclass of Dependent
    with its own gains is still the dependent formulation to every layer)."""
    _layer(layer, "provide")
    _PIECES[layer][formulation if isinstance(formulation, str) else formulation.name] = piece


def _layer(layer, caller):
    if layer not in LAYERS:
        raise ValueError(f"{caller} got layer={layer!r} but expected one of: {', '.join(LAYERS)}")
    return LAYERS[layer]


def _entry(layer: str, formulation: str):
    """The piece, a Refusal or None: the formulation's own entry, else that of the nearest class it
    extends that has one."""
    for cls in formulation_class(formulation).__mro__:
        name = cls.__dict__.get("name")
        if name is not None and name in _PIECES[layer]:
            return _PIECES[layer][name]
    return None


def piece(layer: str, formulation: str):
    """The piece of ``layer`` for ``formulation``; a CapabilityError says why where there is none
    (the layer's refusal, or the formulations it serves)."""
    reason = why_not(layer, formulation)
    if reason is not None:
        raise CapabilityError(reason)
    return _entry(layer, formulation)


def why_not(layer: str, formulation: str) -> str | None:
    """None where ``layer`` has a piece for ``formulation``; otherwise why not, in a sentence."""
    spec = _layer(layer, "why_not")
    found = _entry(layer, formulation)
    if isinstance(found, Refusal):
        return f"formulation {formulation!r} has no {layer}: {found.reason}"
    if found is None:
        return (f"formulation {formulation!r} has no {layer} ({spec.piece}); it is given for: "
                f"{', '.join(having(layer)) or 'none'}")
    return None


def having(layer: str) -> tuple:
    """The registered formulations that have a piece of ``layer``, in the order of registration."""
    _layer(layer, "having")
    entries = {name: _entry(layer, name) for name in _CLASSES}
    return tuple(name for name, found in entries.items() if found is not None and not isinstance(found, Refusal))


def missing(required_only: bool = False) -> dict:
    """{formulation: (layers without its piece)} over the registered formulations (only the required
    layers with ``required_only``); formulations that lack nothing are left out."""
    out = {}
    for name in _CLASSES:
        lacking = tuple(layer for layer, spec in LAYERS.items()
                        if name not in having(layer) and (spec.required or not required_only))
        if lacking:
            out[name] = lacking
    return out


def snapshot():
    """The registry's state, for ``restore`` (a page or a test that registers its own formulation)."""
    return dict(_CLASSES), {layer: dict(pieces) for layer, pieces in _PIECES.items()}


def restore(state) -> None:
    classes, pieces = state
    _CLASSES.clear()
    _CLASSES.update(classes)
    for layer in _PIECES:
        _PIECES[layer].clear()
        _PIECES[layer].update(pieces.get(layer, {}))
