"""What each page shows, as plain JSON-ready data: the same dict feeds the HTML
template and the ``/api/`` route, so the two never disagree.

Standings, their statistics and the progress come from the server's readings
(``arena.season.readings``: the table the server keeps as results are stored,
the one the terminal shows), never recomputed here; the rest is read from the
database. Everything here is pure reading: nothing is written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from openskill.models import PlackettLuce

from arena.core.ordering import ORDERING_RULE
from arena.core.status import SeasonStatus
from arena.season.formats import has_no_count
from arena.season.readings import SeasonReading, SeasonReadings
from arena.season.standings import Standings
from arena.storage import (
    SeasonRecord,
    SeriesRecord,
    Storage,
    faulted_results,
    is_sealed,
    league_of_season,
)
from arena.web.browse import ladder_gates_of, shown_version, version_of, versions_of
from arena.web.hands import series_hands
from arena.web.paging import WEB_PAGE_SIZE, Pager
from arena.web.replay import UNREPLAYABLE
from arena.web.season_tables import elo_rows

LATEST_RESULTS: Final = 12
FAULTS_SHOWN: Final = 50
STANDINGS_PER_PAGE: Final = WEB_PAGE_SIZE
"""Rows of a season page's standings (``?page=N``)."""
FULL_CROSSTABLE_BOTS: Final = 64
"""A season of at most this many bots shows its whole crosstable on every page."""
CROSSTABLE_COLUMNS: Final = 64
"""A bigger season's crosstable: its page's rows against this many top bots."""


def season_summary(season: SeasonRecord) -> dict[str, Any]:
    return {
        "id": season.id, "name": season.name, "status": str(season.status),
        "format": season.config.format, "error": season.error,
        "created_at": season.created_at, "updated_at": season.updated_at,
        "series_total": season.series_total, "series_done": season.series_done,
        "series_voided": season.series_voided, "bots": len(season.bot_ids),
        "no_count": has_no_count(season.config, len(season.bot_ids)),
    }


def result_summary(result: SeriesRecord) -> dict[str, Any]:
    return {
        "series_id": result.series_id, "bots": list(result.bots),
        "winner": result.winner,
        "winner_bot": None if result.winner is None else result.bots[result.winner],
        "verdicts": [str(verdict) for verdict in result.verdicts],
        "games_won": list(result.games_won),
        "hands_won": list(result.hands_won), "points": list(result.points),
        "hands_played": result.hands_played, "capped": result.capped,
        "fault_kind": None if result.fault is None else str(result.fault.kind),
        "wall_seconds": round(result.wall_seconds, 3), "finished_at": result.finished_at,
    }


def fault_rows(results: Sequence[SeriesRecord]) -> list[dict[str, Any]]:
    """One row per forfeiting bot of each series (both when neither started): the
    arena's words (kind, message, where, the seat's measured think time), never the
    bot's (its stderr is its owner's: ``arena.web.owner``)."""
    return [{"series_id": result.series_id, "bot": result.bots[seat], "seat": seat,
             "kind": str(fault.kind), "message": fault.message,
             "hand_number": fault.hand_number, "decision_number": fault.decision_number,
             "think_seconds": round(result.think_seconds[seat], 3),
             "finished_at": result.finished_at}
            for result in results
            for seat, fault in enumerate(result.seat_faults) if fault is not None]


def standing_rows(reading: SeasonReading) -> list[dict[str, Any]]:
    """The table's rows as every screen shows them: in the format's order, ranked
    in it, with the Bradley-Terry Elo, its 95 % interval and the tied or behind mark
    (``SeasonStatistics.ranked_values``, as the API's rows have them); the page's
    cells are ``arena.core.standing_columns``' of these values."""
    stats = reading.statistics
    by_bot = {row.bot_id: row for row in reading.standings.rows}
    return [{**by_bot[bot].to_dict(), **stats.ranked_values(bot, rank)}
            for rank, bot in enumerate(stats.order, start=1)]


def format_extras(reading: SeasonReading, shown: Sequence[str]) -> dict[str, Any]:
    """What the season's format adds to its standings (its columns, their cells of
    the bots ``shown``, a note on its order, sections under the table), shown as
    they are without knowing the format; nothing for a format this arena does not
    know."""
    stats = reading.statistics
    return {
        "columns": [column.label for column in stats.columns],
        "meanings": [column.meaning for column in stats.columns],
        "cells": {bot: [column.cells.get(bot, "") for column in stats.columns]
                  for bot in shown},
        "order_note": stats.order_note,
        "sections": [{"title": section.title, "headers": list(section.headers),
                      "rows": [list(row) for row in section.rows],
                      "lines": list(section.lines), "legend": list(section.legend)}
                     for section in stats.sections],
        "api": stats.api,
    }


