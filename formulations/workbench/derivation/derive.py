"""Classroom derivations: the equations of each formulation, step by step, in the notation of
Blajer's *A geometrical framework for modeling and simulation of nonholonomic mechanical systems*.

A derivation is one list of steps, each a title, one sentence and the relations it states (in a
small LaTeX subset, see transcript.py) with the named sympy objects it computes; ``text()``,
``to_latex()`` and ``to_markdown()`` render that one list. Each object is reduced cheaply
(expansion and sin^2 -> 1 - cos^2) and then, within a time bound, by sympy's trigsimp; what the
bound cuts stays correct, only longer. These symbolic forms are for reading; simulation never
needs them (formulations work numerically at run time).
"""
from __future__ import annotations

import textwrap
from dataclasses import dataclass, field

import numpy as np
import sympy as sp

from . import transcript as tr
from formulations import registry
from formulations.minimal import Minimal

from .steps import (B, DOT, LAM, Step, analysis_step, common_steps, row_list, Simplifier, transposed,
                    with_identity_embedding)

__all__ = ["Step", "Derivation", "derive", "minimal_accelerations"]


@dataclass(frozen=True)
class Derivation:
    """The steps of one formulation's derivation for one system, as :func:`derive` gives them.

    ``pieces`` holds every named object by name (``derivation["M_barbar"]``), ``analysis`` the
    constraint analysis (or None). ``text()``, ``to_latex()`` and ``to_markdown()`` render the one
    list of steps, all of them or up to one (``until``); a notebook shows the Markdown.

    Attributes
    ----------
    system_name : str
        The system's name.
    formulation : str
        The formulation's name, e.g. ``"minimal"``.
    steps : tuple of Step
        Each with a ``key`` (for ``until``), a ``title``, one sentence (``text``), the ``relations`` it
        states (LaTeX) and the named sympy objects it computes (``results``, (name, object) pairs).
    analysis : ConstraintAnalysis
        The constraint analysis (``systems.analyze_constraints``), or None where left out.
    notes : tuple of str
        Notes after the steps (e.g. on non-ideal constraints).
    pieces : dict
        Every named sympy object (Expr or Matrix) by name: q, w, D, M_bar, ..., M_barbar, f_barbar.

    Examples
    --------
    >>> import systems, formulations
    >>> derivation = formulations.derive(systems.load("knife_edge"), simplify=False)
    >>> [step.key for step in derivation.steps][:2], derivation.steps[-1].key
    (['description', 'nonholonomic'], 'reactions')
    >>> derivation.to_markdown().startswith("### The minimal formulation of `knife_edge`")
    True
    """

    system_name: str
    formulation: str
    steps: tuple
    analysis: object = None
    notes: tuple = ()
    pieces: dict = field(default_factory=dict)
    method: str = ""
    _layouts: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    def __getitem__(self, name):
        return self.pieces[name]

    def __repr__(self):
        keys = ", ".join(step.key for step in self.steps)
        what = (f"by the {self.method} method of" if self.method else
                f"of the {self.formulation} formulation of")
        return f"<Derivation {what} {self.system_name}: steps {keys}>"

    @property
    def title(self) -> str:
        if self.method:
            from .methods import METHODS

            return f"{METHODS[self.method].title} for `{self.system_name}`"
        return f"The {self.formulation} formulation of `{self.system_name}`"

    def shown_steps(self, until=None) -> tuple:
        """The steps up to and including ``until`` (a step's key, or its number from 1)."""
        if until is None:
            return self.steps
        keys = [step.key for step in self.steps]
        if isinstance(until, int) or str(until).isdigit():
            if not 1 <= int(until) <= len(keys):
                raise ValueError(f"derivation of {self.system_name}: step {until} is out of range; expected "
                                 f"1 .. {len(keys)}")
            return self.steps[:int(until)]
        if until not in keys:
            raise ValueError(f"derivation of {self.system_name} has no step {until!r}; expected one of: "
                             f"{', '.join(keys)} (or a number 1 .. {len(keys)})")
        return self.steps[:keys.index(until) + 1]

    def _lines(self, step, expanded):
        """The layout of a step's named objects (computed once: the three renderings share it)."""
        if not expanded:
            return []
        if id(step) not in self._layouts:
            self._layouts[id(step)] = [line for name, value in step.results for line in tr.layout(name, value)]
        return self._layouts[id(step)]

    def text(self, *, expanded=True, until=None, width=None) -> str:
        """Terminal text: unicode math from sympy's pretty printer, wrapped to ``width`` (default:
        the terminal's width)."""
        width = width or tr.terminal_width()
        title = tr.sentence_text(self.title)
        out = [title, "═" * min(len(title), width)]
        for i, step in enumerate(self.shown_steps(until), 1):
            out += ["", f"{i}. {step.title}"]
            out += textwrap.wrap(tr.sentence_text(step.text), width - 3, initial_indent="   ",
                                 subsequent_indent="   ")
            out += ["", *("      " + tr.tex_to_unicode(r) for r in step.relations)] if step.relations else []
            lines = self._lines(step, expanded)
            out += ["", *("   " + row for row in tr.lines_text(lines, width - 3))] if lines else []
        for note in self.notes:
            out += [""] + textwrap.wrap("Note: " + tr.sentence_text(note), width)
        return "\n".join(out)

    __str__ = text

    def to_latex(self, *, expanded=True, until=None, standalone=False) -> str:
        """A LaTeX fragment (amsmath), or with ``standalone`` a complete document for pdflatex."""
        out = [rf"\section*{{{tr.sentence_latex(self.title)}}}"]
        for i, step in enumerate(self.shown_steps(until), 1):
            block = [rf"\subsection*{{{i}.\ {tr.tex_escape(step.title)}}}", tr.sentence_latex(step.text)]
            if step.relations:
                block.append("\\begin{gather*}\n" + " \\\\\n".join(step.relations) + "\n\\end{gather*}")
            rows = tr.lines_latex(self._lines(step, expanded))
            if rows:
                block.append("\\begin{align*}\n" + " \\\\\n".join(rows) + "\n\\end{align*}")
            out.append("\n".join(block))
        out += [rf"\noindent\textit{{Note.}} {tr.sentence_latex(n)}" for n in self.notes]
        body = "\n\n".join(out)
        return tr.latex_document(body) if standalone else body

    def to_markdown(self, *, expanded=True, until=None) -> str:
        """Markdown with $...$ and $$...$$ math (Jupyter, MathJax, GitHub)."""
        out = [f"### {tr.sentence_markdown(self.title)}", ""]
        for i, step in enumerate(self.shown_steps(until), 1):
            out += [f"**{i}. {step.title}.** {tr.sentence_markdown(step.text)}", ""]
            out += [f"$$ {r} $$" for r in step.relations] + ([""] if step.relations else [])
            rows = tr.lines_latex(self._lines(step, expanded))
            if rows:
                out += ["$$\\begin{aligned} " + " \\\\ ".join(rows) + " \\end{aligned}$$", ""]
        out += [f"> Note: {tr.sentence_markdown(n)}" for n in self.notes]
        return "\n".join(out).rstrip() + "\n"

    def _repr_markdown_(self):
        return self.to_markdown()


