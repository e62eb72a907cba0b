"""``moo page``: what the file holds, bad input, hostile trees, the committed pages (no browser;
tests/test_page_browser.py plays the pages in Chromium)."""

from __future__ import annotations

import base64
import hashlib
import re
import subprocess
import sys
from pathlib import Path

import orjson
import pytest
from helpers import hostile_tree

from optimizer.cli.page import load_entry, render_index, render_page, write_pages
from optimizer.cli.page_data import encode_tree
from optimizer.formats.tree_file import read_tree

ROOT = Path(__file__).resolve().parents[1]
TREES = ROOT / "trees"


def moo_page(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "optimizer", "page", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)



def written_page(tree: Path, out: Path, says: str) -> str:
    """``moo page TREE -o OUT``: its one line (``says`` is what it says of the tree), and the
    page's text."""
    proc = moo_page(str(tree), "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert re.fullmatch(rf".*{re.escape(out.name)}: \d+ KB, {re.escape(says)}: average "
                        r"\d\.\d{4}, worst case \d\n", proc.stdout)
    return out.read_text()


def test_moo_page_writes_one_self_contained_file(small_tree_file, tmp_path):
    out = tmp_path / "page.html"
    text = written_page(small_tree_file, out, "bulls-cows:3x5 first-consistent (consistent "
                        "guesses)")
    # nothing to fetch: no address, no src, the only link a data: icon
    assert not re.search(r"https?:|//[a-z]", text.replace("http-equiv", ""))
    assert re.findall(r"\b(?:src|href)=\"([^\"]*)\"", text) == ["data:,"]
    assert [p.name for p in out.parent.iterdir()] == ["page.html"]  # written atomically


def test_policy_allows_only_the_pages_own_script_and_style(small_tree_file):
    text = render_page(load_entry(small_tree_file))
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', text).group(1)
    script = re.search(r"<script>(.*?)</script>", text, re.S).group(1)
    style = re.search(r"<style>(.*?)</style>", text, re.S).group(1)

    def digest(s: str) -> str:
        return base64.b64encode(hashlib.sha256(s.encode()).digest()).decode()

    assert policy.startswith("default-src 'none'; ")
    assert f"script-src 'sha256-{digest(script)}';" in policy
    assert f"style-src 'sha256-{digest(style)}';" in policy
    assert "unsafe" not in policy


def test_the_same_tree_gives_the_same_page(small_tree_file):
    assert render_page(load_entry(small_tree_file)) == render_page(load_entry(small_tree_file))


def test_compact_encoding_size():
    tree = read_tree(TREES / "mastermind-4x10.total.any.json")
    encoded = encode_tree(tree)
    assert (encoded["guess_width"], encoded["feedback_width"]) == (3, 1)
    nodes = encoded["nodes"]
    assert set(nodes) <= set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
    assert len(nodes) < (TREES / "mastermind-4x10.total.any.json").stat().st_size / 5


def test_hostile_tree_text_is_escaped(small_tree_file, tmp_path):
    path = hostile_tree(small_tree_file, tmp_path)
    text = render_page(load_entry(path))
    assert "window.pwned" in text  # shown, as text
    assert "<script>window.pwned" not in text and "<img" not in text
    assert "onerror=" not in text.replace("onerror=&quot;", "")
    assert text.count("<script") == 2  # the data block and the page's own script
    assert text.count("</script>") == 2
    assert "script&gt;&lt;img src=x onerror=&quot;window.pwned=2&quot;&gt;&amp;amp;" in text


@pytest.mark.parametrize("content,status,message", [
    (None, 2, "cannot read"),
    ('{"format": "decision-tree", "version": 1, "gam', 1, "not valid JSON"),
    ('{"format": "decision-tree", "version": 7}', 1, "version 7 is not supported"),
    ("[]", 1, "holds one JSON object"),
])
def test_bad_tree_files(tmp_path, content, status, message):
    path = tmp_path / "tree.json"
    if content is not None:
        path.write_text(content)
    out = tmp_path / "page.html"
    proc = moo_page(str(path), "-o", str(out))
    assert proc.returncode == status
    assert message in proc.stderr and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("moo: error: ") and proc.stderr.count("\n") == 1
    assert not out.exists()


def test_defective_tree_gets_no_page(small_tree_file, tmp_path):
    data = orjson.loads(small_tree_file.read_bytes())
    data["root"]["next"].popitem()
    path = tmp_path / "holed.json"
    path.write_bytes(orjson.dumps(data))
    proc = moo_page(str(path), "-o", str(tmp_path / "page.html"))
    assert proc.returncode == 1
    assert "the tree is defective: root.next[" in proc.stderr and "missing" in proc.stderr
    assert "moo verify" in proc.stderr


def test_unwritable_output_is_a_plain_error(small_tree_file, tmp_path):
    proc = moo_page(str(small_tree_file), "-o", str(tmp_path))  # a folder
    assert proc.returncode == 2
    assert "is a folder" in proc.stderr and "Traceback" not in proc.stderr


