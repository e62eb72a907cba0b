"""Issue 28's file guarantees: outputs are regular files only (a device, FIFO or socket refused
before any work, a link followed, the mode kept), no output is also an input or another output,
runs sharing one checkpoint lose no facts, readers refuse what is not a regular file or is too
large, and a checkpoint that cannot be written does not lose the run's tree. Each test fails on
the code before the fix. /dev/null is never written: FIFOs stand in for devices."""

from __future__ import annotations

import os
import socket
import stat
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import orjson
import pytest

import optimizer.formats.checkpoint as checkpoint_module
import optimizer.formats.files as files_module
import optimizer.reading as reading_module
from optimizer.cli import main
from optimizer.formats.checkpoint import Checkpoint
from optimizer.formats.checkpoint_io import CheckpointError
from optimizer.formats.files import OutputError, check_output, locked
from optimizer.formats.tree_file import TreeFileError, read_tree, write_tree
from optimizer.games import parse_game
from optimizer.reading import MAX_FILE_BYTES, read_file
from optimizer.tree import Tree, replay

ROOT = Path(__file__).resolve().parents[1]
SPEC = "mastermind:2x3"  # 9 codes


def run(capsys, *argv: str) -> tuple[int, str, str]:
    """Exit status, standard output and standard error of ``moo ARGV``."""
    try:
        status = main([str(a) for a in argv])
    except SystemExit as exc:
        status = exc.code
    out = capsys.readouterr()
    return status, out.out, out.err


def one_error_line(err: str, *parts: str) -> bool:
    return err.count("\n") == 1 and err.startswith("moo: error: ") and all(p in err for p in parts)


@pytest.fixture
def minimax_tree(minimax) -> Tree:
    game = parse_game(SPEC)
    return Tree(game, minimax(game), objective="minimax", guesses="any")


@pytest.fixture
def tree_file(tmp_path, minimax_tree) -> Path:
    path = tmp_path / "t.json"
    write_tree(minimax_tree, path)
    return path


@pytest.fixture
def no_work(monkeypatch):
    """Every command's work replaced by a failure: what is refused is refused before it."""
    from optimizer.cli import build, checkpoints, compare, page, prove

    def work(args):
        raise AssertionError("the command started its work")

    for module in (build, compare, prove, page, checkpoints):
        monkeypatch.setattr(module, "run", work)


def leftovers(*folders: Path) -> list[str]:
    """Temporary, probe and lock files left behind."""
    return [p.name for f in folders for p in f.iterdir() if p.name.startswith(".")]


# --- finding 2: outputs are regular files, links followed, modes kept -------------------------
OUTPUT_COMMANDS = {
    "build -o": ["build", SPEC, "--objective", "height", "-o", "{}"],
    "build --checkpoint": ["build", SPEC, "--objective", "height", "--checkpoint", "{}",
                           "-o", "{tmp}/ok.json"],
    "prove -o": ["prove", SPEC, "--height", "3", "-o", "{}"],
    "prove --checkpoint": ["prove", SPEC, "--height", "3", "--checkpoint", "{}"],
    "compare --plot": ["compare", SPEC, "--plot", "{}"],
    "page -o": ["page", "{tree}", "-o", "{}"],
    "checkpoint merge -o": ["checkpoint", "merge", "{tmp}/a.json", "-o", "{}"],
}


def _special(kind: str, tmp_path: Path) -> Path:
    """A FIFO, a link to one, or a socket: stand-ins for /dev/null and other devices."""
    fifo = tmp_path / "fifo"
    if kind in ("fifo", "link to a fifo"):
        os.mkfifo(fifo)
        if kind == "fifo":
            return fifo
        link = tmp_path / "link.json"
        link.symlink_to(fifo)
        return link
    path = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    server.close()  # the socket file stays
    return path


@pytest.mark.parametrize("command", OUTPUT_COMMANDS)
@pytest.mark.parametrize("kind,message", [("fifo", "is a FIFO"),
                                          ("link to a fifo", "(a link to "),
                                          ("socket", "is a socket")])
