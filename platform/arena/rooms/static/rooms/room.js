/* The pairing room's page: its live part (#room-live) is replaced by each snapshot of the room's stream
 * (pages.room_events sends it rendered), so the results table, the round and "go to your table" follow the
 * room without a reload. */
(function () {
  "use strict";
  var live = document.getElementById("room-live");
  if (!live) return;
  live.addEventListener("arena:live", function (event) {
    var html = event.detail && event.detail.payload && event.detail.payload.html;
    if (typeof html === "string") live.innerHTML = html;
  });
})();
