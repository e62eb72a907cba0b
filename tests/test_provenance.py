"""Provenance of optimality claims (issue 28, finding 5): a claim that rests on facts taken
unchecked from a checkpoint says so everywhere it is shown (build, verify, prove, play, the page
and the API), and claims the tree itself contradicts (bounds in ``meta``, "optimal" on a greedy
strategy) are defects that no page shows as proven."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from optimizer.cli import main as moo
from optimizer.cli.page import PageError, facts_html, load_entry, proof_cell
from optimizer.formats.checkpoint import Checkpoint
from optimizer.formats.tree_file import read_tree, write_tree
from optimizer.games import parse_game
from optimizer.provenance import checkpoint_facts, proof, verify
from optimizer.session import Solver
from optimizer.tree import Tree, replay

ROOT = Path(__file__).resolve().parents[1]
SPEC = "mastermind:3x4"  # least total 206; its entropy tree, 208, is the one a false file keeps
RESTING = "resting on 2 checkpoint facts"


def run(capsys, *argv: str) -> tuple[int, str]:
    status = moo(list(argv))
    return status, capsys.readouterr().out


def false_checkpoint(path: Path) -> Path:
    """Every first guess of SPEC claimed to cost at least 208 (the truth: 206 and more), the
    total of the greedy tree a build starts from, which so does not disprove them
    (Checkpoint.tree_in_hand)."""
    game = parse_game(SPEC)
    log = Checkpoint(path, game, "any")
    for guess in game.first_guesses():
        log.record_total("total", int(guess), game.n_codes, 208, exact=False)
    log.flush()
    return path


@pytest.fixture(scope="module")
def resting_tree(tmp_path_factory) -> Path:
    """The probe: a build given the false checkpoint. It takes two classes' bounds unchecked
    (the third is ruled out by counting) and keeps its greedy tree, total 208, "optimal"."""
    folder = tmp_path_factory.mktemp("provenance")
    checkpoint = false_checkpoint(folder / "cp.json")
    out = folder / "tree.json"
    assert moo(["build", SPEC, "--objective", "total", "--checkpoint", str(checkpoint),
                "--workers", "1", "--quiet", "-o", str(out)]) == 0
    return out


def test_a_build_on_a_false_checkpoint_records_what_its_claim_rests_on(resting_tree):
    tree = read_tree(resting_tree)
    assert tree.optimal and replay(tree).total == 208  # false: the optimum is 206
    assert tree.meta["checkpoint_facts"] == 2 == checkpoint_facts(tree)
    assert tree.meta["checkpoint"].endswith("cp.json")


def test_a_fact_found_false_and_searched_again_is_not_counted_as_taken(tmp_path, capsys):
    """A class fact the run corrects is its own search, not the file's: 10 of 11 facts are
    taken (it said 11, the corrected one included)."""
    checkpoint, out = tmp_path / "cp.json", tmp_path / "t.json"
    argv = ["build", "battleship:3x3x2", "--objective", "total", "--checkpoint",
            str(checkpoint), "--quiet", "-o", str(out)]
    assert moo(argv) == 0
    data = orjson.loads(checkpoint.read_bytes())
    classes = data["total"]["36"]["classes"]
    assert len(classes) == 11
    classes[next(iter(classes))] = {"exact": 119}  # below the least total, 121: false
    checkpoint.write_bytes(orjson.dumps(data))
    assert moo(argv) == 0
    assert "resting on 10 checkpoint facts" in capsys.readouterr().out
    meta = read_tree(out).meta
    assert meta["checkpoint_facts"] == 10 and meta["total_search"]["classes_searched"] == 1


def test_the_build_says_its_optimum_rests_on_the_facts(tmp_path, capsys):
    checkpoint = false_checkpoint(tmp_path / "cp.json")
    status, out = run(capsys, "build", SPEC, "--objective", "total", "--checkpoint",
                      str(checkpoint), "--workers", "1", "--quiet", "-o", str(tmp_path / "t.json"))
    assert status == 0
    assert f"(any guesses, optimal, {RESTING}): height" in out
    assert "taken from" in out and "2 facts" in out


def test_verify_says_the_proof_rests_on_the_checkpoint(resting_tree, capsys):
    status, out = run(capsys, "verify", str(resting_tree))
    assert status == 0  # the tree itself is sound; its claim is qualified, not refuted
    assert f"optimal (total): proven, {RESTING} (taken from" in out
    assert "not re-checked" in out
    status, out = run(capsys, "verify", "--json", str(resting_tree))
    result = orjson.loads(out)
    assert result["ok"] and result["proof"] == f"proven, {RESTING}"
    assert result["checkpoint_facts"] == 2


def test_recheck_finds_the_claim_false(resting_tree, capsys):
    """What "resting on N checkpoint facts" warns of: the exact search finds 206."""
    status, out = run(capsys, "verify", "--recheck", str(resting_tree))
    assert status == 1 and "the exact search finds total 206" in out


def test_the_page_says_the_proof_rests_on_the_checkpoint(resting_tree):
    entry = load_entry(resting_tree)
    facts = facts_html(entry)
    shown = facts.split("<dt>Proven optimal</dt><dd>")[1].split("</dd>")[0]
    assert shown.startswith(f"yes, {RESTING} (taken from cp.json, not re-checked")
    assert "if those facts hold" in shown
    assert proof_cell(entry.tree, entry.result) == f"yes, {RESTING}"


def test_the_player_says_the_proof_rests_on_the_checkpoint(resting_tree):
    done = subprocess.run([sys.executable, "-m", "optimizer", "play", str(resting_tree)],
                          input="q\n", capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert (f"I follow a stored strategy (total, at most 4 guesses; proven optimal, {RESTING} "
            "(not re-checked), as its file claims)." in done.stdout), done.stdout + done.stderr


def test_the_api_says_the_proof_rests_on_the_checkpoint(resting_tree):
    solver = Solver.load(resting_tree)
    assert solver.proof == f"proven, {RESTING}"
    assert solver.checkpoint_facts == 2


def test_a_build_without_a_checkpoint_is_plainly_proven(tmp_path, capsys):
    out = tmp_path / "t.json"
    status, said = run(capsys, "build", SPEC, "--objective", "total", "--workers", "1",
                       "--quiet", "-o", str(out))
    assert status == 0 and "resting" not in said
    tree = read_tree(out)
    assert tree.optimal and replay(tree).total == 206 and "checkpoint_facts" not in tree.meta
    assert Solver(tree).proof == "proven" == proof(tree)
    status, said = run(capsys, "verify", str(out))
    assert status == 0 and "optimal (total): proven\n" in said


def test_older_trees_count_their_searches_classes(resting_tree, tmp_path, capsys):
    """A file written before ``checkpoint_facts`` existed: the count its searches recorded."""
    data = orjson.loads(resting_tree.read_bytes())
    del data["meta"]["checkpoint_facts"]
    assert data["meta"]["total_search"]["classes_from_checkpoint"] == 2
    old = tmp_path / "old.json"
    old.write_bytes(orjson.dumps(data))
    assert Solver.load(old).proof == f"proven, {RESTING}"
    status, out = run(capsys, "verify", str(old))
    assert status == 0 and RESTING in out


@pytest.mark.parametrize("record,message", [
    (0, "meta.checkpoint_facts: 0, but the searches recorded in meta took 2"),
    (-1, "meta.checkpoint_facts: -1 is not a whole number >= 0"),
    ("2", "meta.checkpoint_facts: '2' is not a whole number >= 0"),
])
def test_a_provenance_record_that_hides_facts_is_a_defect(resting_tree, tmp_path, capsys,
                                                           record, message):
    data = orjson.loads(resting_tree.read_bytes())
    data["meta"]["checkpoint_facts"] = record
    path = tmp_path / "t.json"
    path.write_bytes(orjson.dumps(data))
    status, out = run(capsys, "verify", str(path))
    assert status == 1 and message in out
    assert Solver.load(path).proof == "not proven"


def test_the_refutation_that_proves_a_height_is_what_is_counted(tmp_path):
    """The least height rests on the refutation of the height below it: its classes taken from
    the file are counted even when the search tried a feasible height last (the bottom, the
    counting bound, refuted first, then down from the top to the least height)."""
    from optimizer.cli.prove import prove_height
    from optimizer.search.objectives import Search
    from optimizer.search.request import Request

    spec = "mastermind:3x3"  # least height 4; the counting bound 3 is refuted in 2 classes
    path = tmp_path / "cp.json"
    assert prove_height(spec, 4, workers=1, progress=False, checkpoint=str(path))["holds"]
    with Search(Request(parse_game(spec), workers=1, checkpoint=str(path))) as search:
        out = search.min_height((None, None))  # no tree in hand: heights 4 to 26 are feasible
    assert out.optimal and out.value == 4
    assert out.taken == 2 and out.searched == 0 and search.facts_taken == 2


def test_a_height_counting_rules_out_is_not_called_a_search(capsys):
    """Mastermind 4x6 within 4: every opening leaves a part too large, and no class is
    searched (0 nodes); prove said "exhaustive search found no strategy"."""
    status, out = run(capsys, "prove", "mastermind", "--height", "5", "--quiet")
    assert status == 0 and "search: 0 nodes" in out
    assert "  [yes] height 4 is impossible: counting alone rules it out: " in out
    assert "exhaustive search" not in out


@pytest.mark.parametrize("claim, said", [
    (2, ["  [no]  height 2 is not enough: even height 4 is impossible: exhaustive search "
         "found no strategy solving every secret in 4",
         "  [yes] height 1 is impossible: even height 4 is impossible: "]),
    (4, ["  [no]  height 4 is not enough: exhaustive search found no strategy solving every "
         "secret in 4",
         "  [yes] height 3 is impossible: even height 4 is impossible: "])])
def test_prove_speaks_of_the_height_it_proved(capsys, claim, said):
    """Below the least height (5), the proof is of height 4: "height 2 is not enough: ... no
    strategy solving every secret in 4" spoke of a height the line did not name."""
    status, out = run(capsys, "prove", "battleship:2x4x2", "--height", str(claim), "--quiet")
    assert status == 1 and all(line in out for line in said), out


