"""docs/rules.md cannot drift from the engine: every ```example box of the page is
replayed through the engine (min_deadwood and best_arrangement, best_discards,
settle under each profile named, ScoreSheet) and must give the numbers the page
states; the profile table must list exactly the engine's settings with their values;
every `docs/rules.md#<section>` cited in the project must name a heading of the page.

The numbers in the page were worked out by hand from the rule text; the test also
re-adds each deadwood example's card values with a plain reading of the rules
written here, so the page's arithmetic is checked twice."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import pytest

from engine import (
    ALL_CARDS,
    CLASSIC,
    FRIENDLY,
    Action,
    ActionKind,
    Deal,
    Hand,
    Profile,
    ScoreSheet,
    best_arrangement,
    best_discards,
    get_profile,
    min_deadwood,
    parse_cards,
    settle,
)
from engine.cards import Card

ROOT = Path(__file__).resolve().parents[2]
RULES_DOC = ROOT / "docs" / "rules.md"
TEXT = RULES_DOC.read_text(encoding="utf-8")
RANKS = "A23456789TJQK"


@dataclass(frozen=True)
class Example:
    title: str
    lines: tuple[tuple[str, str], ...]

    def get(self, key: str) -> str:
        values = [value for name, value in self.lines if name == key]
        assert len(values) == 1, f"{self.title}: expected one '{key}:' line, got {values}"
        return values[0]

    def has(self, key: str) -> bool:
        return any(name == key for name, _ in self.lines)


def parse_examples(text: str) -> list[Example]:
    examples = []
    title = ""
    lines = iter(text.splitlines())
    for line in lines:
        if line.startswith("#"):
            title = line.lstrip("#").strip()
        if line.strip() != "```example":
            continue
        body = []
        for inner in lines:
            if inner.strip() == "```":
                break
            key, sep, value = inner.partition(":")
            assert sep, f"{title}: an example line must be 'key: value', got {inner!r}"
            body.append((key.strip(), value.strip()))
        examples.append(Example(title, tuple(body)))
    return examples


EXAMPLES = parse_examples(TEXT)


def kind_of(example: Example) -> str:
    if example.has("non-dealer"):
        return "turn"
    if example.has("hand"):
        return "deadwood"
    if example.has("knocker"):
        return "settlement"
    return "sheet"


def examples_of(kind: str) -> list[Example]:
    return [example for example in EXAMPLES if kind_of(example) == kind]


def ids(examples: list[Example]) -> list[str]:
    return [f"{index}-{example.title}" for index, example in enumerate(examples)]


def card_set(text: str) -> set[Card]:
    return set() if text == "none" else set(parse_cards(text))


# -- a plain reading of the rules (docs/rules.md#cards, #melds), independent of the engine


def plain_value(card: str) -> int:
    return min(RANKS.index(card[0]) + 1, 10)


def plain_is_meld(cards: list[str]) -> bool:
    ranks = sorted(RANKS.index(card[0]) for card in cards)
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    if len(cards) <= 4 and len(set(ranks)) == 1:
        return True
    one_suit = len({card[1] for card in cards}) == 1
    return one_suit and ranks == list(range(ranks[0], ranks[0] + len(cards)))


# -- the page's examples


def test_the_page_has_every_kind_of_example_the_rules_need() -> None:
    titles = {example.title for example in EXAMPLES}
    assert {"The first turn", "An ace-low run", "No wrap-around", "Set or run",
            "A knock with layoffs", "An undercut (and friendly against classic)", "Gin",
            "A whole series", "A series stopped by the hand cap"} <= titles
    undercuts = [example for example in examples_of("settlement")
                 if example.get("friendly").startswith("undercut")]
    # friendly against classic: the same hands, different points.
    assert any(example.get("friendly") != example.get("classic") for example in undercuts)
    assert any(example.get("laid off") != "none" for example in examples_of("settlement"))


@pytest.mark.parametrize("example", examples_of("deadwood"), ids=ids(examples_of("deadwood")))
def test_deadwood_examples(example: Example) -> None:
    hand = example.get("hand").split()
    melds = [meld.split() for meld in example.get("melds").split("|")]
    deadwood = int(example.get("deadwood"))
    # The page's own arithmetic, by the plain reading.
    assert all(plain_is_meld(meld) for meld in melds), melds
    melded = [card for meld in melds for card in meld]
    assert len(set(melded)) == len(melded) and set(melded) <= set(hand)
    assert sum(plain_value(card) for card in hand if card not in melded) == deadwood
    # The engine agrees on the count and on the arrangement.
    assert min_deadwood(parse_cards(" ".join(hand))) == deadwood
    engine_deadwood, engine_melds = best_arrangement(parse_cards(" ".join(hand)))
    assert engine_deadwood == deadwood
    assert {frozenset(meld) for meld in engine_melds} == {
        frozenset(parse_cards(" ".join(meld))) for meld in melds}


def first_turn(example: Example, profile: Profile) -> Hand:
    """A hand whose non-dealer (seat 0) holds the example's cards, with its upcard;
    the dealer and the stock get the other cards (they play no part)."""
    own = parse_cards(example.get("non-dealer"))
    upcard = parse_cards(example.get("upcard"))[0]
    others = [card for card in ALL_CARDS if card not in own and card != upcard]
    deal = Deal((tuple(own), tuple(others[:10])), upcard, tuple(others[10:]))
    return Hand(deal, dealer=1, profile=profile)


def cards_of(actions: list[Action], kind: ActionKind) -> set[str]:
    return {str(action.card) for action in actions if action.kind is kind}


@pytest.mark.parametrize("example", examples_of("turn"), ids=ids(examples_of("turn")))
def test_first_turn_examples(example: Example) -> None:
    assert example.get("offered first to") == "non-dealer"
    for name in ("friendly", "classic"):
        hand = first_turn(example, get_profile(name))
        assert hand.current_player == 0 and hand.legal_actions() == [
            Action.draw_discard(), Action.pass_()]
        hand.apply(Action.draw_discard())
        actions = hand.legal_actions()
        assert cards_of(actions, ActionKind.DISCARD) == set(example.get(
            f"after taking it, {name} may discard").split())
        assert cards_of(actions, ActionKind.KNOCK) == set(example.get(
            f"after taking it, {name} may knock with").split())
    hand = first_turn(example, FRIENDLY)
    hand.apply(Action.pass_())
    assert hand.current_player == 1  # then the dealer is offered it
    hand.apply(Action.pass_())
    assert hand.current_player == 0
    assert [str(action) for action in hand.legal_actions()] == [
        example.get("after both pass, the non-dealer may")]


SETTLEMENT_LINE = re.compile(r"^(gin|knock|undercut), (knocker|defender) scores (\d+)$")


@pytest.mark.parametrize("example", examples_of("settlement"),
                         ids=ids(examples_of("settlement")))
def test_settlement_examples(example: Example) -> None:
    knocker = parse_cards(example.get("knocker"))
    defender = parse_cards(example.get("defender"))
    if example.has("drawn hand"):
        drawn = parse_cards(example.get("drawn hand"))
        discard = parse_cards(example.get("best discard"))
        assert set(drawn) - set(discard) == set(knocker)
        assert best_discards(drawn) == (int(example.get("knocker deadwood")), discard)
    profiles = [name for name in ("friendly", "classic") if example.has(name)]
    assert profiles, f"{example.title}: name at least one profile's result"
    for name in profiles:
        match = SETTLEMENT_LINE.match(example.get(name))
        assert match, f"{example.title}: unreadable result {example.get(name)!r}"
        settlement = settle(knocker, defender, get_profile(name))
        assert settlement.kind == match[1], name
        assert settlement.winner == match[2], name
        assert settlement.points == int(match[3]), name
        assert settlement.knocker_deadwood == int(example.get("knocker deadwood"))
        assert settlement.defender_deadwood_before_layoffs == int(
            example.get("defender deadwood before layoffs"))
        assert settlement.defender_deadwood == int(example.get("defender deadwood"))
        laid_off = {card for layoff in settlement.layoffs for card in layoff.cards}
        assert laid_off == card_set(example.get("laid off"))
        if example.has("laid off onto"):  # the meld the engine chose among equal ones
            assert [set(layoff.meld) for layoff in settlement.layoffs] == [
                card_set(example.get("laid off onto"))]


SHEET_WIN = re.compile(r"^(\w+) wins (\d+)$")
SHEET_AFTER = re.compile(r"^(\w+) ([-\d]+ [-\d]+ [-\d]+), (\w+) ([-\d]+ [-\d]+ [-\d]+)$")


def read_row(text: str) -> tuple[tuple[int, ...], tuple[bool, ...]]:
    cells = text.split()
    return (tuple(0 if cell == "-" else int(cell) for cell in cells),
            tuple(cell != "-" for cell in cells))


@pytest.mark.parametrize("example", examples_of("sheet"), ids=ids(examples_of("sheet")))
def test_score_sheet_examples(example: Example) -> None:
    profile = get_profile(example.get("profile"))
    sheet = ScoreSheet(profile.game_target)
    players: list[str] = []
    wins = 0
    for key, value in example.lines:
        win = SHEET_WIN.match(key)
        if not win:
            continue
        after = SHEET_AFTER.match(value)
        assert after, f"unreadable sheet line {value!r}"
        if not players:
            players = [after[1], after[3]]
        assert [after[1], after[3]] == players
        sheet.record_win(players.index(win[1]), int(win[2]))
        wins += 1
        for seat, row in ((0, after[2]), (1, after[4])):
            scores, opened = read_row(row)
            assert sheet.scores(seat) == scores, (key, players[seat])
            assert sheet.opened(seat) == opened, (key, players[seat])
    assert wins >= 4

    def name(seat: int | None) -> str:
        return "nobody" if seat is None else players[seat]

    if example.has("games won by"):
        assert sheet.is_over
        assert ", ".join(name(sheet.game_winner(game)) for game in range(3)) == example.get(
            "games won by")
        assert name(sheet.winner) == example.get("series won by")
    else:
        assert not sheet.is_over
        award = sheet.award_at_cap()
        assert ", ".join(map(name, award.game_winners)) == example.get(
            "at the hand cap, games won by")
        assert name(award.winner) == example.get("series won by")


# -- the profile table


def profile_table() -> dict[str, tuple[str, str]]:
    section = TEXT.split("\n## Profiles\n", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if line.startswith("| `") and len(cells) == 4:
            rows[cells[0].strip("`")] = (cells[2], cells[3])
    return rows


def rendered(value: object) -> str:
    return str(value).lower() if isinstance(value, bool) else str(value)


def test_the_profile_table_lists_every_setting_with_the_engines_values() -> None:
    table = profile_table()
    settings = [name for name in FRIENDLY.to_dict() if name != "name"]
    assert sorted(table) == sorted(settings)
    for setting, (friendly, classic) in table.items():
        assert rendered(getattr(FRIENDLY, setting)) == friendly, setting
        assert rendered(getattr(CLASSIC, setting)) == classic, setting


def test_the_profile_table_agrees_with_the_rule_text() -> None:
    # Written by hand from the rule text: the two settings tables it gives.
    assert profile_table() == {
        "knock_limit": ("10", "10"), "gin_bonus": ("25", "25"),
        "undercut_bonus": ("25", "10"), "game_target": ("100", "100"),
        "ban_discarding_taken_card": ("true", "false"),
        "dead_hand_redeal_same_dealer": ("false", "true"),
        "winner_deals_next": ("false", "true"),
        "knock_discard_face_down": ("true", "false"),
        "dead_hand_stock_size": ("2", "2"),
    }
    assert Profile(name="x") == FRIENDLY.derive(name="x")  # friendly is the default


# -- citations


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation dropped, spaces to '-'."""
    kept = re.sub(r"[^\w\- ]", "", heading.lower().replace("`", ""))
    return kept.replace(" ", "-")


