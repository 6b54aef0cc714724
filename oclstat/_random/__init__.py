"""Random streams (MRG31k3p, clRNG's layout) and draws on the device: the capability behind
:mod:`oclstat.random`, the one every other capability draws its randomness from.

Inside: ``mrg31k3p`` (the generator's arithmetic and jumps on the host), ``streams`` (seeds,
:class:`Streams`, device buffers of states), ``draws`` (the draw functions: validation, plan,
OpenCL launches).
"""