def test_an_output_that_is_not_a_regular_file_is_refused_before_any_work(
        capsys, tmp_path, tree_file, no_work, command, kind, message):
    target = _special(kind, tmp_path)
    argv = [a.replace("{}", str(target)).replace("{tmp}", str(tmp_path))
            .replace("{tree}", str(tree_file)) for a in OUTPUT_COMMANDS[command]]
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert one_error_line(err, message, "not a regular file")
    real = os.path.realpath(target)
    assert not stat.S_ISREG(os.stat(real).st_mode)  # not replaced
    assert leftovers(tmp_path) == []


def test_dev_null_is_refused_before_any_probe(monkeypatch):
    """The refusal comes before anything is created next to the device (checked without ever
    writing in /dev: any attempt to create a file fails the test)."""
    def refused(*args, **kwargs):
        raise AssertionError("a file was about to be created")

    monkeypatch.setattr(files_module, "_temporary", refused)
    monkeypatch.setattr("tempfile.mkstemp", refused)
    with pytest.raises(OutputError, match="/dev/null: is a character device, not a regular"):
        check_output("/dev/null")


@pytest.mark.parametrize("through_link", [False, True])
def test_write_atomic_never_replaces_a_fifo(tmp_path, minimax_tree, through_link):
    target = _special("link to a fifo" if through_link else "fifo", tmp_path)
    with pytest.raises(OutputError, match="FIFO"):
        write_tree(minimax_tree, target)
    assert stat.S_ISFIFO(os.stat(tmp_path / "fifo").st_mode)
    assert target.is_symlink() == through_link
    assert leftovers(tmp_path) == []


def test_a_link_is_followed_and_stays(monkeypatch, capsys, tmp_path, minimax_tree):
    """The file the link names is replaced (keeping its mode); the link stays a link; the
    temporary file was made next to the target, not next to the link."""
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    real = there / "t.json"
    real.write_text("old")
    real.chmod(0o600)
    link = here / "t.json"
    link.symlink_to(Path("..") / "there" / "t.json")
    status, out, err = run(capsys, "build", SPEC, "--strategy", "minimax", "-o", link)
    assert status == 0, err
    assert link.is_symlink() and os.readlink(link) == str(Path("..") / "there" / "t.json")
    assert read_tree(real).objective == "minimax"
    assert stat.S_IMODE(real.stat().st_mode) == 0o600
    assert leftovers(here, there) == []
    renamed = []
    real_replace = os.replace
    monkeypatch.setattr(os, "replace", lambda a, b: renamed.append((Path(a).parent, Path(b)))
                        or real_replace(a, b))
    write_tree(minimax_tree, link)
    assert renamed == [(there, real)]


def test_a_dangling_link_creates_the_file_it_names(tmp_path, minimax_tree):
    link = tmp_path / "t.json"
    link.symlink_to("new.json")
    check_output(link)
    write_tree(minimax_tree, link)
    assert link.is_symlink() and read_tree(tmp_path / "new.json").objective == "minimax"


def test_check_output_follows_links(tmp_path):
    """The checks are made where the link points: its folder, and what is there."""
    (tmp_path / "to-missing").symlink_to(tmp_path / "no" / "t.json")
    with pytest.raises(OutputError, match="does not exist"):
        check_output(tmp_path / "to-missing")
    (tmp_path / "to-folder").symlink_to(tmp_path)
    with pytest.raises(OutputError, match="is a folder"):
        check_output(tmp_path / "to-folder")
    (tmp_path / "loop").symlink_to(tmp_path / "loop")
    with pytest.raises(OutputError, match="cannot write"):
        check_output(tmp_path / "loop")


def test_an_empty_output_name_is_named(capsys):
    """-o '' said ".: is a folder" (Path('') is the current folder)."""
    status, out, err = run(capsys, "build", SPEC, "--objective", "total", "-o", "")
    assert status == 2 and one_error_line(err, "'': an empty file name")


@pytest.mark.parametrize("command", [["build", SPEC, "--objective", "height", "-o"],
                                     ["build", SPEC, "--objective", "height", "-o", "t.json",
                                      "--checkpoint"]])
@pytest.mark.parametrize("name, end", [("new/", "'/'"), ("old.json/", "'/'"),
                                       ("new/.", "'.'"), ("old.json/.", "'.'"),
                                       ("old.json/..", "'..'")])
