// Sorted!: the four hands of four cards around the table, the seat to move highlighted, the last swap's two
// cards outlined. In a seat's view its own hand faces away from it (cards shown face down) except the cards
// the beginner tip turned toward it; the other hands are face up, as at the real table.
ArenaReplay.register("sorted", {
  // The last turn in words; a card the viewer may not see (its own, held facing away) shows as "?".
  describeTurn(entry, players) {
    if (entry.action === "declare") return `seat ${entry.seat} (${players[entry.seat]}) declared`;
    const shown = (value) => (value === null || value === undefined ? "?" : String(value));
    return `last swap: seat ${entry.seat}'s card ${entry.mine} (${shown(entry.gave)}) ⇄ seat ${entry.other}'s card ${entry.theirs} (${shown(entry.took)})`;
  },
  render(view, ctx) {
    const {el, seatBox} = ArenaReplay;
    const last = (view.history || []).filter((entry) => entry.action !== "skipped").slice(-1)[0];
    const swapped = new Set(last && last.action === "swap" ? [`${last.seat}:${last.mine - 1}`, `${last.other}:${last.theirs - 1}`] : []);
    const card = (value, seat, index) => {
      const classes = ["card", "sorted-card"];
      if (value === null) classes.push("back");
      if (view.turned[seat][index]) classes.push("turned");
      if (value === index + 1) classes.push("in-place");
      if (swapped.has(`${seat}:${index}`)) classes.push("swapped");
      const title = value === null ? "facing away from its holder" : view.turned[seat][index] ? "turned toward its holder" : `card ${value}`;
      return el("span", {class: classes.join(" "), title, "data-card": value === null ? null : value}, value === null ? "" : String(value));
    };
    const seats = view.hands.map((hand, seat) => seatBox(ctx, seat, {
      // A hand held facing away: only the turned cards are known, so only they are counted.
      facts: hand.includes(null) ? `${view.turned[seat].filter(Boolean).length} turned toward its holder`
        : `${hand.filter((value, index) => value === index + 1).length} of 4 in place`,
      cards: hand.map((value, index) => card(value, seat, index)),
      toMove: view.to_move === seat,
    }));
    const middle = el("div", {class: "middle"},
      el("div", {class: "pile"}, el("div", {class: "count"}, String(view.turn)), `turn (at most ${view.max_turns})`),
      el("div", {class: "pile", id: "last-swap"}, last ? this.describeTurn(last, ctx.players) : "no swap yet"),
      view.over ? el("div", {class: "pile", id: "outcome"}, el("div", {class: "count"}, view.won ? "won" : "lost"),
        `team score ${view.team_score} (lower is better)`) : null,
      view.beginner_tip ? el("div", {class: "pile hint-light"}, "beginner tip: a card reaching its place is turned to its holder") : null);
    return el("div", {class: "felt sorted"}, middle, seats);
  },
  // The solver's count after each turn: the turns the team still needs; a turn that brought it no closer is wasted.
  moveColumns: {
    headers: ["Turns still needed", "Wasted"],
    cells: (row) => [row.needed_after, row.points_lost > 0 ? `wasted (+${row.points_lost})` : ""],
    mistake: (row) => row.points_lost > 0,
  },
});

