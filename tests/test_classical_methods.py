"""The classical methods (Lagrange, Maggi, Gibbs-Appell, Kane, Boltzmann-Hamel, Chaplygin, Voronets)
give the equations of sympy.physics.mechanics' KanesMethod on independent models of the same systems
(tests/kane_models.py), agree with each other, reproduce the Chaplygin sleigh's textbook reduced
equations, refuse what they cannot derive with the reason, and render to LaTeX that pdflatex compiles."""
import re
import shutil
import subprocess
import unicodedata

import numpy as np
import pytest
import sympy as sp

import systems
from formulations.workbench.cli.main import main
from formulations.workbench.derivation.derive import derive
from formulations.workbench.derivation.methods import METHODS
from formulations.workbench.derivation.methods.agreement import _Evaluator, compare
from formulations.workbench.derivation.methods.lagrange import MethodEquations
from formulations.workbench.derivation.methods.mechanics import mechanics

import kane_models

# system -> (Kane model, parameter names of the model in its order)
MODELS = {"knife_edge": (kane_models.knife_edge, ("m", "J", "g", "alpha")),
          "chaplygin_sleigh": (kane_models.chaplygin_sleigh, ("m", "I", "a")),
          "vertical_disc": (kane_models.vertical_disc, ("m", "r")),
          "rolling_disc": (kane_models.rolling_disc, ("m", "r", "g", "thickness")),
          "sphere_in_cylinder": (kane_models.sphere_in_cylinder, ("m", "a", "R", "k", "g"))}
NOT_CHAPLYGIN = {"sphere_in_cylinder"}  # its wall row depends on where the sphere is: Voronets' class


def _equations(system):
    """The system in generalized coordinates and every method's MethodEquations (without simplification)."""
    mech = mechanics(system, lambda expr: expr, "test")
    out = {}
    for method in METHODS.values():
        try:
            out[method.name] = method.write(mech, lambda x: x, [], None)[1]
        except ValueError:
            pass
    return mech, out


@pytest.mark.parametrize("name", sorted(MODELS))
def test_every_method_gives_kanes_method_accelerations(name, rng):
    """At random admissible states, each method's accelerations q'' equal those of KanesMethod on a
    model built from frames and bodies (not from pfaff's description), mapped through v = D(q) q'.
    The sphere's Euler parameters are written in yaw, pitch and roll for the methods; its Kane model
    keeps the Euler parameters."""
    system = systems.load(name)
    build, names = MODELS[name]
    model = build()
    params = [system.parameter_dict[n] for n in names]
    mech, equations = _equations(system)
    assert set(equations) == set(METHODS) - ({"chaplygin"} if name in NOT_CHAPLYGIN else set())
    evaluators = {m: _Evaluator(eq, mech) for m, eq in equations.items()}
    parameter_values = [float(value) for value in system.parameter_values]
    q_of_p = sp.lambdify([system.coordinates], list(mech.system.embedding.inverse))
    D = mech.D
    D_of, Ddot_of = (sp.lambdify([list(mech.q) + list(mech.qd) + mech.parameters], X)
                     for X in (D, (D * mech.qd).jacobian(mech.q) * mech.qd))
    for _ in range(3):
        p0, v0 = system.default_state()
        p, v = system.consistent_state(p0 + 0.3 * rng.standard_normal(p0.shape), v0 + rng.standard_normal(v0.shape))
        q = np.array(q_of_p(p), float)
        D_q = np.array(D_of(list(q) + [0.0] * mech.k + parameter_values), float)
        q_dot = np.linalg.lstsq(D_q, v, rcond=None)[0]
        state = list(q) + list(q_dot) + parameter_values + [0.0]  # and the time
        v_dot = model.accelerations(p, v, params)
        expected = np.linalg.lstsq(D_q, v_dot - np.array(Ddot_of(state[:-1]), float).ravel(), rcond=None)[0]
        for method, ev in evaluators.items():
            got = np.array(ev(state).tolist(), float).ravel()
            assert np.allclose(got, expected, rtol=1e-10, atol=1e-10), (method, got, expected)


def test_each_method_ends_with_the_proof_that_all_agree():
    sleigh = systems.load("chaplygin_sleigh")
    derivation = derive(sleigh, method="chaplygin", seconds=2.0)
    agreement = derivation["agreement"]
    assert set(agreement.differences) == set(METHODS) and agreement.agree
    assert max(agreement.differences.values()) < 1e-30  # 40 digits: only rounding is left
    last = derivation.steps[-1]
    assert last.key == "agreement" and "so every method gives the same motion" in last.text
    for method in METHODS:  # each method's own derivation ends the same way (its proof is the one above)
        derivation = derive(sleigh, method=method, simplify=False, analysis=False, prove=False)
        assert derivation.title == f"{METHODS[method].title} for `chaplygin_sleigh`"
        assert derivation.steps[-1].key == "equations"
        assert derivation["residual"].rows == (3 + 1 if method == "lagrange" else 2)  # k + l, or r


