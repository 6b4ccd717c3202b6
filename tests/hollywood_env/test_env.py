"""hollywood_env: PettingZoo's and Gymnasium's own checkers, the action space, the
arena's deals, rewards from the score sheet, and a stored series replayed."""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, seed_test

from engine import CLASSIC, FRIENDLY, Action, Card, IllegalActionError, Profile, Series
from hollywood_env import (
    ACTION_COUNT,
    FEATURE_COUNT,
    action_at,
    action_index,
    encode_observation,
    env,
    greedy_policy,
    random_policy,
    raw_env,
)
from hollywood_env.encoding import SeatEncoder, encode_seat
from hollywood_env.gym_env import SingleSeatEnv
from hollywood_env.stored import StoredSeriesError, for_stored_series, stored_moves


@pytest.fixture(autouse=True)
def quiet_checkers() -> None:
    # The checkers warn that a dict observation is not a plain array: the dict with an
    # action mask is PettingZoo's own convention for board games.
    warnings.filterwarnings("ignore", message=".*NumPy array.*")
    warnings.filterwarnings("ignore", message=".*gymnasium.spaces.box.*")
    warnings.filterwarnings("ignore", message=".*not having a spec.*")


@pytest.mark.parametrize("episode", ["series", "hand"])
def test_pettingzoo_api_test_passes(episode: str) -> None:
    api_test(env(episode=episode, max_hands=6), num_cycles=400)
    seed_test(lambda: env(episode=episode, max_hands=6), num_cycles=100)


@pytest.mark.parametrize("seat", [0, 1])
def test_gymnasium_check_env_passes(seat: int) -> None:
    check_env(SingleSeatEnv(greedy_policy, seat=seat, max_hands=6))


def test_the_action_space_by_hand() -> None:
    assert ACTION_COUNT == 107
    assert action_at(0) == Action.draw_stock()
    assert action_at(1) == Action.draw_discard()
    assert action_at(2) == Action.pass_()
    # card indexes run suit by suit (clubs, diamonds, hearts, spades), ace first
    assert action_at(3) == Action.discard(Card.parse("Ac"))
    assert action_at(3 + 13 + 12) == Action.discard(Card.parse("Kd"))
    assert action_at(55 + 51) == Action.knock(Card.parse("Ks"))
    for index in range(ACTION_COUNT):
        assert action_index(action_at(index)) == index
    with pytest.raises(ValueError, match=r"outside the action space 0\.\.106"):
        action_at(107)


def test_reset_deals_the_arenas_cards_and_masks_the_legal_actions() -> None:
    environment = raw_env(max_hands=5)
    environment.reset(seed=987654321, options={"swap_seats": True})
    dealt = Series(987654321, FRIENDLY, max_hands=5, swap_seats=True)
    for seat, agent in enumerate(("player_0", "player_1")):
        assert environment.engine_observation(agent) == dealt.observation(seat)
    to_act = dealt.current_player
    assert to_act is not None
    mask = environment.observe(f"player_{to_act}")["action_mask"]
    assert sorted(np.flatnonzero(mask)) == sorted(action_index(a) for a in dealt.legal_actions())
    other = environment.observe(f"player_{1 - to_act}")["action_mask"]
    assert other.sum() == 0


def test_the_encoding_shows_the_seats_own_cards_and_nothing_hidden() -> None:
    series = Series(5, FRIENDLY)
    seen = series.observation(0)
    features = encode_observation(seen)
    assert features.shape == (FEATURE_COUNT,)
    assert sorted(np.flatnonzero(features[:52])) == sorted(card.index for card in seen.hand)
    assert features[52:104].sum() == len(seen.discard_pile) == 1
    assert features[312 + 0] == 1.0  # the upcard offer
    assert features[316] == pytest.approx(31 / 31)
    # what the other seat holds is not in this seat's features: its view differs
    theirs = encode_observation(series.observation(1))
    assert not np.array_equal(theirs[:52], features[:52])
    assert set(np.flatnonzero(theirs[:52])).isdisjoint(np.flatnonzero(features[:52]))


def test_rewards_follow_the_score_sheet() -> None:
    environment = raw_env(max_hands=40)
    environment.reset(seed=11)
    policy = greedy_policy
    totals = {"player_0": 0.0, "player_1": 0.0}
    hand_points = [0.0, 0.0]
    while not all(environment.terminations.values()):
        agent = environment.agent_selection
        view = environment.engine_observation(agent)
        before = len(environment.series.hand_results)
        environment.step(action_index(policy(view, environment.series.legal_actions())))
        for result in environment.series.hand_results[before:]:
            if result.winner is not None:
                hand_points[result.winner] += result.points
                hand_points[1 - result.winner] -= result.points
        for name in totals:
            totals[name] += environment.rewards[name]
    result = environment.series.result
    assert result is not None
    bonus = {None: (0, 0), 0: (1, -1), 1: (-1, 1)}[result.winner]
    assert totals["player_0"] == pytest.approx(hand_points[0] / 100 + bonus[0])
    assert totals["player_1"] == pytest.approx(-totals["player_0"])
    assert hand_points[0] == result.points[0] - result.points[1]