def test_prove_says_what_its_proof_rests_on(tmp_path, capsys):
    spec = "battleship:2x4x2"
    path = tmp_path / "cp.json"
    status, out = run(capsys, "prove", spec, "--height", "5", "--checkpoint", str(path),
                      "--workers", "1", "--quiet", "--json")
    assert status == 0 and orjson.loads(out)["proof"] == "proven"
    tree_file = tmp_path / "t.json"
    status, out = run(capsys, "prove", spec, "--height", "5", "--checkpoint", str(path),
                      "--workers", "1", "--quiet", "-o", str(tree_file))
    assert status == 0 and "PROVEN, resting on 10 checkpoint facts: 10 first-guess" in out
    assert read_tree(tree_file).meta["checkpoint_facts"] == 10
    assert Solver.load(tree_file).proof == "proven, resting on 10 checkpoint facts"
    status, out = run(capsys, "prove", spec, "--height", "5", "--checkpoint", str(path),
                      "--workers", "1", "--quiet", "--json")
    result = orjson.loads(out)
    assert result["proof"] == "proven, resting on 10 checkpoint facts"
    assert result["checkpoint_facts"] == 10


# --- claims the tree contradicts ---------------------------------------------------------------
def minimax_tree(minimax) -> Tree:
    """mastermind:2x3 by minimax: height 4, total 26, 2 secrets solved with 4 guesses."""
    game = parse_game("mastermind:2x3")
    tree = Tree(game, minimax(game), objective="minimax", guesses="any")
    result = replay(tree)
    assert (result.height, result.total, result.histogram[4]) == (4, 26, 2)
    return tree


