"""The epistasis search's frozen result."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .._results import short_repr
from .plan import Search, _Best
from .scores import association, tables_from_bits

#: How many of the best combinations ``str()`` shows.
_SHOWN = 5


@dataclass(frozen=True, repr=False)
class EpistasisResult:
    """The best combinations of an exhaustive search (:func:`oclstat.epistasis`).

    table
        Best first: ``snp1..snpk`` (indices into the input), ``name1..namek``, for PLINK
        input ``chr1, bp1 .. chrk, bpk`` (from the .bim), ``k2`` (lower is better) or ``mi``
        (mutual information in nats, higher is better), and the significance of the
        combination's 3^k x 2 table: the likelihood-ratio ``G`` against independence, its
        ``df``, chi-square ``p`` and ``p_bonferroni`` (p times the combinations searched,
        at most 1).
    order, score
        The combination size and the score.
    n_snps, n_samples
        The SNPs searched and the samples with a phenotype.
    combinations
        How many combinations were scored: C(n_snps, order).
    backend
        "opencl", "cuda" or "tasks" (``client=``); every backend gives the same table.
    """

    table: pd.DataFrame = field(compare=False)
    order: int
    score: str
    n_snps: int
    n_samples: int
    combinations: int
    backend: str
    #: What was read, when the inputs came from files (:class:`oclstat.io.ReadInfo`: every
    #: decision a reader took, with the option that reverses it); None for arrays.
    input: object = field(default=None, compare=False, repr=False)

    @classmethod
    def of(cls, search: Search, best: _Best, backend: str) -> EpistasisResult:
        combos = search.index_map[best.combos] if len(best.combos) else best.combos
        frame = pd.DataFrame({f"snp{i + 1}": combos[:, i] for i in range(search.order)})
        for i in range(search.order):
            frame[f"name{i + 1}"] = [search.names[j] for j in best.combos[:, i]]
        if search.loci is not None:
            chromosomes, positions = search.loci
            for i in range(search.order):
                frame[f"chr{i + 1}"] = [chromosomes[j] for j in best.combos[:, i]]
                frame[f"bp{i + 1}"] = np.asarray(positions)[best.combos[:, i]]
        frame[search.score] = search.values(best.scores)
        g, df, p = association(tables_from_bits(search.bits, best.combos))
        frame["G"] = g
        frame["df"] = df
        frame["p"] = p
        frame["p_bonferroni"] = np.minimum(1.0, p * search.combinations)
        return cls(frame, search.order, search.score, search.n_snps, search.n_samples,
                   search.combinations, backend)

    def to_frame(self) -> pd.DataFrame:
        """The table (a copy)."""
        return self.table.copy()

    def __repr__(self) -> str:
        best = None
        if len(self.table):
            row = self.table.iloc[0]
            names = "+".join(str(row[f"name{i + 1}"]) for i in range(self.order))
            best = f"{names} ({self.score} {row[self.score]:.6g})"
        return short_repr("EpistasisResult", order=self.order, score=self.score,
                          snps=self.n_snps, samples=self.n_samples,
                          combinations=self.combinations, backend=self.backend, best=best)

    def __str__(self) -> str:
        head = (f"best {len(self.table)} of {self.combinations:,} {self.order}-way "
                f"combinations of {self.n_snps:,} SNPs x {self.n_samples:,} samples, "
                f"{self.score} ({self.backend})")
        with pd.option_context("display.width", 100, "display.max_columns", 20):
            shown = self.table.head(_SHOWN).to_string(index=False)
        more = len(self.table) - _SHOWN
        tail = f"\n... {more} more rows: .to_frame()" if more > 0 else ""
        return f"{head}\n{shown}{tail}"

    # -- the DataFrame this used to be (one release, then gone) --------------------------------

    def __len__(self) -> int:
        return len(self.table)

    def __getitem__(self, key):
        _deprecated()
        return self.table[key]

    def __getattr__(self, name):
        if name.startswith("__") or name == "table":
            raise AttributeError(name)
        _deprecated()
        return getattr(self.table, name)


def _deprecated():
    warnings.warn("epistasis() returns an EpistasisResult: use .table (or .to_frame()) for the "
                  "DataFrame it returned before", DeprecationWarning, stacklevel=3)