def heading_anchors(text: str) -> set[str]:
    return {github_slug(line.lstrip("#").strip())
            for line in text.splitlines() if re.match(r"#{1,6} ", line)}


CITED_PLACES = ("README.md", "docs", "sample_bots", "proto", "arena", "engine", "tests",
                "Makefile")
SOURCE_SUFFIXES = {".py", ".md", ".proto", ".js", ".h", ".cc", ".cpp", ".go", ".toml", ".html",
                   ""}


def project_files() -> list[Path]:
    files: list[Path] = []
    for place in CITED_PLACES:
        path = ROOT / place
        candidates = [path] if path.is_file() else path.rglob("*")
        files.extend(file for file in candidates
                     if file.is_file() and file.suffix in SOURCE_SUFFIXES
                     and "node_modules" not in file.parts and "gen" not in file.parts)
    return files


def test_every_citation_of_the_rules_names_a_section_of_docs_rules_md() -> None:
    anchors = heading_anchors(TEXT)
    cited = 0
    for path in project_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for anchor in re.findall(r"rules\.md#([a-z0-9-]+)", text):
            cited += 1
            assert anchor in anchors, f"{path.relative_to(ROOT)} cites unknown #{anchor}"
    assert cited >= 30


def test_nothing_cites_the_rule_text_outside_the_repository() -> None:
    # "RULES.md" and "RULES §n" named a file the repository does not hold.
    stale = re.compile(r"RULES\.md|RULES §|RULES notation|see RULES")
    offenders = [str(path.relative_to(ROOT)) for path in project_files()
                 if "snoop" not in path.parts and path.resolve() != Path(__file__).resolve()
                 and stale.search(path.read_text(encoding="utf-8", errors="replace"))]
    assert offenders == []


def test_the_hand_cap_the_page_states_is_the_default() -> None:
    from arena.core.settings import SeasonConfig
    from engine import DEFAULT_MAX_HANDS

    section = TEXT.split("\n### Hand cap\n", 1)[1].split("\n### ", 1)[0]
    stated = re.search(r"(\d+) by default", section)
    assert stated and int(stated[1]) == 200  # the rule text's default
    assert DEFAULT_MAX_HANDS == 200 and SeasonConfig().max_hands == 200
