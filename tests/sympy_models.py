"""Models written in sympy.physics.mechanics, for systems.from_sympy: built from frames, points and
bodies as sympy's own documentation and tests build them, not from pfaff's descriptions.

rolling_disc_kane: the rolling disc of sympy's documentation (yaw q1, lean q2, spin q3 by a
z-x-y rotation; angular speeds u1..u3 in the disc frame) with the contact point's position (q4, q5)
and velocity (u4, u5) added as in sympy's test_kane5.py: u4, u5 are dependent speeds fixed by the
two no-slip rows. The centre's velocity follows from its position (not from rolling), so that the
unconstrained M is regular and the multipliers are the contact friction forces.
whipple_bicycle: the Whipple bicycle of sympy's test_kane3.py (after Meijaard, Papadopoulos, Ruina
and Schwab 2007), with the wheel rotation angles q3, q6 added as coordinates so that every speed
has one. pendulum_lagrange: a planar pendulum in Cartesian coordinates with the rod
as a holonomic constraint. sleigh_system: the Chaplygin sleigh as a sympy System.
"""
import sympy as sp
import sympy.physics.mechanics as me

T = me.dynamicsymbols._t


def rolling_disc_kane(rolling_velocity=False):
    """rolling_velocity: give the centre the rolling velocity (omega x r, the constraints applied) as
    sympy's test does."""
    q1, q2, q3, q4, q5, u1, u2, u3, u4, u5 = me.dynamicsymbols("q1:6 u1:6")
    g, r, m = sp.symbols("g r m", positive=True)
    N, L, D = me.ReferenceFrame("N"), me.ReferenceFrame("L"), me.ReferenceFrame("D")
    L.orient_body_fixed(N, (q1, q2, 0), "zxy")        # yaw, then lean
    D.orient_axis(L, L.y, q3)                         # spin about the axle
    w_from_qdot = D.ang_vel_in(N)
    D.set_ang_vel(N, u1 * D.x + u2 * D.y + u3 * D.z)
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", q4 * N.x + q5 * N.y)         # the contact point
    P.set_vel(N, u4 * N.x + u5 * N.y)
    G = P.locatenew("G", r * L.z)
    if rolling_velocity:
        G.set_vel(N, D.ang_vel_in(N).cross(G.pos_from(P)))
    else:
        G.v2pt_theory(P, N, L)  # from G's position
    disc = me.RigidBody("disc", G, D, m, (m * r**2 / 4 * me.inertia(D, 1, 2, 1), G))
    kd = [w_from_qdot.dot(D.x) - u1, w_from_qdot.dot(D.y) - u2, w_from_qdot.dot(D.z) - u3,
          q4.diff(T) - u4, q5.diff(T) - u5]
    slip = P.vel(N) + D.ang_vel_in(L).cross(P.pos_from(G))  # the disc's material point at P
    kane = me.KanesMethod(N, [q1, q2, q3, q4, q5], [u1, u2, u3], kd, u_dependent=[u4, u5],
                          velocity_constraints=[slip.dot(N.x), slip.dot(N.y)], bodies=[disc],
                          forcelist=[(G, -m * g * N.z)])
    kane.kanes_equations()
    return kane


def pendulum_lagrange():
    x, y = me.dynamicsymbols("x y")
    m, L, g = sp.symbols("m L g", positive=True)
    N = me.ReferenceFrame("N")
    O = me.Point("O")
    O.set_vel(N, 0)
    P = O.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, x.diff(T) * N.x + y.diff(T) * N.y)
    bob = me.Particle("bob", P, m)
    bob.potential_energy = m * g * y
    lagranges = me.LagrangesMethod(me.Lagrangian(N, bob), [x, y], hol_coneqs=[x**2 + y**2 - L**2], frame=N)
    lagranges.form_lagranges_equations()
    return lagranges


