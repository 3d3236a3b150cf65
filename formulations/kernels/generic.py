"""A generated module made independent of its system: the system's sizes, sparse programs and
kernels become one argument, the *model*, so that the module's text — and so its machine code — is
the same for every system of its kind and is compiled once per machine.

A generated formulation module (formulations.kernels.embedded) is written with its system's
constants as module-level names in upper case (``N``, ``C``, ``DYN_AT``, ``KS_PIVOT``, ...) and its
system's kernels imported under names that start with an underscore (``_dynamics``, ...).
``generic_module`` moves both into a tuple: every function takes it as its first argument ``model``
and reads the names it uses from it (``N = model[3]``, after ``model = borrowed_items(model)``: no
reference counts on its arrays); calls between the module's functions pass it on, and calls of
``evaluate``, ``rhs`` and ``post_step`` go through their addresses (ADDRESS_EVALUATE, ... in the
model; formulations.kernels.by_address), so that each is compiled once rather than inside every
caller. What stays in the text is what the formulation's kind decides (which pieces a system has:
holonomic rows, charts, a moving embedding), so a few variants exist per formulation, each compiled
once. The kernels travel as numba first-class functions (``numba.cfunc``), whose calls do not make
the caller compile again for another system (systems.numeric.codegen).
"""
from __future__ import annotations

import ast
import importlib
import threading
import types as pytypes
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GenericSource:
    """text: the system-independent module source; fields: the model's names in order; values: the
    system's values for them (numbers, integer arrays, kernels as first-class functions); by_address:
    the functions that the module's others call through their address (ADDRESS_<NAME> in the model,
    formulations.kernels.by_address)."""

    text: str
    fields: tuple
    values: tuple
    by_address: tuple = ()


KERNEL_MODULES = "pfaff_kernel_"  # the cache's modules of a system's kernels (systems.numeric.cache)


def _is_field(name: str) -> bool:
    return name.isupper() and not name.startswith("_") and name != "LINALG"


def generic_module(source: str) -> GenericSource:
    """The generic form of a generated module ``source``: its imports of the system's kernels
    (modules ``pfaff_kernel_*``, systems.numeric.cache) and its upper-case constants become the
    model. Its ``evaluate``, ``rhs`` and ``post_step`` are called through their addresses, and where
    it defines ``rhs`` and ``post_step`` it gets the entry points ``rhs_at`` and ``post_step_at`` of
    the shared loops (formulations.kernels.by_address)."""
    tree = ast.parse(source)
    namespace = {"np": np}
    body, fields = [], {}
    functions = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(KERNEL_MODULES):
            kernels = importlib.import_module(node.module)
            fields.update({alias.asname or alias.name: getattr(kernels, alias.name) for alias in node.names})
            continue
        if isinstance(node, ast.Assign) and all(_is_field(n) for t in node.targets for n in _names(t)):
            exec(compile(ast.Module([node], []), "<model>", "exec"), namespace)  # noqa: S102 (our own text)
            for target in node.targets:
                for name in _names(target):
                    fields[name] = namespace[name]
            continue
        body.append(node)
    from .by_address import SIGNATURES

    called_by_address = sorted(functions & set(SIGNATURES))
    fields.update({_address_field(name): 0 for name in called_by_address})  # filled in by BoundModule
    order = tuple(sorted(fields))
    index = {name: i for i, name in enumerate(order)}
    values = tuple(model_value(fields[name]) for name in order)
    borrow = any(isinstance(value, np.ndarray) for value in values)
    for node in body:
        if isinstance(node, ast.FunctionDef):
            _take_model(node, index, functions, borrow)
    imports = ["from formulations.kernels.borrowed import borrowed_items"] if borrow else []
    if called_by_address:
        imports.append(f"from formulations.kernels.by_address import {', '.join('call_' + n for n in called_by_address)}")
    tree.body = [statement for line in imports for statement in ast.parse(line).body] + body
    text = ast.unparse(ast.fix_missing_locations(tree)) + "\n"
    if {"rhs", "post_step"} <= set(called_by_address):
        text += _entry_points(values, index)
    return GenericSource(text, order, values, tuple(called_by_address))


