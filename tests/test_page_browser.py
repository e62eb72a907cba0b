"""The page of ``moo page`` in a real headless Chromium, driven as a person would: clicks, keys,
a whole game each way on two games, a lie caught, a screenshot checked. The page's own script
is also checked against the Python rules (codes, feedback, the decoded tree).

Needs the ``playwright`` package (dev extra) and a system Chromium (Debian's ``chromium``;
``MOO_CHROMIUM`` names another binary); without them these tests are skipped, with the reason
in pytest's summary, or fail where ``MOO_REQUIRE_BROWSER`` is set (``.ci/run``). Playwright's
own browser download is never used.
"""

from __future__ import annotations

import json
import os
import random
import shutil
import struct
from pathlib import Path

import pytest

from optimizer.cli.page import Entry, load_entry, write_page
from optimizer.cli.play_text import feedback_text
from optimizer.cli.play_text import named as said
from optimizer.formats.tree_file import write_tree
from optimizer.games import GameError, parse_game, word_game
from optimizer.games.reply import read_reply
from optimizer.search.build import build
from optimizer.search.request import Request
from optimizer.session import Session, Solver, TreeGuesser
from optimizer.tree import Tree

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[1]
TREES = ROOT / "trees"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run"]
PHONE = {"width": 360, "height": 740}
WORD_ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade",
                "naval", "serve", "heath", "dwarf", "model", "karma", "stink", "grade",
                "quiet", "bench", "abbey", "geese"]
WORD_OTHERS = ["salet", "crane", "soare", "lllll"]


def chromium_path() -> str | None:
    named = os.environ.get("MOO_CHROMIUM")
    if named:
        return named if Path(named).is_file() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


def no_browser(reason: str) -> None:
    """Skip, saying why; a failure where a browser is required (.ci/run installs one)."""
    if os.environ.get("MOO_REQUIRE_BROWSER"):
        pytest.fail(f"MOO_REQUIRE_BROWSER is set, but {reason}")
    pytest.skip(f"browser tests skipped: {reason}")