def crosstable_view(standings: Standings, ranked: Sequence[str], shown: Sequence[str]
                    ) -> dict[str, Any]:
    """The crosstable a page shows: every bot against every bot up to
    ``FULL_CROSSTABLE_BOTS``; beyond, the page's rows (``shown``) against the top
    ``CROSSTABLE_COLUMNS`` (a 1,000-bot table is a million cells). ``bots``: the
    columns, ``rows``: the rows, in rank order, ``bots_total``: every bot."""
    full = len(ranked) <= FULL_CROSSTABLE_BOTS
    columns = list(ranked) if full else list(ranked[:CROSSTABLE_COLUMNS])
    rows = list(ranked) if full else list(shown)
    return {"bots": columns, "rows": rows, "full": full, "bots_total": len(ranked),
            "cells": {bot: {opponent: vars(cell).copy()
                            for opponent, cell in standings.crosstable.get(bot, {}).items()
                            if opponent in columns}
                      for bot in rows}}


def season_page(storage: Storage, readings: SeasonReadings, season_id: int,
                pager: Pager | None = None) -> dict[str, Any]:
    """Everything the season page shows (raises ``NotFoundError``): the season as
    stored now, its tables and progress from ``readings``; of the standings,
    ``pager``'s page (else the first), and the crosstable of that page's rows."""
    season = storage.get_season(season_id)
    reading = readings.read(season_id)
    standings = reading.standings
    every_row = standing_rows(reading)
    ranked = [row["bot_id"] for row in every_row]
    pager = pager or Pager(1, STANDINGS_PER_PAGE)
    rows, rows_pager = pager.cut(every_row[pager.offset:pager.offset + pager.limit])
    shown = [row["bot_id"] for row in rows]
    elo = elo_rows(reading.statistics)
    # Newest first; within a second (stored times' resolution), stored later first:
    # kept as results are read, not sorted out of every result on each update.
    latest = reading.newest[:LATEST_RESULTS]
    faults = sorted(fault_rows(reading.faulted), key=lambda f: f["finished_at"], reverse=True)
    return {
        "season": season_summary(season),
        "progress": reading.progress.to_dict(),
        "standings": rows,
        "standings_pager": rows_pager,
        "elo": {bot: elo[bot] for bot in shown},  # the page's rows', as its other columns
        "ordering_rule": ORDERING_RULE,
        "format_extras": format_extras(reading, shown),
        "crosstable": crosstable_view(standings, ranked, shown),
        "latest": [result_summary(r) for r in latest],
        "faults": faults[:FAULTS_SHOWN],
        "faults_total": len(faults),
        "league": league_of_season(storage, season_id),
    }


def bot_summary(storage: Storage, bot_id: str) -> dict[str, Any]:
    bot = storage.get_bot(bot_id)
    return {
        "id": bot.id, "name": bot.name, "version": bot.version, "language": bot.language,
        "author": bot.author, "description": bot.description,
        "registered_at": bot.registered_at,
    }


def _version_shown(storage: Storage, reference: str) -> str:
    """The bot id ``reference`` names: itself when stored, else, for a name, its
    newest active version (else its newest registered); ``NotFoundError`` else."""
    if storage.query("SELECT 1 FROM bots WHERE id=?", (reference,)):
        return reference
    return shown_version(storage, reference) or reference  # unknown: its error says so


def rating_history(bot_id: str, results: Sequence[SeriesRecord]) -> list[dict[str, float]]:
    """The bot's rating after each of its series in a season: the standings' rating
    updates (OpenSkill Plackett-Luce, series by series in plan order, a draw ranked
    equal) replayed in one pass, since recomputing the standings over every prefix
    costs a second for a 20-bot season. The last point equals the standings' rating
    (tested), so the two cannot drift apart unnoticed."""
    model = PlackettLuce()
    ratings: dict[str, Any] = {}
    history: list[dict[str, float]] = []
    for result in results:
        first, second = result.bots
        verdicts = result.verdicts
        [[ratings[first]], [ratings[second]]] = model.rate(
            [[ratings.get(first) or model.rating(name=first)],
             [ratings.get(second) or model.rating(name=second)]],
            ranks=[verdicts[0].rating_rank, verdicts[1].rating_rank])
        if bot_id in result.bots:
            rating = ratings[bot_id]
            history.append({"series": len(history) + 1, "mu": round(float(rating.mu), 4),
                            "sigma": round(float(rating.sigma), 4)})
    return history