def test_write_pages_reports_problems_and_indexes_the_rest(small_tree_file, tmp_path):
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    problems = write_pages([small_tree_file, broken], tmp_path / "pages", progress=False)
    assert len(problems) == 1 and "broken.json" in problems[0]
    assert sorted(p.name for p in (tmp_path / "pages").iterdir()) == [
        "bulls-cows-3x5.html", "index.html"]
    index = (tmp_path / "pages" / "index.html").read_text()
    assert "<h2>Bulls and Cows (3 of 5)</h2>" in index
    assert re.search(r'<td><a href="bulls-cows-3x5.html">greedy: the lowest code that fits every '
                     r"answer \(seed 000\)</a></td><td>consistent</td><td>no</td>"
                     r"<td>\d\.\d{4}</td><td>\d</td>", index)


def committed_trees() -> list[Path]:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        from make_trees import JOBS, job_file
    finally:
        sys.path.pop(0)
    return [job_file(TREES, job) for job in JOBS]


@pytest.mark.slow
def test_committed_pages_are_current():
    """trees/pages/ is what `make pages` writes from the committed trees today."""
    trees = committed_trees()
    assert len(trees) >= 15
    entries = []
    for path in trees:
        entry = load_entry(path)
        page = TREES / "pages" / (path.stem + ".html")
        assert page.read_text() == render_page(entry), f"{page}: run make pages"
        assert page.stat().st_size < 150_000
        entries.append(entry)
    assert (TREES / "pages" / "index.html").read_text() == render_index(entries)


