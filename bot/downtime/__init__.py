"""Downtime runs: one gang's Downtime steps (rules/downtime_sequence.py) in a thread.

``state`` is what is stored, ``engine`` opens, confirms, undoes and acts in a run (one
write transaction each), ``render`` draws a step's message and ``clicks`` routes its
buttons.
"""