def derive(system, formulation=None, *, method=None, seconds=20.0, simplify=True, independent=None,
           analysis=True, speeds=None, prove=True) -> Derivation:
    """The derivation of ``formulation`` for ``system``, step by step, in Blajer's notation; or, with
    ``method``, the equations of motion by one of the classical methods, in its textbooks' notation.

    A formulation's steps end with the reactions in resolved form; a method's steps end with the
    proof that every method applicable to the system gives the same accelerations as the system's
    own equations (``prove``). The symbolic forms are for reading only.

    Parameters
    ----------
    system : System
        The system.
    formulation : str, optional
        One that ``formulations.registry.having("derivation")`` lists: "dependent", "reduced", "minimal" (default) ...
    method : str, optional
        A classical method instead of a formulation: "lagrange", "maggi", "gibbs-appell", "kane",
        "boltzmann-hamel", "chaplygin" or "voronets" (``formulations.METHODS``).
    speeds : list of sympy expressions, optional
        For "gibbs-appell", "kane" and "boltzmann-hamel", and for the minimal formulation: the generalized
        speeds u, r expressions linear in the system's velocities or names of speeds it declares
        (``System.speeds``) (default, for a method: its own velocities v where they are not coordinate
        rates, else the independent velocities; for the minimal formulation: its choice of components).
    prove : bool, optional
        For a method: end with the comparison of all methods at random rational states (default True).
    seconds : float, optional
        The time, in s, that sympy's trigsimp may take over all entries (default 20.0).
    simplify : bool, optional
        Run trigsimp on each entry within ``seconds`` in total (default True); the cheap reduction always runs.
    independent : list of str, optional
        The independent velocities by name: the minimal formulation's u (or its quasi-velocities, as for
        formulations.create("minimal", ..., independent=...)), or a method's independent rates
        (Maggi; the first split Chaplygin's and Voronets' equations try) (default: the system's choice).
    analysis : bool, optional
        Include the constraint analysis as a step (default True).

    Returns
    -------
    Derivation
        The steps, and every named object in ``pieces`` (``derivation["M_barbar"]``).

    Examples
    --------
    >>> import systems, formulations
    >>> formulations.derive(systems.load("knife_edge"), "minimal")["M_barbar"].shape
    (2, 2)
    """
    if method is not None:
        if formulation is not None:
            raise ValueError(f"derive got formulation {formulation!r} and method {method!r}; give one of them")
        return derive_by_method(system, str(method).lower(), seconds=seconds, simplify=simplify, analysis=analysis,
                                speeds=speeds, prove=prove, independent=independent)
    if speeds is not None:
        if (formulation or Minimal.name) != Minimal.name or independent is not None:
            raise ValueError("derive: speeds are for the methods 'gibbs-appell', 'kane' and 'boltzmann-hamel' and for "
                             "the minimal formulation's quasi-velocities (or give independent=..., not both)")
        independent = speeds
    return derive_formulation(system, Minimal.name if formulation is None else formulation, seconds=seconds,
                              simplify=simplify, independent=independent, analysis=analysis)


