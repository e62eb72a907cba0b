/* moo page: plays a stored decision tree, both ways, with no server and no network.
   The data block (script#moo-data, written by optimizer/page.py) holds the game's rules, the
   tree in a compact encoding and its figures. Everything taken from it is shown as text
   (textContent), never parsed as HTML. The rules below are those of optimizer/games/, and the
   tests check that both give the same codes and the same feedback. */
(function () {
  "use strict";

  const DATA = JSON.parse(document.getElementById("moo-data").textContent);
  const WIN_WORDS = ["w", "win", "won", "solved", "yes", "y", "right", "correct", "!"];
  const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

  // --- the game's codes, in the order of optimizer/games (index = position in the list) ----
  function digitCodes(ranges, distinct) {
    const codes = [];
    const row = ranges.map(() => 0);
    for (;;) {  // an odometer, last position fastest: itertools.product's order
      if (!distinct || new Set(row).size === row.length) codes.push(row.slice());
      let i = row.length - 1;
      while (i >= 0 && ++row[i] === ranges[i]) row[i--] = 0;
      if (i < 0) return codes;
    }
  }

  function combinations(n, k) {  // itertools.combinations(range(n), k)
    const codes = [];
    const c = [];
    for (let i = 0; i < k; i++) c.push(i);
    if (k > n) return codes;
    for (;;) {
      codes.push(c.slice());
      let i = k - 1;
      while (i >= 0 && c[i] === n - k + i) i--;
      if (i < 0) return codes;
      c[i]++;
      for (let j = i + 1; j < k; j++) c[j] = c[j - 1] + 1;
    }
  }

  function makeGame(rules) {
    if (rules.family === "words") return MooWords.makeGame(rules, WIN_WORDS);
    const battleship = rules.family === "battleship";
    const codes = battleship
      ? combinations(rules.rows * rules.columns, rules.ships)
      : digitCodes(rules.ranges, rules.distinct);
    const names = rules.feedback_names;
    const base = (battleship ? rules.ships : rules.ranges.length) + 1;
    const index = new Map(codes.map((code, i) => [code.join(","), i]));
    const toId = (counts) => counts.reduce((id, c) => id * base + c, 0);
    let score, format, keyOf;

    if (battleship) {
      const rows = rules.rows;
      const squares = rules.rows * rules.columns;
      const distance = [];  // Chebyshev: the eight neighbours are one away
      for (let a = 0; a < squares; a++) {
        distance.push([]);
        for (let b = 0; b < squares; b++) {
          distance[a].push(Math.max(Math.abs(Math.floor(a / rows) - Math.floor(b / rows)),
                                    Math.abs((a % rows) - (b % rows))));
        }
      }
      const squareName = (q) => String.fromCharCode(65 + Math.floor(q / rows)) + ((q % rows) + 1);
      const last = squareName(squares - 1);
      score = (g, s) => {  // each guessed square counts once, by its closest ship
        const counts = [0, 0, 0];
        for (const q of codes[g]) {
          let d = Infinity;
          for (const ship of codes[s]) d = Math.min(d, distance[q][ship]);
          if (d <= 2) counts[d]++;
        }
        return counts;
      };
      format = (i) => codes[i].map(squareName).join(" ");
      keyOf = (text) => {
        const found = [];
        for (const name of text.trim().toUpperCase().split(/[\s,;]+/).filter((t) => t)) {
          const m = /^([A-Z])([0-9])$/.exec(name);
          const column = m ? m[1].charCodeAt(0) - 65 : -1;
          const row = m ? Number(m[2]) - 1 : -1;
          if (!m || column >= rules.columns || row < 0 || row >= rows) {
            throw new Error(`'${name}' is not a square of ${rules.spec} (A1 to ${last})`);
          }
          found.push(column * rows + row);
        }
        if (new Set(found).size !== found.length) {
          throw new Error(`'${text.trim()}': the squares of a guess must be different`);
        }
        return found.sort((a, b) => a - b);
      };
    } else {
      const symbols = Math.max.apply(null, rules.ranges);
      const tallies = codes.map((code) => {
        const t = new Uint8Array(symbols);
        for (const x of code) t[x]++;
        return t;
      });
      score = (g, s) => {  // bulls: same place; cows: common symbols with multiplicity - bulls
        const a = codes[g], b = codes[s], ta = tallies[g], tb = tallies[s];
        let bulls = 0, common = 0;
        for (let i = 0; i < a.length; i++) if (a[i] === b[i]) bulls++;
        for (let x = 0; x < symbols; x++) common += Math.min(ta[x], tb[x]);
        return [bulls, common - bulls];
      };
      format = (i) => codes[i].join(symbols <= 10 ? "" : " ");
      keyOf = (text) => {
        let parts = text.trim().split(/[\s,;]+/).filter((t) => t);
        if (parts.length === 1 && symbols <= 10 && /^[0-9]+$/.test(parts[0])) {
          parts = parts[0].split("");
        }
        if (!parts.length || !parts.every((p) => /^[0-9]+$/.test(p))) return null;
        return parts.map(Number);
      };
    }

    const game = {
      spec: rules.spec, names, base, codes, n: codes.length, secrets: codes.length, noun: "code",
      format,
      win: toId(battleship ? [rules.ships, 0, 0] : [rules.ranges.length, 0]),
      feedback: (g, s) => toId(score(g, s)),
      counts(id) {
        const counts = [];
        for (let i = 0; i < names.length; i++) { counts.unshift(id % base); id = Math.floor(id / base); }
        return counts;
      },
      formatFeedback(id) { return game.counts(id).join(" "); },
      named(id) { return `${game.formatFeedback(id)} (${names.join(" ")})`; },
      parseCode(text) {  // the code's index; an Error says what is wrong
        const key = keyOf(text);
        const i = key ? index.get(key.join(",")) : undefined;
        if (i === undefined) throw new Error(`'${text.trim()}' is not a code of ${rules.spec}: ${rules.code_rule}`);
        return i;
      },
      parseFeedback(text) {  // the numbers only, apart (1 2, 1,2, (1, 2)) or together (12); w
        const t = text.trim().toLowerCase();
        if (WIN_WORDS.indexOf(t) >= 0) return game.win;
        let numbers = t.split(/[\s,;()[\]]+/).filter((x) => x !== "");
        if (numbers.length === 1 && numbers[0].length === names.length) numbers = numbers[0].split("");
        const shown = text.trim();
        if (numbers.length !== names.length || !numbers.every((x) => /^[0-9]+$/.test(x))) {
          throw new Error(`feedback '${shown}' should be ${names.length} numbers (${names.join(" ")})`);
        }
        const values = numbers.map(Number);
        if (values.some((v) => v >= base)) {
          throw new Error(`feedback '${shown}': each number must be between 0 and ${base - 1}`);
        }
        if (values.reduce((a, b) => a + b, 0) > base - 1) {
          throw new Error(`feedback '${shown}': the numbers add up to more than ${base - 1}, which cannot happen in ${rules.spec}`);
        }
        return toId(values);
      },
      possibleFeedback(g) {  // every feedback some code gives to guess g, in id order
        const seen = new Set();
        for (let s = 0; s < codes.length; s++) seen.add(game.feedback(g, s));
        return Array.from(seen).sort((a, b) => a - b);
      },
    };
    return game;
  }

  // --- the tree: preorder; per node its guess, its number of children, then per child the
  // feedback and the child's own encoding; fixed-width numbers in base 64 -------------------
  function decodeTree(encoded, game) {
    const text = encoded.nodes;
    const digit = new Map(ALPHABET.split("").map((ch, i) => [ch, i]));
    let pos = 0;
    const read = (width) => {
      let value = 0;
      for (let i = 0; i < width; i++) {
        const d = digit.get(text[pos++]);
        if (d === undefined) throw new Error("the embedded tree is damaged");
        value = value * 64 + d;
      }
      return value;
    };
    const node = () => {
      const guess = read(encoded.guess_width);
      if (guess >= game.n) throw new Error("the embedded tree names a code the game does not have");
      return { guess, next: new Map(), left: read(encoded.children_width) };
    };
    const root = node();
    const stack = [root];
    while (stack.length) {
      const top = stack[stack.length - 1];
      if (top.left === 0) { stack.pop(); continue; }
      top.left--;
      const fid = read(encoded.feedback_width);
      const child = node();
      top.next.set(fid, child);
      stack.push(child);
    }
    if (pos !== text.length) throw new Error("the embedded tree is damaged");
    return root;
  }

  // --- page helpers ------------------------------------------------------------------------
  const $ = (id) => document.getElementById(id);
  const guessesWord = (n) => `${n} guess${n === 1 ? "" : "es"}`;
  function say(element, text, tone) {  // tone: "alert", "good", or none (plain news)
    element.textContent = text;
    element.classList.toggle("alert", tone === "alert");
    element.classList.toggle("good", tone === "good");
  }
  function clear(element) {
    element.textContent = "";
  }
  function item(tag, text) {
    const el = document.createElement(tag);
    el.textContent = text;
    return el;
  }

  // --- the computer guesses the person's secret ------------------------------------------
  function Maker(game, root) {
    let rounds, node, candidates, status;
    const buttons = new Map();  // feedback id -> button, one per feedback the game has
    const words = game.family === "words";
    const tiles = words ? MooWords.Tiles(game, $("maker-tiles"), $("maker-submit"),
                                         $("maker-all-green"), (fid) => { answer(fid); focusNext(); })
                        : null;

    function start() {
      rounds = [];
      node = root;
      candidates = secrets(game);
      status = "playing";
      if (words) tiles.show(node.guess);  // grey tiles for each new guess, kept while it stands
      render("");
    }

    function answer(fid) {
      if (status !== "playing") return;
      const guess = node.guess;
      const remaining = candidates.filter((s) => game.feedback(guess, s) === fid);
      if (!remaining.length && game.possibleFeedback(guess).indexOf(fid) < 0) {
        render(`${game.formatFeedback(fid)} cannot happen: no ${game.noun} of ${game.spec} gives that to ${game.format(guess)}. Please check it and answer again.`);
        return;
      }
      rounds.push({ guess, fid, left: remaining.length });
      candidates = remaining;
      if (!remaining.length) status = "contradiction";
      else if (fid === game.win) status = "solved";
      else if (!node.next.has(fid)) status = "no-move";
      else node = node.next.get(fid);
      if (words && status === "playing") tiles.show(node.guess);
      render("");
    }

    function undo() {
      const kept = rounds.slice(0, -1).map((r) => r.fid);
      start();
      kept.forEach(answer);
      $("maker-input").focus();
    }

    function choicesLeft(n) {
      return n === 1 ? `one choice left; it must be ${game.format(candidates[0])}` : `${n} choices left`;
    }

    function render(problem) {
      const playing = status === "playing";
      const number = rounds.length + (playing ? 1 : 0);
      $("maker-number").textContent = playing ? `Guess ${number}` : `Guesses: ${rounds.length}`;
      $("maker-guess").textContent = playing ? game.format(node.guess) : "";
      $("maker-form").hidden = !playing;
      $("maker-buttons").hidden = !playing || words;
      $("maker-tiles-box").hidden = !playing || !words;
      const left = $("maker-left");
      left.hidden = !(candidates.length > 1 && candidates.length <= FEW && status !== "contradiction");
      left.textContent = left.hidden ? "" : `The secrets left: ${candidates.map(game.format).join(", ")}.`;
      $("maker-secret-form").hidden = status !== "contradiction";
      $("maker-undo").disabled = rounds.length === 0;
      clear($("maker-wrong"));
      if (playing) {
        const possible = new Set(game.possibleFeedback(node.guess));
        buttons.forEach((button, fid) => { button.hidden = !possible.has(fid); });
        say($("maker-status"), rounds.length ? choicesLeft(candidates.length)
                                             : `${candidates.length} possible secret${candidates.length === 1 ? "" : "s"}`);
      } else if (status === "solved") {
        say($("maker-status"), "Solved");
      } else if (status === "contradiction") {
        say($("maker-status"), "0 choices left");
      } else {
        say($("maker-status"), choicesLeft(candidates.length));
      }
      const message = $("maker-message");
      if (problem) say(message, problem, "alert");
      else if (status === "solved") say(message, `Solved: your secret is ${game.format(rounds[rounds.length - 1].guess)}, found in ${guessesWord(rounds.length)}.`, "good");
      else if (status === "contradiction") say(message, "That cannot be: no secret agrees with all your answers, so one of them is wrong.", "alert");
      else if (status === "no-move") say(message, "The stored tree has no move for this answer although secrets fit every answer: the tree is incomplete.", "alert");
      else say(message, "");
      const history = $("maker-history");
      clear(history);
      for (const r of rounds) {
        const after = r.fid === game.win && r.left ? "solved" : `${r.left} left`;
        history.appendChild(item("li", `${game.format(r.guess)} → ${game.named(r.fid)} · ${after}`));
      }
    }

    function name(event) {
      event.preventDefault();
      const input = $("maker-secret");
      let secret;
      try {
        secret = game.parseCode(input.value);
        if (secret >= game.secrets) {  // Game.parse_secret: an allowed guess, no answer
          throw new Error(`'${input.value.trim()}' may be guessed in ${game.spec} but is not one of its ${game.secrets.toLocaleString("en-US")} possible ${game.noun}s`);
        }
      } catch (error) {
        say($("maker-message"), `That is not a valid code: ${error.message}.`, "alert");
        return;
      }
      const list = $("maker-wrong");
      clear(list);
      say($("maker-message"), `You say your secret is ${game.format(secret)}.`);
      for (const r of rounds) {
        const truth = game.feedback(r.guess, secret);
        if (truth !== r.fid) {
          list.appendChild(item("li", `When I guessed ${game.format(r.guess)} you replied ${game.named(r.fid)} but in fact it is ${game.named(truth)}.`));
        }
      }
    }

    function typed(event) {
      event.preventDefault();
      const input = $("maker-input");
      try {
        answer(game.parseFeedback(input.value));
        input.value = "";
      } catch (error) {
        render(`I do not understand that: ${error.message}.`);
      }
      focusNext();
    }

    function focusNext() {
      if (status === "playing" && words) tiles.focus();
      else if (status === "playing") $("maker-input").focus();
      else if (status === "contradiction") $("maker-secret").focus();
      else $("maker-new").focus();
    }

    for (const fid of words ? [] : allFeedback(game)) {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = game.formatFeedback(fid) + (fid === game.win ? " ✓" : "");
      button.setAttribute("aria-label", game.counts(fid).map((c, i) => `${c} ${game.names[i]}`).join(", ")
                          + (fid === game.win ? ": you have it" : ""));
      button.dataset.feedback = game.formatFeedback(fid);
      if (fid === game.win) button.classList.add("win");
      button.addEventListener("click", () => { answer(fid); focusNext(); });
      buttons.set(fid, button);
      $("maker-buttons").appendChild(button);
    }
    $("maker-form").addEventListener("submit", typed);
    $("maker-secret-form").addEventListener("submit", name);
    $("maker-undo").addEventListener("click", undo);
    $("maker-new").addEventListener("click", () => { start(); focusNext(); });
    if (words) {
      $("maker-guess").classList.add("visually-hidden");  // the tiles show it
      $("maker-input").inputMode = "text";
    }
    start();
    return { start, focus: focusNext };
  }

  const FEW = 20;  // the secrets left are listed when there are at most this many
  const secrets = (game) => Array.from({ length: game.secrets }, (_, i) => i);

  function allFeedback(game) {  // every count vector the game allows, winning one last
    const ids = [];
    for (let id = 0; id < Math.pow(game.base, game.names.length); id++) {
      const counts = game.counts(id);
      if (counts.reduce((a, b) => a + b, 0) <= game.base - 1 && id !== game.win) ids.push(id);
    }
    ids.push(game.win);
    return ids;
  }

  // --- the person guesses the computer's secret ------------------------------------------
  function Breaker(game, root) {
    let secret, made, candidates, over, played;
    const rule = $("breaker-rule");
    const RULE_NAMES = { consistent: "consistent guesses only", hard: "hard mode" };
    if (game.family !== "words") rule.querySelector('option[value="hard"]').remove();

    function breaks(g) {  // why g breaks the rule chosen (player.py's _breaks_rule), or null
      if (rule.value === "consistent" && g >= game.secrets) return `it cannot be the secret: it is not one of the ${game.secrets.toLocaleString("en-US")} answers`;
      for (const [earlier, fid] of played) {
        const shown = `${game.format(earlier)} got ${game.named(fid)}`;
        if (rule.value === "consistent" && game.feedback(earlier, g) !== fid) return `it cannot be the secret, as ${shown}`;
        const hint = rule.value === "hard" ? MooWords.droppedHint(game, earlier, fid, g) : null;
        if (hint !== null) return `${shown}, so ${hint}`;
      }
      return null;
    }

    function ruleNote() {  // the rule the game was played under, when it held the guesses
      return rule.value in RULE_NAMES && made > 0 ? ` (${RULE_NAMES[rule.value]})` : "";
    }

    function draw() {
      if (window.crypto && window.crypto.getRandomValues) {
        const word = new Uint32Array(1);
        window.crypto.getRandomValues(word);
        return word[0] % game.secrets;
      }
      return Math.floor(Math.random() * game.secrets);
    }

    function treeGuesses(s) {  // how many guesses the stored tree needs for s
      let node = root;
      for (let k = 1; node; k++) {
        const fid = game.feedback(node.guess, s);
        if (fid === game.win) return k;
        node = node.next.get(fid);
      }
      return null;
    }

    function start() {
      secret = draw();
      made = 0;
      over = false;
      played = [];
      candidates = secrets(game);
      rule.disabled = false;  // chosen for a whole game: fixed from its first guess on
      rule.removeAttribute("aria-describedby");
      $("breaker-rule-fixed").hidden = true;
      clear($("breaker-history"));
      $("breaker-form").hidden = false;
      say($("breaker-message"), "");
    }

    function guess(event) {
      event.preventDefault();
      const input = $("breaker-input");
      let g;
      try {
        g = game.parseCode(input.value);
      } catch (error) {
        say($("breaker-message"), `Not a valid guess: ${error.message}.`, "alert");
        input.focus();
        return;
      }
      const broken = breaks(g);
      if (broken) {
        say($("breaker-message"), `Not allowed (${RULE_NAMES[rule.value]}): ${broken}.`, "alert");
        input.focus();
        return;
      }
      input.value = "";
      made++;
      rule.disabled = true;
      rule.setAttribute("aria-describedby", "breaker-rule-fixed");  // why it cannot be changed
      $("breaker-rule-fixed").hidden = false;
      const fid = game.feedback(g, secret);
      played.push([g, fid]);
      candidates = candidates.filter((s) => game.feedback(g, s) === fid);
      const row = document.createElement("tr");
      [String(made), game.format(g), game.formatFeedback(fid), String(candidates.length)]
        .forEach((text) => row.appendChild(item("td", text)));
      if (game.family === "words") {  // the guess in the colours it got
        row.children[1].textContent = "";
        row.children[1].appendChild(MooWords.coloured(game, g, fid));
      }
      $("breaker-history").appendChild(row);
      if (fid === game.win) {
        const needs = treeGuesses(secret);
        const tree = needs ? ` The stored strategy needs ${guessesWord(needs)} for this secret.` : "";
        finish(`${game.named(fid)}: solved! The secret is ${game.format(secret)}; you found it in ${guessesWord(made)}${ruleNote()}.${tree}`, "good");
      } else {
        say($("breaker-message"), game.named(fid));
        input.focus();
      }
    }

    function finish(text, tone) {
      over = true;
      say($("breaker-message"), text, tone);
      $("breaker-form").hidden = true;
      $("breaker-new").focus();
    }

    $("breaker-form").addEventListener("submit", guess);
    $("breaker-give-up").addEventListener("click", () => {
      if (!over) finish(`The secret was ${game.format(secret)}; you made ${guessesWord(made)}${ruleNote()}.`);
    });
    $("breaker-new").addEventListener("click", () => { start(); $("breaker-input").focus(); });
    start();
    return { focus: () => (over ? $("breaker-new") : $("breaker-input")).focus() };
  }

  // --- the page ----------------------------------------------------------------------------
  function main() {
    const game = makeGame(DATA.rules);
    if (game.n !== DATA.rules.codes) {
      throw new Error(`this page lists ${game.n} codes of ${game.spec}, the tree ${DATA.rules.codes}`);
    }
    const root = decodeTree(DATA.tree, game);
    const maker = Maker(game, root);
    const breaker = Breaker(game, root);
    const show = (which) => {
      $("maker").hidden = which !== "maker";
      $("breaker").hidden = which !== "breaker";
      $("mode-maker").setAttribute("aria-pressed", String(which === "maker"));
      $("mode-breaker").setAttribute("aria-pressed", String(which === "breaker"));
      (which === "maker" ? maker : breaker).focus();
    };
    $("mode-maker").addEventListener("click", () => show("maker"));
    $("mode-breaker").addEventListener("click", () => show("breaker"));
    if (game.family === "words") {
      $("contrast-choice").hidden = false;
      $("contrast").addEventListener("change", (event) => {
        document.body.classList.toggle("high-contrast", event.target.checked);
      });
    }
    // For tests and the curious: the rules and the tree, as the page uses them.
    window.moo = { game, root, feedback: (g, s) => game.feedback(g, s) };
    document.body.dataset.ready = "true";
  }

  try {
    main();
  } catch (error) {
    const p = item("p", `This page cannot play: ${error.message}.`);
    p.className = "alert";
    document.getElementById("play").prepend(p);
    document.body.dataset.ready = "error";
  }
})();
