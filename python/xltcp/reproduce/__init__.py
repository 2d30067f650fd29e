"""Reproductions of published results: one module per paper.

``xltcp reproduce <paper>`` runs :func:`reproduce` of the paper's module.
"""

from __future__ import annotations

from xltcp.reproduce import byun2016

#: Paper name -> the module whose ``reproduce(seeds, out, sweeps, overrides,
#: progress)`` runs it.
PAPERS = {"byun2016": byun2016}

__all__ = ["PAPERS", "byun2016"]
