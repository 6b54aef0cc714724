"""The epistasis search's frozen result."""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from .._results import Result
from .plan import Search, _Best
from .scores import association, tables_from_bits

if TYPE_CHECKING:       # pandas is imported where a table is made: a scan to files needs none
    import pandas as pd

#: How many of the best combinations ``str()`` shows.
_SHOWN = 5


@dataclass(frozen=True, repr=False)
class EpistasisResult(Result):
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

    @classmethod
    def of(cls, search: Search, best: _Best, backend: str) -> EpistasisResult:
        combos = search.index_map[best.combos] if len(best.combos) else best.combos
        import pandas as pd

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

    def _repr_fields(self) -> dict:
        best = None
        if len(self.table):
            row = self.table.iloc[0]
            names = "+".join(str(row[f"name{i + 1}"]) for i in range(self.order))
            best = f"{names} ({self.score} {row[self.score]:.6g})"
        return dict(order=self.order, score=self.score,
                    snps=self.n_snps, samples=self.n_samples,
                    combinations=self.combinations, backend=self.backend, best=best)

    def __str__(self) -> str:
        import pandas as pd

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


@dataclass(frozen=True, repr=False)
class PairScanResult(Result):
    """A pair scan with one of PLINK's tests (:func:`oclstat.epistasis` with ``test=`` fast,
    joint-effects, logistic or linear).

    table
        The pairs with p below ``epi1`` in PLINK's columns (CHR1, SNP1, CHR2, SNP2, OR_INT or
        BETA_INT for the regressions, STAT, P), in PLINK's order; None when they were written
        to ``files`` instead (a genome-wide scan streams them).
    summary
        Per SNP, PLINK's ``.summary``: CHR, SNP, N_SIG (partners with p below ``epi2``),
        N_TOT (pairs tested), PROP, BEST_CHISQ, BEST_CHR, BEST_SNP.
    n_tests, n_failed, n_hits
        Pairs tested (in this job), pairs with no statistic (PLINK's failures: a singular
        fit, a joint-effects cell below the minimum), pairs reported.
    files
        What was written (the hits, the summary), if anything.
    """

    table: pd.DataFrame | None = field(compare=False)
    #: the summary DataFrame, or a function of no arguments that makes it when first asked
    _summary: object = field(compare=False)
    test: str
    epi1: float
    epi2: float
    n_snps: int
    n_samples: int
    n_tests: int
    n_failed: int
    n_hits: int
    job: tuple = (1, 1)
    device: str = ""
    files: tuple = ()

    @property
    def summary(self) -> pd.DataFrame:
        """Per SNP, PLINK's ``.summary`` (made on first use)."""
        if callable(self._summary):
            object.__setattr__(self, "_summary", self._summary())
        return self._summary

    def to_frame(self) -> pd.DataFrame:
        """The hits (a copy; read from the file when they were written to one)."""
        if self.table is not None:
            return self.table.copy()
        import pandas as pd

        return pd.read_csv(self.files[0], sep=r"\s+")

    def _repr_fields(self) -> dict:
        return dict(test=self.test, snps=self.n_snps,
                    samples=self.n_samples, tests=self.n_tests, failed=self.n_failed,
                    hits=self.n_hits, epi1=self.epi1, device=self.device)

    def __str__(self) -> str:
        import pandas as pd

        head = (f"{self.n_tests:,} pairs of {self.n_snps:,} SNPs x {self.n_samples:,} samples, "
                f"test {self.test}: {self.n_hits:,} with p < {self.epi1:g}"
                + (f" (job {self.job[0]} of {self.job[1]})" if self.job[1] > 1 else ""))
        if self.table is None:
            return head + f"; written to {self.files[0]}"
        with pd.option_context("display.width", 100, "display.max_columns", 20):
            return head + "\n" + self.table.head(_SHOWN).to_string(index=False)
