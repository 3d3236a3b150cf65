"""A formulation's right-hand side as standalone code: Python that imports only numpy, C, or LaTeX.

Python: the compiled backend's code (the primitives as CSE'd expressions from sympy's code printer,
and the formulation's whole evaluation from formulations.kernels.compiled: the saddle-point solve of
the dependent formulation, the projected equations of reduced and minimal, with the system's model
written out), with the small linear algebra it uses written out and its numba decorators made plain
Python, so that the module runs where only
numpy is installed and gives pfaff's numbers to round-off. Its docstring lists the order of the
states and parameters (as PyDy's generated code does); ``rhs(t, y, params=PARAMETERS)`` takes the
parameter values as a default argument.

C: the dependent formulation — the primitives printed by sympy's C printer with CSE, and the
saddle-point system [[M, C^T], [C, 0]] [v'; lambda] = [f - d; -xi] solved by Gaussian elimination
with partial pivoting — as one function with a documented signature.

LaTeX: the formulation's equations (form.equations()) as a fragment.
"""
from __future__ import annotations

import importlib
import inspect
import re
import sys

import numpy as np
import sympy as sp

from systems.numeric.cache import CHECKSUM

from formulations.dependent import Dependent

TARGETS = ("python", "c", "latex")

_SHIM = '''class numba:
    """The decorators of the compiled code, as plain Python."""

    @staticmethod
    def njit(*args, **kwargs):
        return args[0] if args and callable(args[0]) else (lambda function: function)
'''


class ExportError(ValueError):
    """A formulation or system this export cannot write; says which and what to use instead."""


def export(form, to: str = "python") -> str:
    """The source text of ``form``'s right-hand side in ``to`` ("python", "c" or "latex")."""
    if to == "python":
        return export_python(form)
    if to == "c":
        return export_c(form)
    if to == "latex":
        return export_latex(form)
    raise ExportError(f"export got target {to!r} but expected one of {', '.join(TARGETS)}")


# -- Python ------------------------------------------------------------------------------------

def export_python(form) -> str:
    """A Python module (numpy only) of ``form``'s right-hand side; ``form`` built with
    backend="compiled" (its compiled modules are the source) and prepared at the state it will start
    from (the minimal formulation's choice of u is fixed then)."""
    if form.backend != "compiled":
        raise ExportError(f"export of the {form.name} formulation of {form.system.name!r} takes its compiled "
                          "modules: create it with backend='compiled' (needs numba at export time only)")
    needs = form.needs()
    if needs:
        what, why = next(iter(needs.values()))
        raise ExportError(f"the {form.name} formulation of {form.system.name!r} changes its state between steps "
                          f"({what}: {why}), which a right-hand side alone cannot do: export dependent without "
                          "projection, or reduced or minimal of a system with an embedding")
    made = form.compiled_model()
    if made is None:
        raise ExportError(f"the {form.name} formulation has no compiled right-hand side to export: export dependent, "
                          "reduced or minimal")
    source = _inline(_model_source(*made), set())
    sysm = form.system
    p0, v0 = sysm.default_state()
    y0 = form.initial_state(p0, v0)
    extra = np.asarray(form.compiled_arguments(), float)
    states = form.state_names()
    lines = [f"    y[{i}] = {name}" for i, name in enumerate(states)]
    params = [f"    params[{i}] = {par.name} = {value!r} {par.unit}".rstrip()
              for i, (par, value) in enumerate(zip(sysm.parameters, sysm.parameter_values))]
    doc = "\n".join([
        f'"""Right-hand side y\' = F(t, y) of the {form.name} formulation of {sysm.name}, written by pfaff',
        "(pfaff export). Only numpy is needed.",
        "",
        "    dydt = rhs(0.0, Y0)                          # params default to PARAMETERS",
        "    run = scipy.integrate.solve_ivp(rhs, (0.0, 10.0), Y0, rtol=1e-10, atol=1e-10)",
        "",
        f"State y ({len(states)}):", *lines,
        f"Parameters ({len(params)}):", *(params or ["    (none)"]),
        "Y0 is the system's default state in this formulation's variables.",
        '"""'])
    api = f'''

STATE_NAMES = {tuple(states)!r}
PARAMETER_NAMES = {tuple(sysm.parameter_names)!r}
PARAMETERS = np.array({[float(x) for x in sysm.parameter_values]!r}, dtype=float)
EXTRA = np.array({extra.tolist()!r}, dtype=float)  # the formulation's run-time constants
Y0 = np.array({np.asarray(y0, float).tolist()!r}, dtype=float)


def rhs(t, y, params=PARAMETERS):
    """y' at (t, y) for the parameter values ``params`` (in the order PARAMETER_NAMES)."""
    y = np.ascontiguousarray(y, dtype=float)
    out = np.empty(y.shape[0])
    lam = np.empty(C)
    p, v, vdot = np.empty(N_P), np.empty(N), np.empty(N)
    if not evaluate(MODEL, float(t), y, np.ascontiguousarray(params, dtype=float), EXTRA, out, lam, p, v, vdot, True,
                    np.zeros(EVAL_WORK)):
        raise FloatingPointError(f"a matrix of the evaluation is singular or not finite at t = {{t}}, y = {{y}}")
    return out
'''
    source = source.replace("import numba\n", "", 1)
    source = source.replace("import numpy as np\n", "import numpy as np\n\n\n" + _SHIM, 1)
    if re.search(r"^(import|from) numba", source, re.M) or _SHIM not in source:
        raise ExportError(f"the compiled modules of the {form.name} formulation have a layout this export does not "
                          "know (its numba import); export --to c, or run it with backend='compiled'")
    return doc + "\n" + source + api


