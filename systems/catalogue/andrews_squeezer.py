"""IFToMM benchmark A03: Andrews' squeezing mechanism, seven bodies in relative angles (the Hairer-Wanner test problem).

p = (beta, Theta, gamma, Phi, delta, Omega, epsilon): the seven angles of Hairer & Wanner's
description (Solving ODEs II, section VII.7), v = p'. A crank (beta) driven by the constant torque
mom, its rod (Theta relative to it), and three further bodies close the loop at the fixed points A
and B; a spring (stiffness c0, rest length l0) pulls one body towards the fixed point C. No gravity.
The six closure rows (the two pins' forces, x and y, in N):
  pin B force x, y        rr cos(beta) - d cos(beta + Theta) - ss sin(gamma) - xb, ... (rows 1-2)
  pin A force x, y (Phi-delta side)                                                   (rows 3-4)
  pin A force x, y (Omega-epsilon side)                                               (rows 5-6)
so 7 - 6 = 1 degree of freedom. The mass matrix, the Christoffel terms (from T = v^T M(p) v / 2),
the forces and the constraints are those of the test set; the multipliers have its sign
(M p'' = f - G^T lambda). Start: the consistent configuration of the test set at rest, integrated to
t = 0.03 s; its reference solution (PSIDE at 1e-14, Cray C90; Mazzia & Magherini, *Test set for
IVP solvers*, release 2.4) gives p, p', p'' and lambda there. Reference: Hairer & Wanner, *Solving
ordinary differential equations II*, VII.7; Andrews & Carpenter (1987); IFToMM benchmark A03.
"""
import sympy as sp

from ..builders.lagrangian import from_lagrangian
from ..description import Parameter
from ..visuals import Visual

NAME = "andrews_squeezer"

# the reference solution at t = 0.03 s of the test set (PSIDE, rtol = atol = 1e-14)
REFERENCE_TIME = 0.03
REFERENCE_P = (15.81077119629904, -15.75637105984298, 0.04082224013073101, -0.5347301163226948,
               0.5244099658805304, 0.5347301163226948, 1.048080741042263)
REFERENCE_V = (1139.920302151208, -1424.379294994111, 11.03291221937134, 19.29337464421385,
               0.5735699284790808, -19.29337464421385, 0.3231791658026955)
REFERENCE_LAMBDA = (199.1753333731910, -29.75531228015052, 23.06654119098399, 31.45271365475927,
                    22.64249232082739, 11.61740700019673)

_DATA = (  # symbol, value, unit, meaning: the test set's inertia data and geometry
    ("m1", .04325, "kg", "mass of body 1"), ("m2", .00365, "kg", "mass of body 2"), ("m3", .02373, "kg", "mass of body 3"),
    ("m4", .00706, "kg", "mass of body 4"), ("m5", .07050, "kg", "mass of body 5"), ("m6", .00706, "kg", "mass of body 6"),
    ("m7", .05498, "kg", "mass of body 7"),
    ("i1", 2.194e-6, "kg m^2", "inertia of body 1"), ("i2", 4.410e-7, "kg m^2", "inertia of body 2"),
    ("i3", 5.255e-6, "kg m^2", "inertia of body 3"), ("i4", 5.667e-7, "kg m^2", "inertia of body 4"),
    ("i5", 1.169e-5, "kg m^2", "inertia of body 5"), ("i6", 5.667e-7, "kg m^2", "inertia of body 6"),
    ("i7", 1.912e-5, "kg m^2", "inertia of body 7"),
    ("xa", -.06934, "m", "fixed point A, x"), ("ya", -.00227, "m", "fixed point A, y"),
    ("xb", -.03635, "m", "fixed point B, x"), ("yb", .03273, "m", "fixed point B, y"),
    ("xc", .014, "m", "spring anchor C, x"), ("yc", .072, "m", "spring anchor C, y"),
    ("c0", 4530.0, "N/m", "spring stiffness"), ("l0", .07785, "m", "spring rest length"),
    ("d", 28e-3, "m", "length d"), ("da", 115e-4, "m", "length da"), ("e", 2e-2, "m", "length e"),
    ("ea", 1421e-5, "m", "length ea"), ("rr", 7e-3, "m", "crank length rr"), ("ra", 92e-5, "m", "length ra"),
    ("ss", 35e-3, "m", "length ss"), ("sa", 1874e-5, "m", "length sa"), ("sb", 1043e-5, "m", "length sb"),
    ("sc", 18e-3, "m", "length sc"), ("sd", 2e-2, "m", "length sd"), ("ta", 2308e-5, "m", "length ta"),
    ("tb", 916e-5, "m", "length tb"), ("u", 4e-2, "m", "length u"), ("ua", 1228e-5, "m", "length ua"),
    ("ub", 449e-5, "m", "length ub"), ("zf", 2e-2, "m", "length zf"), ("zt", 4e-2, "m", "length zt"),
    ("fa", 1421e-5, "m", "length fa"), ("mom", 33e-3, "N m", "driving torque on the crank"))