def test_an_output_name_ending_in_a_slash_is_refused(tmp_path, capsys, monkeypatch, command,
                                                     name, end):
    """Path("x/") and Path("x/.") are Path("x"): "-o new/" wrote a file named new, "-o
    old.json/" replaced it; the name means a folder, so nothing is written."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "old.json").write_text("old")
    status, out, err = run(capsys, *command, name)
    assert status == 2 and one_error_line(err, f"{name}: ends with {end}, a folder's name")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.json"]
    assert (tmp_path / "old.json").read_text() == "old"


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o444, 0o664])
def test_the_mode_of_a_replaced_file_is_kept(tmp_path, minimax_tree, mode):
    path = tmp_path / "t.json"
    path.write_text("old")
    path.chmod(mode)
    write_tree(minimax_tree, path)
    assert stat.S_IMODE(path.stat().st_mode) == mode
    log = Checkpoint(tmp_path / "c.json", parse_game(SPEC), "any")
    log.path.write_bytes(orjson.dumps(log.to_json()))
    log.path.chmod(mode)
    log.record_refuted(0, 2, 1, 0.0)
    assert stat.S_IMODE(log.path.stat().st_mode) == mode


@pytest.mark.parametrize("umask,mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)])
def test_a_new_file_honours_the_umask(tmp_path, minimax_tree, umask, mode):
    before = os.umask(umask)
    try:
        write_tree(minimax_tree, tmp_path / "t.json")
    finally:
        os.umask(before)
    assert stat.S_IMODE((tmp_path / "t.json").stat().st_mode) == mode


# --- finding 3: no output is an input or another output ---------------------------------------
def _same_file_cases(tmp_path: Path, tree_file: Path) -> dict:
    (tmp_path / "hard.json").hardlink_to(tree_file)
    (tmp_path / "soft.json").symlink_to(tree_file)
    (tmp_path / "b.json").write_text("{}")
    spelled = tmp_path / "." / tree_file.name
    return {
        "page onto its tree": ["page", tree_file, "-o", tree_file],
        "page onto a hard link": ["page", tree_file, "-o", tmp_path / "hard.json"],
        "page from a link": ["page", tmp_path / "soft.json", "-o", tree_file],
        "page, spelled otherwise": ["page", tree_file, "-o", spelled],
        "build -o its checkpoint": ["build", SPEC, "--objective", "height",
                                    "--checkpoint", tree_file, "-o", tree_file],
        "build -o a new checkpoint": ["build", SPEC, "--objective", "height",
                                      "--checkpoint", tmp_path / "new.json",
                                      "-o", tmp_path / "new.json"],
        "prove -o its checkpoint": ["prove", SPEC, "--height", "3", "--checkpoint",
                                    tmp_path / "soft.json", "-o", tree_file],
        "merge onto an input": ["checkpoint", "merge", tree_file, tmp_path / "b.json",
                                "-o", tmp_path / "b.json"],
        "merge onto a hard link": ["checkpoint", "merge", tree_file, "-o",
                                   tmp_path / "hard.json"],
        "plot onto a stored tree": ["compare", SPEC, "--trees", tmp_path,
                                    "--plot", tree_file],
        "build -o its word list": ["build", f"words:{tree_file}", "--objective", "total",
                                   "-o", tree_file],
        "prove onto a word list": ["prove", f" Words: {tmp_path / 'a.txt'} , {spelled}",
                                   "--height", "3", "--checkpoint", tree_file],
    }


CASES = ["page onto its tree", "page onto a hard link", "page from a link",
         "page, spelled otherwise", "build -o its checkpoint", "build -o a new checkpoint",
         "prove -o its checkpoint", "merge onto an input", "merge onto a hard link",
         "plot onto a stored tree", "build -o its word list", "prove onto a word list"]


@pytest.mark.parametrize("case", CASES)
def test_an_output_that_is_an_input_or_another_output_is_refused(capsys, tmp_path, tree_file,
                                                                 no_work, case):
    before = tree_file.read_bytes()
    status, out, err = run(capsys, *_same_file_cases(tmp_path, tree_file)[case])
    assert status == 2
    assert one_error_line(err, "the same file as", "would destroy")
    assert "FILE" not in err  # a usage line's placeholder, not a word of the message
    assert tree_file.read_bytes() == before
    assert not (tmp_path / "new.json").exists()


def test_page_onto_its_own_tree_keeps_the_tree(capsys, tree_file):
    """Without the no_work stand-in: the real command refuses, and the tree is intact."""
    before = tree_file.read_bytes()
    status, out, err = run(capsys, "page", tree_file, "-o", tree_file)
    assert status == 2 and tree_file.read_bytes() == before
    status, out, err = run(capsys, "page", tree_file, "-o", tree_file.with_suffix(".html"))
    assert status == 0 and tree_file.read_bytes() == before


def test_the_checkpoint_is_its_own_input(tmp_path):
    """--checkpoint is read and extended by one run: alone it is not refused."""
    from optimizer.cli.app import _parser, check_files

    args = _parser().parse_args(
        ["build", SPEC, "--objective", "height", "--checkpoint", str(tmp_path / "c.json"),
         "-o", str(tmp_path / "t.json")])
    check_files(args)  # no error


# --- finding 4: runs sharing one checkpoint -----------------------------------------------------
def test_two_runs_on_one_checkpoint_keep_each_others_facts(tmp_path, minimax):
    """Two runs started on the same file (both read it empty), writing in turn: each write
    keeps the other's facts (the last writer used to erase them)."""
    game = parse_game(SPEC)
    path = tmp_path / "c.json"
    a, b = Checkpoint(path, game, "any"), Checkpoint(path, game, "any")
    root = minimax(game)
    value = replay(Tree(game, root, "total")).total
    a.record_total("total", 0, 9, 20, exact=True)
    b.record_total("deepest", 0, 9, 30, exact=False)
    a.record_refuted(1, 2, 10, 0.5)
    b.record_incumbent("total", 9, value, root)
    b.record_total("total", 4, 9, 17, exact=False, lookahead=2)
    a.record_total("deep", 2, 9, 1, exact=True)
    a.flush()  # facts are written at most every fifty writes' time, and at the end
    b.flush()
    on_disk = Checkpoint(path, game, "any")
    assert on_disk.totals["total", 9].classes == {0: {"exact": 20}, 4: {"at_least": 17,
                                                                         "lookahead": 2}}
    assert on_disk.totals["deepest", 9].classes == {0: {"at_least": 30}}
    assert on_disk.totals["deep", 9].classes == {2: {"exact": 1}}
    assert on_disk.totals["total", 9].incumbent[0] == value
    assert on_disk.refuted_height(1) == 2
    assert a.totals["total", 9].incumbent[0] == value  # and a run sees the other's facts
    assert leftovers(tmp_path) == []  # the lock file is removed