def test_an_illegal_action_raises_unwrapped_and_ends_the_episode_wrapped() -> None:
    bare = raw_env()
    bare.reset(seed=3)
    illegal = next(i for i, ok in enumerate(bare.observe(bare.agent_selection)["action_mask"])
                   if not ok)
    with pytest.raises(IllegalActionError):
        bare.step(illegal)
    single = SingleSeatEnv(seat=0)
    observation, _ = single.reset(seed=3)
    illegal = int(np.flatnonzero(observation["action_mask"] == 0)[0])
    _, reward, terminated, _, info = single.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, illegal)


def test_classic_profile_and_hand_episodes() -> None:
    environment = raw_env(profile=CLASSIC, episode="hand")
    environment.reset(seed=21)
    pick = random_policy(4)
    steps = 0
    while not all(environment.terminations.values()):
        agent = environment.agent_selection
        view = environment.engine_observation(agent)
        environment.step(action_index(pick(view, environment.series.legal_actions())))
        steps += 1
    assert environment.series.profile == CLASSIC
    assert len(environment.series.hand_results) == 1 and steps > 0


def play_logged_series(seed: int, swap: bool) -> Series:
    series = Series(seed, FRIENDLY, max_hands=10, swap_seats=swap)
    pick = random_policy(seed)
    while not series.is_over:
        seat = series.current_player
        assert seat is not None
        choices = series.legal_actions()
        view = series.observation(seat)
        series.apply(greedy_policy(view, choices) if seat == 0 else pick(view, choices))
    return series


def test_a_stored_series_replays_to_the_same_result(tmp_path: Path) -> None:
    played = play_logged_series(424242, swap=True)
    exported = tmp_path / "1-0.json"
    exported.write_text(json.dumps({"series": {}, "event_log": played.log}))
    environment = for_stored_series(exported)
    for agent, index in stored_moves(exported):
        assert environment.agent_selection == agent
        assert environment.observe(agent)["action_mask"][index] == 1
        environment.step(index)
    assert environment.series.result == played.result
    assert environment.series.log == played.log
    with pytest.raises(StoredSeriesError, match="does not start with its series_start"):
        for_stored_series({"event_log": played.log[1:]})


@pytest.mark.parametrize("profile", [FRIENDLY, CLASSIC])
def test_the_environments_fast_encoding_is_the_observations_at_every_step(
        profile: Profile) -> None:
    # encode_seat reads the hand and the sheet directly, and an environment's encoder
    # keeps the sheet's features while a hand goes on: both must show exactly what the
    # seat's engine Observation holds, for both seats, at every step of whole series
    steps = 0
    encoder = SeatEncoder()
    for seed in range(4):
        series = Series(seed, profile, max_hands=12, swap_seats=bool(seed % 2))
        pick = random_policy(seed)
        while True:
            for seat in (0, 1):
                expected = encode_observation(series.observation(seat))
                assert np.array_equal(encode_seat(series, seat), expected)
                assert np.array_equal(encoder(series, seat), expected)
            seat_to_act = series.current_player
            if seat_to_act is None:
                break
            view = series.observation(seat_to_act)
            legal = series.legal_actions()
            series.apply(greedy_policy(view, legal) if seed % 2 else pick(view, legal))
            steps += 1
    assert steps > 200


def test_env_checks_as_pettingzoos_board_game_wrappers_do() -> None:
    checked = env()
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        _ = checked.agent_selection
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before step"):
        checked.step(0)
    with pytest.raises(AssertionError, match=r"reset\(\) needs to be called before observe"):
        checked.observe("player_0")
    checked.reset(seed=3)
    with pytest.raises(AssertionError, match="not in action space"):
        checked.step(ACTION_COUNT)
    with pytest.raises(AssertionError, match="not in action space"):
        checked.step(None)
    actor = checked.agent_selection
    other = "player_1" if actor == "player_0" else "player_0"
    illegal = int(np.flatnonzero(checked.observe(actor)["action_mask"] == 0)[0])
    checked.step(np.int64(illegal))
    assert all(checked.terminations.values()) and all(checked.truncations.values())
    assert (checked.rewards[actor], checked.rewards[other]) == (-1.0, 0.0)
    assert checked.series.log[-1]["type"] == "hand_start"  # the move was not applied
    for _ in range(2):
        _, _, terminated, _, _ = checked.last()
        assert terminated
        checked.step(None)
    assert checked.agents == []