def bot_page(storage: Storage, readings: SeasonReadings, bot_id: str,
             season_id: int | None = None, pager: Pager | None = None) -> dict[str, Any]:
    """A bot's page: a page of its versions (``pager``'s, else the first), its
    seasons, and for one season (the given one, else its latest) its row, rating
    history and head-to-head; its recent faults over every season; its gates on
    ladders. A bare name (``/bots/NAME``) shows the bot with all its versions, at
    its newest active version (else its newest). Raises ``NotFoundError``."""
    asked = bot_id
    bot_id = _version_shown(storage, bot_id)
    bot = bot_summary(storage, bot_id)
    versions, versions_pager = versions_of(storage, bot["name"], pager or Pager(1))
    life = version_of(storage, bot_id)
    seasons = [storage.get_season(int(row[0])) for row in storage.query(  # newest first
        "SELECT season_id FROM season_bots WHERE bot_id=? AND season_id NOT IN "
        "(SELECT season_id FROM challenges) ORDER BY season_id DESC", (bot_id,))]
    chosen = next((s for s in seasons if s.id == season_id), seasons[0] if seasons else None)
    faults: list[dict[str, Any]] = []
    playing = [s.id for s in seasons if s.status is SeasonStatus.RUNNING]
    # A version that may play is playing or idle; any other shows its own status.
    status = life["status"] if life["status"] != "active" else (
        "playing" if playing else "idle")
    page: dict[str, Any] = {"bot": bot, "versions": versions,
                            "versions_pager": versions_pager, "status": status,
                            "by_name": asked != bot_id,
                            "status_reason": life["reason"], "owner": life["owner"],
                            "playing_in": playing,
                            "seasons": [season_summary(s) for s in seasons],
                            "season": None, "standing": None, "rating_history": [],
                            "head_to_head": [], "ladder_gates": ladder_gates_of(storage, bot_id)}
    for season in seasons:
        if chosen is not None and season.id == chosen.id:
            reading = readings.read(season.id)
            results = reading.results
            standings = reading.standings
            page["season"] = season_summary(season)
            page["standing"] = next(row for row in standing_rows(reading)
                                    if row["bot_id"] == bot_id)
            page["rating_history"] = rating_history(bot_id, results)
            page["head_to_head"] = [
                {"opponent": opponent, **vars(cell)}
                for opponent, cell in sorted(standings.crosstable.get(bot_id, {}).items())]
        else:  # only its faults: no table to build, no other result read
            results = faulted_results(storage, season.id, bot_id)
        faults += [f for f in fault_rows(results) if f["bot"] == bot_id]
    page["faults"] = sorted(faults, key=lambda f: f["finished_at"], reverse=True)[:FAULTS_SHOWN]
    page["faults_total"] = len(faults)
    return page


def series_page(storage: Storage, series_id: str) -> dict[str, Any]:
    """A series: its plan entry and, once played, its result and the list of its
    hands (no frames: those are at the replay route). Raises ``NotFoundError``."""
    planned = storage.get_planned(series_id)
    result = storage.get_result(series_id)
    revealed = not is_sealed(storage, series_id)
    hands: list[dict[str, Any]] = []
    hands_error = None
    if result is not None and revealed:  # the log holds the seed and every deal
        try:
            hands = series_hands(storage.result_log(series_id)[0])
        except UNREPLAYABLE as error:
            hands_error = f"the stored log of series {series_id} cannot be replayed: {error}"
    return {
        "series_id": planned.series_id, "season_id": planned.season_id, "index": planned.index,
        "round": planned.round, "seed": planned.seed if revealed else None,
        "seed_nonce": planned.seed_nonce if revealed else None,
        "seed_commitment": planned.seed_commitment, "seed_revealed": revealed,
        "swap_seats": planned.swap_seats,
        "bots": list(planned.bots), "played": result is not None,
        "result": None if result is None else result_summary(result),
        "game_scores": None if result is None else [list(g) for g in result.game_scores],
        "faults": [] if result is None else fault_rows([result]),
        "hands": hands, "hands_error": hands_error,
    }