def _model_source(functions, model) -> str:
    """The source of a formulation written as ordinary numba modules (formulations.kernels.compiled):
    its evaluation's functions, which take the model first, the model's named tuple written out,
    with imports of its kernels and the linear algebra for _inline to write in."""
    import numba

    fields = ", ".join(repr(name) for name in model._fields)
    values, kernels = [], []
    for name, value in zip(model._fields, model):
        if isinstance(value, np.ndarray):
            shape = f".reshape({value.shape!r})" if value.ndim > 1 else ""
            values.append(f"{name}=np.array({value.tolist()!r}, dtype=np.int64){shape}")
        elif isinstance(value, (bool, int, float)):
            values.append(f"{name}={value!r}")
        else:  # a kernel: a numba first-class function of a generated module (systems.numeric.codegen)
            python = value._pyfunc
            kernels.append(f"from {python.__module__} import {python.__name__} as kernel_{name.lower()}\n")
            values.append(f"{name}=kernel_{name.lower()}")
    module = sys.modules[functions.evaluate.py_func.__module__]
    own = [inspect.getsource(value.py_func) if isinstance(value, numba.core.registry.CPUDispatcher)
           else f"{name} = {value!r}" for name, value in ((name, getattr(module, name)) for name in functions.EVALUATION)]
    if functions.evaluate.py_func.__name__ != "evaluate":  # the evaluation of its kind, by the name the module calls
        own.append(f"evaluate = {functions.evaluate.py_func.__name__}")
    libraries = "".join(f"from formulations.kernels.{name} import {first}\n"  # written in whole by _inline
                        for name, first in (("borrowed", "borrowed"), ("lapack", "least_squares"), ("linalg", "mv"),
                                            ("sparse_linalg", "sparse_mv")))
    return ("import math\nfrom collections import namedtuple\n\nimport numba\nimport numpy as np\n\n" + libraries + "\n"
            + "".join(kernels) + "\n" + "\n\n".join(own) + f"\n\nModel = namedtuple('Model', [{fields}])\n"
            + "MODEL = Model(\n" + "".join(f"    {value},\n" for value in values) + ")\n"
            + "N_P, N, C, EVAL_WORK = MODEL.N_P, MODEL.N, MODEL.C, MODEL.EVAL_WORK\n")