def sleigh_system():
    """Chaplygin sleigh: a body on the plane whose point P (a knife edge) cannot slide sideways; the
    mass centre is a ahead of P. Speeds: P's velocity in N (u1, u2, u2 dependent) and the yaw rate u3."""
    x, y, th, u1, u2, u3 = me.dynamicsymbols("x y theta u1 u2 u3")
    m, I, a, c = sp.symbols("m I a c", positive=True)
    ground = me.RigidBody("ground")
    N = ground.frame
    B = me.ReferenceFrame("B")
    B.orient_axis(N, N.z, th)
    B.set_ang_vel(N, u3 * N.z)
    P = ground.masscenter.locatenew("P", x * N.x + y * N.y)
    P.set_vel(N, u1 * N.x + u2 * N.y)
    G = P.locatenew("G", a * B.x)
    G.v2pt_theory(P, N, B)
    body = me.RigidBody("sleigh", G, B, m, (me.inertia(B, 0, 0, I), G))
    system = me.System.from_newtonian(ground)
    system.add_coordinates(x, y, th)
    system.add_speeds(u1, u3)
    system.add_speeds(u2, independent=False)
    system.add_kdes(x.diff(T) - u1, y.diff(T) - u2, th.diff(T) - u3)
    system.add_bodies(body)
    system.add_nonholonomic_constraints(P.vel(N).dot(B.y))
    system.add_loads((G, -c * G.vel(N)))           # viscous drag at the mass centre
    return system


def whipple_bicycle():
    q1, q2, q3, q4, q5, q6 = me.dynamicsymbols("q1:7")  # yaw, roll, rear wheel, pitch, steer, front wheel
    u1, u2, u3, u4, u5, u6 = me.dynamicsymbols("u1:7")
    (WFrad, WRrad, htangle, forkoffset, forklength, framelength, forkcg1, forkcg3, framecg1, framecg3, Iwr11, Iwr22,
     Iwf11, Iwf22, Iframe11, Iframe22, Iframe33, Iframe31, Ifork11, Ifork22, Ifork33, Ifork31, g, mframe, mfork, mwf,
     mwr) = sp.symbols("WFrad WRrad htangle forkoffset forklength framelength forkcg1 forkcg3 framecg1 framecg3 Iwr11 "
                       "Iwr22 Iwf11 Iwf22 Iframe11 Iframe22 Iframe33 Iframe31 Ifork11 Ifork22 Ifork33 Ifork31 g "
                       "mframe mfork mwf mwr")
    N = me.ReferenceFrame("N")
    Y = N.orientnew("Y", "Axis", [q1, N.z])
    R = Y.orientnew("R", "Axis", [q2, Y.x])
    Frame = R.orientnew("Frame", "Axis", [q4 + htangle, R.y])
    WR = Frame.orientnew("WR", "Axis", [q3, Frame.y])
    TempFrame = Frame.orientnew("TempFrame", "Axis", [-htangle, Frame.y])
    Fork = Frame.orientnew("Fork", "Axis", [q5, Frame.x])
    TempFork = Fork.orientnew("TempFork", "Axis", [-htangle, Fork.y])
    WF = Fork.orientnew("WF", "Axis", [q6, Fork.y])
    WR_cont = me.Point("WR_cont")
    WR_mc = WR_cont.locatenew("WR_mc", WRrad * R.z)
    Steer = WR_mc.locatenew("Steer", framelength * Frame.z)
    Frame_mc = WR_mc.locatenew("Frame_mc", -framecg1 * Frame.x + framecg3 * Frame.z)
    Fork_mc = Steer.locatenew("Fork_mc", -forkcg1 * Fork.x + forkcg3 * Fork.z)
    WF_mc = Steer.locatenew("WF_mc", forklength * Fork.x + forkoffset * Fork.z)
    WF_cont = WF_mc.locatenew("WF_cont", WFrad * (me.dot(Fork.y, Y.z) * Fork.y - Y.z).normalize())
    Y.set_ang_vel(N, u1 * Y.z)
    R.set_ang_vel(Y, u2 * R.x)
    WR.set_ang_vel(Frame, u3 * Frame.y)
    Frame.set_ang_vel(R, u4 * Frame.y)
    Fork.set_ang_vel(Frame, u5 * Fork.x)
    WF.set_ang_vel(Fork, u6 * Fork.y)
    WR_cont.set_vel(N, 0)
    WR_mc.v2pt_theory(WR_cont, N, WR)
    Steer.v2pt_theory(WR_mc, N, Frame)
    Frame_mc.v2pt_theory(WR_mc, N, Frame)
    Fork_mc.v2pt_theory(Steer, N, Fork)
    WF_mc.v2pt_theory(Steer, N, Fork)
    WF_cont.v2pt_theory(WF_mc, N, WF)
    bodies = [me.RigidBody("frame", Frame_mc, Frame, mframe,
                           (me.inertia(TempFrame, Iframe11, Iframe22, Iframe33, 0, 0, Iframe31), Frame_mc)),
              me.RigidBody("fork", Fork_mc, Fork, mfork,
                           (me.inertia(TempFork, Ifork11, Ifork22, Ifork33, 0, 0, Ifork31), Fork_mc)),
              me.RigidBody("rear wheel", WR_mc, WR, mwr, (me.inertia(Frame, Iwr11, Iwr22, Iwr11), WR_mc)),
              me.RigidBody("front wheel", WF_mc, WF, mwf, (me.inertia(Fork, Iwf11, Iwf22, Iwf11), WF_mc))]
    kd = [q.diff(T) - u for q, u in zip((q1, q2, q3, q4, q5, q6), (u1, u2, u3, u4, u5, u6))]
    speed = WF_cont.vel(N)
    loads = [(Frame_mc, -mframe * g * Y.z), (Fork_mc, -mfork * g * Y.z), (WF_mc, -mwf * g * Y.z),
             (WR_mc, -mwr * g * Y.z)]
    kane = me.KanesMethod(N, q_ind=[q1, q2, q3, q5, q6], q_dependent=[q4],
                          configuration_constraints=[WF_cont.pos_from(WR_cont).dot(Y.z)],
                          u_ind=[u2, u3, u5], u_dependent=[u1, u4, u6],
                          velocity_constraints=[speed.dot(Y.x), speed.dot(Y.y), speed.dot(Y.z)], kd_eqs=kd,
                          constraint_solver="CRAMER")
    kane.kanes_equations(bodies, loads)
    return kane


