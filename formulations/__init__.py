"""pfaff formulations: the equations of motion of a system in several forms, simulation,
constraint stabilization, reactions and the command line."""
