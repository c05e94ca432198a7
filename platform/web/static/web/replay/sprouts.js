// Sprouts: the position as the seed's card table (Dan Hoey's notation): each row is a region, drawn as a
// labelled group; each stack in it is one boundary of that region, its cards (spot occurrences) top card
// first, beside a sketch of that boundary as a closed curve through its spots in order. Above them every
// spot as a circle with its remaining lives (grey once dead). This is not a planar drawing of the whole
// game: each boundary is sketched on its own, so a spot on several boundaries appears in each.
const SKETCH = 64;

// One boundary as a closed curve through its spots (each distinct spot once, on a circle), as SVG text.
function boundarySketch(cards, lives) {
  const spots = [...new Set(cards)];
  const radius = spots.length === 1 ? 0 : SKETCH / 2 - 10;
  const at = new Map(spots.map((spot, index) => {
    const angle = (2 * Math.PI * index) / spots.length - Math.PI / 2;
    return [spot, [SKETCH / 2 + radius * Math.cos(angle), SKETCH / 2 + radius * Math.sin(angle)]];
  }));
  const points = cards.map((spot) => at.get(spot).map((value) => value.toFixed(1)).join(","));
  const curve = cards.length > 1 ? `<polygon points="${points.join(" ")}" class="curve"/>` : "";
  const dots = spots.map((spot) => {
    const [x, y] = at.get(spot);
    return `<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="7" class="lives-${lives[String(spot)]}"/>` +
      `<text x="${x.toFixed(1)}" y="${(y + 3.5).toFixed(1)}" text-anchor="middle">${Number(spot)}</text>`;
  }).join("");
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", `0 0 ${SKETCH} ${SKETCH}`);
  svg.setAttribute("class", "boundary-sketch");
  svg.innerHTML = curve + dots;
  return svg;
}

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
        cards.map((number) => el("span", {class: `card sprout-card lives-${view.lives[String(number)]}`}, String(number)))),
      boundarySketch(cards, view.lives));
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