_CFUNC = re.compile(r"^(from numba import types|from systems\.numeric\.cache import cfunc|@cfunc\(.*\))\n", re.M)
_KERNEL_IMPORT = re.compile(r"^from (pfaff_kernel_\w+) import (\w+) as (\w+)\n", re.M)
_LIBRARY_IMPORT = re.compile(r"^from formulations\.kernels\.(linalg|lapack|sparse_linalg|borrowed) import (\([^)]*\)|.*)\n",
                             re.M)
# the views without reference counts are numba's business: in plain Python an array is its own view
_PLAIN_BORROWED = '''def borrowed(a):
    return a


def borrowed_items(items):
    return items


def hold(a):
    return a.size
'''
# LAPACK's solvers, called by numba through its own entry points, are numpy's here (the same routines)
_PLAIN_LAPACK = '''def least_squares_columns(A, B, rcond):
    return np.linalg.lstsq(A, B, rcond=rcond)[0]


def least_squares(A, b, rcond):
    return np.linalg.lstsq(A, b, rcond=rcond)[0]


def pseudo_inverse(A):
    return np.linalg.pinv(A)


def singular_values(A):
    return np.linalg.svd(A)[1:]


def sigma_ratio(A):
    if A.shape[0] == 0:
        return 1.0
    s = np.linalg.svd(A, compute_uv=False)
    return 0.0 if s[0] <= 0.0 else s[-1] / s[0]
'''
_PLAIN = {"borrowed": _PLAIN_BORROWED, "lapack": _PLAIN_LAPACK}


def _inline(source, done) -> str:
    """``source`` with the generated kernels and the linear algebra it imports written in."""
    def kernel(match):
        module, name, alias = match.groups()
        text = inspect.getsource(sys.modules[module])
        text = _CFUNC.sub("", text)  # a kernel is a numba first-class function; here a plain one
        body = _body(_inline(text, done)).replace(f"def {name}(", f"def {alias}(", 1)
        return f"\n{body}\n"

    def library(match):
        name = match.group(1)
        if name in done:
            return ""
        done.add(name)
        if name in _PLAIN:
            return _PLAIN[name] + "\n"
        module = importlib.import_module(f"formulations.kernels.{name}")
        return _body(_inline(inspect.getsource(module), done)) + "\n"

    source = _KERNEL_IMPORT.sub(kernel, source)
    return _LIBRARY_IMPORT.sub(library, source)


def _body(text) -> str:
    """A generated or library module without its checksum line, docstring and imports (the exported
    module has them once)."""
    if text.startswith(CHECKSUM):
        text = text.partition("\n")[2]
    text = re.sub(r'^"""(.|\n)*?"""\n', "", text, count=1)
    imports = re.compile(r"^(import \w+( as \w+)?|from __future__ import .*)$")
    keep = [line for line in text.splitlines() if not imports.match(line)]
    return "\n".join(keep).strip("\n") + "\n"


# -- C -----------------------------------------------------------------------------------------

def export_c(form) -> str:
    """C source of the dependent formulation's right-hand side (other formulations: ExportError)."""
    _check_c_exportable(form)
    sysm = form.system
    n_p, n, c = len(sysm.coordinates), sysm.n, sysm.m + sysm.l
    temps, assigns = _c_assignments(sysm)
    return "\n".join([_c_comment(sysm), "#include <math.h>", "", _c_signature(sysm), "{",
                      _c_locals(n_p, n, c), _c_normalize(sysm), temps, assigns,
                      _c_saddle_solve(n, c), _c_results(n_p, n, c), "}", ""])


def _check_c_exportable(form):
    """ExportError unless ``form`` is the dependent formulation without stabilization."""
    if form.name != Dependent.name:
        raise ExportError(f"C export writes the dependent formulation (the saddle-point solve); got {form.name!r}: "
                          "export --formulation dependent, or --to python for reduced and minimal")
    if form.label() != form.name:
        raise ExportError(f"C export writes the dependent formulation without stabilization; got {form.label()}: "
                          "export --to python for Baumgarte or constraint dynamics")


