"""Hakam (حَكَم): a camera referee for Baloot.

One namespace: ``hakam.engine`` (rules, scorer, referee), ``hakam.vision`` (camera pipeline),
``hakam.gui`` (the window), ``hakam.datasets`` (scene generator), ``hakam.training`` (training,
tuning, quantisation and evaluation of the networks), ``hakam.cli`` (the command line only) and
``hakam.errors`` (errors shared by all of them).
"""

__version__ = "0.1.0"
