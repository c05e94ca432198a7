// Live status of a match: poll the API until it is over, then reload to show the result and logs.
// While it runs, say for how long, so a bot that uses up its time bank is not a silent wait.
(() => {
  const config = JSON.parse(document.getElementById("match-config").textContent);
  const labels = JSON.parse(document.getElementById("status-labels").textContent);
  const statusEl = document.getElementById("status");
  const queueEl = document.getElementById("queue");
  const elapsedEl = document.getElementById("elapsed");
  const over = ["finished", "error", "cancelled"];
  let runningSince = null;

  async function poll() {
    try {
      const response = await fetch(config.api, {credentials: "same-origin", headers: {Accept: "application/json"}});
      if (response.ok) {
        const match = await response.json();
        statusEl.textContent = labels[match.status] || match.status;
        statusEl.className = `status status-${match.status}`;
        queueEl.textContent = match.queue_position ? `· position ${match.queue_position} in the queue` : "";
        if (match.status === "running") {
          runningSince = runningSince || Date.now();
          const seconds = Math.round((Date.now() - runningSince) / 1000);
          elapsedEl.textContent = seconds >= 2 ? `· running for ${seconds} s (a slow bot may be drawing on its time bank)` : "";
        }
        if (over.includes(match.status)) {
          location.reload();
          return;
        }
      }
    } catch (error) {
      statusEl.title = `could not refresh: ${error}`;
    }
    setTimeout(poll, 1000);
  }
  setTimeout(poll, 1000);
})();