def test_the_stronger_of_two_runs_facts_is_kept(tmp_path):
    game = parse_game(SPEC)
    path = tmp_path / "c.json"
    a, b = Checkpoint(path, game, "any"), Checkpoint(path, game, "any")
    a.record_total("total", 0, 9, 15, exact=False)
    b.record_total("total", 0, 9, 18, exact=False)
    a.record_refuted(3, 3, 1, 0.0)
    b.record_refuted(3, 2, 1, 0.0)
    a.record_total("total", 1, 9, 12, exact=False)
    on_disk = Checkpoint(path, game, "any")
    assert on_disk.totals["total", 9].classes[0] == {"at_least": 18}
    assert on_disk.refuted_height(3) == 3


def test_contradicting_runs_keep_the_claim_that_holds_if_either_does(tmp_path, capsys):
    """Two runs' exact values for one class contradict each other (one is false): neither run
    fails, nothing is silently lost: 'at least' the smaller value is kept (true if either
    is), and the contradiction is said."""
    game = parse_game(SPEC)
    path = tmp_path / "c.json"
    a, b = Checkpoint(path, game, "any"), Checkpoint(path, game, "any")
    a.record_total("total", 0, 9, 20, exact=True)
    b.record_total("total", 0, 9, 22, exact=True)
    assert Checkpoint(path, game, "any").totals["total", 9].classes[0] == {"at_least": 20}
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "moo: warning: " in err and "contradiction" in err
    assert "exact 22 and exact 20" in err or "exact 20 and exact 22" in err