@pytest.mark.parametrize("objective,optimal,lower,meta,message", [
    ("height,total", False, 4, {"height_search": {"optimal": True},
                                "total_lower_bound": 99999999},
     "meta.total_lower_bound: 99999999 claims that no tree of height 4 or less has a total "
     "below it (\"total >= 99999999\"), but this tree (height 4) has 26"),
    ("height,total", True, None, {"total_lower_bound": 27}, "meta.total_lower_bound: 27"),
    ("height,deepest", False, 4, {"height_search": {"optimal": True}, "deepest_lower_bound": 3},
     "meta.deepest_lower_bound: 3 claims that no tree of height 4 or less has a deepest below "
     "it (\"deepest >= 3\"), but this tree (height 4) has 2"),
    ("height,deepest", False, 4, {"deepest_proven": 5}, "meta.deepest_proven: 5"),
    ("deepest@4", True, None, {"deepest_proven": 3}, "meta.deepest_proven: 3"),
    ("deepest@5", True, None, {"deepest_proven": 1}, "(height 4) has 0"),
    ("height,total", False, 4, {"total_lower_bound": "many"},
     "meta.total_lower_bound: 'many' is not a whole number >= 0"),
    ("minimax", True, None, {}, "\"optimal\": true, but 'minimax' is not an exact objective"),
    ("entropy", True, None, {}, "a greedy strategy is not a search and proves no optimum"),
    ("banana", False, None, {}, "objective: 'banana' is neither an exact objective"),
    ("total", True, None, {"stopped": True, "total_search": {"optimal": False}},
     "\"optimal\": true, but meta.stopped says the search was stopped before it finished"),
    ("total", True, None, {"total_search": {"optimal": False}},
     "\"optimal\": true, but meta.total_search.optimal says that search did not finish"),
    ("height,deepest", True, None, {"deepest_proven": 1},
     "meta.deepest_proven: 1 says the fewest secrets solved with exactly 4 guesses is 1, but "
     "this tree, claimed optimal, has 2"),
])
def test_claims_the_tree_contradicts_are_defects_and_never_shown(minimax, tmp_path, capsys,
                                                                  objective, optimal, lower,
                                                                  meta, message):
    tree = minimax_tree(minimax)
    tree.objective, tree.optimal, tree.lower_bound, tree.meta = objective, optimal, lower, meta
    path = tmp_path / "t.json"
    write_tree(tree, path)
    status, out = run(capsys, "verify", str(path))
    assert status == 1 and message in out, out
    with pytest.raises(PageError, match="defective"):
        load_entry(path)
    assert Solver.load(path).proof == "not proven"
    done = subprocess.run([sys.executable, "-m", "optimizer", "page", str(path), "-o",
                           str(tmp_path / "p.html")], capture_output=True, text=True, cwd=ROOT,
                          timeout=60)
    assert done.returncode == 1 and not (tmp_path / "p.html").exists()


