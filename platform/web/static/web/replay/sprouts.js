// Sprouts: the position as the seed's card table (Dan Hoey's notation): each row is a region, drawn as a
// labelled group; each stack in it is one boundary of that region, its cards (spot occurrences) top card
// first. Above them every spot as a circle with its remaining lives (grey once dead). This is not a planar
// drawing of the curves: the regions and boundaries say which spots share a region, which is what a move needs.
ArenaReplay.register("sprouts", {
  render(view, ctx) {
    const {el} = ArenaReplay;
    const spot = (number) => {
      const lives = view.lives[String(number)];
      return el("span", {class: `sprout-spot lives-${lives}`, "data-spot": number, title: `spot ${number}: ${lives} ${lives === 1 ? "life" : "lives"} left`},
        el("span", {class: "number"}, String(number)), el("span", {class: "lives"}, "●".repeat(lives)));
    };
    const stack = (cards) => el("div", {class: "sprout-stack", title: `boundary ${cards.join(",")}`},
      cards.map((number) => el("span", {class: `card sprout-card lives-${view.lives[String(number)]}`}, String(number))));
    const regions = view.rows.map((row, index) => el("div", {class: "sprout-region", "data-region": index + 1},
      el("div", {class: "seat-name"}, `region ${index + 1}`),
      el("div", {class: "hint-light"}, `${row.length} boundar${row.length === 1 ? "y" : "ies"}`),
      el("div", {class: "sprout-stacks"}, row.map(stack))));
    const mover = view.to_move === null || view.to_move === undefined ? "game over" : `${ctx.players[view.to_move]} to move`;
    const middle = el("div", {class: "middle"},
      el("div", {class: "pile"}, el("code", {id: "notation"}, view.position), el("br"),
        `${view.moves.length} move${view.moves.length === 1 ? "" : "s"} · ${mover} · ${view.misere ? "misère play" : "normal play"}`),
      el("div", {class: "sprout-spots"}, Object.keys(view.lives).map(Number).map(spot)));
    return el("div", {class: "felt sprouts"}, middle, regions);
  },
  // The solver's verdict on each move: kept a won position, threw it away, or the mover was already lost.
  moveColumns: {
    headers: ["Analysis"],
    cells: (row) => [row.text],
    mistake: (row) => row.verdict === "throws_win",
  },
});