def test_a_fact_one_run_removed_is_not_brought_back_by_another(tmp_path):
    """A run that finds a fact of the file false removes it; another run that read the fact
    and never changed it does not write it back. A removed file is no removal of facts."""
    game = parse_game(SPEC)
    path = tmp_path / "c.json"
    first = Checkpoint(path, game, "any")
    first.record_refuted(5, 3, 1, 0.0)
    first.record_refuted(6, 3, 1, 0.0)
    a, b = Checkpoint(path, game, "any"), Checkpoint(path, game, "any")
    del a.refuted[5]  # as a run does with a fact it found false
    a.save()
    b.record_refuted(7, 2, 1, 0.0)
    assert set(Checkpoint(path, game, "any").refuted) == {6, 7}
    path.unlink()
    b.record_refuted(8, 2, 1, 0.0)
    assert set(Checkpoint(path, game, "any").refuted) == {6, 7, 8}


def test_a_merge_onto_a_live_checkpoint_loses_none_of_its_facts(tmp_path, monkeypatch, capsys):
    """`moo checkpoint merge OTHER -o LIVE` while a run writes LIVE: the facts the run wrote
    before the merge, while it read, and after it all stay, with OTHER's (the merge used to
    write OTHER's facts alone, and the run then took the missing ones as removed)."""
    game = parse_game(SPEC)
    live, other = tmp_path / "live.json", tmp_path / "other.json"
    run = Checkpoint(live, game, "any")
    run.record_refuted(1, 2, 1, 0.0)
    Checkpoint(other, game, "any").record_total("total", 0, 9, 20, exact=True)
    merge = Checkpoint.merge

    def meanwhile(self, their):
        run.record_refuted(2, 2, 1, 0.0)  # the run writes while the merge works
        merge(self, their)

    monkeypatch.setattr(checkpoint_module.Checkpoint, "merge", meanwhile)
    assert main(["checkpoint", "merge", str(other), "-o", str(live)]) == 0
    run.record_refuted(3, 2, 1, 0.0)
    on_disk = Checkpoint(live, game, "any")
    assert set(on_disk.refuted) == {1, 2, 3}
    assert on_disk.totals["total", 9].classes == {0: {"exact": 20}}
    assert leftovers(tmp_path) == []


def test_a_merge_never_overwrites_a_file_that_is_not_its_games_checkpoint(tmp_path, capsys,
                                                                          tree_file):
    game = parse_game(SPEC)
    other = tmp_path / "other.json"
    Checkpoint(other, game, "any").record_refuted(1, 2, 1, 0.0)
    for target, text in ((tmp_path / "notes.txt", b"my notes\n"), (tmp_path / "t.json", None)):
        if text is None:
            target.write_bytes(tree_file.read_bytes())
        else:
            target.write_bytes(text)
        before = target.read_bytes()
        assert main(["checkpoint", "merge", str(other), "-o", str(target)]) == 2
        assert target.read_bytes() == before
        assert "nothing written" in capsys.readouterr().err


def test_a_save_waits_for_the_lock(tmp_path):
    game = parse_game(SPEC)
    path = tmp_path / "c.json"
    log = Checkpoint(path, game, "any")
    with locked(path):
        writer = threading.Thread(target=log.record_refuted, args=(0, 2, 1, 0.0))
        writer.start()
        time.sleep(0.3)
        assert writer.is_alive() and not path.exists()
    writer.join(10)
    assert not writer.is_alive() and Checkpoint(path, game, "any").refuted_height(0) == 2


RUN_ON_CHECKPOINT = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    from optimizer.games import parse_game
    from optimizer.formats.checkpoint import Checkpoint
    path, cost = sys.argv[1], sys.argv[2]
    game = parse_game("mastermind:3x4")
    log = Checkpoint(path, game, "any")
    print("ready", flush=True)
    while not Path(path + ".go").exists():
        time.sleep(0.01)
    for guess in range(game.n_codes):
        log.record_total(cost, guess, 5, 64 + guess, exact=guess % 2 == 0)
    log.record_refuted(0 if cost == "total" else 1, 3, 1, 0.0)
