// End Game: the row of numbers, each taken one coloured by the seat that took it.
ArenaReplay.register("endgame", {
  render(view, ctx) {
    // Frame 0 shows the whole board; replaying the moves tells which seat took each number.
    const initial = ctx.viewAt(0).board;
    const takenBy = new Array(initial.length).fill(null);
    let left = 0;
    let right = initial.length;
    (view.moves || []).forEach((move, index) => {
      if (move === "left") takenBy[left++] = index % 2; else takenBy[--right] = index % 2;
    });
    const cells = initial.map((value, index) => ctx.el("span",
      {class: "cell" + (takenBy[index] === null ? "" : ` taken seat-${takenBy[index]}`)}, String(value)));
    return ctx.el("div", {class: "board endgame-board"}, cells);
  },
});