def test_a_wrong_equation_is_found_out():
    """The proof can fail: a Maggi equation with the sign of one velocity term flipped disagrees."""
    mech, equations = _equations(systems.load("knife_edge"))
    right = equations["maggi"]
    x_dot, phi_dot = right.velocities
    wrong = MethodEquations("maggi", right.unknowns, right.residual + sp.Matrix([2 * x_dot * phi_dot, 0]),
                            right.qdd, right.velocities)
    agreement = compare(mech, [right, wrong])
    assert not agreement.agree and agreement.differences["maggi"] > 1e-3


def test_the_chaplygin_sleigh_reduces_to_its_textbook_equations():
    """In the forward speed v of the contact point and the turning rate w (Bloch, Nonholonomic Mechanics
    and Control, 2003, section 1.7): m v' = m a w^2 and (I + m a^2) w' = -m a v w, which conserve
    the energy m v^2 / 2 + (I + m a^2) w^2 / 2."""
    system = systems.load("chaplygin_sleigh")
    x, y, theta = system.coordinates
    x_dot, y_dot, theta_dot = system.velocities
    symbol = {parameter.name: parameter.symbol for parameter in system.parameters}
    m, I, a = symbol["m"], symbol["I"], symbol["a"]
    forward = sp.cos(theta) * x_dot + sp.sin(theta) * y_dot
    hamel = derive(system, method="boltzmann-hamel", speeds=[forward, theta_dot], seconds=5.0)
    v_dot, w_dot = (sp.Symbol("udot_1", real=True), sp.Symbol("udot_2", real=True))
    v, w = sp.Symbol("u_1", real=True), sp.Symbol("u_2", real=True)
    solved = sp.solve(list(hamel["residual"]), [v_dot, w_dot], dict=True)[0]
    assert sp.simplify(solved[v_dot] - a * w**2) == 0
    assert sp.simplify(solved[w_dot] + m * a * v * w / (I + m * a**2)) == 0
    # Chaplygin's equations, in the independent coordinates (x, theta): the same motion
    chaplygin = derive(system, method="chaplygin", seconds=5.0, prove=False)
    x_ddot, theta_ddot = sp.Symbol("xddot", real=True), sp.Symbol("thetaddot", real=True)
    s = sp.solve(list(chaplygin["residual"]), [x_ddot, theta_ddot], dict=True)[0]
    speed = x_dot / sp.cos(theta)  # the forward speed where y' = x' tan(theta)
    assert sp.simplify(sp.diff(speed, x_dot) * s[x_ddot] + sp.diff(speed, theta) * theta_dot - a * theta_dot**2) == 0
    assert sp.simplify(s[theta_ddot] + m * a * speed * theta_dot / (I + m * a**2)) == 0


def test_not_a_chaplygin_system_is_refused_with_the_reason():
    """A particle with z' = y x' in the potential k x z: every split leaves V depending on a dependent
    coordinate, so Chaplygin's equations do not apply; Voronets' do, and agree with the others."""
    x, y, z = sp.symbols("x y z", real=True)
    xd, yd, zd = sp.symbols("x_dot y_dot z_dot", real=True)
    k = sp.Symbol("k", positive=True)
    particle = systems.from_lagrangian("nonholonomic_particle", (x, y, z), (xd**2 + yd**2 + zd**2) / 2, k * x * z,
                                       velocities=(xd, yd, zd), nonholonomic=[("z row", zd - y * xd)],
                                       parameters=(systems.Parameter(k, 1.0, "N/m^2", "stiffness"),),
                                       default_p=(0, 0, 0), default_v=(1, 0, 0))
    with pytest.raises(ValueError, match=r"not a Chaplygin system: .* V depends on z .* Voronets"):
        derive(particle, method="chaplygin")
    voronets = derive(particle, method="voronets", seconds=2.0)
    assert voronets["agreement"].agree and "chaplygin" not in voronets["agreement"].differences
    assert any("Chaplygin's equations" in note and "not a Chaplygin system" in note for note in voronets.notes)


