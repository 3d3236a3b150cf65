"""sympy expressions as CasADi expressions, node by node.

A shared sub-expression of the sympy tree becomes one CasADi node (the walk is memoized), so the
primitives of a description keep their common sub-expressions. Only the functions that appear in
mechanical descriptions are mapped; any other raises a TypeError that names it.
"""
from __future__ import annotations

import sympy as sp

from .bridge import casadi

_FUNCTIONS = {
    "sin": "sin", "cos": "cos", "tan": "tan", "asin": "asin", "acos": "acos", "atan": "atan",
    "sinh": "sinh", "cosh": "cosh", "tanh": "tanh", "exp": "exp", "log": "log", "Abs": "fabs",
    "sign": "sign", "atan2": "atan2", "floor": "floor", "ceiling": "ceil",
}


class Converter:
    """Map sympy expressions to CasADi: ``symbols`` {sympy Symbol: CasADi scalar}, ``values``
    {sympy Symbol: float} substituted for the symbols that stay numbers (parameter values)."""

    def __init__(self, symbols: dict, values: dict | None = None):
        ca = casadi()
        self.ca = ca
        self.memo = {sp.sympify(s): x for s, x in symbols.items()}
        self.memo.update({sp.sympify(s): float(x) for s, x in (values or {}).items()})

    def __call__(self, expr):
        """A CasADi SX for one sympy expression."""
        return self._walk(sp.sympify(expr))

    def matrix(self, M):
        """A CasADi SX matrix of a sympy matrix's shape."""
        M = sp.Matrix(M)
        out = self.ca.SX(M.shape[0], M.shape[1])
        for i in range(M.shape[0]):
            for j in range(M.shape[1]):
                if M[i, j] != 0:
                    out[i, j] = self._walk(M[i, j])
        return out

    def _walk(self, e):
        found = self.memo.get(e)
        if found is not None:
            return found
        out = self._node(e)
        self.memo[e] = out
        return out

    def _node(self, e):
        ca = self.ca
        if e.is_Number:
            return float(e)
        if e.is_Symbol:
            raise TypeError(f"the symbol {e} has no value: name it as a variable or give the parameter a value")
        if e is sp.pi:
            return float(sp.pi)
        if e is sp.E:
            return float(sp.E)
        args = [self._walk(a) for a in e.args] if not isinstance(e, sp.Piecewise) else None
        if e.is_Add:
            return _fold(args, lambda a, b: a + b)
        if e.is_Mul:
            return _fold(args, lambda a, b: a * b)
        if e.is_Pow:
            base, power = args
            if e.exp == sp.Rational(1, 2):
                return ca.sqrt(base)
            if e.exp.is_Integer and e.exp > 0:
                return _power(base, int(e.exp))
            return base ** power
        if isinstance(e, sp.Piecewise):
            return self._piecewise(e.args)
        if isinstance(e, (sp.Max, sp.Min)):
            step = ca.fmax if isinstance(e, sp.Max) else ca.fmin
            return _fold(args, step)
        if isinstance(e, sp.core.relational.Relational):
            return _RELATIONS[e.rel_op](*args)
        name = type(e).__name__
        if name in _FUNCTIONS:
            return getattr(ca, _FUNCTIONS[name])(*args)
        raise TypeError(f"the function {name} in {e} has no CasADi counterpart here")

    def _piecewise(self, pieces):
        (value, condition), rest = pieces[0], pieces[1:]
        if condition is sp.true or not rest:
            return self._walk(value)
        return self.ca.if_else(self._walk(condition), self._walk(value), self._piecewise(rest))


_RELATIONS = {"<": lambda a, b: a < b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b,
              ">=": lambda a, b: a >= b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b}


def _fold(args, step):
    out = args[0]
    for a in args[1:]:
        out = step(out, a)
    return out


def _power(base, n):
    """base**n by repeated squaring (integer n > 0): products, not pow calls."""
    out, square = None, base
    while n:
        if n & 1:
            out = square if out is None else out * square
        n >>= 1
        if n:
            square = square * square
    return out
