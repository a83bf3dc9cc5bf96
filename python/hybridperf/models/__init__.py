"""Performance models: the thesis's equations, their fitting, empirical PMNF fits, a calibrated model
and the recommendation built on them."""
