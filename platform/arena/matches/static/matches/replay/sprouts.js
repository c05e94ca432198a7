// Sprouts: one planar drawing of the whole game (games/sprouts/drawing.py: spots, lines, regions filled,
// lives as dots under each spot, the last move in red) beside the position as the seed's card table (Dan
// Hoey's notation): each row is a region, in the drawing's colour for it, each stack in it one boundary
// of that region, its cards (spot occurrences) top card first. A seat's view (no drawing) shows the cards.
ArenaReplay.register("sprouts", {
  render(view, ctx) {
    const {el} = ArenaReplay;
    const spot = (number) => {
      const lives = view.lives[String(number)];
      return el("span", {class: `sprout-spot lives-${lives}`, "data-spot": number, title: `spot ${number}: ${lives} ${lives === 1 ? "life" : "lives"} left`},
        el("span", {class: "number"}, String(number)), el("span", {class: "lives"}, "●".repeat(lives)));
    };
    const stack = (cards) => el("div", {class: "sprout-boundary", title: `boundary ${cards.join(",")}`},
      el("div", {class: "sprout-stack"},
        cards.map((number) => el("span", {class: `card sprout-card lives-${view.lives[String(number)]}`}, String(number)))));
    const fills = view.region_fills || [];
    const regions = view.rows.map((row, index) => el("div", {class: "sprout-region", "data-region": index + 1,
      style: fills[index] ? `border-left: .6em solid ${fills[index]}` : null},
      el("div", {class: "seat-name"}, `region ${index + 1}`),
      el("div", {class: "hint-light"}, `${row.length} boundar${row.length === 1 ? "y" : "ies"}`),
      el("div", {class: "sprout-stacks"}, row.map(stack))));
    const mover = view.to_move === null || view.to_move === undefined ? "game over" : `${ctx.players[view.to_move]} to move`;
    const middle = el("div", {class: "middle"},
      el("div", {class: "pile"}, el("code", {id: "notation"}, view.position), el("br"),
        `${view.moves.length} move${view.moves.length === 1 ? "" : "s"} · ${mover} · ${view.misere ? "misère play" : "normal play"}`),
      el("div", {class: "sprout-spots"}, Object.keys(view.lives).map(Number).map(spot)));
    let picture = null;
    if (view.drawing) {
      picture = el("figure", {class: "sprouts-picture", style: "margin:0; grid-column: 1 / -1"});
      picture.innerHTML = view.drawing;  // SVG made by the server from numbers only (drawing.svg)
      const caption = view.moves.length ? `after move ${view.moves.length}, ${view.moves[view.moves.length - 1]} (in red)` : "of the starting spots";
      picture.append(el("figcaption", {class: "hint-light"}, `The drawing ${caption}; dots under a spot: its lives.`));
    }
    return el("div", {class: "felt sprouts"}, picture, middle, regions);
  },
  // The move a person is about to pick (a table page): the two spots it joins and the region its line goes
  // through, marked on the drawing and on the card view (class "chosen"); the board's data-highlight names
  // it. view.move_regions (the table's picture) numbers the region as both number their rows.
  highlight(board, action, view) {
    board.querySelectorAll(".chosen").forEach((node) => node.classList.remove("chosen"));
    delete board.dataset.highlight;
    const caption = board.querySelector(".sprouts-picture figcaption");
    if (caption && caption.dataset.before) caption.textContent = caption.dataset.before;
    if (!action) return;
    const region = (view.move_regions || {})[action.move];
    const marked = [...action.spots.map((spot) => `[data-spot="${spot}"]`), region ? `[data-region="${region}"]` : null]
      .filter(Boolean).join(", ");
    board.querySelectorAll(marked).forEach((node) => node.classList.add("chosen"));
    board.dataset.highlight = action.move;
    if (caption) {
      caption.dataset.before = caption.dataset.before || caption.textContent;
      caption.textContent = `${action.move}: a line from ${action.spots[0]} to ${action.spots[1]}` +
        (region ? ` through region ${region}` : "") + `, its new spot ${action.new_spot} in the middle.`;
    }
  },
  // At a table, on your move: click a spot of the drawing (or of the spots' row), then another (the same one
  // again: a loop), and the first move offered between the two is picked (`pick`: the page marks it and puts
  // it in the list, to be played with its button like any other).
  choose(board, choices, pick) {
    let from = null;
    board.toggleAttribute("data-pickable", choices.length > 0);
    board.onclick = !choices.length ? null : (event) => {
      const node = event.target.closest("[data-spot]");
      if (!node) return;
      const spot = Number(node.dataset.spot);
      if (from === null) {
        from = spot;
        board.querySelectorAll(`[data-spot="${spot}"]`).forEach((each) => each.classList.add("from"));
        return;
      }
      const [low, high] = [from, spot].sort((a, b) => a - b);
      from = null;
      board.querySelectorAll(".from").forEach((each) => each.classList.remove("from"));
      const index = choices.findIndex((choice) => choice.action.spots[0] === low && choice.action.spots[1] === high);
      if (index >= 0) pick(index);
    };
  },
  // The solver's verdict on each move: kept a won position, threw it away, or the mover was already lost.
  moveColumns: {
    headers: ["Analysis"],
    cells: (row) => [row.text],
    mistake: (row) => row.verdict === "throws_win",
  },
});
