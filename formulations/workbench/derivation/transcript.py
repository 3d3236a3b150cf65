"""Renderings of a derivation: terminal text (sympy's unicode pretty printer), LaTeX (a fragment or a
complete document) and Markdown with $...$ math, all from one list of steps.

A step's sentence and relations are written in a small subset of LaTeX math (between $...$ in the
sentence; whole strings for relations): \\mathbf, \\boldsymbol, \\bar, \\dot, Greek letters,
^{T}, ^{-1}, _{nh}, \\partial, \\begin{bmatrix}. LaTeX and Markdown use it as it is; the terminal
reads it through :func:`tex_to_unicode`. Words between backticks are names (system or constraint
names): typewriter in LaTeX, code in Markdown, as they are in text. Named sympy objects are laid
out once (:func:`layout`: the whole matrix where it fits the page, else entry by entry, long sums
over several lines, huge entries counted instead of shown) and printed by sympy's printers, with
velocity symbols named ``x_dot`` shown as the time derivative of x (systems.display).
"""
from __future__ import annotations

import re
import shutil
import unicodedata
from dataclasses import dataclass

import sympy as sp
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.stringpict import prettyForm

from systems.display import display_symbols  # noqa: F401  (part of this module's interface)

from ...equations import LATEX_NAMES

PAGE_WIDTH = 88       # characters of pretty-printed math on a line of the page (LaTeX and Markdown)
SMALL_ENTRY = 60      # nodes of an expression tree that surely fit on a line
LARGEST_ENTRY = 600   # an entry with more nodes is counted, not shown

_BAR, _BARBAR, _DOT, _DDOT, _TILDE = "\u0304", "\u033f", "\u0307", "\u0308", "\u0303"

