"""How the motion depends on the parameters, and which parameters the measurements say:

    sensitivity       forward sensitivities of the motion and of an integral output
    identification    parameter values fitted to measured trials, with standard errors
"""