def _entry_points(values, index) -> str:
    """rhs_at and post_step_at: rhs and post_step of the model stored at ``where``
    (formulations.kernels.by_address), for the loops that every formulation shares. The model's type
    is written into the text: it is the same for every system of the module's kind."""
    import numba

    from .by_address import type_source

    model_type = numba.typeof(values)
    source = type_source(model_type)
    if eval(source, {"numba_types": numba.core.types}) != model_type:  # noqa: S307 (our own text)
        raise TypeError(f"the model's type {model_type} is not made again by {source}")
    rhs, post = index[_address_field("rhs")], index[_address_field("post_step")]
    return f'''

from numba.core import types as numba_types
from formulations.kernels.by_address import load_model
MODEL_TYPE = {source}


@numba.njit(cache=True)
def rhs_at(where, t, y, params, extra, out, work):
    """rhs of the model stored at ``where``."""
    model = load_model(where, MODEL_TYPE)
    return call_rhs(model[{rhs}], (model, t, y, params, extra, out, work))


@numba.njit(cache=True)
def post_step_at(where, t, y, params, extra, work):
    """post_step of the model stored at ``where``."""
    model = load_model(where, MODEL_TYPE)
    return call_post_step(model[{post}], (model, t, y, params, extra, work))
'''


def _address_field(name: str) -> str:
    return f"ADDRESS_{name.upper()}"


def _names(target):
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for element in target.elts for n in _names(element)]
    return ["_"]  # not a plain name: never a field


