"""Coordinates of the holonomic constraint manifold: the embedding p = g(q) with D, gamma and the
Euler-parameter norms (``embedding``), and local tangent charts p = p0 + V w - U h(w) after Haug and
Pavesic (``charts``)."""
