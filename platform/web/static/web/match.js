// Live status of a match: poll the API until it is over, then reload to show the result and logs.
(() => {
  const config = JSON.parse(document.getElementById("match-config").textContent);
  const statusEl = document.getElementById("status");
  const queueEl = document.getElementById("queue");
  const over = ["finished", "error", "cancelled"];

  async function poll() {
    try {
      const response = await fetch(config.api, {credentials: "same-origin", headers: {Accept: "application/json"}});
      if (response.ok) {
        const match = await response.json();
        statusEl.textContent = match.status;
        queueEl.textContent = match.queue_position ? `· position ${match.queue_position} in the queue` : "";
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
