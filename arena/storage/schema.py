"""Column lists the queries share (the tables themselves are built by
``arena.storage.migrations``)."""

from __future__ import annotations

from typing import Final

# The result row's columns (the event log and profile live in series_logs since
# schema version 3, so these rows stay narrow).
RESULT_COLUMNS: Final = (
    "series_id, season_id, winner_seat, games_won_0, games_won_1, hands_won_0, hands_won_1, "
    "points_0, points_1, game_scores_json, hands_played, capped, fault_json, think_0, "
    "think_1, wall_seconds, seed, swap_seats, seat0_bot, seat1_bot, game_winners_json, "
    "played_by, finished_at, stored_seq"
)
RESULT_COLUMNS_OF_R: Final = ", ".join(f"r.{c.strip()}" for c in RESULT_COLUMNS.split(","))
PLANNED_COLUMNS: Final = (
    "id, season_id, idx, seed, swap_seats, seat0_bot, seat1_bot, round, seed_nonce")
