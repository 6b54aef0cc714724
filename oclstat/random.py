"""Random streams (clRNG's MRG31k3p) and uniform, normal and exponential draws on the device.

A :class:`Streams` object holds ``n`` streams of L'Ecuyer and Touzin's MRG31k3p generator in
clRNG's layout: for each stream its current state, its initial state and the start of its
current substream (each an ``(n, 6)`` uint32 array). :func:`create_streams` makes them exactly
as clRNG's ``clrngMrg31k3pCreateStreams`` does from the same base seed: stream 0 starts at the
seed, stream ``k`` is stream ``k-1`` jumped ``2^134`` steps. Substreams are ``2^72`` steps apart.

Every draw function takes ``streams=`` (a :class:`Streams`, advanced in place, as clRNG and
gpuRandom do) or ``seed=`` (an int, or six integers as clRNG accepts).

**Which stream produces which element.** With ``S`` streams and ``N`` outputs in C order,
element ``i`` is draw number ``i // S`` of stream ``i % S`` (work-item ``s`` owns stream ``s``
and fills elements ``s, s+S, s+2S, ...``). For :func:`normal`, draws come in Box-Muller pairs:
a stream's draws ``2j`` and ``2j+1`` are the cosine and sine halves of its ``j``-th pair, made
from its uniforms ``2j`` and ``2j+1``; when the stream's last pair is cut by the end of the
array, the sine half is dropped (the stream still advances past both uniforms). With ``seed=``,
``S = min(N, 2**18)`` streams are created from the seed, so ``uniform(n, seed=s)[:k]`` equals
``uniform(k, seed=s)`` for ``k <= n``. The mapping depends only on ``S`` and ``N``, never on the
device: integer outputs are bit-identical on every device, floating outputs agree to rounding
(uniforms are exact: ``z * 2^-31`` in double).

>>> import oclstat.random as ocr
>>> st = ocr.create_streams(4)
>>> st.initial[0].tolist()
[12345, 12345, 12345, 12345, 12345, 12345]
>>> u = ocr.uniform(8, streams=st)
>>> bool((0 < u).all() and (u < 1).all())
True
"""

from __future__ import annotations

from ._random.draws import exponential, integers, normal, random_raw, uniform
from ._random.streams import DEFAULT_SEED, MAX_DEFAULT_STREAMS, Streams, as_seed, create_streams
from ._special import qnorm, qqnorm

__all__ = [
    "Streams",
    "create_streams",
    "uniform",
    "normal",
    "exponential",
    "integers",
    "random_raw",
    "qnorm",
    "qqnorm",
    "as_seed",
    "DEFAULT_SEED",
    "MAX_DEFAULT_STREAMS",
]
