"""Independent models in sympy.physics.mechanics (KanesMethod) of the catalogue systems.

Each model is derived from frames, points and bodies — not from pfaff's description — with the
same coordinates and speeds as the catalogue entry, and the constraints written as contact-point
velocity components. ``accelerations(model, p, v, params)`` returns all speed derivatives.
"""
import numpy as np
import sympy as sp
import sympy.physics.mechanics as me


class KaneModel:
    """A KanesMethod model: derived on construction, turned into numeric code by compile()."""

    def __init__(self, q, u_ind, u_dep, frame, kd, constraints, bodies, loads, params, speed_order,
                 constrained=True):
        self.q, self.u = list(q), list(speed_order)
        if not constrained:  # every speed independent: the unconstrained equations
            u_ind, u_dep, constraints = list(speed_order), [], None
        self.kane = me.KanesMethod(frame, q_ind=q, u_ind=u_ind, u_dependent=u_dep, kd_eqs=kd,
                                   velocity_constraints=constraints)
        self.bodies, self.loads = bodies, loads
        self.kane.kanes_equations(bodies, loads)
        # mass_matrix_full / forcing_full are in the order q, u_ind, u_dep
        self.order = list(q) + list(u_ind) + list(u_dep)
        self.params = list(params)
        self._fn = None

    def compile(self):
        """lambdify (with CSE) of the full mass matrix and forcing, in the state order ``order``."""
        if self._fn is None:
            self._fn = sp.lambdify([self.order, self.params], [self.kane.mass_matrix_full, self.kane.forcing_full],
                                   modules="numpy", cse=True)
        return self._fn

    def rhs(self, state, params):
        """d/dt of the state in ``order`` (q, u_ind, u_dep)."""
        MM, FF = self.compile()(state, params)
        return np.linalg.solve(np.array(MM, float), np.array(FF, float).ravel())

    def accelerations(self, p, v, params):
        values = dict(zip(self.q, p))
        values.update(dict(zip(self.u, v)))
        MM, FF = self.compile()([values[s] for s in self.order], params)
        sol = np.linalg.solve(np.array(MM, float), np.array(FF, float).ravel())
        nq = len(self.q)
        ud = dict(zip(self.order[nq:], sol[nq:]))
        return np.array([ud[s] for s in self.u])


def rolling_disc(constrained=True):
    q = me.dynamicsymbols("x y z psi theta phi")
    u = me.dynamicsymbols("v_x v_y v_z omega_1 omega_2 omega_3")
    x, y, z, psi, th, ph = q
    m, r, g = sp.symbols("m r g", positive=True)
    h = sp.Symbol("h", nonnegative=True)
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [psi, N.z])
    C = Y.orientnew("C", "Axis", [th, Y.x])
    B = C.orientnew("B", "Axis", [ph, C.y])
    G = me.Point("G")
    G.set_vel(N, u[0] * N.x + u[1] * N.y + u[2] * N.z)
    P = G.locatenew("P", -r * C.z - h / 2 * C.y)
    vP = P.v2pt_theory(G, N, B)
    kd = [x.diff() - u[0], y.diff() - u[1], z.diff() - u[2], psi.diff() - u[5] / sp.cos(th),
          th.diff() - u[3], ph.diff() - (u[4] - u[5] * sp.tan(th))]
    Id = m * (r**2 / 4 + h**2 / 12)
    body = me.RigidBody("disc", G, B, m, (me.inertia(B, Id, m * r**2 / 2, Id), G))
    cons = [vP.dot(N.z), vP.dot(Y.x), vP.dot(Y.y)]
    return KaneModel(q, u[3:], u[:3], N, kd, cons, [body], [(G, -m * g * N.z)], (m, r, g, h), u, constrained)


