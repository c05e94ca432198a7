// Crazy-KING: the hands around the table (others' face down in a seat's view), the discard pile's top card
// and the suit to follow, the draw pile's count, scores and the direction of play.
ArenaReplay.register("crazyking", {
  render(view, ctx) {
    const {el, playingCard, seatBox, suits} = ArenaReplay;
    const seats = view.hand_sizes.map((size, seat) => {
      // The full view has every hand; a seat's view has its own `hand` only.
      const hand = view.hands ? view.hands[seat] : (seat === ctx.seat ? view.hand : null);
      const cards = hand ? hand.map(playingCard) : Array.from({length: size}, () => playingCard(null));
      const total = view.hand_totals ? ` · hand worth ${view.hand_totals[seat]}` : "";
      return seatBox(ctx, seat, {
        facts: `score ${view.scores[seat]} · ${size} card${size === 1 ? "" : "s"}${total}`,
        cards, toMove: view.turn === seat && view.pending !== "over", out: view.active && view.active[seat] === false,
      });
    });
    const middle = el("div", {class: "middle"},
      el("div", {class: "pile", id: "draw-pile"}, el("div", {}, playingCard(null)), el("div", {class: "count"}, String(view.draw_pile)), "to draw"),
      el("div", {class: "pile", id: "discard-pile"}, el("div", {}, playingCard(view.top_card)), el("div", {class: "count"}, String(view.discard_pile)), "discarded"),
      el("div", {class: "pile"}, el("div", {class: "count"}, suits[view.suit] || view.suit || "–"), "suit to follow"),
      el("div", {class: "pile"}, el("div", {class: "count"}, view.direction > 0 ? "↻" : "↺"), `round ${view.round} · target ${view.target_score}`),
      view.drawn_card ? el("div", {class: "pile"}, el("div", {}, playingCard(view.drawn_card)), "just drawn") : null);
    return el("div", {class: "felt crazyking"}, middle, seats);
  },
});