def build():
    names = ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")
    p = sp.symbols(" ".join(names), real=True)
    v = sp.symbols(" ".join(f"{n}_dot" for n in names), real=True)
    s = {name: sp.Symbol(name, positive=True) for name, *_ in _DATA}
    s["ya"] = sp.Symbol("ya", real=True)  # negative
    s["xa"], s["xb"] = sp.Symbol("xa", real=True), sp.Symbol("xb", real=True)
    be, th, ga, ph, de, om, ep = p
    m1, m2, m3, m4, m5, m6, m7 = (s[f"m{i}"] for i in range(1, 8))
    i1, i2, i3, i4, i5, i6, i7 = (s[f"i{i}"] for i in range(1, 8))
    d, da, e, ea, rr, ra = s["d"], s["da"], s["e"], s["ea"], s["rr"], s["ra"]
    ss, sa, sb, sc, sd = s["ss"], s["sa"], s["sb"], s["sc"], s["sd"]
    ta, tb, u, ua, ub, zf, zt, fa = s["ta"], s["tb"], s["u"], s["ua"], s["ub"], s["zf"], s["zt"], s["fa"]
    M = sp.zeros(7, 7)
    M[0, 0] = m1 * ra**2 + m2 * (rr**2 - 2 * da * rr * sp.cos(th) + da**2) + i1 + i2
    M[1, 0] = M[0, 1] = m2 * (da**2 - da * rr * sp.cos(th)) + i2
    M[1, 1] = m2 * da**2 + i2
    M[2, 2] = m3 * (sa**2 + sb**2) + i3
    M[3, 3] = m4 * (e - ea) ** 2 + i4
    M[4, 3] = M[3, 4] = m4 * ((e - ea) ** 2 + zt * (e - ea) * sp.sin(ph)) + i4
    M[4, 4] = m4 * (zt**2 + 2 * zt * (e - ea) * sp.sin(ph) + (e - ea) ** 2) + m5 * (ta**2 + tb**2) + i4 + i5
    M[5, 5] = m6 * (zf - fa) ** 2 + i6
    M[6, 5] = M[5, 6] = m6 * ((zf - fa) ** 2 - u * (zf - fa) * sp.sin(om)) + i6
    M[6, 6] = m6 * ((zf - fa) ** 2 - 2 * u * (zf - fa) * sp.sin(om) + u**2) + m7 * (ua**2 + ub**2) + i6 + i7
    vv = sp.Matrix(v)
    T = (vv.T * M * vv)[0, 0] / 2
    xd = sd * sp.cos(ga) + sc * sp.sin(ga) + s["xb"]
    yd = sd * sp.sin(ga) - sc * sp.cos(ga) + s["yb"]
    spring = sp.sqrt((xd - s["xc"]) ** 2 + (yd - s["yc"]) ** 2)
    V = s["c0"] / 2 * (spring - s["l0"]) ** 2 - s["mom"] * be
    xa, ya, xb, yb = s["xa"], s["ya"], s["xb"], s["yb"]
    holonomic = [
        ("pin B force x", rr * sp.cos(be) - d * sp.cos(be + th) - ss * sp.sin(ga) - xb),
        ("pin B force y", rr * sp.sin(be) - d * sp.sin(be + th) + ss * sp.cos(ga) - yb),
        ("pin A force x (Phi-delta side)", rr * sp.cos(be) - d * sp.cos(be + th) - e * sp.sin(ph + de)
         - zt * sp.cos(de) - xa),
        ("pin A force y (Phi-delta side)", rr * sp.sin(be) - d * sp.sin(be + th) + e * sp.cos(ph + de)
         - zt * sp.sin(de) - ya),
        ("pin A force x (Omega-epsilon side)", rr * sp.cos(be) - d * sp.cos(be + th) - zf * sp.cos(om + ep)
         - u * sp.sin(ep) - xa),
        ("pin A force y (Omega-epsilon side)", rr * sp.sin(be) - d * sp.sin(be + th) - zf * sp.sin(om + ep)
         + u * sp.cos(ep) - ya)]
    params = tuple(Parameter(s[name], value, unit, meaning) for name, value, unit, meaning in _DATA)
    p0 = ("-0.0617138900142764496358948458001", "0", "0.455279819163070380255912382449",
          "0.222668390165885884674473185609", "0.487364979543842550225598953530",
          "-0.222668390165885884674473185609", "1.23054744454982119249735015568")
    return from_lagrangian(
        NAME, p, T, V, velocities=v, holonomic=holonomic, parameters=params,
        default_p=tuple(sp.Float(x, 30) for x in p0), default_v=(0,) * 7, simplify=False,
        description=__doc__, reference="Hairer & Wanner, Solving ODEs II, VII.7; test set for IVP solvers "
                                       "(Mazzia & Magherini); IFToMM benchmark A03",
        visuals=_visuals(p, s, (xd, yd)))