def _c_signature(sysm) -> str:
    return f"int {sysm.name}_rhs(double t, const double *y, const double *params, double *dydt, double *lambda)"


def _c_comment(sysm) -> str:
    """The file's opening comment: the function, its equations, the order of states and parameters."""
    n_p, n, c = len(sysm.coordinates), sysm.n, sysm.m + sysm.l
    states = "\n".join(f" *   y[{i}] = {s}" for i, s in enumerate(sysm.coordinate_names + sysm.velocity_names))
    params = "\n".join(f" *   params[{i}] = {par.name} ({value!r} {par.unit})".rstrip()
                       for i, (par, value) in enumerate(zip(sysm.parameters, sysm.parameter_values))) or " *   (none)"
    return f"""/* Right-hand side of the dependent formulation of {sysm.name}, written by pfaff (pfaff export).
 *
 *   {_c_signature(sysm)};
 *
 * y' = (A(p) v, v') with [[M, C^T - F], [C, 0]] [v'; lambda] = [f0 - d; -xi], f = f0 + F lambda (pfaff's
 * sign convention: the constraint force is -C^T lambda). Returns 0, or 1 where the matrix is singular. dydt
 * has {n_p + n} entries, lambda {c} (the multipliers: {', '.join(sysm.constraint_names) or 'none'}).
 * Euler-parameter blocks of p are normalized before use ({len(sysm.unit_norm_blocks)} blocks).
 * State y ({n_p + n}):
{states}
 * Parameters ({len(sysm.parameters)}):
{params}
 */"""


def _c_locals(n_p, n, c) -> str:
    """The function's arrays (the model's matrices, p, the saddle-point system K x = b) and p = y[:n_p]."""
    size = n + c
    return f"""\
    double A[{max(n_p * n, 1)}] = {{0}}, M[{max(n * n, 1)}] = {{0}}, d[{n}] = {{0}}, f0[{n}] = {{0}};
    double F[{max(n * c, 1)}] = {{0}}, Cm[{max(c * n, 1)}] = {{0}}, xi[{max(c, 1)}] = {{0}};
    double p[{n_p}], K[{size * size}], b[{size}];
    int i, j, k;
    (void)t; (void)params;
    for (i = 0; i < {n_p}; i++) p[i] = y[i];"""


def _c_normalize(sysm) -> str:
    """Statements that give each Euler-parameter block of p unit norm."""
    return "\n".join(
        f"    {{ const double s = sqrt({' + '.join(f'y[{i}] * y[{i}]' for i in block)}); "
        + " ".join(f"p[{i}] = y[{i}] / s;" for i in block) + " }"
        for block in sysm.unit_norm_blocks)


def _c_model(sysm) -> list:
    """(C array name, sympy matrix) of the model: A, M, d, f0 and F (f = f0 + F lambda: non-ideal
    constraints), Cm = C and xi = d/dt (C v + c) - C v'."""
    return [("A", sp.Matrix(sysm.A)), ("M", sp.Matrix(sysm.M)), ("d", sp.Matrix(sysm.d)),
            ("f0", sp.Matrix(sysm.f0)), ("F", sp.Matrix(sysm.F_lambda)), ("Cm", sp.Matrix(sysm.C)),
            ("xi", sp.Matrix(sysm.xi))]


def _c_variables(sysm) -> dict:
    """The C expression of each symbol: p[i], y[n_p + i] for the velocities, params[i], t."""
    n_p = len(sysm.coordinates)
    subs = {s: sp.Symbol(f"p[{i}]") for i, s in enumerate(sysm.coordinates)}
    subs.update({s: sp.Symbol(f"y[{n_p + i}]") for i, s in enumerate(sysm.velocities)})
    subs.update({par.symbol: sp.Symbol(f"params[{i}]") for i, par in enumerate(sysm.parameters)})
    subs[sysm.time] = sp.Symbol("t")
    return subs


