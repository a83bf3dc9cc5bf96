"""Simulation of a study on a described cluster: kernel plans, SimGrid time-independent traces, replay."""