def bicycle_parameters():
    """The benchmark bicycle of Meijaard et al. (2007) in the variables of whipple_bicycle (the
    conversion of sympy's test_kane3.py; products of inertia with the sign of its frames)."""
    from math import acos, cos, pi, sin, sqrt

    rad_rear, rad_front, hta, trail, wheelbase = 0.3, 0.35, pi / 2 - pi / 10, 0.08, 1.02
    frame_cg_x, frame_cg_z, fork_cg_x, fork_cg_z = 0.3, 0.9, 0.9, 0.7
    rake = -(trail * sin(hta) - rad_front * cos(hta))
    frame_length = wheelbase * sin(hta) - (rake - (rad_front - rad_rear) * cos(hta))
    frame_cg_norm = (frame_cg_z - rad_rear - (frame_cg_x / sin(hta)) * cos(hta)) * sin(hta)
    frame_cg_par = frame_cg_x / sin(hta) + (frame_cg_z - rad_rear - frame_cg_x / sin(hta) * cos(hta)) * cos(hta)
    a, b = fork_cg_z - rad_front, wheelbase - fork_cg_x
    c = sqrt(a**2 + b**2)
    fork_length = wheelbase * cos(hta) - (rad_front - rad_rear) * sin(hta)
    return {"WFrad": rad_front, "WRrad": rad_rear, "htangle": hta, "forkoffset": rake, "forklength": fork_length,
            "framelength": frame_length, "forkcg1": c * cos((pi / 2 - hta) - acos(a / c)) - fork_length,
            "forkcg3": rake + c * sin(pi / 2 - hta - acos(a / c)), "framecg1": frame_cg_norm,
            "framecg3": frame_cg_par, "Iwr11": 0.0603, "Iwr22": 0.12, "Iwf11": 0.1405, "Iwf22": 0.28,
            "Ifork11": 0.05892, "Ifork22": 0.06, "Ifork33": 0.00708, "Ifork31": 0.00756, "Iframe11": 9.2,
            "Iframe22": 11.0, "Iframe33": 2.8, "Iframe31": -2.4, "mfork": 4.0, "mframe": 85.0, "mwf": 3.0,
            "mwr": 2.0, "g": 9.81}
