"""The steps of a classroom derivation, formulation by formulation (Blajer's notation): each step
a title, one sentence, the relations it states (LaTeX subset of transcript.py) and the named sympy
objects it computes."""
from __future__ import annotations

import time
from dataclasses import dataclass

import sympy as sp

from systems.analysis.bounded import bounded
from systems.builders.common import tidy

from formulations import registry
from formulations.base import create
from formulations.coordinates.speeds import parse
from formulations.dependent import Dependent
from formulations.manifold import Manifold
from formulations.minimal import Minimal
from formulations.reduced import Reduced
from formulations.udwadia_kalaba import UdwadiaKalaba

from . import transcript as tr

# relations in the LaTeX subset of transcript.py, written once
B = {name: tex for name, (tex, _) in tr.NAMES.items()}
DOT = {name: rf"\dot{{{B[name]}}}" for name in ("p", "q", "v", "w", "u")}
LAM, LAM_NH, ZERO = r"\boldsymbol{\lambda}", r"\boldsymbol{\lambda}_{nh}", r"\mathbf{0}"


def transposed(name):
    return B[name] + "^{T}"


@dataclass(frozen=True)
class Step:
    """One step of a derivation: a key (for ``until``), a title, one sentence (prose with $math$
    and `names`), the relations it states and the named sympy objects it computes."""

    key: str
    title: str
    text: str
    relations: tuple = ()  # display equations, LaTeX subset
    results: tuple = ()    # ((name, sympy object), ...)


class Simplifier:
    """Cheap reduction always; sympy's trigsimp, entry by entry, while the time budget lasts."""

    def __init__(self, seconds, simplify=True):
        self.deadline = time.monotonic() + (seconds if simplify else 0.0)

    def __call__(self, expr):
        expr = tidy(expr)
        if isinstance(expr, sp.MatrixBase):
            return expr.applyfunc(self._one)
        return self._one(expr)

    def _one(self, expr):
        left = self.deadline - time.monotonic()
        if left <= 0 or expr.is_number:
            return expr
        out = bounded(lambda: sp.trigsimp(expr), min(left, 5.0))
        return expr if out is None or sp.count_ops(out) > sp.count_ops(expr) else out


def with_identity_embedding(system):
    """``system`` with the embedding p = q (for a system without holonomic rows and with A = I)."""
    from dataclasses import replace

    from systems.description import Embedding

    return replace(system, embedding=Embedding(
        coordinates=system.coordinates, g=sp.Matrix(system.coordinates), inverse=sp.Matrix(system.coordinates),
        velocities=system.velocities), independent_velocities=system.independent_velocities)


def _velocity_map(system, simp):
    """D = A^-1 g_q (A_q = I, square A) and the substitution p = g(q)."""
    emb = system.embedding
    q = list(emb.coordinates)
    on_g = dict(zip(system.coordinates, emb.g))
    A = sp.Matrix(system.A).subs(on_g)
    g_q = sp.Matrix(emb.g).jacobian(q)
    D = simp(g_q if A == sp.eye(A.shape[0]) else A.LUsolve(g_q))
    return q, on_g, D


def row_list(names, first=1):
    """"row 1 (name)" or "rows 2 (name) and 3 (name)", numbered from ``first`` ('' without rows)."""
    items = [f"{first + i} ({name})" for i, name in enumerate(names)]
    listed = items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1] if items else ""
    return f"{'row' if len(names) == 1 else 'rows'} {listed}" if names else ""


def _constraints(count):
    """("constraint", "restricts") or the plural."""
    return ("constraint", "restricts") if count == 1 else ("constraints", "restrict")


