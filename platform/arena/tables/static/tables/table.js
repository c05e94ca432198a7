// A table: the seat's own view drawn as the replay viewer draws it (ArenaReplay.draw), its legal moves to
// click (a list to pick from when there are many), whose move it is and the time left. The page follows the
// table's live stream (core/live.js: a snapshot after each change, the stream ending with the game); a move
// names the turn it answers, so a second tab or a double click is refused by the server, not played twice.
(() => {
  const $ = (id) => document.getElementById(id);
  const MANY = 12;  // more choices than this are picked from a list
  let state;
  let config;
  let sending = false;

  const names = () => state.seats.map((seat) => seat.name);

  function secondsLeft() {
    return state.deadline ? Math.max(0, Math.round((Date.parse(state.deadline) - Date.now()) / 1000)) : null;
  }

  function statusText() {
    if (state.status === "waiting") return "Waiting for the people invited to take their seats.";
    if (state.status === "finished") {
      const winners = (state.winners || []).map((seat) => names()[seat]).join(", ");
      return `Game over. ${winners ? `Winner: ${winners}.` : "No winner."} Scores: ${state.scores.join(" · ")}.`;
    }
    const left = secondsLeft();
    const clock = left === null ? "" : ` · ${left} s left`;
    // People count turns from 1 (data-turn keeps the table's own count, from 0).
    if (state.on_move === state.your_seat) return `Your move (turn ${state.turn + 1})${clock}.`;
    const seat = state.seats[state.on_move];
    return `${seat.name} to move${seat.person ? clock : " (a bot is deciding)"}.`;
  }

  function showStatus() {
    const status = $("status");
    status.textContent = statusText();
    status.dataset.status = state.status;
    status.dataset.turn = state.turn;
    status.dataset.onMove = state.on_move === null ? "" : state.on_move;
    if (state.replay && !status.querySelector("a")) {
      status.append(" ", ArenaReplay.el("a", {href: state.replay, id: "replay-link"}, "See the replay with the analysis of every move"));
    }
  }

  function choiceControls() {
    const choices = state.choices;
    if (!choices.length) return [];
    if (choices.length <= MANY) {
      return choices.map((choice, index) => ArenaReplay.el("button", {type: "button", class: "choice", "data-index": index}, choice.label));
    }
    const select = ArenaReplay.el("select", {id: "choice-select", "aria-label": "your move"},
      choices.map((choice, index) => ArenaReplay.el("option", {value: index}, choice.label)));
    return [select, ArenaReplay.el("button", {type: "button", class: "primary", id: "play-choice"}, "Play")];
  }

  // The view with what the page draws beside it (the table's picture: Sprouts' drawing).
  const shownView = () => ({...state.view, ...state.picture});

  // The move under the pointer or the keyboard's focus, or picked in the list, shown on the drawing before
  // it is played (games whose module draws it: Sprouts' spots and region); none when nothing is.
  function highlight(index) {
    const choice = index === null ? null : state.choices[index];
    ArenaReplay.highlight(state.game, $("board"), choice ? choice.action : null, shownView());
  }

  function highlightPicked() {
    const select = $("choice-select");
    highlight(select ? Number(select.value) : null);
  }

  // A move picked on the drawing (Sprouts: two spots clicked): put in the list and marked, to be played with
  // its button like any other.
  function pickChoice(index) {
    const select = $("choice-select");
    if (select) {
      select.value = index;
      highlight(index);
      $("play-choice").focus();
    } else {
      const button = document.querySelector(`#choice-list button.choice[data-index="${index}"]`);
      if (button) button.focus();
    }
  }

  // What follows the table's state around the board: the seats' names (an invited seat's person once they
  // take it), the leave control (gone once the game or the seat is over), the way back to where the table
  // belongs (a pairing room) and, once the game is over, to the next game there.
  function drawAround() {
    const seats = state.seats.map((seat) => ArenaReplay.el("span", {class: `player seat-${seat.seat}`},
      seat.you ? `${seat.name} (you)` : seat.name));
    $("seats").replaceChildren(...seats.flatMap((seat, index) => (index ? [" · ", seat] : [seat])));
    const leave = $("leave");
    if (leave) leave.hidden = !state.may_leave;
    const home = state.home;
    $("home").hidden = !home;
    $("home").replaceChildren(...(!home ? [] : [
      ArenaReplay.el("a", {id: "home-link", href: home.url}, `Back to ${home.label}`),
      ...(home.next ? [" · ", ArenaReplay.el("a", {id: "next-table", href: home.next}, "Your next game")] : []),
    ]));
  }

  function draw() {
    const ctx = {seat: state.your_seat, players: names(), step: state.turn, frame: {text: state.text},
                 data: {seat: state.your_seat, players: names()}, viewAt: (index) => (index === 0 ? state.initial : state.view)};
    $("board").replaceChildren(...[].concat(ArenaReplay.draw(state.game, shownView(), ctx)));
    $("text").textContent = state.text;
    $("choice-list").replaceChildren(...choiceControls());
    highlightPicked();
    ArenaReplay.choose(state.game, $("board"), state.choices, pickChoice);
    $("moves").replaceChildren(...state.moves.map((move) => ArenaReplay.el("li", {value: move.step, class: `seat-${move.seat}`}, move.text)));
    $("invitations").replaceChildren(...state.seats.filter((seat) => seat.invitation).map((seat) =>
      ArenaReplay.el("li", {}, `Seat ${seat.seat + 1}: send this link to the person you invite: `,
        ArenaReplay.el("a", {href: seat.invitation, class: "invitation"}, new URL(seat.invitation, location.href).href))));
    drawAround();
    showStatus();
  }

  // A newer table only: the same version again (the stream after a move's own answer) is not redrawn, so a
  // move button is never replaced under the pointer while it is clicked.
  function take(next) {
    if (next.version > state.version) {
      state = next;
      draw();
    }
  }

  async function refresh() {
    const response = await fetch(config.data, {credentials: "same-origin", headers: {Accept: "application/json"}});
    if (response.ok) take(await response.json());
  }

  async function play(index) {
    if (sending) return;
    sending = true;
    document.querySelectorAll("#choice-list button, #choice-list select").forEach((control) => { control.disabled = true; });
    try {
      const response = await fetch(config.move, {
        method: "POST", credentials: "same-origin",
        headers: {"Content-Type": "application/json", Accept: "application/json",
                  "X-CSRFToken": document.querySelector("#choices input[name=csrfmiddlewaretoken]").value},
        body: JSON.stringify({turn: state.turn, action: state.choices[index].action}),
      });
      const answer = await response.json();
      if (response.ok) {
        $("refusal").hidden = true;
        take(answer);
      } else {
        $("refusal").textContent = `Not played: ${answer.detail || response.statusText}`;
        $("refusal").hidden = false;
        await refresh();
      }
    } finally {
      sending = false;
      $("choice-list").replaceChildren(...choiceControls());  // enabled again (a refused move: pick again)
      highlightPicked();
    }
  }

  function follow() {
    ArenaLive.subscribe(config.events, (snapshot) => take(snapshot.payload), null, (refusal) => {
      // Over the person's cap of live pages: the table still updates, more slowly, and says why.
      $("live-refused").textContent = refusal ? refusal.reason : "";
      $("live-refused").hidden = !refusal;
    });
    let expired = false;
    setInterval(() => {
      if (state.status !== "playing") return;
      showStatus();
      // The time of the person on move ran out: asking for the table ends their turn (every read checks it).
      if (secondsLeft() === 0 && !expired) { expired = true; refresh(); }
      if (secondsLeft() !== 0) expired = false;
    }, 1000);
  }

  document.addEventListener("DOMContentLoaded", () => {
    state = JSON.parse($("table-state").textContent);
    config = JSON.parse($("table-config").textContent);
    $("choice-list").addEventListener("click", (event) => {
      const button = event.target.closest("button");
      if (!button) return;
      play(button.id === "play-choice" ? Number($("choice-select").value) : Number(button.dataset.index));
    });
    const list = $("choice-list");
    const hovered = (event) => {
      const button = event.target.closest("button.choice");
      if (button) highlight(Number(button.dataset.index));
    };
    list.addEventListener("mouseover", hovered);
    list.addEventListener("focusin", hovered);
    list.addEventListener("mouseleave", highlightPicked);
    list.addEventListener("focusout", (event) => { if (!list.contains(event.relatedTarget)) highlightPicked(); });
    list.addEventListener("input", highlightPicked);  // the list's pick, by keyboard, pointer or a phone's tap
    $("show-text").onchange = (event) => { $("text").hidden = !event.target.checked; };
    draw();
    follow();
  });
})();