# name -> (LaTeX, unicode) of every named object a derivation shows
NAMES = {name: (tex, None) for name, tex in LATEX_NAMES.items()}
NAMES.update({
    "p": (r"\mathbf{p}", "p"), "v": (r"\mathbf{v}", "v"), "A": (r"\mathbf{A}", "A"), "M": (r"\mathbf{M}", "M"),
    "d": (r"\mathbf{d}", "d"), "f": (r"\mathbf{f}", "f"), "V": ("V", "V"), "Phi": (r"\boldsymbol{\Phi}", "Φ"),
    "C_h": (r"\mathbf{C}_{h}", "Cₕ"), "C_nh": (r"\mathbf{C}_{nh}", "Cₙₕ"), "C": (r"\mathbf{C}", "C"),
    "xi": (r"\boldsymbol{\xi}", "ξ"), "q": (r"\mathbf{q}", "q"), "g": (r"\mathbf{g}", "g"),
    "w": (r"\mathbf{w}", "w"), "D": (r"\mathbf{D}", "D"), "gamma": (r"\boldsymbol{\gamma}", "γ"),
    "M_bar": (r"\bar{\mathbf{M}}", "M" + _BAR), "d_bar": (r"\bar{\mathbf{d}}", "d" + _BAR),
    "f_bar": (r"\bar{\mathbf{f}}", "f" + _BAR), "C_bar_nh": (r"\bar{\mathbf{C}}_{nh}", "C" + _BAR + "ₙₕ"),
    "xi_bar": (r"\bar{\boldsymbol{\xi}}", "ξ" + _BAR), "u": (r"\mathbf{u}", "u"),
    "D_bar": (r"\bar{\mathbf{D}}", "D" + _BAR), "gamma_bar": (r"\bar{\boldsymbol{\gamma}}", "γ" + _BAR),
    "M_barbar": (r"\bar{\bar{\mathbf{M}}}", "M" + _BARBAR), "d_barbar": (r"\bar{\bar{\mathbf{d}}}", "d" + _BARBAR),
    "f_barbar": (r"\bar{\bar{\mathbf{f}}}", "f" + _BARBAR), "q_dot": (r"\dot{\mathbf{q}}", "q" + _DOT),
    "a": (r"\mathbf{a}", "a"),
    # the classical methods (methods/)
    "T": ("T", "T"), "L": ("L", "L"), "M_q": (r"\mathbf{M}_{q}", "M_q"), "Q": (r"\mathbf{Q}", "Q"),
    "Q_nc": (r"\mathbf{Q}_{nc}", "Qₙc"), "p_q": (r"\partial L/\partial\dot{\mathbf{q}}", "∂L/∂q̇"),
    "E_L": (r"\frac{d}{dt}\frac{\partial L}{\partial\dot{\mathbf{q}}} - \frac{\partial L}{\partial\mathbf{q}}",
          "d/dt ∂L/∂q̇ − ∂L/∂q"),
    "rows_dot": (r"\bar{\mathbf{C}}_{nh}\ddot{\mathbf{q}} + \dot{\bar{\mathbf{C}}}_{nh}\dot{\mathbf{q}}",
                 "C̄ₙₕq̈ + C̄̇ₙₕq̇"),
    "residual": (r"\mathbf{r}", "r"),
    "W": (r"\mathbf{W}", "W"), "Y": (r"\mathbf{Y}", "Y"), "Z": (r"\mathbf{Z}", "Z"),
    "F_r": (r"\mathbf{F}", "F"), "F_star": (r"\mathbf{F}^{*}", "F*"), "c": (r"\mathbf{c}", "c"),
    "S": ("S", "S"), "M_S": (r"\mathbf{M}_{S}", "M_S"), "s_0": (r"\mathbf{s}_{0}", "s₀"),
    "Pi": (r"\boldsymbol{\Pi}", "Π"), "T_star": ("T^{*}", "T*"),
    "B": (r"\mathbf{B}", "B"),
    "T_tilde": (r"\tilde{T}", "T̃"), "p_sigma": (r"\partial T/\partial\dot{\boldsymbol{\sigma}}", "∂T/∂σ̇"),
})
NAMES.update({f"gamma^{s}": (rf"\boldsymbol{{\gamma}}^{{{s}}}", f"γ^{s}") for s in range(1, 13)})
NAMES.update({f"Omega^{s}": (rf"\boldsymbol{{\Omega}}^{{{s}}}", f"Ω^{s}") for s in range(1, 13)})

_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε", "zeta": "ζ", "eta": "η",
          "theta": "θ", "iota": "ι", "kappa": "κ", "lambda": "λ", "mu": "μ", "nu": "ν", "xi": "ξ", "pi": "π",
          "rho": "ρ", "sigma": "σ", "tau": "τ", "upsilon": "υ", "phi": "φ", "chi": "χ", "psi": "ψ",
          "omega": "ω", "Gamma": "Γ", "Delta": "Δ", "Theta": "Θ", "Lambda": "Λ", "Xi": "Ξ", "Pi": "Π",
          "Sigma": "Σ", "Phi": "Φ", "Psi": "Ψ", "Omega": "Ω"}
_SUPER = dict(zip("0123456789-+T/", "⁰¹²³⁴⁵⁶⁷⁸⁹⁻⁺ᵀᐟ"))
_SUB = dict(zip("0123456789aehijklmnoprstuvx", "₀₁₂₃₄₅₆₇₈₉ₐₑₕᵢⱼₖₗₘₙₒₚᵣₛₜᵤᵥₓ"))
_WORDS = {"partial": "∂", "cdot": "·", "times": "×", "dots": "…", "ldots": "…", "neq": "≠", "le": "≤",
          "ge": "≥", "in": "∈", "to": "→", "sum": "Σ", "pm": "±",
          **{f: f for f in ("sin", "cos", "tan", "cot", "sec", "csc", "log", "exp")},
          "quad": "  ", "qquad": "    ", "left": "", "right": ""}
_SPACES = {r"\,": " ", r"\;": " ", r"\!": "", r"\mathbf{0}": "0", r"\mathbb{R}": "ℝ", r"^\circ": "°"}


