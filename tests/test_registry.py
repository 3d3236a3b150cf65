"""The registry of formulations (formulations.registry): every layer that writes a formulation out in
its own terms keeps one piece per formulation there, and what each formulation lacks is listed in one
place; the layers take their lists of formulations from it."""
import importlib

import numpy as np
import pytest

import formulations as F
import systems
from formulations import registry
from formulations.base import Formulation
from formulations.control.model import build, kinds
from formulations.dependent import Dependent
from formulations.workbench.comparison.compare import default_configurations


@pytest.fixture
def restored():
    """The registry as it was after the test (which registers formulations of its own)."""
    state = registry.snapshot()
    yield
    registry.restore(state)


def test_every_layer_is_loaded_and_every_formulation_has_the_required_pieces():
    """The table of what each registered formulation lacks (optional pieces may be refused, and the
    refusal says why); a required piece that is missing fails."""
    for layer in registry.LAYERS.values():
        importlib.import_module(layer.module)
    lacking = registry.missing()
    table = "\n".join(f"{name}: {', '.join(layers)}" for name, layers in lacking.items())
    assert not registry.missing(required_only=True), table
    for name, layers in lacking.items():
        for layer in layers:
            assert f"formulation {name!r} has no {layer}" in registry.why_not(layer, name)
    assert set(registry.names()) >= {"dependent", "reduced", "minimal", "manifold"}


def test_a_new_formulation_without_a_required_piece_is_named(restored):
    @F.register
    class Bare(Formulation):  # it extends no formulation that has pieces
        name = "bare"
        numeric_form = "nothing"

        def state_names(self):
            return ()

        def initial_state(self, p, v, t=0.0):
            return np.concatenate([p, v])

        def dependent_state(self, y, t=0.0):
            return y, y

        def accelerations(self, t, y, multipliers=True):
            return y, y, None

        def equations(self, expanded=False):
            return {}

    assert registry.missing(required_only=True) == {"bare": ("linearization",)}
    with pytest.raises(F.CapabilityError, match="formulation 'bare' has no linearization .* it is given for: dependent"):
        registry.piece("linearization", "bare")
    with pytest.raises(F.CapabilityError, match="has no linearization"):
        F.linearize("knife_edge", *systems.load("knife_edge").default_state(), formulation="bare")


def test_a_formulation_that_extends_another_takes_its_pieces_unless_a_layer_refuses(restored):
    @F.register
    class Tuned(Dependent):
        name = "dependent_tuned"

    assert registry.missing().get("dependent_tuned") is None
    assert registry.piece("derivation", "dependent_tuned") is registry.piece("derivation", "dependent")
    assert "dependent_tuned" in registry.having("optimal control") and "dependent_tuned" in kinds()
    registry.provide("optimal control", "dependent_tuned", registry.Refusal("its gains are not transcribed"))
    assert "dependent_tuned" not in kinds()
    with pytest.raises(F.ArgumentError, match="has no optimal control: its gains are not transcribed"):
        build(systems.load("knife_edge"), "dependent_tuned", ())  # refused before CasADi is needed


def test_the_manifold_formulation_is_refused_with_a_reason_where_it_has_no_piece():
    for layer in ("derivation", "optimal control"):
        assert "manifold" not in registry.having(layer)
        assert "tangent-space charts" in registry.why_not(layer, "manifold")
    with pytest.raises(ValueError, match="no derivation: its coordinates live on tangent-space charts"):
        F.derive(systems.load("slider_crank"), "manifold")


def test_comparison_candidates_come_from_the_registered_classes():
    """Every registered formulation's configurations, the manifold's only where there are holonomic
    constraints to take charts of."""
    expected = [c for name in registry.names() for c in registry.formulation_class(name).comparison]
    assert list(default_configurations(systems.load("slider_crank"))) == expected
    assert "manifold" not in default_configurations(systems.load("knife_edge"))


def test_unknown_layers_are_refused():
    for call in (lambda: registry.provide("plots", "dependent", None), lambda: registry.having("plots"),
                 lambda: registry.piece("plots", "dependent")):
        with pytest.raises(ValueError, match="layer='plots'"):
            call()