def sphere_in_cylinder(constrained=True):
    q = me.dynamicsymbols("x y z e0 e1 e2 e3")
    u = me.dynamicsymbols("v_x v_y v_z omega_x omega_y omega_z")
    m, a, R, k, g = sp.symbols("m a R k g", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Quaternion", q[3:])
    B.set_ang_vel(N, u[3] * N.x + u[4] * N.y + u[5] * N.z)
    G = me.Point("G")
    G.set_vel(N, u[0] * N.x + u[1] * N.y + u[2] * N.z)
    rho = sp.sqrt(q[0] ** 2 + q[1] ** 2)
    e_rho = (q[0] * N.x + q[1] * N.y) / rho
    e_phi = (-q[1] * N.x + q[0] * N.y) / rho
    vP = G.vel(N) + B.ang_vel_in(N).cross(a * e_rho)
    e0, e1, e2, e3 = q[3:]
    G4 = sp.Matrix([[-e1, -e2, -e3], [e0, e3, -e2], [-e3, e0, e1], [e2, -e1, e0]]) / 2
    edot = G4 * sp.Matrix(u[3:])
    kd = [q[i].diff() - u[i] for i in range(3)] + [q[3 + i].diff() - edot[i] for i in range(4)]
    I = k * m * a**2
    body = me.RigidBody("sphere", G, B, m, (me.inertia(N, I, I, I), G))
    cons = [vP.dot(e_rho), vP.dot(e_phi), vP.dot(N.z)]
    return KaneModel(q, [u[3], u[4], u[5]], u[:3], N, kd, cons, [body], [(G, -m * g * N.z)], (m, a, R, k, g), u,
                     constrained)


def knife_edge():
    q = me.dynamicsymbols("x y phi")
    u = me.dynamicsymbols("x_dot y_dot phi_dot")
    m, J, g, alpha = sp.symbols("m J g alpha", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [q[2], N.z])
    G = me.Point("G")
    G.set_vel(N, u[0] * N.x + u[1] * N.y)
    B.set_ang_vel(N, u[2] * N.z)
    kd = [q[i].diff() - u[i] for i in range(3)]
    body = me.RigidBody("skate", G, B, m, (me.inertia(B, J, J, J), G))
    cons = [G.vel(N).dot(B.y)]
    return KaneModel(q, [u[0], u[2]], [u[1]], N, kd, cons, [body], [(G, m * g * sp.sin(alpha) * N.x)],
                     (m, J, g, alpha), u)


def chaplygin_sleigh():
    q = me.dynamicsymbols("x y theta")
    u = me.dynamicsymbols("x_dot y_dot theta_dot")
    m, I, a = sp.symbols("m I a", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [q[2], N.z])
    B.set_ang_vel(N, u[2] * N.z)
    P = me.Point("P")
    P.set_vel(N, u[0] * N.x + u[1] * N.y)
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)
    kd = [q[i].diff() - u[i] for i in range(3)]
    body = me.RigidBody("sleigh", G, B, m, (me.inertia(B, I, I, I), G))
    cons = [P.vel(N).dot(B.y)]
    return KaneModel(q, [u[0], u[2]], [u[1]], N, kd, cons, [body], [], (m, I, a), u)


def vertical_disc():
    q = me.dynamicsymbols("x y theta phi")
    u = me.dynamicsymbols("x_dot y_dot theta_dot phi_dot")
    m, r = sp.symbols("m r", positive=True)
    N = me.ReferenceFrame("N")
    B = N.orientnew("B", "Axis", [q[2], N.z])
    D = B.orientnew("D", "Axis", [q[3], B.y])
    D.set_ang_vel(N, u[2] * N.z + u[3] * B.y)
    G = me.Point("G")
    G.set_vel(N, u[0] * N.x + u[1] * N.y)
    P = G.locatenew("P", -r * N.z)
    vP = P.v2pt_theory(G, N, D)
    kd = [q[i].diff() - u[i] for i in range(4)]
    body = me.RigidBody("disc", G, D, m, (me.inertia(D, m * r**2 / 4, m * r**2 / 2, m * r**2 / 4), G))
    cons = [vP.dot(B.x), vP.dot(B.y)]
    return KaneModel(q, [u[2], u[3]], [u[0], u[1]], N, kd, cons, [body], [], (m, r), u)


def suslov():
    """A rigid body about the fixed point O, attitude Rz(psi) Rx(phi) Ry(theta) (sympy's body-fixed
    'ZXY'), inertia with the product I13, and the body angular velocity's e3 component held at zero."""
    q = me.dynamicsymbols("psi phi theta")
    u = me.dynamicsymbols("psi_dot phi_dot theta_dot")
    I1, I2, I3, I13 = sp.symbols("I1 I2 I3 I13", positive=True)
    N = me.ReferenceFrame("N")
    B = me.ReferenceFrame("B")
    B.orient_body_fixed(N, q, "ZXY")
    O = me.Point("O")
    O.set_vel(N, 0)
    kd = [q[i].diff() - u[i] for i in range(3)]
    body = me.RigidBody("body", O, B, 1, (me.inertia(B, I1, I2, I3, izx=I13), O))
    cons = [B.ang_vel_in(N).dot(B.z).subs({q[i].diff(): u[i] for i in range(3)})]
    return KaneModel(q, [u[1], u[2]], [u[0]], N, kd, cons, [body], [], (I1, I2, I3, I13), u)

