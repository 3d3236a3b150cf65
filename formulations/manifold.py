"""Formulation 4, manifold: the reduced formulation on the tangent-space charts of Haug & Pavesic,
*Mechanical system kinematics and dynamics on differentiable manifolds* — a Lagrange-multiplier-free
ODE for the holonomic constraints, embedding or not, with nonholonomic multipliers within each chart
(formulations.coordinates.charts). Reports how many charts a run used and the share of time spent re-charting.
"""
from __future__ import annotations

from .base import register
from .coordinates.charts import Atlas
from .reduced import Reduced


@register
class Manifold(Reduced):
    """The reduced formulation on tangent-space charts, whether or not the system has an embedding."""

    name = "manifold"
    numeric_form = "explicit ODE in chart coordinates (w, w') with re-charting; lambda_nh from the reduced system"
    options = ("utol", "w_limit", "cond_limit", "singular")
    comparison = ("manifold",)
    passes_singular = False  # its charts come from Phi_p

    def _configure(self, utol=1e-12, w_limit=0.75, cond_limit=1e3, singular="stop"):
        """singular: "stop" only; charts come from Phi_p and cannot pass where it loses rank."""
        if singular != "stop":
            raise ValueError(f"formulation 'manifold' got singular={singular!r} but expected 'stop': its charts come "
                             f"from Phi_p, which loses rank at a singular configuration (reduced or minimal with an "
                             f"embedding, or dependent, can pass it)")
        self.geometry = Atlas(self.system, utol=utol, w_limit=w_limit, cond_limit=cond_limit)

    @classmethod
    def refusal(cls, system):
        """Charts are taken of holonomic constraints (unit norms of Euler parameters count)."""
        if system.m or system.unit_norm_blocks:
            return super().refusal(system)
        return (f"formulation 'manifold' got system {system.name!r} without holonomic constraints but expected at "
                f"least one (use 'reduced' or 'minimal')")
