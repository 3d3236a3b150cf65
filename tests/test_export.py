"""pfaff export: the written right-hand side reproduces pfaff's own, by running it.

Python: the exported module (imported with numba hidden, so it can only use numpy) gives the
formulation's y' to round-off at random states, and solve_ivp on it follows pfaff's run with the same
method and tolerance. C: compiled with cc and called through ctypes, it gives the dependent
formulation's y' and multipliers. LaTeX: a fragment with the formulation's pieces.
"""
import ctypes
import importlib.util
import shutil
import subprocess
import sys

import numpy as np
import pytest
from scipy.integrate import solve_ivp

import formulations
import systems
from formulations.workbench.cli.main import main
from formulations.workbench.derivation.export import ExportError, export

pytest.importorskip("numba")
pytestmark = pytest.mark.xdist_group("compiled")

CASES = [("rolling_disc", "dependent"), ("rolling_disc", "minimal"), ("slider_crank", "reduced"),
         ("pendulum_cartesian", "dependent")]


def load_exported(path, name, monkeypatch):
    """Import the written module with numba hidden: it must run on numpy alone."""
    monkeypatch.setitem(sys.modules, "numba", None)
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def exported(system_name, formulation, tmp_path, monkeypatch):
    out = tmp_path / f"{system_name}_{formulation}.py"
    assert main(["export", system_name, "--formulation", formulation, "--to", "python", "--out", str(out)]) == 0
    return load_exported(out, f"exported_{system_name}_{formulation}", monkeypatch)


@pytest.mark.parametrize("system_name, formulation", CASES, ids=[f"{s}-{f}" for s, f in CASES])
def test_exported_python_reproduces_pfaff(system_name, formulation, tmp_path, monkeypatch, rng):
    module = exported(system_name, formulation, tmp_path, monkeypatch)
    system = systems.load(system_name)
    form = formulations.create(formulation, system)
    p0, v0 = system.default_state()
    form.prepare(p0, v0)
    assert module.STATE_NAMES == form.state_names() and module.PARAMETER_NAMES == system.parameter_names
    assert np.allclose(module.Y0, form.initial_state(p0, v0), rtol=0, atol=1e-14)
    for _ in range(3):
        p, v = system.consistent_state(p0 + 0.1 * rng.standard_normal(p0.shape), v0 + rng.standard_normal(v0.shape))
        y = form.initial_state(p, v)
        expected = form.rhs(0.0, y)
        assert np.max(np.abs(module.rhs(0.0, y) - expected)) < 1e-12 * (1 + np.max(np.abs(expected)))
    t_eval = np.linspace(0.0, 0.5, 6)
    ours = solve_ivp(module.rhs, (0.0, 0.5), module.Y0, method="DOP853", rtol=1e-10, atol=1e-10, t_eval=t_eval)
    run = form.simulate((0.0, 0.5), (p0, v0), method="DOP853", rtol=1e-10, atol=1e-10, t_eval=t_eval)
    p_ours = np.array([form.dependent_state(y)[0] for y in ours.y.T])
    assert ours.status == 0 and np.max(np.abs(p_ours - run.p)) < 1e-8  # two runs at 1e-10: steps may differ


def test_exported_python_takes_other_parameter_values(tmp_path, monkeypatch):
    module = exported("pendulum_cartesian", "dependent", tmp_path, monkeypatch)
    system = systems.load("pendulum_cartesian", g=3.0)
    form = formulations.create("dependent", system)
    params = module.PARAMETERS.copy()
    params[module.PARAMETER_NAMES.index("g")] = 3.0
    assert np.max(np.abs(module.rhs(0.0, module.Y0, params) - form.rhs(0.0, module.Y0))) < 1e-13


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler (cc) on this machine: the C export is not run")
@pytest.mark.parametrize("system_name, settings", [("knife_edge", {}), ("slider_crank", {}),
                                                   ("rolling_disc", {"thickness": 0.02, "rolling_resistance": 0.01}),
                                                   ("heavy_top", {}), ("ball_on_turntable", {})],
                         ids=["knife_edge", "slider_crank", "coin-rolling-resistance", "heavy_top-quaternions",
                              "turntable-affine-rows"])
def test_exported_c_reproduces_the_dependent_formulation(system_name, settings, tmp_path, rng):
    """Forces that depend on the multipliers (rolling resistance) and Euler-parameter blocks included."""
    source = tmp_path / "rhs.c"
    library = tmp_path / "librhs.so"
    options = [x for name, value in settings.items() for x in ("--set", f"{name}={value}")]
    assert main(["export", system_name, "--to", "c", "--out", str(source), *options]) == 0
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(library), str(source), "-lm"], check=True)
    function = getattr(ctypes.CDLL(str(library)), f"{system_name}_rhs")
    double_p = ctypes.POINTER(ctypes.c_double)
    function.argtypes = [ctypes.c_double, double_p, double_p, double_p, double_p]
    system = systems.load(system_name, **settings)
    form = formulations.create("dependent", system)
    p0, v0 = system.default_state()
    c = system.m + system.l
    for _ in range(3):
        p, v = system.consistent_state(p0 + 0.1 * rng.standard_normal(p0.shape), v0 + rng.standard_normal(v0.shape))
        y = np.concatenate([p, v])
        dydt, lam = np.zeros(y.size), np.zeros(c)
        as_c = lambda a: a.ctypes.data_as(double_p)  # noqa: E731
        assert function(0.0, as_c(y), as_c(system.params.copy()), as_c(dydt), as_c(lam)) == 0
        expected = form.evaluate(0.0, y)
        assert np.max(np.abs(dydt - form.rhs(0.0, y))) < 1e-12 * (1 + np.max(np.abs(dydt)))
        assert np.max(np.abs(lam - expected.lam)) < 1e-12 * (1 + np.max(np.abs(lam)))


def test_exported_latex_is_the_formulations_equations(capsys):
    assert main(["export", "knife_edge", "--formulation", "minimal", "--to", "latex"]) == 0
    text = capsys.readouterr().out
    assert text.startswith("% minimal formulation of knife_edge") and r"\begin{aligned}" in text
    assert r"\bar{\mathbf{D}}" in text or r"\mathbf{M}" in text


def test_c_export_of_another_formulation_is_bad_input(capsys):
    assert main(["export", "knife_edge", "--formulation", "minimal", "--to", "c"]) == 2
    assert "C export writes the dependent formulation" in capsys.readouterr().err


def test_python_export_of_a_formulation_on_charts_is_bad_input(capsys):
    """A new chart between steps changes the state; a right-hand side alone cannot do that."""
    assert main(["export", "pendulum_cartesian", "--formulation", "manifold"]) == 2
    assert "changes its state between steps" in capsys.readouterr().err


def test_python_export_needs_the_generated_module():
    form = formulations.create("dependent", systems.load("knife_edge"), backend="numpy")
    with pytest.raises(ExportError, match="create it with backend='compiled'"):
        export(form, "python")