@pytest.fixture(scope="module")
def browser():
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        no_browser("the playwright package is missing (pip install -e '.[dev]')")
    path = chromium_path()
    if path is None:
        no_browser("no Chromium found (apt-get install chromium, or set MOO_CHROMIUM to a "
                   "Chromium binary)")
    with sync_playwright() as driver:
        chromium = driver.chromium.launch(executable_path=path, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def pages(tmp_path_factory, minimax) -> dict[str, tuple[Path, Entry]]:
    """name: (page, tree with its replay), for committed trees of every family and two small
    games."""
    folder = tmp_path_factory.mktemp("pages")
    sources = {
        "bulls-cows": TREES / "bulls-cows-4x10.height.any.json",
        "battleship": TREES / "battleship-4x8x3.height.any.json",
        "bullets-maggots": TREES / "mastermind-4x10.total.any.json",
        "mastermind": TREES / "mastermind-4x6.height+total.consistent.json",
        "moo": TREES / "moo-10_11_12.total.any.json",
    }
    for spec in ("battleship:3x4x2", "moo:3,4,5"):
        game = parse_game(spec)
        path = folder / f"{spec.replace(':', '-')}.json"
        write_tree(Tree(game, minimax(game), objective="minimax"), path)
        sources[spec] = path
    for name, game in (("words", word_game(WORD_ANSWERS, WORD_OTHERS)),
                       ("wordle", parse_game("wordle"))):
        path = folder / f"{name}.minimax.json"
        write_tree(build(Request(game, strategy="minimax")), path)
        sources[name] = path
    out = {}
    for name, source in sources.items():
        entry = load_entry(source)
        out[name] = (folder / f"{source.stem}.html", entry)
        write_page(entry, out[name][0])
    return out


class Person:
    """A browser tab on a page, with everything that must not happen recorded."""

    def __init__(self, browser, page_file: Path, viewport=None, dark: bool = False):
        self.url = page_file.as_uri()
        self.page = browser.new_page(viewport=viewport or {"width": 1000, "height": 900})
        if dark:
            self.page.emulate_media(color_scheme="dark")
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("console", lambda m: m.type == "error" and self.errors.append(m.text))
        self.page.on("request", lambda r: self.requests.append(r.url))
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.page.goto(self.url)
        assert self.page.evaluate("document.body.dataset.ready") == "true", self.errors

    def text(self, selector: str) -> str:
        return self.page.locator(selector).inner_text().strip()

    def texts(self, selector: str) -> list[str]:
        return [t.strip() for t in self.page.locator(selector).all_inner_texts()]

    def focused(self) -> str:
        return self.page.evaluate("document.activeElement && document.activeElement.id")

    def tab_to(self, element_id: str, most: int = 40) -> None:
        """Press Tab until ``element_id`` has the focus, as a keyboard user would."""
        for _ in range(most):
            if self.focused() == element_id:
                return
            self.page.keyboard.press("Tab")
        raise AssertionError(f"Tab never reached #{element_id}")

    def type_line(self, text: str) -> None:
        self.page.keyboard.type(text)
        self.page.keyboard.press("Enter")

    def close(self) -> None:
        self.page.close()
        assert self.errors == []
        assert self.dialogs == []
        assert set(self.requests) <= {self.url}, "the page loaded something"


@pytest.fixture
def person(browser, pages):
    opened: list[Person] = []

    def open_page(name: str, **kwargs) -> Person:
        opened.append(Person(browser, pages[name][0], **kwargs))
        return opened[-1]

    yield open_page
    for tab in opened:
        tab.close()


def expected_status(session: Session) -> str:
    if session.solved:
        return "Solved"
    if session.candidates_left == 1:
        return f"one choice left; it must be {session.candidates[0]}"
    return f"{session.candidates_left} choices left"


def named(game, feedback: str) -> str:
    return f"{feedback} ({' '.join(game.feedback_names)})"


# --- the page's script against the Python rules -------------------------------------------
PAIRS = 3000


@pytest.mark.parametrize("name", ["bulls-cows", "battleship", "bullets-maggots", "mastermind",
                                  "moo", "battleship:3x4x2", "moo:3,4,5", "words", "wordle"])
def test_script_lists_the_codes_and_scores_as_python(person, pages, name):
    tab = person(name)
    tree = pages[name][1].tree
    game = tree.game
    assert tab.page.evaluate("moo.game.spec") == game.spec
    codes = tab.page.evaluate("moo.game.codes.map((_, i) => moo.game.format(i)).join('\\n')")
    assert codes.split("\n") == [game.format_code(i) for i in range(game.n_codes)]
    rng = random.Random(name)
    if game.n_codes ** 2 <= 4 * PAIRS:
        pairs = [(g, s) for g in range(game.n_codes) for s in range(game.n_codes)]
    else:
        pairs = [(rng.randrange(game.n_codes), rng.randrange(game.n_codes)) for _ in range(PAIRS)]
    scored = tab.page.evaluate("pairs => JSON.stringify(pairs.map(([g, s]) => moo.feedback(g, s)))",
                               pairs)
    assert json.loads(scored) == [game.feedback(g, s) for g, s in pairs]
    # typed codes are read as Python reads them, and refused with the same words
    sample = [rng.randrange(game.n_codes) for _ in range(50)]
    texts = [retyped(game.format_code(i)) for i in sample]
    parsed = tab.page.evaluate("ts => ts.map(t => moo.game.parseCode(t))", texts)
    assert parsed == [game.parse_code(t) for t in texts]
    # the decoded tree is the file's tree, node by node
    walked = tab.page.evaluate("""() => {
        const out = [], stack = [moo.root];
        while (stack.length) {
            const node = stack.pop();
            out.push([node.guess, Array.from(node.next.keys())]);
            Array.from(node.next.values()).reverse().forEach(c => stack.push(c));
        }
        return JSON.stringify(out);
    }""")
    expected, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        expected.append([node.guess, list(node.next)])
        stack.extend(reversed(list(node.next.values())))
    assert json.loads(walked) == expected


def retyped(code: str) -> str:
    """The code as a person may type it: squares in any order and lower case, symbols apart."""
    if code[0].isalpha():
        return " ".join(reversed(code.split())).lower()
    return ", ".join(code.split()) if " " in code else " ".join(code)


def test_script_refuses_bad_codes_with_pythons_words(person):
    tab = person("battleship")
    refuse = "t => { try { moo.game.parseCode(t); return null } catch (e) { return e.message } }"
    assert tab.page.evaluate(refuse, "A1 A1 B2") == "'A1 A1 B2': the squares of a guess must be " \
        "different"
    assert tab.page.evaluate(refuse, "A1 B2 J9") == "'J9' is not a square of battleship:4x8x3 " \
        "(A1 to H4)"
    tab = person("bulls-cows")
    assert tab.page.evaluate(refuse, "1123") == ("'1123' is not a code of bulls-cows:4x10: "
                                                 "4 symbols from 0 to 9, all different")


TYPED = [
    ("1 2", (1, 2)), ("1,2", (1, 2)), ("(1, 2)", (1, 2)), ("12", (1, 2)), (" 0 0 ", (0, 0)),
    ("w", (4, 0)), ("W", (4, 0)), ("4 0", (4, 0)),
    ("-1 2", "should be 2 numbers"), ("1 2 apples", "should be 2 numbers"),
    ("1e2", "should be 2 numbers"), ("1b2c", "should be 2 numbers"), ("", "should be 2 numbers"),
    ("5 0", "between 0 and 4"), ("3 2", "add up to more than 4"), ("9" * 400, "should be 2"),
]


def test_script_reads_typed_feedback_strictly(person):
    tab = person("bulls-cows")
    read = ("ts => ts.map(t => { try { return moo.game.counts(moo.game.parseFeedback(t)) } "
            "catch (e) { return e.message } })")
    got = tab.page.evaluate(read, [typed for typed, _ in TYPED])
    for (typed, expected), answer in zip(TYPED, got, strict=True):
        if isinstance(expected, tuple):
            assert tuple(answer) == expected, typed
        else:
            assert expected in answer, typed


# --- the computer guesses the person's secret ---------------------------------------------
def test_computer_guesses_with_buttons_bulls_and_cows(person, pages):
    tab = person("bulls-cows")
    solver = Solver(pages["bulls-cows"][1].tree)
    session, secret = solver.new_game(), "3290"
    assert tab.text("#maker-status") == "5040 possible secrets"
    while not session.solved:
        assert tab.text("#maker-guess") == session.guess
        assert tab.text("#maker-number") == f"Guess {session.guesses + 1}"
        reply = session.answer_for(secret)
        tab.page.click(f'#maker-buttons button[data-feedback="{reply}"]')
        assert tab.text("#maker-status") == expected_status(session)
    assert tab.text("#maker-message") == (f"Solved: your secret is 3290, found in "
                                          f"{session.guesses} guesses.")
    assert len(tab.texts("#maker-history li")) == session.guesses
    assert tab.focused() == "maker-new"


def test_computer_guesses_by_keyboard_battleship(person, pages):
    tab = person("battleship")
    solver = Solver(pages["battleship"][1].tree)
    game = solver.game
    session, secret = solver.new_game(), "A1 B3 D2"
    tab.tab_to("maker-input")
    tab.type_line("3 1")
    assert tab.text("#maker-message") == ("I do not understand that: feedback '3 1' should be "
                                          "3 numbers (exact one-away two-away).")
    tab.page.keyboard.press("Control+A")
    tab.page.keyboard.press("Delete")
    while not session.solved:
        assert tab.focused() == "maker-input"
        assert tab.text("#maker-guess") == session.guess
        reply = session.answer_for(secret)
        tab.type_line("w" if session.solved else reply.replace(" ", ""))  # compact, as 021
        assert tab.text("#maker-status") == expected_status(session)
    assert tab.text("#maker-message") == (f"Solved: your secret is {secret}, found in "
                                          f"{session.guesses} guesses.")
    assert session.guesses <= 6 and game.spec == "battleship:4x8x3"
    assert tab.focused() == "maker-new"
    tab.page.keyboard.press("Enter")  # New game
    assert tab.text("#maker-guess") == solver.new_game().guess
    assert tab.focused() == "maker-input"


def test_lying_answer_caught_and_named(person, pages):
    from helpers import a_lie

    tab = person("bulls-cows")
    solver = Solver(pages["bulls-cows"][1].tree)
    game = solver.game
    session, secret = solver.new_game(), "1234"
    tab.page.click(f'#maker-buttons button[data-feedback="{session.answer_for(secret)}"]')
    guess, lie = game.parse_code(session.guess), a_lie(session)
    truth = game.format_feedback(game.feedback(guess, game.parse_code(secret)))
    tab.page.fill("#maker-input", "3 1")  # typed, a feedback no code gives
    tab.page.press("#maker-input", "Enter")
    assert tab.text("#maker-message") == (f"3 1 cannot happen: no code of bulls-cows:4x10 gives "
                                          f"that to {session.guess}. Please check it and answer "
                                          "again.")
    tab.page.click(f'#maker-buttons button[data-feedback="{lie}"]')
    session.answer(lie)
    assert session.contradiction
    assert tab.text("#maker-message") == ("That cannot be: no secret agrees with all your "
                                          "answers, so one of them is wrong.")
    assert tab.page.is_visible("#maker-secret-form") and tab.focused() == "maker-secret"
    assert not tab.page.is_visible("#maker-buttons")
    tab.type_line("1123")
    assert tab.text("#maker-message").startswith("That is not a valid code: '1123' is not a code")
    tab.page.fill("#maker-secret", "")
    tab.type_line(secret)
    assert tab.text("#maker-message") == "You say your secret is 1234."
    wrong = session.wrong_answers(secret)
    assert [(w.guess, w.given, w.truth) for w in wrong] == [(game.format_code(guess), lie, truth)]
    assert tab.texts("#maker-wrong li") == [  # the terminal player's words
        f"When I guessed {w.guess} you replied {named(game, w.given)} but in fact it is "
        f"{named(game, w.truth)}." for w in wrong]
    tab.page.click("#maker-undo")  # take the lie back: the same guess is asked again
    assert tab.text("#maker-guess") == game.format_code(guess)
    assert tab.texts("#maker-wrong li") == [] and tab.text("#maker-message") == ""


# --- the person guesses the computer's secret ---------------------------------------------
def play_breaker(tab: Person, tree: Tree, keyboard: bool) -> Session:
    """Guess the page's secret with the stored tree's own guesses: the page must solve in
    exactly the tree's number of guesses for that secret, and say so."""
    session = Session(tree.game, TreeGuesser(tree))
    while not session.solved:
        guess = session.guess
        if keyboard:
            assert tab.focused() == "breaker-input"
            tab.type_line(guess)
        else:
            tab.page.fill("#breaker-input", guess)
            tab.page.click("#breaker-form button")
        number, shown, feedback, left = tab.texts("#breaker-history tr")[-1].split("\t")
        session.answer(feedback)
        assert (int(number), shown, int(left)) == (session.guesses, guess,
                                                  session.candidates_left)
    k = session.guesses
    assert tab.text("#breaker-message") == (
        f"{named(tree.game, tree.game.format_feedback(tree.game.win))}: solved! The secret is "
        f"{session.secret}; you found it in {k} guesses. The stored strategy needs {k} guesses "
        "for this secret.")
    assert not tab.page.is_visible("#breaker-form")
    return session


def guess_without_solving(tab: Person, guesses: list[str], keyboard: bool = False) -> None:
    """Make these guesses in one game that stays open. The page draws its secret at random,
    so one of them is the secret now and then (0.06% for three Bulls and Cows guesses): then
    draw a new secret and make them again."""
    for _ in range(3):
        for guess in guesses:
            tab.page.fill("#breaker-input", guess)
            if keyboard:
                tab.page.press("#breaker-input", "Enter")
            else:
                tab.page.click("#breaker-form button")
            if not tab.page.is_visible("#breaker-form"):
                tab.page.click("#breaker-new")
                break
        else:
            return
    raise AssertionError(f"{guesses} solved three new secrets in a row")


def test_person_guesses_with_the_mouse_bulls_and_cows(person, pages):
    tab = person("bulls-cows")
    tab.page.click("#mode-breaker")
    assert tab.page.is_visible("#breaker") and not tab.page.is_visible("#maker")
    tab.page.fill("#breaker-input", "1123")
    tab.page.click("#breaker-form button")
    assert tab.text("#breaker-message") == ("Not a valid guess: '1123' is not a code of "
                                            "bulls-cows:4x10: 4 symbols from 0 to 9, all "
                                            "different.")
    assert tab.texts("#breaker-history tr") == []
    play_breaker(tab, pages["bulls-cows"][1].tree, keyboard=False)
    tab.page.click("#breaker-new")
    guess_without_solving(tab, ["0123"])
    tab.page.click("#breaker-give-up")
    assert tab.text("#breaker-message").startswith("The secret was ")
    assert tab.text("#breaker-message").endswith("; you made 1 guess.")


def test_breaker_consistent_guesses_only(person, pages):
    """"Only codes that fit": a guess that cannot be the secret is refused with the terminal
    player's words and does not count; the hard-mode choice is a word game's only."""
    tab = person("bulls-cows")
    game = pages["bulls-cows"][1].tree.game
    tab.page.click("#mode-breaker")
    assert tab.page.eval_on_selector_all("#breaker-rule option", "os => os.map(o => o.value)") \
        == ["any", "consistent"]
    tab.page.select_option("#breaker-rule", "consistent")
    tab.page.fill("#breaker-input", "0123")
    tab.page.click("#breaker-form button")
    shown = tab.texts("#breaker-history tr")[-1].split("\t")[2]  # "0 1" or "4 0"
    reply = game.parse_feedback(shown)
    if reply == game.win:
        return  # drawn 0123 itself: nothing is left to refuse
    misfit = next(c for c in range(game.n_codes)
                  if game.feedback(game.parse_code("0123"), c) != reply)
    tab.page.fill("#breaker-input", game.format_code(misfit))
    tab.page.click("#breaker-form button")
    assert tab.text("#breaker-message") == (
        f"Not allowed (consistent guesses only): it cannot be the secret, as 0123 got "
        f"{feedback_text(game, reply)}.")
    assert len(tab.texts("#breaker-history tr")) == 1


def test_breaker_rule_is_kept_for_a_whole_game(person):
    """The rule is chosen before the first guess and fixed until a new secret; the end of the
    game says which rule held the guesses."""
    tab = person("bulls-cows")
    tab.page.click("#mode-breaker")
    tab.page.select_option("#breaker-rule", "consistent")
    assert not tab.page.is_disabled("#breaker-rule")
    tab.page.fill("#breaker-input", "0123")
    tab.page.click("#breaker-form button")
    assert tab.page.is_disabled("#breaker-rule")
    assert tab.page.is_visible("#breaker-rule-fixed")
    assert tab.page.get_attribute("#breaker-rule", "aria-describedby") == "breaker-rule-fixed"
    tab.page.click("#breaker-give-up")
    assert tab.text("#breaker-message").endswith(
        "; you made 1 guess (consistent guesses only).") or "solved" in tab.text(
        "#breaker-message")
    tab.page.click("#breaker-new")
    assert not tab.page.is_disabled("#breaker-rule")
    assert not tab.page.is_visible("#breaker-rule-fixed")
    assert tab.page.get_attribute("#breaker-rule", "aria-describedby") is None


def test_breaker_consistent_word_game_guesses_only_answers(person, pages):
    tab = person("words")
    game = pages["words"][1].tree.game
    tab.page.click("#mode-breaker")
    tab.page.select_option("#breaker-rule", "consistent")
    never = next(w for w in range(game.n_secrets, game.n_codes))  # allowed, never the answer
    tab.page.fill("#breaker-input", game.format_code(never))
    tab.page.click("#breaker-form button")
    assert tab.text("#breaker-message") == (
        "Not allowed (consistent guesses only): it cannot be the secret: it is not one of the "
        f"{game.n_secrets:,} answers.")
    assert tab.texts("#breaker-history tr") == []


def test_breaker_hard_mode_on_wordle(person, pages):
    """Hard mode: a word that drops a hint (Python's words.keeps_hints says which) is refused
    and does not count; one that keeps them is played."""
    tab = person("wordle")
    game = pages["wordle"][1].tree.game
    tab.page.click("#mode-breaker")
    tab.page.select_option("#breaker-rule", "hard")
    for opening in ("salet", "crony", "humid", "blimp"):  # until some letter is not grey
        tab.page.fill("#breaker-input", opening)
        tab.page.click("#breaker-form button")
        shown = tab.texts("#breaker-history tr")[-1].split("\t")[2]
        reply = game.parse_feedback(shown)
        if any(game.feedback_counts(reply)):
            break
    if reply == game.win:
        return
    earlier = game.parse_code(opening)
    dropped = next(w for w in range(game.n_codes) if not game.keeps_hints(earlier, reply, w))
    kept = next(w for w in range(game.n_codes) if game.keeps_hints(earlier, reply, w))
    rows = len(tab.texts("#breaker-history tr"))
    tab.page.fill("#breaker-input", game.format_code(dropped))
    tab.page.click("#breaker-form button")
    assert tab.text("#breaker-message") == (
        f"Not allowed (hard mode): {opening} got {feedback_text(game, reply)}, so "
        f"{game.dropped_hint(earlier, reply, dropped)}.")  # words.js's twin says the same
    yellow = next((w for w in range(game.n_codes)  # a letter to use again, when there is one
                   if (game.dropped_hint(earlier, reply, w) or "").startswith("it must")), None)
    if yellow is not None:
        tab.page.fill("#breaker-input", game.format_code(yellow))
        tab.page.click("#breaker-form button")
        assert tab.text("#breaker-message").endswith(
            f", so {game.dropped_hint(earlier, reply, yellow)}.")
    assert len(tab.texts("#breaker-history tr")) == rows
    tab.page.fill("#breaker-input", game.format_code(kept))
    tab.page.click("#breaker-form button")
    assert len(tab.texts("#breaker-history tr")) == rows + 1


def test_person_guesses_by_keyboard_battleship(person, pages):
    tab = person("battleship")
    tab.tab_to("mode-breaker")
    tab.page.keyboard.press("Enter")
    assert tab.page.get_attribute("#mode-breaker", "aria-pressed") == "true"
    assert tab.focused() == "breaker-input"
    session = play_breaker(tab, pages["battleship"][1].tree, keyboard=True)
    assert session.guesses <= 6
    assert tab.focused() == "breaker-new"


# --- what a person sees -------------------------------------------------------------------
CONTRAST = """() => {
    const rgb = s => s.match(/[\\d.]+/g).map(Number);
    const background = el => {
        for (; el; el = el.parentElement) {
            const c = rgb(getComputedStyle(el).backgroundColor);
            if (c.length < 4 || c[3] > 0) return c.slice(0, 3);
        }
        return [255, 255, 255];
    };
    const pick = '#title, .lead, .hint, #maker-status, #maker-guess, label, button:not([hidden]),'
        + ' .facts dt, .facts dd, .chart td, .chart th, .small';
    return Array.from(document.querySelectorAll(pick))
        .filter(el => el.offsetParent !== null)
        .map(el => [el.id || el.className || el.tagName,
                    rgb(getComputedStyle(el).color).slice(0, 3), background(el)]);
}"""


def luminance(rgb) -> float:
    def channel(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a, b) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


@pytest.mark.parametrize("dark", [False, True])
def test_text_has_readable_contrast(person, dark):
    tab = person("bulls-cows", dark=dark)
    pairs = tab.page.evaluate(CONTRAST)
    assert len(pairs) > 20
    low = [(name, fg, bg) for name, fg, bg in pairs if contrast(fg, bg) < 4.5]
    assert low == []  # WCAG AA for normal text


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


def test_phone_screenshot_shows_the_key_elements(person, pages, tmp_path):
    tab = person("bulls-cows", viewport=PHONE)
    game = parse_game("bulls-cows")
    tab.page.click('#maker-buttons button[data-feedback="0 2"]')
    shot = tmp_path / "phone.png"
    data = tab.page.screenshot(path=str(shot), full_page=True)
    width, height = png_size(data)
    assert width == PHONE["width"] and height > PHONE["height"]
    assert shot.stat().st_size > 20_000  # a drawn page, not a blank one
    page = tab.page
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    for selector in ("#title", "#mode-maker", "#mode-breaker", "#maker-guess", "#maker-input",
                     "#maker-buttons", "#maker-status", "#maker-history", "#about", "#chart"):
        box = page.locator(selector).bounding_box()
        assert box and box["width"] > 0 and box["height"] > 0, selector
        assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"] + 0.5, selector
    assert page.locator("#title").inner_text().startswith("Bulls and Cows (4 of 10)")
    assert tab.text("#maker-status") == "1260 choices left"
    guess = game.parse_code(tab.text("#maker-guess"))
    possible = sorted({game.feedback(guess, c) for c in range(game.n_codes)})
    assert tab.texts("#maker-buttons button:visible") == [
        game.format_feedback(f) + (" ✓" if f == game.win else "")
        for f in [*(f for f in possible if f != game.win), game.win]]
    buttons = page.locator("#maker-buttons button:visible")
    assert all(buttons.nth(i).bounding_box()["height"] >= 44 for i in range(buttons.count()))
    facts = dict(zip(tab.texts(".facts dt"), tab.texts(".facts dd"), strict=True))
    result = pages["bulls-cows"][1].result
    assert facts["Proven optimal"].startswith("yes")
    assert facts["Worst case"] == f"{result.height} guesses"
    assert facts["Average"].startswith(f"{result.average:.4f} guesses")
    rows = tab.texts("#chart tbody tr")
    assert [r.split("\t")[:2] for r in rows] == [
        [str(k), f"{v} ({100 * v / result.secrets:.1f}%)".replace("(0.0%)", "(<0.1%)")]
        for k, v in sorted(result.histogram.items())]
    page.click("#mode-breaker")  # the other way fits the phone too
    guess_without_solving(tab, ["0123", "4567", "8901"], keyboard=True)
    assert len(tab.texts("#breaker-history tr")) == 3
    assert page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    page.screenshot(path=str(tmp_path / "phone-breaker.png"))


def test_hostile_tree_runs_no_injected_script(browser, tmp_path):
    from helpers import HOSTILE, hostile_tree

    page_file = tmp_path / "hostile.html"
    write_page(load_entry(hostile_tree(TREES / "mastermind-4x6.total.any.json", tmp_path)),
               page_file)
    tab = Person(browser, page_file)
    assert tab.page.evaluate("window.pwned") is None
    facts = dict(zip(tab.texts(".facts dt"), tab.texts(".facts dd"), strict=True))
    shown = HOSTILE.rsplit("/", 1)[-1]  # the checkpoint's file name, as text
    assert f"(taken from {shown}, not re-checked" in facts["Proven optimal"]
    assert tab.text("#maker-guess") == Solver.load(TREES / "mastermind-4x6.total.any.json") \
        .new_game().guess  # and it still plays
    tab.close()


# --- word games: the guess as tiles, coloured by clicks ------------------------------------
def tile_marks(tab: Person) -> list[str]:
    return [b.get_attribute("data-mark") for b in tab.page.locator("#maker-tiles button").all()]


def colour_tiles(tab: Person, marks: tuple[int, ...]) -> None:
    """Click each tile until it shows its mark (grey 0 -> yellow 1 -> green 2 -> grey)."""
    tiles = tab.page.locator("#maker-tiles button")
    for i, mark in enumerate(marks):
        for _ in range(mark):
            tiles.nth(i).click()
    assert tile_marks(tab) == [str(m) for m in marks]


WORD_TYPED = ["gybbb", "GYBBB", "21000", "2 1 0 0 0", "2,1,0,0,0", "\U0001f7e9\U0001f7e8\u2b1b"
              "\u2b1b\u2b1b", "\U0001f7e9\ufe0f\U0001f7e8\u2b1b\u2b1c\u2b1b", "gy.xb",
              "\U0001f7e7\U0001f7e6bbb", "w", "y", "ggggg", "nothing", "gyb", "gybbbb", "gyzbb",
              "21 000", "", "3 0 0 0 0"]


def test_word_script_reads_typed_marks_as_python(person, pages):
    tab = person("words")
    game = pages["words"][1].tree.game
    read = ("ts => ts.map(t => { try { return moo.game.parseFeedback(t) } "
            "catch (e) { return null } })")
    expected = []
    for text in WORD_TYPED:
        try:
            expected.append(read_reply(game, text))
        except ValueError:
            expected.append(None)
    assert tab.page.evaluate(read, WORD_TYPED) == expected
    assert expected.count(None) == 6


def test_word_game_played_to_a_win_by_clicking_tiles(person, pages):
    tab = person("words")
    solver = Solver(pages["words"][1].tree)
    game = solver.game
    assert tab.page.is_visible("#maker-tiles") and not tab.page.is_visible("#maker-buttons")
    assert tab.page.is_visible("#contrast")
    assert tab.text("#maker-status") == "20 possible secrets"
    session, secret = solver.new_game(), "geese"
    while not session.solved:
        guess = session.guess
        assert tab.page.locator("#maker-guess").text_content() == guess
        assert [t.lower() for t in tab.texts("#maker-tiles button")] == list(guess)
        assert tile_marks(tab) == ["0"] * 5  # each new guess starts grey
        label = tab.page.get_attribute("#maker-tiles button >> nth=0", "aria-label")
        assert label == f"{guess[0].upper()}, letter 1 of 5: grey: not in the word"
        reply = session.answer_for(secret)
        if session.solved:
            tab.page.click("#maker-all-green")
            break
        colour_tiles(tab, game.feedback_counts(game.parse_feedback(reply)))
        tab.page.click("#maker-submit")
        assert tab.text("#maker-status") == expected_status(session)
        left = session.candidates
        if 1 < len(left) <= 20:
            assert tab.text("#maker-left") == f"The secrets left: {', '.join(left)}."
    assert tab.text("#maker-message") == (f"Solved: your secret is {secret}, found in "
                                          f"{session.guesses} guesses.")
    history = tab.texts("#maker-history li")
    assert history[0].startswith(f"{session.rounds[0].guess} → {session.rounds[0].feedback} (")
    assert tab.focused() == "maker-new"


def test_word_tiles_by_keyboard_and_an_impossible_answer(person, pages):
    tab = person("words")
    solver = Solver(pages["words"][1].tree)
    game = solver.game
    guess = solver.new_game().guess
    first = tab.page.locator("#maker-tiles button").nth(0)
    first.focus()
    for key in ("g", "ArrowRight", "y", "ArrowRight", "Enter", "Enter", "Enter"):
        tab.page.keyboard.press(key)  # Enter cycles: grey -> yellow -> green -> grey
    assert tile_marks(tab) == ["2", "1", "0", "0", "0"]
    gid = game.parse_code(guess)
    marks = (2, 1, 0, 0, 0)
    assert all(game.feedback(gid, s) != game.feedback_id(marks) for s in range(game.n_secrets))
    tab.page.click("#maker-submit")
    shown = " ".join(map(str, marks))
    assert tab.text("#maker-message") == (f"{shown} cannot happen: no answer of words gives "
                                          f"that to {guess}. Please check it and answer again.")
    assert tile_marks(tab) == ["2", "1", "0", "0", "0"]  # kept, to be corrected
    # answers that some word gives, but that no secret fits together: caught, then named
    session, secret = solver.new_game(), "cigar"
    session.answer_for(secret)
    from helpers import a_lie

    tab.page.fill("#maker-input", session.rounds[0].feedback.replace(" ", ""))
    tab.page.press("#maker-input", "Enter")
    lie = a_lie(session)
    session.answer(lie)
    assert session.contradiction
    colour_tiles(tab, game.feedback_counts(game.parse_feedback(lie)))
    tab.page.click("#maker-submit")
    assert tab.text("#maker-message") == ("That cannot be: no secret agrees with all your "
                                          "answers, so one of them is wrong.")
    assert not tab.page.is_visible("#maker-tiles")
    only_guessed = game.format_code(game.n_secrets)  # an allowed guess, no answer
    tab.type_line(only_guessed)
    with pytest.raises(GameError) as refusal:
        game.parse_secret(only_guessed)
    assert tab.text("#maker-message") == f"That is not a valid code: {refusal.value}."
    tab.page.fill("#maker-secret", "")
    tab.type_line(secret)
    assert tab.texts("#maker-wrong li") == [
        f"When I guessed {w.guess} you replied {said(game, w.given)} but in fact it is "
        f"{said(game, w.truth)}." for w in session.wrong_answers(secret)]


def test_wordle_both_ways(person, pages):
    tab = person("wordle", viewport=PHONE)
    tree = pages["wordle"][1].tree
    game = tree.game
    session, secret = Solver(tree).new_game(), "cigar"
    assert tab.text("#maker-status") == "2315 possible secrets"
    while not session.solved:
        reply = session.answer_for(secret)
        colour_tiles(tab, game.feedback_counts(game.parse_feedback(reply)))
        tab.page.click("#maker-submit")
        assert tab.text("#maker-status") == expected_status(session)
    assert tab.text("#maker-message").startswith("Solved: your secret is cigar, found in ")
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    tab.page.click("#contrast")  # the high-contrast colours: orange for green
    assert tab.page.evaluate("document.body.classList.contains('high-contrast')")
    tab.page.click("#mode-breaker")
    tab.page.fill("#breaker-input", "xxxxx")
    tab.page.press("#breaker-input", "Enter")
    assert tab.text("#breaker-message").startswith("Not a valid guess: 'xxxxx' is not a code of "
                                                   "wordle")
    player = Session(game, TreeGuesser(tree))
    while not player.solved:  # the tree's own guesses, words that are no answer included
        tab.page.fill("#breaker-input", player.guess)
        tab.page.press("#breaker-input", "Enter")
        row = tab.page.locator("#breaker-history tr").last
        cells = row.locator("td")
        assert cells.nth(1).text_content() == player.guess
        marks = cells.nth(1).locator(".tile")
        feedback = cells.nth(2).text_content()
        assert [marks.nth(i).get_attribute("data-mark") for i in range(5)] == feedback.split()
        player.answer(feedback)
        assert int(cells.nth(3).text_content()) == player.candidates_left
    k = player.guesses
    assert tab.text("#breaker-message").endswith(
        f"you found it in {k} guess{'es' if k > 1 else ''}. The stored strategy needs "
        f"{k} guess{'es' if k > 1 else ''} for this secret.")
    assert tab.page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]


@pytest.mark.parametrize("dark", [False, True])
@pytest.mark.parametrize("high", [False, True])
def test_tiles_have_readable_contrast(person, pages, dark, high):
    tab = person("words", dark=dark)
    if high:
        tab.page.click("#contrast")
    tiles = tab.page.locator("#maker-tiles button")
    tiles.nth(1).click()
    tiles.nth(2).click()
    tiles.nth(2).click()
    pairs = tab.page.evaluate("""() => Array.from(document.querySelectorAll('#maker-tiles button'))
        .map(el => [getComputedStyle(el).color, getComputedStyle(el).backgroundColor]
        .map(s => s.match(/[\\d.]+/g).map(Number).slice(0, 3)))""")
    assert len({tuple(bg) for _, bg in pairs}) == 3  # grey, yellow, green
    assert all(contrast(fg, bg) >= 4.5 for fg, bg in pairs)