def common_steps(system, simp):
    p, v = sp.Matrix(system.coordinates), sp.Matrix(system.velocities)
    steps = [Step("description", "Description",
                  f"The coordinates ${B['p']}$ and velocities ${B['v']}$ of `{system.name}` are related by the "
                  f"kinematics ${DOT['p']} = {B['A']}{B['v']}$, and without constraints the motion obeys the "
                  f"dynamics below with mass matrix ${B['M']}$, velocity-dependent inertia terms ${B['d']}$ and "
                  f"applied forces ${B['f']}$ ($V$ is the potential energy of the conservative ones).",
                  (f"{DOT['p']} = {B['A']}{B['v']}", f"{B['M']}{DOT['v']} + {B['d']} = {B['f']}"),
                  (("p", p), ("v", v), ("A", system.A), ("M", system.M), ("d", system.d), ("f", system.f),
                   ("V", system.potential)))]
    if system.m:
        steps.append(Step("holonomic", "Holonomic constraints",
                          f"The holonomic {_constraints(system.m)[0]}, {row_list(system.holonomic_names)}, "
                          f"{_constraints(system.m)[1]} the configuration, and the time derivative restricts the "
                          f"velocities, with "
                          f"${B['C_h']} = (\\partial{B['Phi']}/\\partial{B['p']})\\,{B['A']}$.",
                          (f"{B['Phi']}({B['p']}) = {ZERO}", f"{B['C_h']}{B['v']} = {ZERO}"),
                          (("Phi", system.Phi), ("C_h", simp(system.C_h)))))
    if system.l:
        steps.append(Step("nonholonomic", "Nonholonomic constraints",
                          f"The nonholonomic {_constraints(system.l)[0]}, "
                          f"{row_list(system.nonholonomic_names, system.m + 1)}, {_constraints(system.l)[1]} the "
                          "velocities alone, linearly (Pfaffian rows).",
                          (f"{B['C_nh']}({B['p']})\\,{B['v']} = {ZERO}",), (("C_nh", system.C_nh),)))
    return steps


def analysis_step(report):
    k, r = report.k, report.r
    counts = (f"With $n = {report.n}$ velocities, $m = {report.m}$ holonomic and $l = {report.l}$ nonholonomic "
              f"constraints there are $k = n - m = {k}$ configuration and $r = n - m - l = {r}$ velocity degrees "
              "of freedom")
    how = ("shown symbolically" if report.classification_how.startswith("symbolic")
           else "observed numerically at random points")
    if report.rows:
        rows = ", ".join(f"row {report.m + i + 1} is "
                         f"{'exact' if row.exact else 'integrable' if row.integrable else 'not integrable'}"
                         for i, row in enumerate(report.rows))
        hidden = (f", with {report.hidden_holonomic} holonomic constraints hidden among the rows"
                  if report.hidden_holonomic else "")
        growth = ", ".join(str(g) for g in report.growth_vector)
        text = (f"{counts}; taken alone, {rows}, and under Lie brackets the distribution of admissible "
                f"directions grows as $({growth})$, so the constraints are {report.classification}{hidden} ({how}).")
    else:
        text = f"{counts}; there are no Pfaffian rows, so every constraint is holonomic."
    return Step("analysis", "Constraint analysis", text)


def _acceleration_step(system, simp):
    """(step, C, xi): all constraint rows differentiated to the acceleration level, C v' + xi = 0."""
    C = sp.Matrix(system.C)
    xi = simp(sp.Matrix(system.xi)) if C.shape[0] else C
    offset = " + c" if system.is_rheonomic else ""  # the rows' velocity-free and time terms
    xi_is = (f"\\dot{{{B['C']}}}{B['v']} + \\dot{{c}}" if system.is_rheonomic else f"\\dot{{{B['C']}}}{B['v']}")
    return Step("acceleration", "Constraints at acceleration level",
                f"Differentiating ${B['C']}{B['v']}{offset} = {ZERO}$ with all constraint rows "
                f"${B['C']} = \\begin{{bmatrix}}{B['C_h']} \\\\ {B['C_nh']}\\end{{bmatrix}}$ in time "
                f"gives linear equations for the accelerations, with ${B['xi']} = {xi_is}$.",
                (f"{B['C']}{DOT['v']} + {B['xi']} = {ZERO}",), (("C", simp(C)), ("xi", xi))), C, xi


def dependent_steps(system, simp, steps):
    step, C, xi = _acceleration_step(system, simp)
    steps.append(step)
    steps.append(Step("equations", "Equations of motion",
                      f"The constraint reactions ${transposed('C')}{LAM}$ join the dynamics, and with the "
                      "constraints at acceleration level they give one linear system for the accelerations and the "
                      "multipliers, the dependent formulation.",
                      (rf"\begin{{bmatrix}}{B['M']} & {transposed('C')} \\ {B['C']} & {ZERO}\end{{bmatrix}}"
                       rf"\begin{{bmatrix}}{DOT['v']} \\ {LAM}\end{{bmatrix}} = "
                       rf"\begin{{bmatrix}}{B['f']} - {B['d']} \\ -{B['xi']}\end{{bmatrix}}",
                       f"{DOT['p']} = {B['A']}{B['v']}")))
    return {"C": C, "xi": xi}