def _box_body(name, N, q, u, sides, velocity):
    """A box body oriented by Euler parameters q[:4], centre at q[4:], speeds (omega body, u linear)."""
    a, b, c = sides
    m = 2700.0 * a * b * c
    B = N.orientnew(name, "Quaternion", q[:4])
    B.set_ang_vel(N, u[0] * B.x + u[1] * B.y + u[2] * B.z)
    G = me.Point(f"G_{name}")
    axes = (B.x, B.y, B.z) if velocity == "twist" else (N.x, N.y, N.z)
    G.set_vel(N, u[3] * axes[0] + u[4] * axes[1] + u[5] * axes[2])
    e0, e1, e2, e3 = q[:4]
    G4 = sp.Matrix([[-e1, -e2, -e3], [e0, -e3, e2], [e3, e0, -e1], [-e2, e1, e0]]) / 2
    edot = G4 * sp.Matrix(u[:3])
    rdot = G.vel(N).to_matrix(N)
    kd = [q[i].diff() - edot[i] for i in range(4)] + [q[4 + i].diff() - rdot[i] for i in range(3)]
    inertia = me.inertia(B, m * (b**2 + c**2) / 12, m * (a**2 + c**2) / 12, m * (a**2 + b**2) / 12)
    return B, G, me.RigidBody(name, G, B, m, (inertia, G)), kd, m


def heavy_top(velocity="twist"):
    """The box on a fixed pivot at (0, 0, -0.2) m in body axes; the pivot's velocity is zero."""
    q = me.dynamicsymbols("e0 e1 e2 e3 x y z")
    u = me.dynamicsymbols("w1 w2 w3 u1 u2 u3")
    g = sp.Symbol("g", nonnegative=True)
    N = me.ReferenceFrame("N")
    B, G, body, kd, m = _box_body("B", N, q, u, (0.1, 0.2, 0.4), velocity)
    P = G.locatenew("P", -0.2 * B.z)
    P.v2pt_theory(G, N, B)
    cons = [P.vel(N).dot(N.x), P.vel(N).dot(N.y), P.vel(N).dot(N.z)]
    return KaneModel(q, u[:3], u[3:], N, kd, cons, [body], [(G, -m * g * N.z)], (g,), u)


def spherical_double_pendulum(velocity="twist"):
    """Two 0.3 x 0.05 x 0.01 m bars: joint 1 holds bar 1's -x end at the origin, joint 2 joins bar 1's
    +x end to bar 2's -x end."""
    q = me.dynamicsymbols("e0_1 e1_1 e2_1 e3_1 x_1 y_1 z_1 e0_2 e1_2 e2_2 e3_2 x_2 y_2 z_2")
    u = me.dynamicsymbols("w1_1 w2_1 w3_1 u1_1 u2_1 u3_1 w1_2 w2_2 w3_2 u1_2 u2_2 u3_2")
    g = sp.Symbol("g", nonnegative=True)
    N = me.ReferenceFrame("N")
    B1, G1, body1, kd1, m = _box_body("B1", N, q[:7], u[:6], (0.3, 0.05, 0.01), velocity)
    B2, G2, body2, kd2, _ = _box_body("B2", N, q[7:], u[6:], (0.3, 0.05, 0.01), velocity)
    P1 = G1.locatenew("P1", -0.15 * B1.x)
    P1.v2pt_theory(G1, N, B1)
    J1 = G1.locatenew("J1", 0.15 * B1.x)
    J1.v2pt_theory(G1, N, B1)
    J2 = G2.locatenew("J2", -0.15 * B2.x)
    J2.v2pt_theory(G2, N, B2)
    cons = [P1.vel(N).dot(e) for e in (N.x, N.y, N.z)] + [(J1.vel(N) - J2.vel(N)).dot(e) for e in (N.x, N.y, N.z)]
    u_dep = [*u[3:6], *u[9:12]]
    return KaneModel(q, [*u[:3], *u[6:9]], u_dep, N, kd1 + kd2, cons, [body1, body2],
                     [(G1, -m * g * N.z), (G2, -m * g * N.z)], (g,), u)


MODELS = {"rolling_disc": rolling_disc, "sphere_in_cylinder": sphere_in_cylinder, "knife_edge": knife_edge,
          "chaplygin_sleigh": chaplygin_sleigh, "vertical_disc": vertical_disc, "heavy_top": heavy_top,
          "heavy_top_hybrid": lambda: heavy_top("hybrid"), "spherical_double_pendulum": spherical_double_pendulum,
          "suslov": suslov}