def test_make_trees_skips_the_jobs_a_glob_names():
    """`make_trees.py --only '*' --skip 'battleship*'`: every job but Battleship's (a batch run
    on a machine busy with Battleship's own proof)."""
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_trees
        from make_trees import JOBS, chosen
    finally:
        sys.path.pop(0)
    kept = chosen(JOBS, "*", ["battleship*"])
    games = {job[0].split(":")[0] for job in kept}
    assert "battleship" not in games and {"bulls-cows", "mastermind"} <= games
    assert len(kept) == sum(1 for job in JOBS if not job[0].startswith("battleship"))
    assert chosen(JOBS, "bulls-cows*", ["* height *", "* total *"]) == [
        job for job in JOBS if job[0].startswith("bulls-cows") and job[1] not in (
            "height", "total")]
    assert chosen(JOBS, "*", []) == JOBS
    whole, opening = chosen(JOBS, "battleship:4x8x3 total any*", [])  # the game's, one opening's
    assert len(whole) == 4 and opening[4] == "A1 A3 H4"
    assert chosen(JOBS, "battleship:4x8x3 total any", []) == [whole]
    assert chosen(JOBS, "*", ["* first *"]) == [job for job in JOBS if len(job) == 4]
    assert "--games" not in make_trees.report_command(TREES, JOBS)  # a whole batch: every game
    some = make_trees.report_command(TREES, chosen(JOBS, "battleship*total any", []))
    assert some[-2:] == ["--games", "battleship:4x8x3"]  # one game's jobs: its section only
    assert make_trees.report_command(TREES, chosen(JOBS, "mastermind:4x7*", [])) is None
    default = make_trees.report_command(TREES, chosen(JOBS, "*", ["battleship*"]))
    assert "mastermind:4x7" not in default and "bulls-cows:4x10" in default
    proc = subprocess.run([sys.executable, "scripts/make_trees.py", "--only", "*hard"],
                          cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "no job is named by --only '*hard'" in proc.stderr
    assert "end a glob with * to take those too" in proc.stderr


def test_make_trees_pages_only(tmp_path):
    """`make pages` (scripts/make_trees.py --pages-only) writes pages without any search, and
    names each tree it cannot find."""
    folder = tmp_path / "trees"
    folder.mkdir()
    name = "mastermind-4x6.total.any"
    (folder / f"{name}.json").write_bytes((TREES / f"{name}.json").read_bytes())
    proc = subprocess.run([sys.executable, "scripts/make_trees.py", "--pages-only", "--trees",
                           str(folder)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1
    assert proc.stderr.count(": missing") == len(committed_trees()) - 1
    assert sorted(p.name for p in (folder / "pages").iterdir()) == ["index.html", f"{name}.html"]
    assert (folder / "pages" / f"{name}.html").read_text() == \
        (TREES / "pages" / f"{name}.html").read_text()


# --- word games ----------------------------------------------------------------------------
ANSWERS = ["cigar", "rebut", "sissy", "humph", "awake", "blush", "focal", "evade", "naval",
           "serve", "heath", "dwarf", "model", "karma", "stink", "grade", "quiet", "bench"]
OTHERS = ["salet", "crane", "soare"]


def decode_words(text: str, letters: int) -> list[str]:
    """The inverse of ``encode_words``, as web/words.js reads it."""
    words, before, pos = [], "", 0
    while pos < len(text):
        shared = int(text[pos])
        word = before[:shared] + text[pos + 1:pos + 1 + letters - shared]
        words.append(word)
        pos += 1 + letters - shared
        before = word
    return words


@pytest.fixture(scope="module")
def word_tree_file(tmp_path_factory) -> Path:
    """A custom-list word tree (version 2: it carries its lists)."""
    from optimizer.formats.tree_file import write_tree
    from optimizer.games import word_game
    from optimizer.search.build import build
    from optimizer.search.request import Request

    path = tmp_path_factory.mktemp("words") / "words.minimax.json"
    write_tree(build(Request(word_game(ANSWERS, OTHERS), strategy="minimax")), path)
    return path


def page_data(text: str) -> dict:
    block = re.search(r'<script type="application/json" id="moo-data">(.*?)</script>', text, re.S)
    return orjson.loads(block.group(1))


def test_encode_words_shares_prefixes_and_reads_back():
    from optimizer.cli.page_data import encode_words
    from optimizer.games import parse_game

    assert encode_words(["aback", "abase", "abate", "zebra"]) == "0aback3se3te0zebra"
    game = parse_game("wordle")
    answers, others = game.words[:game.n_secrets], game.words[game.n_secrets:]
    for words in (answers, others, ["ab", "ab"[::-1]]):
        assert decode_words(encode_words(words), len(words[0])) == words
    assert len(encode_words(answers)) + len(encode_words(others)) < 42_000  # 65 KB plain


def test_word_page_carries_its_lists_and_says_how_to_answer(word_tree_file, tmp_path):
    text = written_page(word_tree_file, tmp_path / "words.html", "words minimax (any guesses)")
    rules = page_data(text)["rules"]
    game = read_tree(word_tree_file).game
    assert rules["family"] == "words" and rules["letters"] == 5
    assert (rules["codes"], rules["secrets"]) == (21, 18)
    assert decode_words(rules["answers"], 5) + decode_words(rules["others"], 5) == game.words
    assert "<title>Word game (18 answers of 5 letters, 3 other allowed guesses): greedy" in text
    assert "Think of a secret: one of the 18 answers, 5-letter words." in text
    assert "Type a guess (any of the 21 allowed words);" in text
    assert "Or type the colours: gybbb (g green, y yellow, b grey)" in text
    assert '<th scope="col">marks</th>' in text
    assert 'id="maker-tiles"' in text and 'id="contrast"' in text
    assert "{{" not in text and "1st 2nd" not in text


def test_wordle_page_fits_and_lists_every_allowed_word(tmp_path):
    from optimizer.formats.tree_file import write_tree
    from optimizer.games import parse_game
    from optimizer.search.build import build
    from optimizer.search.request import Request

    game = parse_game("wordle")
    path = tmp_path / "wordle.minimax.json"
    write_tree(build(Request(game, strategy="minimax")), path)
    text = render_page(load_entry(path))
    rules = page_data(text)["rules"]
    assert (rules["spec"], rules["codes"], rules["secrets"]) == ("wordle", 12972, 2315)
    assert decode_words(rules["answers"], 5) == game.words[:2315]
    assert decode_words(rules["others"], 5)[-1] == game.words[-1]
    assert "Wordle (2,315 answers of 5 letters, 10,657 other allowed guesses)" in text
    assert len(text.encode()) < 120_000


def test_word_page_text_is_escaped_and_the_data_safe(word_tree_file):
    text = render_page(load_entry(word_tree_file))
    data = re.search(r'id="moo-data">(.*?)</script>', text, re.S).group(1)
    assert "<" not in data and ">" not in data and "&" not in data
    label = re.search(r'<label for="maker-input">(.*?)</label>', text).group(1)
    assert "\U0001f7e9\U0001f7e8" in label and "<" not in label  # the squares, as text
    assert text.count("<script") == 2
    assert "const MooWords" in text  # web/words.js, in the page's one script


def test_an_opening_s_claim_and_a_word_game_s_secrets_are_said():
    """A --first tree's claim is among one opening's trees: its page and index row said only
    "no" beside the global optimum's "yes", the two rows alike; a Wordle page said the secret
    was any of the 12,972 allowed guesses."""
    index = (TREES / "pages" / "index.html").read_text()
    assert "<td>no; optimal among trees opening with salet</td>" in index
    page = (TREES / "pages" / "wordle.total.any.first-salet.html").read_text()
    assert "Proven optimal</dt><dd>no (no claim over every opening); optimal among trees " \
        "opening with salet (the tree file&#x27;s claim" in page
    assert "2315 secrets: one of the 2,315 answers" in page


def test_the_player_says_an_opening_s_claim():
    """A --first tree's player said nothing of its claim (its page did)."""
    from optimizer.cli.player import _describe_guesser
    from optimizer.formats.tree_file import read_tree

    tree = read_tree(TREES / "wordle.total.any.first-salet.json")
    assert _describe_guesser(tree) == ("I follow a stored strategy (total, at most 5 guesses; "
                                       "optimal among trees opening with salet, as its file "
                                       "claims).")