def _take_model(node: ast.FunctionDef, index: dict, functions: set, borrow: bool):
    """``model`` as the first argument of ``node`` (``borrow``: its arrays seen without reference
    counts), the fields it reads unpacked from it, and ``model`` passed on in its calls of the
    module's functions."""
    own = {a.arg for a in node.args.args} | {n.id for n in ast.walk(node)
                                             if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
    used = sorted({n.id for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in index} - own)
    for call in ast.walk(node):
        if isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.func.id in functions:
            call.args.insert(0, ast.Name("model", ast.Load()))
            if _address_field(call.func.id) in index:  # through its address (formulations.kernels.by_address)
                where = ast.parse(f"model[{index[_address_field(call.func.id)]}]", mode="eval").body
                call.args = [where, ast.Tuple(call.args, ast.Load())]
                call.func = ast.Name(f"call_{call.func.id}", ast.Load())
    node.args.args.insert(0, ast.arg("model"))
    unpack = [ast.parse("model = borrowed_items(model)").body[0]] if borrow else []
    unpack += [ast.parse(f"{name} = model[{index[name]}]").body[0] for name in used]
    docstring = node.body[:1] if (node.body and isinstance(node.body[0], ast.Expr)
                                 and isinstance(node.body[0].value, ast.Constant)) else []
    node.body = docstring + unpack + node.body[len(docstring):]


def model_value(value):
    """A model value as numba sees it the same way for every system: Python ints and floats as
    they are, arrays C-contiguous."""
    if isinstance(value, np.ndarray):
        return np.ascontiguousarray(value)
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    return value


class BoundModule:
    """A formulation's compiled functions with its system's model bound: ``bound.rhs(t, y, ...)``
    calls ``module.rhs(model, t, y, ...)``; the model's fields read as attributes (``bound.DYN``).
    ``module``: a generated module (the model a tuple, made by generic_module) or a namespace of
    ordinary numba functions with the type they are compiled for, MODEL_TYPE (the model a named
    tuple, formulations.kernels.compiled)."""

    _OWN = ("module", "model", "_fields", "_by_address", "_model_type", "_entries", "_lock", "_memory", "_where",
            "_loop_form")

    def __init__(self, module: pytypes.ModuleType, generic: GenericSource):
        self.module, self.model = module, generic.values
        self._fields = dict(zip(generic.fields, generic.values))
        self._by_address = [(name, generic.fields.index(_address_field(name))) for name in generic.by_address]
        self._model_type = None  # set once the addresses are in the model
        self._entries = {}  # (function, the arguments' kinds) -> the compiled overload's entry point
        self._lock = threading.Lock()  # binding compiles: one thread does it
        self._memory = self._where = self._loop_form = None  # the model stored (stored_model)

    def __getattr__(self, name):
        if name in BoundModule._OWN:
            raise AttributeError(name)
        if name in self._fields:
            return self._fields[name]
        attribute = getattr(self.module, name)
        if callable(attribute) and hasattr(attribute, "py_func"):
            def bound(*args):
                return self._call(attribute, args)

            bound.__name__ = bound.__qualname__ = name
            bound.__doc__ = attribute.__doc__
            return bound
        return attribute

    def _call(self, dispatcher, args):
        """dispatcher(model, *args), read-only arrays (a Trajectory's) copied. The entry point of the
        overload that served the same kinds of arguments before is called directly: numba's dispatch
        would find the type of the model, a tuple of some fifty items, anew at every call (0.2 ms)."""
        args = tuple(np.array(a) if isinstance(a, np.ndarray) and not a.flags.writeable else a for a in args)
        key = (dispatcher, *(_kind(a) for a in args))
        entry = self._entries.get(key)
        if entry is not None:
            return entry(self.model, *args)
        import numba

        model_type = self._bound()
        result = dispatcher(self.model, *args)
        overload = dispatcher.overloads.get((model_type, *(numba.typeof(a) for a in args)))
        if overload is not None:
            self._entries[key] = overload.entry_point
        return result

    def _bound(self):
        """The model's type, once the addresses of the functions called through them (compiled or
        loaded now) are in the model."""
        if self._model_type is not None:
            return self._model_type
        import numba

        from .by_address import address

        with self._lock:
            if self._model_type is None:
                model_type = numba.typeof(self.model)
                expected = getattr(self.module, "MODEL_TYPE", None)  # a module that names its model's type
                if expected is not None and model_type != expected:
                    raise TypeError(f"the model's type {model_type} is not the one its module is compiled for, "
                                    f"{expected}")
                model = list(self.model)
                for name, at in self._by_address:
                    model[at] = address(getattr(self.module, name), model_type)
                self._fields.update({_address_field(name): model[at] for name, at in self._by_address})
                self.model = type(self.model)(*model) if hasattr(self.model, "_fields") else tuple(model)
                self._model_type = model_type
        return self._model_type

    def stored_model(self) -> int:
        """Where the model is stored (by_address.store_model; the memory kept alive here): the first
        argument of the module's entry points ``rhs_at`` and ``post_step_at``."""
        from .by_address import store_model

        model_type = self._bound()
        with self._lock:
            if self._memory is None:
                self._memory, self._where = store_model(self.model, model_type)
        return self._where

    def loop_form(self) -> tuple:
        """What the machine-code loops (formulations.solvers.machine) take of this module: (where its
        model is stored (the memory kept alive here), the addresses of its entry points rhs_at and
        post_step_at, WORK, REJECT_FAILED_STAGES)."""
        from .by_address import address

        where = self.stored_model()
        with self._lock:
            if self._loop_form is None:
                self._loop_form = (where, address(self.module.rhs_at), address(self.module.post_step_at),
                                   int(self._fields["WORK"]), bool(self._fields["REJECT_FAILED_STAGES"]))
        return self._loop_form


def _kind(value):
    """What decides the numba type of an argument, cheaply: its class, and for an array its dtype,
    dimensions and layout."""
    if isinstance(value, np.ndarray):
        return np.ndarray, value.dtype.str, value.ndim, value.flags.c_contiguous, value.flags.f_contiguous
    return type(value)