""")


def test_concurrent_processes_on_one_checkpoint_lose_no_fact(tmp_path):
    """A least-total run and a deepest run on one file at once (the issue's probe left
    ``total: {}``): every fact of both is in the file at the end."""
    path = tmp_path / "c.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    runs = [subprocess.Popen([sys.executable, "-c", RUN_ON_CHECKPOINT, str(path), cost],
                             stdout=subprocess.PIPE, text=True, env=env)
            for cost in ("total", "deepest")]
    for process in runs:
        assert process.stdout.readline().strip() == "ready"
    Path(f"{path}.go").touch()
    for process in runs:
        assert process.wait(60) == 0
    log = Checkpoint(path, parse_game("mastermind:3x4"), "any")
    for cost in ("total", "deepest"):
        assert len(log.totals[cost, 5].classes) == 64
    assert log.refuted_height(0) == log.refuted_height(1) == 3


# --- finding 8: readers take regular files of bounded size only -------------------------------
READ_SPECIAL = textwrap.dedent("""
    import os, resource, socket, sys
    resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))  # a runaway read fails fast
    from optimizer.cli import main
    from optimizer.cli.compare import stored_rows
    from optimizer.games import parse_game
    folder = sys.argv[1]
    os.mkfifo(f"{folder}/fifo.json")
    os.symlink(f"{folder}/fifo.json", f"{folder}/link.json")
    server = socket.socket(socket.AF_UNIX)
    server.bind(f"{folder}/sock.json")
    for target in ("/dev/zero", f"{folder}/fifo.json", f"{folder}/link.json",
                   f"{folder}/sock.json"):
        for argv in (["verify", target], ["page", target, "-o", f"{folder}/p.html"],
                     ["play", target, "--secret", "0 0"], ["checkpoint", "show", target],
                     ["checkpoint", "merge", target, "-o", f"{folder}/m.json"],
                     ["info", f"words:{target}"]):
            print(main(argv), flush=True)
    rows, problems = stored_rows(parse_game("mastermind:2x3"), folder)
    print(len(problems), flush=True)
