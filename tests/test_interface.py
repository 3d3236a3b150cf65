"""Every public method of every formulation works on a freshly created formulation, in any order:
no method needs another one (prepare, simulate) called first. State-taking methods of a formulation
on tangent-space charts, whose state is relative to a chart, say so where no chart has been taken."""
import numpy as np
import pytest

import formulations
import systems
from formulations.coordinates.charts import Atlas, ChartError
from formulations.forms import EXPLICIT_ODE, FORMS, INDEX1_DAE

SYSTEMS = ["rolling_disc", "slider_crank", "sphere_in_cylinder", "knife_edge"]
CASES = [(s, f) for s in SYSTEMS for f in ("dependent", "dependent+projection", "reduced", "minimal", "manifold")]


def _fresh(system_name, name):
    try:
        return formulations.create(name, systems.load(system_name), backend="numpy")
    except formulations.CapabilityError:
        pytest.skip(f"{name} does not apply to {system_name}")


@pytest.mark.parametrize("system_name, name", CASES, ids=[f"{s}-{f}" for s, f in CASES])
def test_methods_that_take_no_state_work_right_after_create(system_name, name):
    form = _fresh(system_name, name)
    p, v = form.system.default_state()
    assert len(form.state_names()) == len(form.initial_state(p, v))
    assert name.partition("+")[0] in form.label()
    assert form.equations().relations
    assert form.gives(EXPLICIT_ODE) is None and all(isinstance(form.gives(f), (str, type(None))) for f in FORMS)
    assert isinstance(form.needs(), dict) and isinstance(form.uses_post_step, bool)
    assert len(_fresh(system_name, name).own_state(p, v, 0.0)) == len(form.state_names())
    _fresh(system_name, name).check_state(p, v)
    M = _fresh(system_name, name).dynamics(0.0, p, v)[1][0]
    assert M.shape == (form.system.n, form.system.n)


@pytest.mark.parametrize("system_name, name", CASES, ids=[f"{s}-{f}" for s, f in CASES])
def test_state_methods_work_right_after_create_and_agree_with_a_prepared_formulation(system_name, name):
    """rhs, accelerations, dependent_state, project and post_step on a new formulation give what a
    formulation prepared for a run gives (the minimal formulation chooses u on first use)."""
    prepared = _fresh(system_name, name)
    p, v = prepared.system.default_state()
    prepared.prepare(p, v)
    y = prepared.initial_state(p, v)
    fresh = _fresh(system_name, name)
    if isinstance(fresh.geometry, Atlas):
        with pytest.raises(ChartError, match="initial_state"):
            fresh.rhs(0.0, y)
        fresh.initial_state(p, v)  # a chart at p, as the prepared formulation took
    assert np.allclose(fresh.rhs(0.0, y), prepared.rhs(0.0, y), rtol=1e-12, atol=1e-12)
    assert np.allclose(_fresh_or(fresh, p, v).accelerations(0.0, y)[1], prepared.accelerations(0.0, y)[1],
                       rtol=1e-12, atol=1e-12)
    p_back, v_back = fresh.dependent_state(y)
    assert np.allclose(p_back, p, atol=1e-10) and np.allclose(v_back, v, atol=1e-10)
    assert np.allclose(fresh.project(0.0, y), y, atol=1e-8)  # a consistent state stays
    fresh.post_step(0.0, y)
    if fresh.gives(INDEX1_DAE) is None:
        assert fresh.saddle(0.0, y).K.shape[0] == fresh.saddle(0.0, y).K.shape[1]


def _fresh_or(form, p, v):
    """A new formulation of the same kind, given its chart at p where it runs on charts."""
    other = formulations.create(form.label().partition("@")[0], form.system, backend="numpy")
    if isinstance(other.geometry, Atlas):
        other.initial_state(p, v)
    return other


def test_a_run_counts_its_changes_in_its_record_not_on_the_formulation():
    """Projections, re-choices and charts are counted by the run's loop: the formulation holds no
    counter, and two runs of one formulation report the same counts (none carried over)."""
    for name, system, t_end, counted in [("dependent+projection", systems.load("slider_crank"), 0.2, "projections"),
                                         ("manifold", systems.load("slider_crank"), 1.0, "charts"),
                                         ("minimal", systems.load("knife_edge", alpha=1e-9), 2.0, "rechoices")]:
        form = formulations.create(name, system, backend="numpy")
        state = (np.zeros(3), np.array([1.0, 0, 1.0])) if name == "minimal" else None
        first, second = (formulations.simulate(form, (0.0, t_end), state, rtol=1e-8) for _ in range(2))
        assert first.success and second.success
        assert getattr(first.stats, counted) > (1 if counted == "charts" else 0), (name, first.stats)
        for field in ("projections", "rechoices", "charts"):
            assert getattr(first.stats, field) == getattr(second.stats, field)
            assert not hasattr(form, field) and not hasattr(form.geometry, field)