def _opening(system, simp, analysis):
    """(the description and constraint steps, the constraint analysis or None), shared by every derivation."""
    steps = common_steps(system, simp)
    report = None
    if analysis:
        from systems.analysis.constraints import analyze_constraints

        report = analyze_constraints(system)
        steps.append(analysis_step(report))
    return steps, report


def derive_formulation(system, formulation, *, seconds=20.0, simplify=True, independent=None,
                       analysis=True) -> Derivation:
    """The derivation of a formulation of ``system`` (see :func:`derive`)."""
    if formulation not in registry.having("derivation"):
        why = f" ({registry.why_not('derivation', formulation)})" if formulation in registry.names() else ""
        from .methods import METHODS

        hint = f"; for the classical method, method={formulation!r}" if str(formulation).lower() in METHODS else ""
        raise ValueError(f"derive got formulation {formulation!r} but expected one of: "
                         f"{', '.join(registry.having('derivation'))}{why}{hint}")
    writer = registry.piece("derivation", formulation)
    simp = Simplifier(seconds, simplify)
    steps, report = _opening(system, simp, analysis)
    notes = []
    emb = system.embedding
    trivial = (emb is None and system.m == 0 and len(system.coordinates) == system.n
               and system.A == sp.eye(system.n))
    emb_ok = emb is not None and len(system.coordinates) == system.n and emb.A_q == sp.eye(len(emb.coordinates))
    if not writer.on_embedding:
        pieces = writer.write(system, simp, steps, independent, False)
    elif trivial or emb_ok:
        if trivial:
            system = with_identity_embedding(system)
        pieces = writer.write(system, simp, steps, independent, trivial)
    else:
        raise ValueError(f"derive: system {system.name!r} has Euler parameters or no embedding, so the "
                         f"{formulation} formulation has no symbolic form here (it runs numerically); "
                         f"use --formulation dependent")
    if system.is_nonideal:
        notes.append(f"${B['f']}$ depends on the multipliers (a non-ideal constraint): at run time the accelerations "
                     "and all multipliers are solved for together; set the multipliers to zero in the applied "
                     "forces for the ideal case.")
    names = row_list(system.constraint_names)
    steps.append(Step("reactions", "Reactions",
                      f"Once the accelerations are known, the dynamics give every multiplier in resolved form, "
                      f"one reaction per constraint row: {names}." if names else
                      "There are no constraints and so no reactions.",
                      (f"{LAM} = ({B['C']}{transposed('C')})^{{-1}}{B['C']}\\,({B['f']} - {B['d']} - "
                       f"{B['M']}{DOT['v']})",) if names else ()))
    return Derivation(system.name, formulation, tuple(steps), report, tuple(notes), pieces)


