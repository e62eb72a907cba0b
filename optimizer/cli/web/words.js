/* moo page, word games (Wordle, custom lists): the rules of optimizer/games/words.py and
   the answers read by optimizer/games/reply.py, and the letter tiles a person colours to
   answer a guess. page.js (which follows this file in the page's one script) calls
   MooWords.makeGame for the rules' family "words" and MooWords.Tiles for the answer. */
const MooWords = (function () {
  "use strict";

  const GREEN = 2, YELLOW = 1, ABSENT = 0;
  const SQUARES = ["\u2b1b", "\ud83d\udfe8", "\ud83d\udfe9"];  // ⬛ 🟨 🟩, by mark
  const COLOURS = ["grey: not in the word", "yellow: in the word, elsewhere",
                   "green: right place"];
  // games/reply.py's WORD_MARKS: letters, digits, Wordle's squares and the high-contrast ones
  const MARKS = new Map([["2", 2], ["1", 1], ["0", 0], ["g", 2], ["y", 1], ["b", 0], ["x", 0],
    [".", 0], ["\ud83d\udfe9", 2], ["\ud83d\udfe8", 1], ["\u2b1b", 0], ["\u2b1c", 0],
    ["\ud83d\udfe7", 2], ["\ud83d\udfe6", 1]]);
  const KEYS = { g: 2, 2: 2, y: 1, 1: 1, b: 0, x: 0, 0: 0, ".": 0 };

  function decodeWords(text, letters) {  // page_data.encode_words: shared count, then the rest
    const words = [];
    let before = "";
    for (let pos = 0; pos < text.length;) {
      const shared = Number(text[pos]);
      const word = before.slice(0, shared) + text.slice(pos + 1, pos + 1 + letters - shared);
      words.push(word);
      pos += 1 + letters - shared;
      before = word;
    }
    return words;
  }

  function makeGame(rules, winWords) {
    const letters = rules.letters;
    const words = decodeWords(rules.answers, letters).concat(decodeWords(rules.others, letters));
    const codes = words.map((w) => Array.from(w, (ch) => ch.charCodeAt(0) - 97));
    const index = new Map(words.map((w, i) => [w, i]));
    const toId = (marks) => marks.reduce((id, m) => id * 3 + m, 0);
    const quote = (text) => `'${text}'`;

    function marks(g, s) {  // words.word_marks: greens first, then yellows left to right
      const a = codes[g], b = codes[s], out = new Array(letters).fill(ABSENT);
      const left = new Uint8Array(26);
      for (let i = 0; i < letters; i++) {
        if (a[i] === b[i]) out[i] = GREEN;
        else left[b[i]]++;
      }
      for (let i = 0; i < letters; i++) {
        if (out[i] !== GREEN && left[a[i]] > 0) { out[i] = YELLOW; left[a[i]]--; }
      }
      return out;
    }

    function counts(id) {
      const out = [];
      for (let i = 0; i < letters; i++) { out.unshift(id % 3); id = Math.floor(id / 3); }
      return out;
    }

    const game = {
      family: "words", spec: rules.spec, names: rules.feedback_names, base: 3, codes, words,
      letters, n: codes.length, secrets: rules.secrets, noun: "answer",
      win: toId(new Array(letters).fill(GREEN)),
      format: (i) => words[i],
      feedback: (g, s) => toId(marks(g, s)),
      counts, toId,
      formatFeedback: (id) => counts(id).join(" "),
      squares: (id) => counts(id).map((m) => SQUARES[m]).join(""),
      named: (id) => `${game.formatFeedback(id)} (${game.squares(id)})`,
      parseCode(text) {
        const i = index.get(text.trim().toLowerCase());
        if (i === undefined) throw new Error(`${quote(text.trim())} is not a code of ${rules.spec}: ${rules.code_rule}`);
        return i;
      },
      parseFeedback(text) {  // reply.py's _word_reply, form for form
        const t = text.replace(/\ufe0f/g, "").trim().toLowerCase();
        const tokens = t.split(/[\s,;()[\]]+/).filter((x) => x !== "");
        let given;
        if (tokens.length === 1) given = Array.from(tokens[0]);
        else if (tokens.every((x) => Array.from(x).length === 1)) given = tokens;
        else throw new Error(`feedback ${quote(text)}: give one mark a letter, written together (gybbb, 21000) or each apart (2 1 0 0 0)`);
        const isMarks = given.every((m) => MARKS.has(m));
        if (winWords.indexOf(t) >= 0 && !(isMarks && given.length === letters)) return game.win;
        if (t === "none" || t === "nothing") return 0;
        const bad = given.find((m) => !MARKS.has(m));
        if (bad !== undefined) throw new Error(`feedback ${quote(text)}: '${bad}' is not a mark; give g, y or b (green, yellow, grey), 2, 1 or 0, or the coloured squares`);
        if (given.length !== letters) throw new Error(`feedback ${quote(text)} has ${given.length} marks: give ${letters}, one a letter`);
        return toId(given.map((m) => MARKS.get(m)));
      },
      possibleFeedback(g) {  // every feedback some answer gives to guess g, in id order
        const seen = new Set();
        for (let s = 0; s < game.secrets; s++) seen.add(game.feedback(g, s));
        return Array.from(seen).sort((a, b) => a - b);
      },
    };
    return game;
  }

  function tile(letter, mark, tag) {  // a letter in its colour; data-mark styles it
    const el = document.createElement(tag);
    el.className = "tile";
    el.textContent = letter;
    el.dataset.mark = String(mark);
    return el;
  }

  // The guess as one button a letter: a click (Enter, Space) turns grey, yellow, green, grey;
  // g, y or b (2, 1, 0) set the colour; the arrows move between letters.
  function Tiles(game, box, submit, allGreen, onAnswer) {
    let buttons = [];

    function label(button, i) {
      const mark = Number(button.dataset.mark);
      button.setAttribute("aria-label", `${button.textContent.toUpperCase()}, letter ${i + 1} of ${game.letters}: ${COLOURS[mark]}`);
    }

    function set(i, mark) {
      buttons[i].dataset.mark = String(mark);
      label(buttons[i], i);
    }

    function show(guess) {
      box.textContent = "";
      buttons = Array.from(game.format(guess), (letter, i) => {
        const button = tile(letter, ABSENT, "button");
        button.type = "button";
        label(button, i);
        button.addEventListener("click", () => set(i, (Number(button.dataset.mark) + 1) % 3));
        button.addEventListener("keydown", (event) => {
          const key = event.key.toLowerCase();
          if (Object.prototype.hasOwnProperty.call(KEYS, key)) {
            set(i, KEYS[key]);
            event.preventDefault();
          } else if (key === "arrowright" || key === "arrowleft") {
            const next = buttons[i + (key === "arrowright" ? 1 : -1)];
            if (next) next.focus();
            event.preventDefault();
          }
        });
        box.appendChild(button);
        return button;
      });
    }

    submit.addEventListener("click", () => onAnswer(game.toId(buttons.map((b) => Number(b.dataset.mark)))));
    allGreen.addEventListener("click", () => onAnswer(game.win));
    return { show, focus: () => buttons.length && buttons[0].focus() };
  }

  // The guess's letters in the colours the secret gives them (the breaker's table).
  function coloured(game, guess, fid) {
    const span = document.createElement("span");
    span.className = "tiles small";
    const marks = game.counts(fid);
    Array.from(game.format(guess)).forEach((letter, i) => span.appendChild(tile(letter, marks[i], "span")));
    span.setAttribute("role", "img");
    span.setAttribute("aria-label", `${game.format(guess)}: ${marks.map((m) => COLOURS[m].split(":")[0]).join(", ")}`);
    return span;
  }

  // The first hint of earlier's answer (fid) that guess drops, in Wordle's words, or null
  // when it keeps them all: hard mode, as words.dropped_hint.
  function droppedHint(game, earlier, fid, guess) {
    const a = game.codes[earlier], b = game.codes[guess], marks = game.counts(fid);
    const named = (code) => String.fromCharCode(97 + code).toUpperCase();  // makeGame's codes
    const revealed = new Map();
    for (let i = 0; i < game.letters; i++) {
      if (marks[i] === GREEN && a[i] !== b[i]) return `letter ${i + 1} must be ${named(a[i])}`;
      if (marks[i] !== ABSENT) revealed.set(a[i], (revealed.get(a[i]) || 0) + 1);
    }
    for (const [letter, k] of revealed) {
      if (b.filter((x) => x === letter).length < k) {
        return `it must contain ${named(letter)}${k > 1 ? ` ${k} times` : ""}`;
      }
    }
    return null;
  }

  return { makeGame, Tiles, coloured, decodeWords, droppedHint };
})();