def test_refusals_name_the_reason():
    with pytest.raises(ValueError, match="rheonomic"):
        derive(systems.load("bead_on_rotating_hoop"), method="lagrange")
    with pytest.raises(ValueError, match="expected one of: lagrange, maggi"):
        derive(systems.load("knife_edge"), method="hamilton")
    with pytest.raises(ValueError, match="give one of them"):
        derive(systems.load("knife_edge"), "minimal", method="kane")
    with pytest.raises(ValueError, match="takes no generalized speeds"):
        derive(systems.load("knife_edge"), method="maggi", speeds=["x_dot", "phi_dot"])
    knife = systems.load("knife_edge")
    x_dot, y_dot, phi_dot = knife.velocities
    with pytest.raises(ValueError, match="must be linear in the velocities"):
        derive(knife, method="kane", speeds=[x_dot**2, phi_dot])
    with pytest.raises(ValueError, match="do not determine the velocities"):
        derive(knife, method="kane", speeds=[x_dot, sp.tan(knife.coordinates[2]) * x_dot])
    with pytest.raises(ValueError, match="has r = 2"):
        derive(knife, method="kane", speeds=[x_dot])
    with pytest.raises(ValueError, match="without a constant term"):
        derive(knife, method="kane", speeds=[x_dot + 1, phi_dot])
    with pytest.raises(ValueError, match="expected a list of 2 expressions"):
        derive(knife, method="kane", speeds="phi_dot")
    with pytest.raises(ValueError, match="names w, which is not a coordinate"):
        derive(knife, method="kane", speeds=["w * x_dot", "phi_dot"])
    with pytest.raises(ValueError, match="for the classical method, method='kane'"):
        derive(knife, "kane")


def test_speeds_of_ones_choice_give_the_same_motion():
    """Kane's and the Gibbs-Appell equations in the blade's forward speed and turning rate agree with
    the default (x', phi'); speeds may be written as text in the system's names, forces may depend on
    time, and Maggi's independent rates may be named."""
    knife = systems.load("knife_edge")
    by_name = derive(knife, method="kane", speeds=["cos(phi) * x_dot + sin(phi) * y_dot", "phi_dot"], seconds=1.0,
                     prove=False)
    assert sp.simplify(by_name["W"][2, 1] - 1) == 0
    maggi = derive(knife, method="maggi", independent=["y_dot", "phi_dot"], simplify=False)
    assert sp.simplify(maggi["D_bar"][0, 0] - sp.cot(knife.coordinates[2])) == 0  # x' = cot(phi) y'

    from dataclasses import replace

    pushed = replace(knife, f=knife.f + sp.Matrix([sp.sin(3 * systems.TIME), 0, 0]))
    assert derive(pushed, method="boltzmann-hamel", simplify=False)["agreement"].agree
    x, y, phi = knife.coordinates
    x_dot, y_dot, phi_dot = knife.velocities
    forward = sp.cos(phi) * x_dot + sp.sin(phi) * y_dot
    for method in ("kane", "gibbs-appell", "boltzmann-hamel"):
        derivation = derive(knife, method=method, speeds=[forward, phi_dot], seconds=1.0)
        assert derivation["agreement"].agree, method
        assert derivation["u"] == sp.Matrix([sp.Symbol("u_1", real=True), sp.Symbol("u_2", real=True)])


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex is not installed: apt-get install texlive-latex-base texlive-latex-recommended")
def test_every_method_prints_and_compiles(tmp_path, capsys):
    """Each method's derivation as text, Markdown and LaTeX; all seven in one document for pdflatex."""
    from formulations.workbench.derivation.transcript import latex_document

    vertical = systems.load("vertical_disc")
    fragments = []
    for method in METHODS:
        derivation = derive(vertical, method=method, simplify=False, prove=method == "boltzmann-hamel")
        text, markdown = derivation.text(width=100), derivation.to_markdown()
        assert METHODS[method].title in text and "$$" in markdown and "\\frac" not in text
        fragments.append(derivation.to_latex())
    (tmp_path / "methods.tex").write_text(latex_document("\n\n\\newpage\n".join(fragments)))
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "methods.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    errors = [line for line in run.stdout.splitlines() if line.startswith("!")]
    assert run.returncode == 0, f"pdflatex failed: {errors[:5]}"
    pages = int(re.search(r"Output written on methods\.pdf \((\d+) pages?", run.stdout).group(1))
    assert pages >= len(METHODS)
    assert main(["derive", "knife_edge", "--method", "gibbs-appell", "--simplify", "1"]) == 0
    out = capsys.readouterr().out
    assert "The Gibbs-Appell equations for knife_edge" in out and "The methods agree" in out
    assert main(["derive", "knife_edge", "--method", "kane", "--formulation", "minimal"]) == 2
    assert main(["derive", "knife_edge", "--method", "kane", "--simplify", "0", "--speeds",
                 "cos(phi)*x_dot + sin(phi)*y_dot", "phi_dot"]) == 0
    speeds = unicodedata.normalize("NFC", capsys.readouterr().out.replace("\u00a0", " "))
    assert unicodedata.normalize("NFC", "u₁ = ẋ cos(φ) + ẏ sin(φ), u₂ = φ̇") in speeds
    assert main(["derive", "knife_edge", "--method", "maggi", "--speeds", "phi_dot", "x_dot"]) == 2