def _visuals(p, s, spring_end):
    """The seven bodies as rods between their joints and the spring from its point on body 3 to C, in
    the x-z plane of a 3D scene (the mechanism's y is the scene's z). The rods meet at the point E the
    closure rows pin: reached from the crank's side, from B, and twice from A."""
    be, th, ga, ph, de, om, ep = p

    def at(x, y):
        return (x, 0, y)

    crank_end = (s["rr"] * sp.cos(be), s["rr"] * sp.sin(be))
    E = (crank_end[0] - s["d"] * sp.cos(be + th), crank_end[1] - s["d"] * sp.sin(be + th))
    A, B, C = (s["xa"], s["ya"]), (s["xb"], s["yb"]), (s["xc"], s["yc"])
    F = (A[0] + s["zt"] * sp.cos(de), A[1] + s["zt"] * sp.sin(de))
    G = (A[0] + s["u"] * sp.sin(ep), A[1] - s["u"] * sp.cos(ep))
    ends_at_E = {"body 3 (from B)": (B, (B[0] + s["ss"] * sp.sin(ga), B[1] - s["ss"] * sp.cos(ga))),
                 "body 4 (Phi)": (F, (F[0] + s["e"] * sp.sin(ph + de), F[1] - s["e"] * sp.cos(ph + de))),
                 "body 6 (Omega)": (G, (G[0] + s["zf"] * sp.cos(om + ep), G[1] + s["zf"] * sp.sin(om + ep)))}
    width = s["rr"] / 10
    rods = [("crank", (0, 0), crank_end), ("rod", crank_end, E), ("body 5 (delta)", A, F), ("body 7 (epsilon)", A, G)]
    rods += [(name, start, end) for name, (start, end) in ends_at_E.items()]
    colours = ("#c0392b", "#2471a3", "#229954", "#7d3c98", "#d68910", "#17a589", "#a04000")
    out = [Visual(name, "link", (width,), at(*a), end=at(*b), colour=colour)
           for (name, a, b), colour in zip(rods, colours)]
    out.append(Visual("spring", "link", (width / 3,), at(*spring_end), end=at(*C), colour="#5d6d7e"))
    out += [Visual(f"fixed point {name}", "sphere", (width * 1.5,), at(*point), colour="#2c3e50")
            for name, point in (("O", (0, 0)), ("A", A), ("B", B), ("C", C))]
    return tuple(out)