def tex_to_unicode(tex: str) -> str:
    """The LaTeX subset of a derivation's sentences and relations as one line of unicode."""
    s = re.sub(r"\\begin\{bmatrix\}(.*?)\\end\{bmatrix\}",
               lambda m: "[" + "; ".join("  ".join(c.strip() for c in row.split("&"))
                                        for row in m.group(1).split(r"\\")) + "]", tex, flags=re.S)
    s = re.sub(r"\\(?:text|operatorname|mathrm)\{([^{}]*)\}", r"\1", s)
    s = re.sub(r"\\[Bb]ig[lr]?", "", s.replace(r"\tfrac12", "½").replace(r"\bar\partial", "∂" + _BAR))
    for macro, char in _SPACES.items():
        s = s.replace(macro, char)
    s = re.sub(r"\\([A-Za-z]+)", lambda m: _WORDS.get(m.group(1), _GREEK.get(m.group(1), m.group(0))), s)
    s = re.sub(r"\\(?:mathbf|boldsymbol)\{([^{}]*)\}", r"\1", s)
    for _ in range(3):  # inside out: \bar{\bar{X}}, \dot{\bar{X}}
        s = re.sub(r"\\bar\{([^{}\\])" + _BAR + r"\}", r"\1" + _BARBAR, s)
        s = re.sub(r"\\bar\{([^{}\\]+)\}", r"\1" + _BAR, s)
        s = re.sub(r"\\dot\{([^{}\\]+)\}", r"\1" + _DOT, s)
        s = re.sub(r"\\ddot\{([^{}\\]+)\}", r"\1" + _DDOT, s)
        s = re.sub(r"\\tilde\{([^{}\\]+)\}", r"\1" + _TILDE, s)
    s = re.sub(r"\^\{([^{}]*)\}", lambda m: _script(m.group(1), _SUPER, "^"), s)
    s = re.sub(r"_\{([^{}]*)\}", lambda m: _script(m.group(1), _SUB, "_"), s)
    s = re.sub(r"\^(\w)", lambda m: _script(m.group(1), _SUPER, "^"), s)
    for _ in range(3):  # inside out: d/dt (dL/dq')
        s = re.sub(r"\\t?frac\{([^{}]*)\}\{([^{}]*)\}", lambda m: f"{_group(m.group(1))}/{_group(m.group(2))}", s)
    return re.sub(r" +\)", ")", s.replace("{", "").replace("}", ""))  # \left(\phi \right) -> (φ)


def _group(text):
    """A fraction's part, in parentheses where it is a sum."""
    return f"({text})" if re.search(r"\s[-+]\s", text) else text


def _script(text, table, mark):
    return "".join(table[c] for c in text) if all(c in table for c in text) else mark + text


# --------------------------------------------------------------------------------------------
# sentences: prose, $math$ and `names`
_SEGMENT = re.compile(r"(\$[^$]+\$|`[^`]+`)")


def _segments(sentence):
    for part in _SEGMENT.split(sentence):
        if part.startswith("$") and part.endswith("$") and len(part) > 1:
            yield "math", part[1:-1]
        elif part.startswith("`") and part.endswith("`") and len(part) > 1:
            yield "name", part[1:-1]
        elif part:
            yield "prose", part


def sentence_text(sentence):
    """Unicode; the spaces inside a formula do not break (so that wrapping keeps it on one line)."""
    return "".join(tex_to_unicode(s).replace(" ", "\u00a0") if kind == "math" else s
                   for kind, s in _segments(sentence))


def sentence_latex(sentence):
    out = []
    for kind, s in _segments(sentence):
        out.append(f"${s}$" if kind == "math" else rf"\texttt{{{tex_escape(s)}}}" if kind == "name"
                   else tex_escape(s))
    return "".join(out)


def sentence_markdown(sentence):
    return "".join(f"${s}$" if kind == "math" else f"`{s}`" if kind == "name" else s.replace("*", r"\*")
                   for kind, s in _segments(sentence))


_TEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "#": r"\#", "_": r"\_", "$": r"\$",
                "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex_escape(text):
    """``text`` as LaTeX text mode: its special characters escaped."""
    return "".join(_TEX_SPECIAL.get(c, c) for c in text)


def _latex(expr):
    return sp.latex(expr, mat_delim="[")


def _pretty(expr, width=None):
    return sp.pretty(expr, use_unicode=True, wrap_line=width is not None, num_columns=width or 10**6)


def _pretty_height(expr):
    return len(_pretty(expr).splitlines())


def _pretty_width(expr):
    return max(len(line) for line in _pretty(expr).splitlines())


# --------------------------------------------------------------------------------------------
# layout: one list of lines per named object, shared by the three renderings
@dataclass(frozen=True)
class Line:
    """One displayed line: ``name`` (and ``index`` of an entry, 1-based) = the sum of ``chunks``,
    continued over several lines; or ``note`` in place of a value too large to show."""

    name: str
    index: tuple = ()
    chunks: tuple = ()   # (sympy expression, ...), each a part of the sum; the whole value when one
    note: str = ""
    transposed: bool = False  # a column shown as a row (its one chunk) and ^T


def layout(name, value, width=PAGE_WIDTH) -> list:
    """The lines that show ``value``: the whole object where it fits ``width``, else its non-zero
    entries one by one (long sums split over several lines; entries too large to read counted)."""
    value = display_symbols(sp.sympify(value) if not isinstance(value, sp.MatrixBase) else sp.Matrix(value))
    if not isinstance(value, sp.MatrixBase):
        return _entry(name, (), value, width)
    if value.cols == 1 and value.rows > 1 and all(_pretty_height(e) == 1 for e in value) \
            and _pretty_width(value.T) <= width:
        return [Line(name, (), (value.T,), transposed=True)]
    if all(_size(e, SMALL_ENTRY) < SMALL_ENTRY for e in value) and _pretty_width(value) <= width:
        return [Line(name, (), (value,))]
    lines = []
    for i in range(value.rows):
        for j in range(value.cols):
            if value[i, j] != 0:
                index = (i + 1,) if value.cols == 1 else (i + 1, j + 1)
                lines += _entry(name, index, value[i, j], width)
    return lines or [Line(name, (), (value,))]


def _size(expr, limit):
    """Nodes of ``expr``'s tree, counted up to ``limit``."""
    count = 0
    for _ in sp.preorder_traversal(expr):
        count += 1
        if count >= limit:
            break
    return count


def _entry(name, index, expr, width):
    if _size(expr, LARGEST_ENTRY) >= LARGEST_ENTRY:
        terms = len(sp.Add.make_args(expr))
        count = f"a sum of {terms} terms" if terms > 1 else "a large expression"
        return [Line(name, index, (), f"{count}, not shown; the derivation's pieces hold it")]
    if _size(expr, SMALL_ENTRY) < SMALL_ENTRY and _pretty_width(expr) <= width:
        return [Line(name, index, (expr,))]
    if not isinstance(expr, sp.Add) and isinstance(sp.expand(expr), sp.Add):
        expr = sp.expand(expr)  # a product with a long sum: its expanded terms, line by line
    chunks, current, used = [], [], 0
    for term in sp.Add.make_args(expr) if isinstance(expr, sp.Add) else (expr,):
        w = _pretty_width(term) + 3
        if current and used + w > width:
            chunks.append(sp.Add(*current, evaluate=False))
            current, used = [], 0
        current.append(term)
        used += w
    chunks.append(sp.Add(*current, evaluate=False))
    return [Line(name, index, tuple(chunks))]


def line_name_latex(line):
    tex = NAMES.get(line.name, (_tex_name(line.name), None))[0]
    if line.index:
        tex = rf"{{{tex}}}_{{{','.join(str(i) for i in line.index)}}}" if "_" not in tex else \
            rf"\left({tex}\right)_{{{','.join(str(i) for i in line.index)}}}"
    return tex


