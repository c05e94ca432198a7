// The replay viewer. Each game draws its table in a module of its own (matches/replay/GAME.js) that calls
// ArenaReplay.register(GAME, {render}); a game without one is shown as the server's text rendering.
// The viewer owns everything else: stepping, playing at a chosen speed, jumping to a round or a step,
// the full or one seat's view, the moves with their analysis, and the decision each seat faced.
window.ArenaReplay = (() => {
  const renderers = {};

  // Elements with attributes and children, for the game modules: el("div", {class: "x"}, "text", node).
  function el(tag, attributes = {}, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attributes)) {
      if (value !== null && value !== undefined && value !== false) node.setAttribute(name, value === true ? "" : value);
    }
    node.append(...children.flat().filter((child) => child !== null && child !== undefined && child !== false));
    return node;
  }

  const generic = {
    render(view, ctx) {
      return el("pre", {class: "state-text", "data-generic": true}, ctx.frame.text);
    },
  };

  function register(game, renderer) {
    renderers[game] = renderer;
  }

  // A frame's whole view, rebuilt from the compact payload (matches.replays.compact).
  function viewOf(data, index) {
    const frame = data.frames[index];
    const view = {...data.fixed, ...frame.view};
    for (const [key, [segment, length]] of Object.entries(frame.lengths || {})) {
      view[key] = data.logs[key][segment].slice(0, length);
    }
    return view;
  }

  // The viewer on the page's replay (#replay-data, #replay-config and the controls around #board): at its first
  // step, or `atEnd` at its last (a match page that switches to its replay once the match is over).
  function start({atEnd = false} = {}) {
    const $ = (id) => document.getElementById(id);
    const config = JSON.parse($("replay-config").textContent);
    let data = JSON.parse($("replay-data").textContent);
    let step = 0;
    let timer = null;
    const streamed = {};  // frame index -> its move's analysis, as the server streams it in
    const renderer = () => renderers[data.game] || generic;
    const analysisOf = (index) => {
      const event = data.frames[index].event;
      return event ? event.analysis || streamed[index] || null : null;
    };

    function fillRounds() {
      const select = $("round");
      select.replaceChildren();
      const firsts = new Map();
      data.frames.forEach((frame, index) => {
        if (frame.round !== null && frame.round !== undefined && !firsts.has(frame.round)) firsts.set(frame.round, index);
      });
      $("round-control").hidden = firsts.size < 2;
      for (const [round, index] of firsts) select.append(el("option", {value: index}, `round ${round}`));
    }

    function fillMoves() {
      const body = $("moves").querySelector("tbody");
      const rows = [];
      let lastRound = null;
      data.frames.forEach((frame, index) => {
        if (!frame.event) return;
        const cells = [index, frame.event.text];
        const analysis = analysisOf(index);
        const columns = renderer().moveColumns;
        // End Game's solver measures points (three columns); the others explain each decision in words,
        // unless the game's module names its own columns.
        if (columns && data.has_analysis) {
          cells.push(...(analysis ? columns.cells(analysis) : columns.headers.map(() => "")));
        } else if (data.points_lost) {
          cells.push(...(analysis ? [analysis.best_value, analysis.move_value, analysis.points_lost] : ["", "", ""]));
        } else if (data.has_analysis) {
          cells.push(analysis ? analysis.explanation || analysis.text : "");
        }
        const row = el("tr", {"data-step": index, class: `seat-${frame.event.seat}`}, cells.map((value) => el("td", {}, String(value))));
        if (analysis && (columns ? columns.mistake(analysis) : analysis.points_lost > 0 || analysis.valid === false)) {
          row.classList.add("mistake");
        }
        if (frame.round !== lastRound && lastRound !== null) row.classList.add("round-start");
        lastRound = frame.round;
        rows.push(row);
      });
      body.replaceChildren(...rows);
    }

    // A game module's own analysis columns replace the headings the page was served with.
    function fillMoveHeadings() {
      const columns = renderer().moveColumns;
      if (!columns || !data.has_analysis) return;
      const headings = ["#", "Move", ...columns.headers].map((text) => el("th", {}, text));
      $("moves").querySelector("thead").replaceChildren(el("tr", {}, headings));
    }

    function decisionBox(frame) {
      const next = data.frames[step + 1];
      const decision = next && next.event && next.event.decision;
      if (!decision) return [];
      const who = data.players[next.event.seat];
      return [el("div", {class: "decision"},
        el("div", {}, `${who} to decide — ${decision.options.length} option${decision.options.length === 1 ? "" : "s"}:`),
        el("ul", {}, decision.options.map((text, index) => el("li", {class: index === decision.chosen ? "chosen" : null},
          text, index === decision.chosen ? " ← chosen" : ""))))];
    }

    function offlineCommand() {
      const seat = data.seat === null || data.seat === undefined ? "" : ` --seat ${data.seat}`;
      return `python -m games replay ${config.file} --step ${step}${seat}`;
    }

    function show(index) {
      step = Math.max(0, Math.min(index, data.frames.length - 1));
      const frame = data.frames[step];
      const ctx = {data, frame, step, seat: data.seat, players: data.players, el, viewAt: (i) => viewOf(data, i)};
      const drawn = renderer().render(viewOf(data, step), ctx);
      $("board").replaceChildren(...[].concat(drawn));
      $("text").textContent = frame.text;
      const event = frame.event;
      const analysis = analysisOf(step);
      $("event").textContent = event ? event.text + (analysis ? ` — ${analysis.explanation || analysis.text}` : "") : "start of the match";
      $("decision").replaceChildren(...decisionBox(frame));
      $("jump").max = data.frames.length - 1;
      $("jump").value = step;
      $("step-input").max = data.frames.length - 1;
      $("step-input").value = step;
      $("position").textContent = `step ${step} / ${data.frames.length - 1}` + (frame.round != null ? ` · round ${frame.round}` : "");
      $("offline").textContent = offlineCommand();
      const roundSelect = $("round");
      const options = [...roundSelect.options].filter((option) => Number(option.value) <= step);
      if (options.length) roundSelect.value = options[options.length - 1].value;
      markCurrentMove(true);
      if (step === data.frames.length - 1) stop();
    }

    function markCurrentMove(scroll) {
      document.querySelectorAll("#moves tr.current").forEach((row) => row.classList.remove("current"));
      const row = document.querySelector(`#moves tr[data-step="${step}"]`);
      if (row) {
        row.classList.add("current");
        const box = $("moves-side");
        if (scroll && (row.offsetTop < box.scrollTop || row.offsetTop > box.scrollTop + box.clientHeight - row.offsetHeight)) {
          box.scrollTop = row.offsetTop - box.clientHeight / 2;
        }
      }
    }

    // A game whose analysis is streamed (Sprouts): the board is shown at once, then each move's analysis
    // is asked for, last move first (small positions solve fast and teach the solver's store the larger
    // ones), with the progress shown; moves the solver could not settle in time are asked once more.
    async function streamAnalysis() {
      const progress = $("analysis-progress");
      const moves = data.frames.map((frame, index) => (frame.event && frame.event.action ? index : null)).filter((index) => index !== null);
      let settled = 0;
      for (const pass of [1, 2]) {
        const todo = moves.filter((index) => !streamed[index] || streamed[index].verdict === "unsettled").reverse();
        for (const [done, index] of todo.entries()) {
          progress.textContent = `analysis${pass > 1 ? " (second try)" : ""}: ${settled} of ${moves.length} moves settled · analysing move ${index} (${done + 1}/${todo.length})…`;
          const response = await fetch(config.analysis.replace(/0\/$/, `${index - 1}/`), {credentials: "same-origin"});
          if (!response.ok) continue;
          streamed[index] = (await response.json()).analysis;
          settled = moves.filter((move) => streamed[move] && streamed[move].verdict !== "unsettled").length;
          fillMoves();
          markCurrentMove(false);
          if (index === step) show(step);
        }
      }
      progress.textContent = `analysis: ${settled} of ${moves.length} moves settled` +
        (settled < moves.length ? ` (${moves.length - settled} early in the game, with many lives left, could not be solved` +
          " in time: opening this page again searches them further, from what was solved so far, but the first moves" +
          " of a large game may stay unsettled)" : "");
      progress.dataset.done = "true";
    }

    function stop() {
      clearInterval(timer);
      timer = null;
      $("play").textContent = "Play";
    }

    function play() {
      clearInterval(timer);
      $("play").textContent = "Pause";
      timer = setInterval(() => show(step + 1), 1000 / Number($("speed").value));
    }

    // The first step of each round, in order (empty for games without rounds).
    function roundStarts() {
      return [...$("round").options].map((option) => Number(option.value));
    }

    function previousRound() {
      const earlier = roundStarts().filter((index) => index < step);
      show(earlier.length ? earlier[earlier.length - 1] : 0);
    }

    function nextRound() {
      const later = roundStarts().filter((index) => index > step);
      show(later.length ? later[0] : data.frames.length - 1);
    }

    $("first").onclick = () => { stop(); show(0); };
    $("prev").onclick = () => { stop(); show(step - 1); };
    $("next").onclick = () => { stop(); show(step + 1); };
    $("last").onclick = () => { stop(); show(data.frames.length - 1); };
    $("prev-round").onclick = () => { stop(); previousRound(); };
    $("next-round").onclick = () => { stop(); nextRound(); };
    $("jump").oninput = (event) => { stop(); show(Number(event.target.value)); };
    $("step-input").onchange = (event) => { stop(); show(Number(event.target.value)); };
    $("round").onchange = (event) => { stop(); show(Number(event.target.value)); };
    $("speed").onchange = () => { if (timer) play(); };
    $("play").onclick = () => {
      if (timer) return stop();
      if (step === data.frames.length - 1) show(0);
      play();
    };
    $("moves").addEventListener("click", (event) => {
      const row = event.target.closest("tr[data-step]");
      if (row) { stop(); show(Number(row.dataset.step)); }
    });
    $("show-text").onchange = (event) => { $("text").hidden = !event.target.checked; };
    $("viewer").onchange = async (event) => {
      const seat = event.target.value;
      $("viewer").disabled = true;
      try {
        const response = await fetch(seat === "" ? config.data : `${config.data}?seat=${seat}`, {credentials: "same-origin"});
        if (response.ok) { data = await response.json(); fillMoves(); show(step); }
      } finally {
        $("viewer").disabled = false;
      }
    };
    document.addEventListener("keydown", (event) => {
      if (["INPUT", "SELECT", "TEXTAREA"].includes(event.target.tagName)) return;
      if (event.key === "ArrowRight") { stop(); show(step + 1); }
      if (event.key === "ArrowLeft") { stop(); show(step - 1); }
      if (event.key === " ") { event.preventDefault(); $("play").click(); }
    });

    fillRounds();
    fillMoveHeadings();
    fillMoves();
    show(atEnd ? data.frames.length - 1 : 0);
    if (data.streamed_analysis) streamAnalysis();
  }

  // Playing cards for the card games: "10H" -> a card showing 10 and ♥ in red; null -> a card face down.
  const SUITS = {S: "♠", H: "♥", D: "♦", C: "♣"};

  function playingCard(code) {
    if (!code) return el("span", {class: "card back", title: "a hidden card"});
    const suit = code.slice(-1);
    const rank = code.slice(0, -1);
    return el("span", {class: `card${suit === "H" || suit === "D" ? " red" : ""}`, title: code, "data-card": code},
      el("span", {class: "rank"}, rank), el("span", {class: "suit"}, SUITS[suit] || suit));
  }

  // A seat's box on the felt: its name, a line of facts, what it has on the table, and its hand.
  function seatBox(ctx, seat, {facts = "", table = [], cards = [], toMove = false, out = false} = {}) {
    const you = ctx.seat === seat ? " (you)" : "";
    return el("div", {class: `seat-box seat-${seat}${toMove ? " to-move" : ""}${out ? " out" : ""}`, "data-seat": seat},
      el("div", {class: "seat-name"}, `${ctx.players[seat]}${you}`, toMove ? " · to move" : ""),
      el("div", {class: "hint-light"}, facts),
      table.length ? el("div", {class: "on-table"}, table) : null,
      el("div", {class: "hand"}, cards));
  }

  // One view drawn by its game's module (the text rendering without one), outside the replay: a table page
  // draws a seat's observation, a match's live board the public view. ctx as the modules get it: {seat (null
  // for a spectator), players, viewAt, frame}; frame defaults to the view as text.
  function draw(game, view, ctx) {
    const frame = ctx.frame || {text: JSON.stringify(view, null, 1)};
    return [].concat((renderers[game] || generic).render(view, {el, ...ctx, frame}));
  }

  // A move a person is about to pick, shown on the drawing `board` holds (a table page): the game module's
  // own `highlight(board, action, view)` when it has one (Sprouts), else nothing; null clears it.
  function highlight(game, board, action, view) {
    if (renderers[game] && renderers[game].highlight) renderers[game].highlight(board, action, view);
  }

  // A table page's moves picked on the drawing itself, for a game whose module offers it (`choose`: Sprouts'
  // two spots clicked): `pick(index)` with the index of the move in `choices`; nothing for the others.
  function choose(game, board, choices, pick) {
    if (renderers[game] && renderers[game].choose) renderers[game].choose(board, choices, pick);
  }

  // The viewer starts on a replay page; other pages use only its drawing (draw).
  document.addEventListener("DOMContentLoaded", () => { if (document.getElementById("replay-config")) start(); });
  return {register, el, playingCard, seatBox, suits: SUITS, draw, highlight, choose, start};
})();
