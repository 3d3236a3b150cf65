"""Derivation transcripts: three renderings of one list of steps that agree with each other, read as
mathematics (no ASCII math in the prose, dots over time derivatives) and, as complete LaTeX
documents, compile with pdflatex for every catalogue system."""
import re
import shutil
import subprocess
import unicodedata

import pytest
import sympy as sp

import systems
from formulations.workbench.derivation import transcript as tr
from formulations.workbench.cli.main import main
from formulations.workbench.derivation.derive import derive
from formulations import registry

# derivations (and the constraint analysis) of several seconds each
HEAVY = {"spinning_top", "four_point_body", "spherical_double_pendulum", "spherical_three_bar", "floating_pair",
         "bicycle"}
# derivations longer than a dozen pages: the bicycle's nine coordinates and six rows give long entries
LONG = {"bicycle": 30}


def _formulation(system):
    """minimal where the system has a symbolic embedding, else dependent."""
    emb = system.embedding
    if system.m == 0 and system.embedding is None and system.A == sp.eye(system.n):
        return "minimal"
    ok = emb is not None and len(system.coordinates) == system.n and emb.A_q == sp.eye(len(emb.coordinates))
    return "minimal" if ok else "dependent"


# p' or v' for a time derivative, ^-1 or ^T typed as text
ASCII_MATH = re.compile(r"\^-1|\^T\b|\b[A-Za-z]'(?=[\s,.;)=]|$)")
# the documents compiled by default: rolling and a knife edge, a closed loop, Euler parameters,
# rows that move with time, dependent rows; the others with -m slow (a second of pdflatex each)
TYPICAL = {"rolling_disc", "knife_edge", "slider_crank", "heavy_top", "bead_on_rotating_hoop", "bricard"}
CATALOGUE_PARAMS = [pytest.param(name, marks=pytest.mark.slow) if name in HEAVY else name
                    for name in systems.names()]
DOCUMENT_PARAMS = [name if name in TYPICAL else pytest.param(name, marks=pytest.mark.slow) for name in systems.names()]


@pytest.fixture
def disc(disc_derivations):
    return disc_derivations


@pytest.mark.skipif(shutil.which("pdflatex") is None,
                    reason="pdflatex is not installed: apt-get install texlive-latex-base texlive-latex-recommended")
@pytest.mark.parametrize("name", DOCUMENT_PARAMS)
def test_standalone_document_compiles(name, tmp_path):
    system = systems.load(name)
    document = derive(system, _formulation(system), seconds=1.0).to_latex(standalone=True)
    assert document.startswith(r"\documentclass") and document.rstrip().endswith(r"\end{document}")
    assert "_{dot}" not in document and not ASCII_MATH.search(_prose(document))
    (tmp_path / "derivation.tex").write_text(document)
    run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "derivation.tex"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=120)
    errors = [line for line in run.stdout.splitlines() if line.startswith("!")]
    assert run.returncode == 0, f"pdflatex failed on {name}: {errors[:5]}"
    pages = int(re.search(r"Output written on derivation\.pdf \((\d+) pages?", run.stdout).group(1))
    assert 1 <= pages <= LONG.get(name, 12), f"{name}: {pages} pages"


def test_rolling_disc_fits_on_a_few_pages(disc, tmp_path):
    if shutil.which("pdflatex") is None:
        pytest.skip("pdflatex is not installed: apt-get install texlive-latex-base texlive-latex-recommended")
    pages = {}
    for formulation, derivation in disc.items():
        (tmp_path / f"{formulation}.tex").write_text(derivation.to_latex(standalone=True))
        run = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{formulation}.tex"],
                             cwd=tmp_path, capture_output=True, text=True, timeout=120)
        assert run.returncode == 0
        assert "Overfull \\hbox" not in run.stdout, f"{formulation}: a line runs into the margin"
        pages[formulation] = int(re.search(r"\((\d+) pages?", run.stdout).group(1))
    assert max(pages.values()) <= 5 and sum(pages.values()) <= 3 * len(pages), pages


def _nfc(text):
    return unicodedata.normalize("NFC", text)


def _prose(latex):
    """The text-mode parts of a LaTeX rendering (display environments and $...$ removed)."""
    latex = re.sub(r"\\begin\{(gather|align)\*\}.*?\\end\{\1\*\}", "", latex, flags=re.S)
    latex = re.sub(r"\$\$.*?\$\$", "", latex, flags=re.S)
    return re.sub(r"\$[^$]*\$", "", latex)


@pytest.mark.parametrize("formulation", registry.having("derivation"))
def test_no_ascii_math(disc, formulation):
    d = disc[formulation]
    latex, markdown, text = d.to_latex(standalone=True), d.to_markdown(), d.text(width=100)
    for rendering in (latex, markdown):
        assert "_{dot}" not in rendering and "x_dot" not in rendering
        assert r"\dot{\psi}" in rendering or not registry.piece("derivation", formulation).on_embedding
    for prose in (_prose(latex), _prose(markdown), text):
        assert not ASCII_MATH.search(prose), prose
        assert "_bar" not in prose and "lambda" not in prose
    assert "\\" not in text and "{" not in text and "_dot" not in text
    text = unicodedata.normalize("NFC", text)
    assert "λ" in text and _nfc("Mv̇ + d = f") in text
    if registry.piece("derivation", formulation).on_embedding:
        assert _nfc("ψ̇") in text and _nfc("M̄ẇ + d̄ = f̄") in text