def line_name_text(line):
    name = NAMES.get(line.name, (None, None))[1] or tex_to_unicode(NAMES.get(line.name, (line.name,))[0])
    if line.index:
        name += "".join(_SUB[c] if c in _SUB else c for c in ",".join(str(i) for i in line.index))
    return name


def _tex_name(name):
    return name.replace("_", r"\_")


def _chunk_latex(chunk, first):
    tex = _latex(chunk)
    if not first and not tex.lstrip().startswith("-"):
        tex = "+ " + tex
    return tex


def lines_latex(lines, width=PAGE_WIDTH) -> list:
    """align*-rows: ``name &= value`` and continuation rows ``&\\quad + ...``; short values share
    a row (up to ``width`` characters of pretty-printed math)."""
    rows, packed, used = [], [], 0
    for line in lines:
        if not line.note and len(line.chunks) == 1:
            w = columns(line_name_text(line)) + 4 + _pretty_width(line.chunks[0]) + 2 * line.transposed
            if w <= width // 2:
                if packed and used + w > width:
                    rows.append(r", \qquad ".join(packed))
                    packed, used = [], 0
                tex = _chunk_latex(line.chunks[0], True) + ("^{T}" if line.transposed else "")
                packed.append(rf"{line_name_latex(line)} {'&' if not packed else ''}= {tex}")
                used += w + 6
                continue
        if packed:
            rows.append(r", \qquad ".join(packed))
            packed, used = [], 0
        head = line_name_latex(line)
        if line.note:
            rows.append(rf"{head} &: \text{{{tex_escape(line.note)}}}")
            continue
        for k, chunk in enumerate(line.chunks):
            rows.append((rf"{head} &= " if k == 0 else r"&\quad ") + _chunk_latex(chunk, k == 0)
                        + ("^{T}" if line.transposed else ""))
    if packed:
        rows.append(r", \qquad ".join(packed))
    return rows


def lines_text(lines, width) -> list:
    """``name = value`` with the name on the value's baseline; a value wider than ``width`` goes
    below its name, wrapped by sympy."""
    out = []
    for line in lines:
        head = line_name_text(line)
        if line.note:
            out.append(f"{head}: {line.note}")
            continue
        for k, chunk in enumerate(line.chunks):
            sign = "  " if _latex(chunk).startswith("-") else "+ "
            lead = f"{head} = " if k == 0 else " " * (columns(head) + 1) + sign
            form = _PRINTER._print(chunk)
            if line.transposed:
                form = prettyForm(*form.right("ᵀ"))
            picture = form.render(wrap_line=False).splitlines()
            blank = " " * columns(lead)
            if columns(lead) + max(map(len, picture)) <= width:
                out += [(lead if i == form.baseline else blank) + row for i, row in enumerate(picture)]
            else:
                whole = chunk.T if line.transposed else chunk
                out += [lead.rstrip()] + ["    " + row for row in _pretty(whole, width - 4).splitlines()]
    return out


def columns(text):
    """Terminal columns of ``text`` (combining marks take none)."""
    return sum(not unicodedata.combining(c) for c in text)


_PRINTER = PrettyPrinter({"use_unicode": True, "wrap_line": False})


def terminal_width():
    return max(shutil.get_terminal_size((100, 24)).columns, 40)


PREAMBLE = r"""\documentclass[10pt]{article}
\usepackage[a4paper,margin=2cm]{geometry}
\usepackage{amsmath,amssymb}
\allowdisplaybreaks
\setlength{\parindent}{0pt}
\setlength{\parskip}{0.4\baselineskip}
"""


def latex_document(body):
    """A complete LaTeX document around ``body`` (compiles with pdflatex, amsmath only)."""
    return PREAMBLE + "\\begin{document}\n\n" + body + "\n\n\\end{document}\n"