def derive_by_method(system, method, *, seconds=20.0, simplify=True, analysis=True, speeds=None,
                     prove=True, independent=None) -> Derivation:
    """The equations of motion of ``system`` by the classical ``method`` (see :func:`derive`)."""
    from .methods import METHODS
    from .methods.agreement import agreement_step, compare
    from .methods.mechanics import NotApplicable, mechanics

    if method not in METHODS:
        raise ValueError(f"derive got method {method!r} but expected one of: {', '.join(METHODS)}")
    chosen = METHODS[method]
    if speeds is not None and not chosen.speeds:
        raise ValueError(f"derive: the {method} method takes no generalized speeds; these do: "
                         f"{', '.join(m.name for m in METHODS.values() if m.speeds)}")
    simp = Simplifier(seconds, simplify)
    mech = mechanics(system, simp, method, independent)
    steps, report = _opening(system, simp, analysis)
    pieces, equations = chosen.write(mech, simp, steps, speeds)
    notes = []
    if system.is_nonideal:
        notes.append(f"${B['f']}$ depends on the multipliers (a non-ideal constraint); the methods here take the "
                     "ideal case, with the multipliers set to zero in the applied forces.")
    if prove:
        others, skipped = [equations], []
        for other in METHODS.values():
            if other.name == method:
                continue
            try:
                others.append(other.write(mech, lambda expr: expr, [], None)[1])
            except NotApplicable as exc:
                skipped.append(f"{other.title}: {str(exc).removeprefix('derive: ')}")
        agreement = compare(mech, others)
        steps.append(agreement_step(agreement, {m.name: m.short for m in METHODS.values()}, system.is_nonideal))
        if not agreement.agree:
            notes.append("The methods disagree with the system's equations (the last step): a derivation above is "
                         "wrong; please report it with the system.")
        pieces["agreement"] = agreement
        notes += [f"Not compared: {why}" for why in skipped]
    pieces["mechanics"] = mech
    return Derivation(system.name, method, tuple(steps), report, tuple(notes), pieces, method=method)


def minimal_accelerations(derivation, system, q, u):
    """u' from the derived M_barbar, d_barbar, f_barbar at numeric (q, u) (for checking a derivation)."""
    pieces = derivation.pieces
    symbols = list(pieces["q"]) + list(pieces["u"]) + [par.symbol for par in system.parameters]
    values = list(q) + list(u) + list(system.parameter_values)
    lam = {s: 0.0 for s in system.multipliers}
    M = np.array(sp.lambdify([symbols], pieces["M_barbar"].subs(lam))(values), float)
    rhs = np.array(sp.lambdify([symbols], (pieces["f_barbar"] - pieces["d_barbar"]).subs(lam))(values), float)
    return np.linalg.solve(M, rhs.ravel())