def udwadia_kalaba_steps(system, simp, steps):
    """The fundamental equation of Udwadia and Kalaba (Proc. R. Soc. A 439, 1992): the accelerations
    in closed form from the unconstrained ones, no multipliers solved for."""
    step, C, xi = _acceleration_step(system, simp)
    steps.append(step)
    root = f"{B['M']}^{{-1/2}}"
    steps.append(Step("equations", "Equations of motion",
                      f"Of all accelerations that satisfy the rows, the motion takes the one nearest the "
                      f"unconstrained ${B['a']} = {B['M']}^{{-1}}({B['f']} - {B['d']})$ in the metric of "
                      f"${B['M']}$ (Gauss's principle); with the Moore-Penrose inverse $^{{+}}$ this is the "
                      f"fundamental equation of Udwadia and Kalaba, which needs no multipliers and takes "
                      f"dependent rows as they come.",
                      (f"{DOT['v']} = {B['a']} + {root}\\,({B['C']}{root})^{{+}}(-{B['xi']} - {B['C']}{B['a']})",
                       f"{DOT['p']} = {B['A']}{B['v']}")))
    return {"C": C, "xi": xi}


def reduced_steps(system, simp, steps, trivial=False):
    emb = system.embedding
    q, on_g, D = _velocity_map(system, simp)
    w = sp.Matrix(emb.velocities)
    embedding = ("There are no holonomic constraints, so the coordinates themselves serve as independent "
                 f"coordinates, ${B['p']} = {B['q']}$, and ${B['v']} = {B['D']}{B['w']}$ with "
                 f"${B['w']} = {DOT['q']}$ and ${B['D']} = {B['A']}^{{-1}}$." if trivial else
                 f"The holonomic constraints hold identically for ${B['p']} = {B['g']}({B['q']})$ with independent "
                 f"coordinates ${B['q']}$ and ${DOT['q']} = {B['w']}$, so that ${B['v']} = {B['D']}{B['w']}$ with "
                 f"${B['D']} = {B['A']}^{{-1}}\\,\\partial{B['g']}/\\partial{B['q']}$ and "
                 f"${B['C_h']}{B['D']} = {ZERO}$.")
    steps.append(Step("embedding", "Embedding", embedding, (f"{B['v']} = {B['D']}{B['w']}",),
                      (("q", sp.Matrix(q)), ("w", w), ("g", emb.g), ("D", D))))
    gamma = simp((D * w).jacobian(q) * w)
    on_state = dict(on_g)
    on_state.update(dict(zip(system.velocities, D * w)))
    M = sp.Matrix(system.M).subs(on_g)
    M_bar = simp(D.T * M * D)
    d_bar = simp(D.T * (M * gamma + sp.Matrix(system.d).subs(on_state)))
    f_bar = simp(D.T * sp.Matrix(system.f).subs(on_state))
    steps.append(Step("accelerations", "Accelerations",
                      f"Differentiating ${B['v']} = {B['D']}{B['w']}$ in time expresses the accelerations through "
                      f"${DOT['w']}$.",
                      (rf"{DOT['v']} = {B['D']}{DOT['w']} + {B['gamma']}, \quad {B['gamma']} = "
                       rf"\dot{{{B['D']}}}{B['w']}",), (("gamma", gamma),)))
    reactions = f" - {B['C_bar_nh']}^{{T}}{LAM_NH}" if system.l else ""
    steps.append(Step("projection", "Projected dynamics",
                      f"Premultiplying ${B['M']}{DOT['v']} + {B['d']} = {B['f']} - {transposed('C')}{LAM}$ by "
                      f"${transposed('D')}$ removes the holonomic reactions, since ${B['C_h']}{B['D']} = {ZERO}$.",
                      (f"{B['M_bar']}{DOT['w']} + {B['d_bar']} = {B['f_bar']}{reactions}",
                       rf"{B['M_bar']} = {transposed('D')}{B['M']}{B['D']}, \quad {B['d_bar']} = {transposed('D')}"
                       rf"({B['M']}{B['gamma']} + {B['d']}), \quad {B['f_bar']} = {transposed('D')}{B['f']}"),
                      (("M_bar", M_bar), ("d_bar", d_bar), ("f_bar", f_bar))))
    pieces = {"q": sp.Matrix(q), "w": w, "D": D, "gamma": gamma, "M_bar": M_bar, "d_bar": d_bar, "f_bar": f_bar}
    if system.l:
        C_bar = simp(sp.Matrix(system.C_nh).subs(on_g) * D)
        xi_bar = simp((C_bar * w).jacobian(q) * w)
        steps.append(Step("constraints_q", "Nonholonomic constraints in the independent coordinates",
                          f"In terms of ${B['w']}$ the nonholonomic constraints read ${B['C_bar_nh']}{B['w']} = "
                          f"{ZERO}$ with ${B['C_bar_nh']} = {B['C_nh']}{B['D']}$, and differentiated in time they "
                          "restrict the accelerations.",
                          (f"{B['C_bar_nh']}{DOT['w']} + {B['xi_bar']} = {ZERO}, \\quad {B['xi_bar']} = "
                           f"\\dot{{\\bar{{\\mathbf{{C}}}}}}_{{nh}}{B['w']}",),
                          (("C_bar_nh", C_bar), ("xi_bar", xi_bar))))
        pieces.update(C_bar_nh=C_bar, xi_bar=xi_bar)
        steps.append(Step("equations", "Equations of motion",
                          "The projected dynamics and the nonholonomic constraints at acceleration level give one "
                          "linear system for the accelerations and the nonholonomic multipliers; the holonomic "
                          "reactions no longer appear.",
                          (rf"\begin{{bmatrix}}{B['M_bar']} & {B['C_bar_nh']}^{{T}} \\ {B['C_bar_nh']} & {ZERO}"
                           rf"\end{{bmatrix}}\begin{{bmatrix}}{DOT['w']} \\ {LAM_NH}\end{{bmatrix}} = "
                           rf"\begin{{bmatrix}}{B['f_bar']} - {B['d_bar']} \\ -{B['xi_bar']}\end{{bmatrix}}",
                           f"{DOT['q']} = {B['w']}")))
    else:
        steps.append(Step("equations", "Equations of motion",
                          f"Without nonholonomic constraints the projected dynamics are an ordinary differential "
                          f"equation in ${B['q']}$ and ${B['w']}$.",
                          (f"{B['M_bar']}{DOT['w']} + {B['d_bar']} = {B['f_bar']}, \\quad {DOT['q']} = {B['w']}",)))
    return pieces