@pytest.mark.parametrize("objective,optimal,lower,meta", [
    ("height,total", False, 4, {"height_search": {"optimal": True}, "total_lower_bound": 26}),
    ("height,total", False, 3, {"total_lower_bound": 99}),  # of trees of height 3: not this one
    ("height,deepest", False, 4, {"deepest_proven": 2}),
    ("deepest@5", True, None, {"deepest_proven": 0}),  # none at depth 5, as claimed
    ("height,deepest", True, None, {"deepest_proven": 2}),  # the tree's own count
    ("total", True, None, {"total_search": {"optimal": True}}),
    ("minimax", False, None, {}),
])
def test_bounds_the_tree_does_not_contradict_pass(minimax, objective, optimal, lower, meta):
    tree = minimax_tree(minimax)
    tree.objective, tree.optimal, tree.lower_bound, tree.meta = objective, optimal, lower, meta
    assert verify(tree).defects == []


def test_the_player_says_nothing_of_a_proof_a_greedy_tree_claims(minimax, tmp_path):
    tree = minimax_tree(minimax)
    tree.optimal = True
    path = tmp_path / "t.json"
    write_tree(tree, path)
    done = subprocess.run([sys.executable, "-m", "optimizer", "play", str(path)], input="q\n",
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert "I follow a stored strategy (minimax, at most 4 guesses)." in done.stdout
    assert "proven" not in done.stdout


def test_improve_after_a_height_search_and_its_own_facts(tmp_path):
    """--improve's rollouts run on the caller's solver outside any job: after a height search
    whose last job was stopped they once found its stop flag set and failed (a traceback).
    With a new checkpoint, the opening --improve settles is this run's own fact, not one
    taken from earlier runs; a second run takes it."""
    ckpt, out = str(tmp_path / "c.json"), str(tmp_path / "t.json")
    assert moo(["build", "bulls-cows:4x7", "--objective", "height,total", "--improve", "0.2",
                "-o", out, "--quiet"]) == 0
    tree = read_tree(out)
    assert tree.optimal and replay(tree).total == 3639
    assert moo(["build", "bulls-cows:3x6", "--objective", "total,height", "--improve", "0.2",
                "--checkpoint", ckpt, "-o", out, "--quiet"]) == 0
    assert checkpoint_facts(read_tree(out)) == 0
    assert moo(["build", "bulls-cows:3x6", "--objective", "total", "--checkpoint", ckpt,
                "-o", out, "--quiet"]) == 0
    assert checkpoint_facts(read_tree(out)) > 0


def test_a_fact_another_run_made_stronger_is_theirs(tmp_path):
    """A class or part fact this run recorded, then raised by another run sharing the file, is
    that run's: a claim resting on it counts it as taken from the file."""
    from optimizer.search.solver import NodeSolver

    game = parse_game("mastermind:3x4")
    depth, path = game.n_secrets, tmp_path / "c.json"
    guess = int(game.first_guesses()[0])
    solver = NodeSolver(game)
    fid, part = max(game.parts(guess, solver.root()).items(), key=lambda kv: len(kv[1]))
    low = solver.counting(len(part), depth - 1, "total")  # the least a part fact may say
    mine = Checkpoint(path, game, "any")
    mine.record_total("total", guess, depth, 150, exact=False)
    mine.record_part("total", depth, (guess, fid), low, None)
    mine.flush()
    assert not mine.taken_class("total", guess, depth)
    assert mine.proved_here("total", depth, (guess, fid))
    theirs = Checkpoint(path, game, "any")
    theirs.record_total("total", guess, depth, 160, exact=False)
    theirs.record_part("total", depth, (guess, fid), low + 1, None)
    theirs.flush()
    mine.record_total("total", int(game.first_guesses()[1]), depth, 150, exact=False)
    mine.flush()  # takes the other run's facts in as it writes
    assert mine.total_lower_bound("total", guess, depth) == 160
    assert mine.taken_class("total", guess, depth)
    assert not mine.proved_here("total", depth, (guess, fid))


def test_part_facts_under_a_lookahead_sweep_are_counted(tmp_path):
    """The lookahead sweep builds class bounds on the file's part facts: the claim counts them.
    False ones (far above the truth) clear every class with no search by parts, and the claim
    once said it rested on nothing."""
    from optimizer.search.build import build
    from optimizer.search.request import Request
    from optimizer.search.solver import NodeSolver

    game, path = parse_game("mastermind:3x4"), tmp_path / "c.json"
    log, root = Checkpoint(path, game, "any"), NodeSolver(game).root()
    for guess in game.first_guesses():
        parts = game.parts(int(guess), root)
        fid = max(parts, key=lambda f: len(parts[f]))
        log.record_part("total", game.n_secrets, (int(guess), int(fid)), 10**6, None)
    log.flush()
    tree = build(Request(game, objective="total", checkpoint=str(path), lookahead=1,
                         workers=1))
    assert replay(tree).total >= 206
    assert 1 <= checkpoint_facts(tree) <= len(game.first_guesses())  # each at most once


def test_a_part_fact_is_counted_once(tmp_path):
    """A part fact the lookahead sweep builds on and the class's search by parts takes again
    is one fact the claim rests on (it said two)."""
    from optimizer.search.build import build
    from optimizer.search.request import Request
    from optimizer.search.solver import NodeSolver

    game, path = parse_game("bulls-cows:3x6"), tmp_path / "c.json"
    solver = NodeSolver(game)
    guess = int(game.first_guesses()[0])
    fid, part = max(game.parts(guess, solver.root()).items(), key=lambda kv: len(kv[1]))
    log = Checkpoint(path, game, "any")
    value, _ = solver.min_total(part, game.n_secrets - 1, path=[guess])
    log.record_part("total", game.n_secrets, (guess, fid), value, None)  # its value, as a bound
    log.flush()
    tree = build(Request(game, objective="total", checkpoint=str(path), lookahead=1,
                         workers=1))
    assert tree.optimal and replay(tree).total == 436 and checkpoint_facts(tree) == 1


def test_a_refused_merge_writes_nothing(tmp_path, capsys):
    """A tree merged into a file it contradicts is refused before anything is written."""
    game, path = parse_game("mastermind:3x4"), tmp_path / "c.json"
    log = Checkpoint(path, game, "any")
    for guess in game.first_guesses():
        log.record_total("total", int(guess), 4, 10**6, exact=False)  # false within 4
    log.flush()
    tree = tmp_path / "t.json"
    assert moo(["build", "mastermind:3x4", "--objective", "total", "-o", str(tree),
                "--quiet"]) == 0
    out = tmp_path / "out.json"
    assert moo(["checkpoint", "merge", str(path), str(tree), "-o", str(out)]) == 2
    assert "contradiction" in capsys.readouterr().err and not out.exists()