""")


def test_readers_refuse_devices_fifos_and_sockets(tmp_path):
    """/dev/zero used to grow without end, a FIFO to block: now each reader says one line."""
    result = subprocess.run([sys.executable, "-c", READ_SPECIAL, str(tmp_path)],
                            capture_output=True, text=True, timeout=120,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr[-2000:]
    statuses = result.stdout.split()
    assert statuses[:-1] == ["2"] * 24
    assert statuses[-1] == "3"  # the three special *.json files, each named as a problem
    lines = result.stderr.splitlines()
    assert len(lines) == 24 and all("not a regular file" in line for line in lines)
    assert sum("character device" in line for line in lines) == 6
    assert sum("FIFO" in line for line in lines) == 12
    assert sum("socket" in line for line in lines) == 6


def test_readers_bound_the_size(monkeypatch, tmp_path, tree_file):
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:  # sparse: no disk used, refused without being read
        handle.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(TreeFileError, match=r"has 268,435,457 bytes, more than the "
                       r"268,435,456 \(256 MB\) a tree or checkpoint file may have"):
        read_tree(big)
    with pytest.raises(CheckpointError, match=r"more than the 268,435,456 \(256 MB\)"):
        Checkpoint.read(big)
    size = tree_file.stat().st_size
    monkeypatch.setattr(reading_module, "MAX_FILE_BYTES", size - 1)
    with pytest.raises(TreeFileError, match=rf"has {size:,} bytes, more than the {size - 1:,} "):
        read_tree(tree_file)
    monkeypatch.setattr(reading_module, "MAX_FILE_BYTES", size)
    assert read_tree(tree_file).objective == "minimax"
    assert read_file(tree_file) == tree_file.read_bytes()


def test_moo_verify_of_a_large_file_is_one_line(capsys, tmp_path):
    big = tmp_path / "big.json"
    with open(big, "wb") as handle:
        handle.truncate(MAX_FILE_BYTES + 1)
    status, out, err = run(capsys, "verify", big)
    assert status == 2 and one_error_line(err, "cannot read", "256 MB")


def test_a_checkpoint_that_cannot_be_opened_says_cannot_read(capsys, tmp_path):
    """A link to itself, or a path through a file: one line saying the file cannot be read,
    from show, merge and verify alike."""
    (tmp_path / "loop.json").symlink_to("loop.json")
    (tmp_path / "afile").touch()
    for target in (tmp_path / "loop.json", tmp_path / "afile" / "x.json"):
        for argv in (["checkpoint", "show", target], ["checkpoint", "verify", target],
                     ["checkpoint", "merge", target, "-o", tmp_path / "m.json"]):
            status, out, err = run(capsys, *argv)
            assert status == 2 and one_error_line(err, "cannot read"), (argv, err)


# --- finding 10 (part): a checkpoint that cannot be written loses no tree ----------------------
def _failing_write(path, payload):
    raise OSError(28, "No space left on device", str(path))


def test_a_failed_checkpoint_write_is_said_and_tried_again(monkeypatch, capsys, tmp_path):
    game = parse_game(SPEC)
    log = Checkpoint(tmp_path / "c.json", game, "any")
    monkeypatch.setattr(checkpoint_module, "write_atomic", _failing_write)
    log.record_total("total", 0, 9, 20, exact=True)
    log.record_total("total", 1, 9, 21, exact=True)
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert err.startswith(f"moo: warning: {log.path}: cannot write the checkpoint (No space")
    assert log.unsaved and not log.path.exists()
    monkeypatch.undo()
    log.record_total("total", 2, 9, 22, exact=True)
    assert log.unsaved is None
    assert set(Checkpoint(log.path, game, "any").totals["total", 9].classes) == {0, 1, 2}
    assert "written again" in capsys.readouterr().err


def test_a_build_whose_checkpoint_cannot_be_written_still_writes_its_tree(monkeypatch, capsys,
                                                                        tmp_path):
    monkeypatch.setattr(checkpoint_module, "write_atomic", _failing_write)
    out_file = tmp_path / "t.json"
    status, out, err = run(capsys, "build", "mastermind:3x3", "--objective", "total",
                           "--quiet", "--workers", "1", "--checkpoint", tmp_path / "c.json",
                           "-o", out_file)
    assert status == 0, err
    assert read_tree(out_file).optimal
    assert "moo: warning: " in err and "cannot write the checkpoint" in err
    assert err.rstrip().endswith("cannot write the checkpoint at the run's end (No space left on "
                                 "device); the facts of this run that it does not hold are lost "
                                 "(the tree is not)")
    assert not (tmp_path / "c.json").exists()


def test_a_checkpoint_behind_a_link_stays_behind_it(tmp_path):
    game = parse_game(SPEC)
    (tmp_path / "runs").mkdir()
    link = tmp_path / "c.json"
    link.symlink_to(Path("runs") / "c.json")
    log = Checkpoint(link, game, "any")
    log.record_refuted(0, 2, 1, 0.0)
    log.record_refuted(1, 2, 1, 0.0)
    assert link.is_symlink() and set(Checkpoint(tmp_path / "runs" / "c.json", game,
                                                "any").refuted) == {0, 1}
    assert leftovers(tmp_path, tmp_path / "runs") == []


def test_a_path_under_a_file_is_refused_as_before(tmp_path, tree_file):
    with pytest.raises(OutputError, match="is not a folder"):
        check_output(tree_file / "x.json")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a file to another user needs root")
def test_root_rewriting_a_users_file_leaves_it_theirs(tmp_path, minimax_tree):
    path = tmp_path / "t.json"
    path.write_text("old")
    os.chown(path, 12345, 12346)
    path.chmod(0o640)
    write_tree(minimax_tree, path)
    status = path.stat()
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (12345, 12346, 0o640)


def test_the_collector_is_paused_and_on_again_after():
    """A checkpoint is read with the cycle collector paused (a second of a Battleship load); it
    is on again after, even after an error, and not before the last of overlapping pauses ends;
    one that was off stays off."""
    import gc

    assert gc.isenabled()
    try:
        with pytest.raises(CheckpointError):
            with files_module.collector_paused():
                assert not gc.isenabled()
                raise CheckpointError("a defect")
        assert gc.isenabled()
        first, second = files_module.collector_paused(), files_module.collector_paused()
        first.__enter__()
        second.__enter__()  # as another thread's pause would: the first one ends before it
        first.__exit__(None, None, None)
        assert not gc.isenabled()
        second.__exit__(None, None, None)
        assert gc.isenabled()
        gc.disable()
        with files_module.collector_paused():
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
