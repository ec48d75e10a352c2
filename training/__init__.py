"""Training, tuning, quantisation and evaluation of Hakam's networks (``hakam model ...``).

Training needs the ``train`` extra (torch, ultralytics); evaluation, tuning and quantisation run
on the exported models like the runtime. The runtime (``hakam.vision``, ``hakam.gui``) never
imports this package.
"""
