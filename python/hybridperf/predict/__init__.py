"""One engine for "which split wins": measured, modelled and simulated predictions of one type (answer), one sensitivity routine and one renderer."""
