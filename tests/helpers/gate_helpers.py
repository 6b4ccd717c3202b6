"""Gated ladders for the tests of the ladder's gate: sample bots registered under
the names and versions a test needs (the greedy bot as ``player@2.0.0``, the
random one as ``player@1.0.0``...), a ladder of them with ``--gate sprt``, and a
series runner that registers a new version while round 1 plays."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from arena.core.series import SeriesOutcome, SeriesSpec
from arena.core.settings import SeasonConfig
from arena.execution import RunSeries
from arena.match.runner import run_series
from arena.sandbox import registry as sandbox_registry
from arena.season.formats import LADDER_FORMAT
from arena.storage import Storage
from tests.helpers.arena_helpers import REPO_ROOT, register_folder

SAMPLE_BOTS = REPO_ROOT / "sample_bots"


def sample_as(root: Path, sample: str, name: str, version: str) -> Path:
    """A copy of the sample bot ``sample`` (greedy, random, shark) named
    ``name@version``."""
    folder = root / f"{name}-{version}"
    shutil.copytree(SAMPLE_BOTS / sample, folder)
    manifest = folder / "bot.toml"
    text = re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', manifest.read_text())
    manifest.write_text(re.sub(r'(?m)^version = ".*"$', f'version = "{version}"', text))
    return folder



def make_gated_ladder(storage: Storage, bot_ids: list[str], **settings: object) -> int:
    """A ladder of ``bot_ids`` (in-process sandbox, one meeting a round, short
    series, 2 rounds) with an SPRT gate; ``settings`` override these."""
    values: dict[str, object] = {
        "ladder_rounds": 2, "ladder_gate": "sprt",
        "ladder_gate_sprt": "elo0=0,elo1=100,alpha=0.05,beta=0.05", "ladder_gate_max_pairs": 30,
        **settings}
    config = SeasonConfig.build(format=LADDER_FORMAT, sandbox="inprocess", concurrency=1,
                                seed=23, max_hands=12, ladder_meetings=1, **values)
    return storage.create_season(name="ladder", config=config.to_dict(),
                                 profile=config.profile(), bot_ids=bot_ids,
                                 plan=[]).id


def in_process_runner() -> RunSeries:
    sandbox = sandbox_registry.create("inprocess")
    return lambda spec: run_series(spec, sandbox)


class ArrivesInRoundOne:
    """Plays series in process; registers ``folder`` (a new version) while the
    ladder's round 1 plays, so it is a candidate from round 2 on."""

    def __init__(self, storage: Storage, ladder_id: int, folder: Path) -> None:
        self.storage, self.ladder_id, self.folder = storage, ladder_id, folder
        self.run = in_process_runner()
        self.arrived = ""

    def __call__(self, spec: SeriesSpec) -> SeriesOutcome:
        planned = self.storage.get_planned(spec.series_id)
        if planned.season_id == self.ladder_id and planned.round == 1 and not self.arrived:
            self.arrived = register_folder(self.storage, self.folder)
        return self.run(spec)
