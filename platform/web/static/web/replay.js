// The replay viewer: step through the frames the server computed (next, previous, play, jump), with the
// solver's analysis of each move beside it, in the full view or one seat's view.
(() => {
  const config = JSON.parse(document.getElementById("replay-config").textContent);
  let data = JSON.parse(document.getElementById("replay-data").textContent);
  let step = 0;
  let timer = null;
  const $ = (id) => document.getElementById(id);

  // Board renderers by game; any other game shows the server's text rendering only.
  const boards = {
    endgame(frame) {
      // Frame 0 shows the whole board; replaying the moves tells which seat took each number.
      const initial = data.frames[0].view.board;
      const takenBy = new Array(initial.length).fill(null);
      let left = 0, right = initial.length;
      (frame.view.moves || []).forEach((move, index) => {
        if (move === "left") takenBy[left++] = index % 2; else takenBy[--right] = index % 2;
      });
      return initial.map((value, index) => {
        const cell = document.createElement("span");
        cell.className = "cell" + (takenBy[index] === null ? "" : ` taken seat-${takenBy[index]}`);
        cell.textContent = value;
        return cell;
      });
    },
  };

  function fillMoves() {
    const body = $("moves").querySelector("tbody");
    body.replaceChildren();
    data.frames.forEach((frame, index) => {
      if (!frame.event) return;
      const row = body.insertRow();
      row.dataset.step = index;
      row.className = `seat-${frame.event.seat}`;
      const cells = [index, frame.event.text];
      const analysis = frame.event.analysis;
      // Games whose solver measures points (End Game) get three columns; the others one of explanations.
      if (data.points_lost) {
        cells.push(...(analysis ? [analysis.best_value, analysis.move_value, analysis.points_lost] : ["", "", ""]));
      } else if (data.has_analysis) {
        cells.push(analysis ? analysis.text : "");
      }
      cells.forEach((value) => { row.insertCell().textContent = value; });
      if (analysis && analysis.points_lost > 0) row.classList.add("mistake");
      row.addEventListener("click", () => show(index));
    });
  }

  function show(index) {
    step = Math.max(0, Math.min(index, data.frames.length - 1));
    const frame = data.frames[step];
    const render = boards[data.game];
    $("board").replaceChildren(...(render ? render(frame) : []));
    $("text").textContent = frame.text;
    $("event").textContent = frame.event ? frame.event.text + (frame.event.analysis ? ` — ${frame.event.analysis.text}` : "") : "start of the match";
    $("jump").max = data.frames.length - 1;
    $("jump").value = step;
    $("position").textContent = `step ${step} / ${data.frames.length - 1}`;
    document.querySelectorAll("#moves tr.current").forEach((row) => row.classList.remove("current"));
    const row = document.querySelector(`#moves tr[data-step="${step}"]`);
    if (row) { row.classList.add("current"); row.scrollIntoView({block: "nearest"}); }
    if (step === data.frames.length - 1) stop();
  }

  function stop() {
    clearInterval(timer);
    timer = null;
    $("play").textContent = "Play";
  }

  $("first").onclick = () => { stop(); show(0); };
  $("prev").onclick = () => { stop(); show(step - 1); };
  $("next").onclick = () => { stop(); show(step + 1); };
  $("last").onclick = () => { stop(); show(data.frames.length - 1); };
  $("jump").oninput = (event) => { stop(); show(Number(event.target.value)); };
  $("play").onclick = () => {
    if (timer) return stop();
    if (step === data.frames.length - 1) show(0);
    $("play").textContent = "Pause";
    timer = setInterval(() => show(step + 1), 700);
  };
  $("viewer").onchange = async (event) => {
    const seat = event.target.value;
    const response = await fetch(seat === "" ? config.api : `${config.api}?seat=${seat}`, {credentials: "same-origin"});
    if (response.ok) { data = await response.json(); fillMoves(); show(step); }
  };
  document.addEventListener("keydown", (event) => {
    if (event.key === "ArrowRight") show(step + 1);
    if (event.key === "ArrowLeft") show(step - 1);
  });

  fillMoves();
  show(0);
})();
