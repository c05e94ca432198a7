// SortingGame: the special cards active in the spots (criteria and the judged case), each seat's hand
// (face down for other seats in a seat's view), the algorithm each seat played with its ruling, victory
// piles, and the stacks.
ArenaReplay.register("sortinggame", {
  render(view, ctx) {
    const {el, seatBox} = ArenaReplay;
    const name = (id) => (view.cards && view.cards[id] ? view.cards[id].name : id);
    const card = (id, extra = "") => {
      if (!id) return el("span", {class: "card wide back", title: "a hidden card"});
      const kind = view.cards && view.cards[id] ? view.cards[id].kind : "";
      return el("span", {class: `card wide${kind === "algorithm" ? "" : " special"}${extra}`, title: id, "data-card": id}, name(id));
    };
    const spots = Object.entries(view.spots || {}).map(([spot, cards]) => el("div", {class: "spot", "data-spot": spot},
      el("div", {}, spot.replace("criterion", "criterion ")),
      cards.length ? cards.map((entry) => el("div", {}, card(entry.card), el("div", {class: "hint-light"}, ctx.players[entry.seat]))) : el("div", {class: "hint-light"}, "empty")));
    const middle = el("div", {class: "middle"},
      el("div", {class: "pile"}, el("div", {class: "count"}, String(view.stacks.algorithm)), "algorithm cards to draw"),
      el("div", {class: "pile"}, el("div", {class: "count"}, String(view.stacks.special)), "special cards to draw"),
      spots,
      el("div", {class: "pile"}, `round ${view.round}`, el("br"), `${view.phase} phase`,
        view.active && view.active.case ? el("div", {}, `judged: ${view.active.case} case`) : null));
    const seats = view.hand_sizes.map((size, seat) => {
      const hand = view.hands ? view.hands[seat] : (seat === ctx.seat ? view.hand : null);
      const play = view.plays && view.plays[seat];
      const verdict = play && play.valid === true ? " played-valid" : play && play.valid === false ? " played-invalid" : "";
      const victory = Array.isArray(view.victory) && Array.isArray(view.victory[0]) ? view.victory[seat] : (seat === ctx.seat ? view.victory : null);
      return seatBox(ctx, seat, {
        facts: `${size} in hand · ${view.victory_sizes[seat]} won` + (victory && victory.length ? ` (${victory.map(name).join(", ")})` : ""),
        table: [el("span", {class: "hint-light"}, "played: "), play ? card(play.card, verdict) : el("span", {class: "hint-light"}, "nothing yet")],
        cards: hand ? hand.map((id) => card(id)) : Array.from({length: size}, () => card(null)),
        toMove: view.to_move === seat, out: (view.failed || []).includes(seat),
      });
    });
    return el("div", {class: "felt sortinggame"}, middle, seats);
  },
});