def on_g_of(system):
    """{p: g(q)} of the system's embedding."""
    return dict(zip(system.coordinates, system.embedding.g))


def _independent_choice(system, names):
    """Indices of w chosen as u: the given names, the system's default, or pivoting at its default state."""
    emb = system.embedding
    names = names or system.independent_velocities
    if names and all(n in emb.velocity_names for n in names):
        return [emb.velocity_names.index(n) for n in names]
    form = create(Minimal.name, system, independent=names or None)
    form.prepare(*system.default_state())
    if any(n not in emb.velocity_names for n in form.choice):
        raise ValueError(f"derive: independent velocities {form.choice} must be reduced velocities "
                         f"{emb.velocity_names} for a symbolic derivation")
    return [emb.velocity_names.index(n) for n in form.choice]


def minimal_steps(system, simp, steps, independent=None, trivial=False):
    pieces = reduced_steps(system, simp, steps, trivial)
    steps.pop()  # the reduced equations of motion are replaced by the minimal ones
    emb = system.embedding
    q, w = pieces["q"], pieces["w"]
    k = len(w)
    names, Y = parse(system, independent) if independent else (None, None)
    independent = names if Y is None else independent
    ind = _independent_choice(system, independent) if Y is None else []
    dep = [j for j in range(k) if j not in ind]
    u = sp.Matrix([w[j] for j in ind]) if Y is None else sp.Matrix(sp.symbols(names, real=True))
    D_bar = sp.zeros(k, len(u))
    for col, j in enumerate(ind):
        D_bar[j, col] = 1
    if Y is not None:  # quasi-velocities u = Y(p) v: [C_bar_nh; Y D] D_bar = [0; I]
        rows = pieces["C_bar_nh"] if system.l else sp.zeros(0, k)
        K = rows.col_join(simp(sp.Matrix(Y).subs(on_g_of(system)) * pieces["D"]))
        D_bar = simp(K.LUsolve(sp.zeros(system.l, len(u)).col_join(sp.eye(len(u)))))
    elif system.l:
        C_bar = pieces["C_bar_nh"]
        C_d, C_i = C_bar.extract(list(range(system.l)), dep), C_bar.extract(list(range(system.l)), ind)
        W_d = simp(-C_d.LUsolve(C_i))
        for row, j in enumerate(dep):
            D_bar[j, :] = W_d[row, :]
    D_bar = simp(D_bar)
    chosen = ", ".join(sp.latex(tr.display_symbols(s)) for s in u)
    steps.append(Step("independent", "Independent velocities",
                      f"Choosing the quasi-velocities ${B['u']} = ({chosen}) = \\mathbf{{Y}}(\\mathbf{{p}})"
                      f"{B['v']}$ as independent velocities and solving them"
                      + (f" together with ${B['C_bar_nh']}{B['w']} = {ZERO}$" if system.l else "")
                      + f" gives ${B['w']} = {B['D_bar']}{B['u']}$." if Y is not None
                      else f"Choosing ${B['u']} = ({chosen})$ as independent velocities and solving "
                      f"${B['C_bar_nh']}{B['w']} = {ZERO}$ for the others gives ${B['w']} = {B['D_bar']}{B['u']}$ "
                      f"with ${B['C_bar_nh']}{B['D_bar']} = {ZERO}$." if system.l else
                      f"Without nonholonomic constraints all of ${B['w']}$ is independent: ${B['u']} = {B['w']}$ and "
                      f"${B['D_bar']}$ is the identity.",
                      (f"{B['w']} = {B['D_bar']}{B['u']}",), (("u", u), ("D_bar", D_bar))))
    on_u = dict(zip(list(w), D_bar * u))
    gamma_bar = simp((D_bar * u).jacobian(list(q)) * (D_bar * u))
    M_bar = pieces["M_bar"]
    M_bb = simp(D_bar.T * M_bar * D_bar)
    d_bb = simp(D_bar.T * (M_bar * gamma_bar + pieces["d_bar"].subs(on_u)))
    f_bb = simp(D_bar.T * pieces["f_bar"].subs(on_u))
    steps.append(Step("accelerations_u", "Accelerations of the independent velocities",
                      f"Differentiating ${B['w']} = {B['D_bar']}{B['u']}$ in time expresses ${DOT['w']}$ through "
                      f"${DOT['u']}$.",
                      (rf"{DOT['w']} = {B['D_bar']}{DOT['u']} + {B['gamma_bar']}, \quad {B['gamma_bar']} = "
                       rf"\dot{{{B['D_bar']}}}{B['u']}",), (("gamma_bar", gamma_bar),)))
    steps.append(Step("projection_u", "Projection onto the independent velocities",
                      f"Premultiplying the projected dynamics by ${transposed('D_bar')}$ removes the nonholonomic "
                      f"reactions as well, since ${B['C_bar_nh']}{B['D_bar']} = {ZERO}$.",
                      (rf"{B['M_barbar']} = {transposed('D_bar')}{B['M_bar']}{B['D_bar']}, \quad {B['d_barbar']} = "
                       rf"{transposed('D_bar')}({B['M_bar']}{B['gamma_bar']} + {B['d_bar']}), \quad {B['f_barbar']} = "
                       rf"{transposed('D_bar')}{B['f_bar']}",),
                      (("M_barbar", M_bb), ("d_barbar", d_bb), ("f_barbar", f_bb))))
    steps.append(Step("equations", "Equations of motion",
                      f"The motion is an ordinary differential equation in ${B['q']}$ and ${B['u']}$ without "
                      f"multipliers, the minimal formulation, and its dimension is $k + r$.",
                      (f"{B['M_barbar']}{DOT['u']} + {B['d_barbar']} = {B['f_barbar']}, \\quad "
                       f"{DOT['q']} = {B['D_bar']}{B['u']}",), (("q_dot", D_bar * u),)))
    pieces.update(u=u, D_bar=D_bar, gamma_bar=gamma_bar, M_barbar=M_bb, d_barbar=d_bb, f_barbar=f_bb,
                  independent=[emb.velocity_names[j] for j in ind] if Y is None else list(names))
    return pieces


@dataclass(frozen=True)
class Writer:
    """A formulation's piece of the classroom derivation (formulations.registry, layer "derivation"):
    write(system, simplifier, steps, independent, trivial) appends its steps and returns the pieces;
    on_embedding: whether it needs reduced coordinates q with p = g(q) and A_q = I (trivial: q = p)."""

    write: object
    on_embedding: bool


registry.provide("derivation", Dependent, Writer(
    lambda system, simp, steps, independent, trivial: dependent_steps(system, simp, steps), False))
registry.provide("derivation", Reduced, Writer(
    lambda system, simp, steps, independent, trivial: reduced_steps(system, simp, steps, trivial), True))
registry.provide("derivation", Minimal, Writer(minimal_steps, True))
registry.provide("derivation", UdwadiaKalaba, Writer(
    lambda system, simp, steps, independent, trivial: udwadia_kalaba_steps(system, simp, steps), False))
registry.provide("derivation", Manifold, registry.Refusal(
    "its coordinates live on tangent-space charts taken during a run, which have no symbolic form; the reduced "
    "formulation is its derivation"))
