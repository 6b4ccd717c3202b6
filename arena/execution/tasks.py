"""What travels to a cluster worker for one series: ``SeriesTask`` (the series'
specification, both bots' code bundles and the sandbox backend to play it in), and
the names both sides agree on (the Dask resources, the task key)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass

from arena.core.series import SeriesSpec
from arena.execution.bundles import BotBundle

SERIES_SLOT = "series_slot"
"""The Dask resource a worker advertises once per series it plays at once."""


def sandbox_resource(backend: str) -> str:
    """The Dask resource a worker advertises (as many as its slots) for each sandbox
    backend it checked at start, so a series only lands where its sandbox works."""
    return f"sandbox-{backend}"


@dataclass(frozen=True)
class SeriesTask:
    """One series as a worker receives it. ``spec.bots`` still name the arena's
    folders; the worker replaces them with its own copies of ``bundles``."""

    spec: SeriesSpec
    bundles: tuple[BotBundle, BotBundle]
    sandbox: str

    @property
    def key(self) -> str:
        """The task's Dask key: the series id (one series, one key: a second submission
        of the same series while the first is held joins it) plus a fingerprint of
        everything that decides the play, so two arenas sharing a cluster whose
        series ids coincide (``3-17`` in both) never receive each other's results."""
        spec = self.spec
        what = {
            "series": spec.series_id, "seed": spec.seed, "profile": spec.profile.to_dict(),
            "max_hands": spec.max_hands, "swap": spec.swap_seats,
            "limits": asdict(spec.limits), "sandbox": self.sandbox,
            "bots": [b.content_hash for b in self.bundles],
        }
        digest = hashlib.sha256(json.dumps(what, sort_keys=True).encode()).hexdigest()[:16]
        return f"series-{spec.series_id}-{digest}"