@pytest.mark.parametrize("formulation", registry.having("derivation"))
def test_renderings_show_the_same_steps_in_order(disc, formulation):
    d = disc[formulation]
    titles = [step.title for step in d.steps]
    latex, markdown, text = d.to_latex(), d.to_markdown(), d.text(width=200)
    assert re.findall(r"\\subsection\*\{\d+\.\\ ([^}]*)\}", latex) == titles
    assert re.findall(r"^\*\*\d+\. (.*?)\.\*\*", markdown, flags=re.M) == titles
    assert re.findall(r"^\d+\. (.*)$", text, flags=re.M) == titles
    relations = [r for step in d.steps for r in step.relations]
    assert all(r in latex and r in markdown and tr.tex_to_unicode(r) in text for r in relations)


def test_minimal_steps_are_those_of_the_textbook(disc):
    keys = [step.key for step in disc["minimal"].steps]
    assert keys == ["description", "holonomic", "nonholonomic", "analysis", "embedding", "accelerations",
                    "projection", "constraints_q", "independent", "accelerations_u", "projection_u", "equations",
                    "reactions"]
    assert [step.key for step in disc["dependent"].steps][-3:] == ["acceleration", "equations", "reactions"]


def test_layout_loses_nothing(disc):
    """Shown entry by entry or split over lines, each matrix adds up to the derived one."""
    d = disc["minimal"]
    for name in ("M_bar", "d_bar", "gamma_bar", "M_barbar", "d_barbar", "D_bar"):
        value = tr.display_symbols(d[name])
        lines = tr.layout(name, d[name])
        rebuilt = sp.zeros(*value.shape)
        for line in lines:
            assert not line.note
            if not line.index:
                rebuilt = line.chunks[0].T if line.transposed else line.chunks[0]
                continue
            i, j = (line.index + (1,))[:2]
            rebuilt[i - 1, j - 1] = sum(line.chunks, sp.S.Zero)
        assert sp.simplify(rebuilt - value) == sp.zeros(*value.shape), name
    assert len(tr.layout("d_barbar", d["d_barbar"])) > 1  # the disc's d̿ does not fit on one line


def test_compact_and_until(disc):
    d = disc["minimal"]
    compact = d.text(expanded=False, width=100)
    assert "⎡" not in compact and _nfc("M̿u̇ + d̿ = f̿") in _nfc(compact)
    short = d.to_markdown(until="embedding")
    assert "Embedding" in short and "Projected dynamics" not in short
    assert d.text(until=2, width=100).count("\n2. ") == 1 and "\n3. " not in d.text(until=2, width=100)
    with pytest.raises(ValueError, match="no step 'lagrange'; expected one of: description"):
        d.text(until="lagrange")


def test_text_fits_the_width(disc):
    for width in (80, 120):
        text = disc["minimal"].text(width=width)
        assert max(tr.columns(line) for line in text.splitlines()) <= width


@pytest.mark.parametrize("tex, text", [
    (r"\bar{\bar{\mathbf{M}}}\dot{\mathbf{u}} + \bar{\bar{\mathbf{d}}} = \bar{\bar{\mathbf{f}}}", "M̿u̇ + d̿ = f̿"),
    (r"\mathbf{D} = \mathbf{A}^{-1}\,\partial\mathbf{g}/\partial\mathbf{q}", "D = A⁻¹ ∂g/∂q"),
    (r"\bar{\mathbf{C}}_{nh}^{T}\boldsymbol{\lambda}_{nh}", "C̄ₙₕᵀλₙₕ"),
    (r"\begin{bmatrix}\mathbf{M} & \mathbf{C}^{T} \\ \mathbf{C} & \mathbf{0}\end{bmatrix}", "[M  Cᵀ; C  0]"),
    (r"\left(\mathbf{C}\mathbf{C}^{T}\right)^{-1} \le \lambda", "(CCᵀ)⁻¹ ≤ λ"),
], ids=["minimal", "D", "reaction", "block", "macros"])
def test_tex_to_unicode(tex, text):
    assert _nfc(tr.tex_to_unicode(tex)) == _nfc(text)


@pytest.mark.parametrize("name, latex, pretty", [("x_dot", r"\dot{x}", "ẋ"),
                                                 ("theta1_dot", r"\dot{\theta}_{1}", "θ̇₁"),
                                                 ("omega_1", r"\omega_{1}", "ω₁")])
def test_velocities_print_as_time_derivatives(name, latex, pretty):
    shown = tr.display_symbols(sp.Symbol(name))
    assert sp.latex(shown) == latex and _nfc(sp.pretty(shown)) == _nfc(pretty)


def test_cli_standalone_document(capsys):
    assert main(["derive", "knife_edge", "--latex", "--standalone", "--simplify", "1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(r"\documentclass") and r"\usepackage{amsmath" in out and r"\end{document}" in out
    assert r"\dot{\phi}" in out
    assert main(["derive", "knife_edge", "--until", "analysis", "--compact", "--simplify", "0"]) == 0
    out = capsys.readouterr().out
    assert "Constraint analysis" in out and "Embedding" not in out and "⎡" not in out


@pytest.mark.parametrize("argv, message", [
    (["--standalone"], "needs --latex"), (["--until", "nothing"], "no step 'nothing'")], ids=["standalone", "until"])
def test_cli_derive_bad_input(argv, message, capsys):
    assert main(["derive", "knife_edge", "--simplify", "0", *argv]) == 2
    assert message in capsys.readouterr().err


def test_tex_escape():
    assert tr.tex_escape(r"a_b {x} 50% & # \ ~") == (r"a\_b \{x\} 50\% \& \# \textbackslash{} "
                                                       r"\textasciitilde{}")
