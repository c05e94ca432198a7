// A match's page while it is played: each snapshot of its stream (core/live.js, arena/core/live.py) redraws
// the board as spectators see it, with the replay viewer's drawing of the game; a change of status has the
// page fetch its status part again (htmx, "arena:match-status"), which links the replay once it is over. At
// the end of a finished match the live board becomes the replay viewer, at the final position: the replay
// page's viewer and summary, fetched and put in its place (the link stays for a page that cannot).
(() => {
  "use strict";
  const section = document.getElementById("live");
  if (!section) return;
  const json = (id) => { const node = document.getElementById(id); return node ? JSON.parse(node.textContent) : null; };
  const players = json("live-players") || [];
  const start = json("live-start");
  const position = document.getElementById("live-position");
  const board = document.getElementById("board");

  function show(view) {
    const ctx = {seat: null, players, step: view.step, viewAt: (index) => (index === 0 && start ? start : view)};
    board.replaceChildren(...ArenaReplay.draw(view.game, view, ctx));
    const mover = view.to_move === null || view.to_move === undefined ? "" : ` · ${players[view.to_move] || `seat ${view.to_move}`} to move`;
    position.textContent = view.over ? `the final position, after ${view.step} steps` : `step ${view.step}${mover}`;
    position.dataset.step = view.step;
  }

  section.addEventListener("arena:live", (event) => {
    const {status, view} = event.detail.payload;
    if (status !== section.dataset.status) {
      section.dataset.status = status;
      document.body.dispatchEvent(new CustomEvent("arena:match-status"));
    }
    if (view && board) show(view);
  });
  async function switchToReplay() {
    const response = await fetch(section.dataset.replayUrl, {credentials: "same-origin", headers: {Accept: "text/html"}});
    if (!response.ok) return;
    const page = new DOMParser().parseFromString(await response.text(), "text/html");
    const parts = [page.querySelector(".replay"), page.getElementById("replay-data"), page.getElementById("replay-config")];
    if (parts.some((part) => !part)) return;
    section.replaceChildren(ArenaReplay.el("h2", {}, "Replay"), ...parts);
    section.dataset.mode = "replay";
    ArenaReplay.start({atEnd: true});
  }

  section.addEventListener("arena:live-end", (event) => {
    if (event.detail.payload.status === "finished" && section.dataset.replayUrl) switchToReplay();
  });
  // Until the worker's first write, the starting position (the page has it).
  if (start && board) document.addEventListener("DOMContentLoaded", () => { if (!position.dataset.step) show(start); });
})();