def _c_assignments(sysm) -> tuple:
    """(temporaries, assignments): the common subexpressions, then the nonzero entries of the model's
    arrays, as C statements."""
    subs = _c_variables(sysm)
    entries = [(name, i, e.xreplace(subs)) for name, m in _c_model(sysm) for i, e in enumerate(m) if e != 0]
    replacements, reduced = sp.cse([e for _, _, e in entries], symbols=sp.numbered_symbols("x_"), order="none")
    temps = "\n".join(f"    const double {s} = {sp.ccode(e)};" for s, e in replacements)
    assigns = "\n".join(f"    {name}[{i}] = {sp.ccode(e)};" for (name, i, _), e in zip(entries, reduced))
    return temps, assigns


def _c_saddle_solve(n, c) -> str:
    """Statements that assemble [[M, C^T - F], [C, 0]] x = [f0 - d; -xi] and solve it in place (b = x) by
    Gaussian elimination with partial pivoting; 1 is returned where a pivot is zero or not finite."""
    size = n + c
    return f"""\
    for (i = 0; i < {size}; i++) for (j = 0; j < {size}; j++) K[i * {size} + j] = 0.0;
    for (i = 0; i < {n}; i++) {{
        for (j = 0; j < {n}; j++) K[i * {size} + j] = M[i * {n} + j];
        for (j = 0; j < {c}; j++) {{
            K[i * {size} + {n} + j] = Cm[j * {n} + i] - F[i * {c} + j];
            K[({n} + j) * {size} + i] = Cm[j * {n} + i];
        }}
        b[i] = f0[i] - d[i];
    }}
    for (j = 0; j < {c}; j++) b[{n} + j] = -xi[j];
    for (k = 0; k < {size}; k++) {{          /* Gaussian elimination with partial pivoting */
        int piv = k;
        for (i = k + 1; i < {size}; i++) if (fabs(K[i * {size} + k]) > fabs(K[piv * {size} + k])) piv = i;
        if (K[piv * {size} + k] == 0.0 || !isfinite(K[piv * {size} + k])) return 1;
        if (piv != k) {{
            for (j = 0; j < {size}; j++) {{
                double s = K[k * {size} + j]; K[k * {size} + j] = K[piv * {size} + j]; K[piv * {size} + j] = s;
            }}
            {{ double s = b[k]; b[k] = b[piv]; b[piv] = s; }}
        }}
        for (i = k + 1; i < {size}; i++) {{
            double factor = K[i * {size} + k] / K[k * {size} + k];
            for (j = k; j < {size}; j++) K[i * {size} + j] -= factor * K[k * {size} + j];
            b[i] -= factor * b[k];
        }}
    }}
    for (i = {size} - 1; i >= 0; i--) {{
        double s = b[i];
        for (j = i + 1; j < {size}; j++) s -= K[i * {size} + j] * b[j];
        b[i] = s / K[i * {size} + i];
    }}"""


def _c_results(n_p, n, c) -> str:
    """Statements that write dydt = (A v, v') and lambda from the solution b, and return 0."""
    return f"""\
    for (i = 0; i < {n_p}; i++) {{
        double s = 0.0;
        for (j = 0; j < {n}; j++) s += A[i * {n} + j] * y[{n_p} + j];
        dydt[i] = s;
    }}
    for (i = 0; i < {n}; i++) dydt[{n_p} + i] = b[i];
    for (j = 0; j < {c}; j++) lambda[j] = b[{n} + j];
    return 0;"""


# -- LaTeX -------------------------------------------------------------------------------------

def export_latex(form) -> str:
    """The formulation's equations as a LaTeX fragment (an aligned block per form.equations())."""
    eq = form.equations()
    relations = "\n".join(f"% {r}" for r in eq.relations)
    return (f"% {form.name} formulation of {form.system.name}, written by pfaff (pfaff export)\n{relations}\n"
            f"\\[\n{eq.to_latex()}\n\\]\n")
