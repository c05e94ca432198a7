/* Live updates from a server-sent events stream (arena/core/live.py): no library, no CDN.
 *
 *   ArenaLive.subscribe(url, onSnapshot, onEnd) -> the EventSource (call .close() to stop)
 *     onSnapshot({version, final, payload}) for each snapshot; onEnd(lastSnapshot) once the final one came.
 *   <div data-live-url="/matches/7/live/"> : the element receives an "arena:live" event per snapshot
 *     (event.detail is the snapshot) and "arena:live-end" after the final one.
 *   <div data-live-url="..." data-live-html> : besides, its content becomes each snapshot's payload.html
 *     (a part of the page the server renders again: arena.core.live.html_snapshot).
 *   data-live-end="reload" : the page loads again after the final snapshot (what ends changes more of it).
 *
 * EventSource reconnects by itself with the last version it got (Last-Event-ID), so a dropped connection or
 * the stream's bounded life costs nothing; after the final snapshot the stream is closed here, and the server
 * answers a late reconnect with 204, which stops it too.
 *
 * A server refusing one more stream (the person's or the address's cap, ARENA_LIVE_STREAMS_PER_USER) sends
 * the snapshot, a "refused" event saying why, and when to ask again: the page shows the reason in a note
 * (role=status) before the live element and goes on updating at that pace; the note goes once it is live again.
 */
(function () {
  "use strict";

  function subscribe(url, onSnapshot, onEnd, onRefused) {
    var source = new EventSource(url);
    var refused = false;
    source.addEventListener("refused", function (message) {
      refused = true;
      try {
        if (onRefused) onRefused(JSON.parse(message.data));
      } catch (error) {
        // not a refusal we can read: the page still updates at the server's pace
      }
    });
    source.onopen = function () {
      // A stream that opens is live again, unless its answer starts with a refusal (read just after).
      if (refused && onRefused) setTimeout(function () { if (!refused) onRefused(null); }, 0);
      refused = false;
    };
    source.onmessage = function (message) {
      var snapshot;
      try {
        snapshot = JSON.parse(message.data);
      } catch (error) {
        return; // not a snapshot: nothing to show
      }
      onSnapshot(snapshot);
      if (snapshot.final) {
        source.close();
        if (onEnd) onEnd(snapshot);
      }
    };
    return source;
  }

  function bind(element) {
    if (element.arenaLive) return element.arenaLive;
    element.arenaLive = subscribe(element.getAttribute("data-live-url"), function (snapshot) {
      var html = snapshot.payload && snapshot.payload.html;
      if (element.hasAttribute("data-live-html") && typeof html === "string") element.innerHTML = html;
      element.dispatchEvent(new CustomEvent("arena:live", {detail: snapshot}));
    }, function (snapshot) {
      element.dispatchEvent(new CustomEvent("arena:live-end", {detail: snapshot}));
      // A part whose end changes the rest of the page (a grading run's grades): the page loads again.
      if (element.getAttribute("data-live-end") === "reload") window.location.reload();
    }, function (refusal) {
      var note = element.arenaLiveNote;
      if (!refusal) {
        if (note) note.hidden = true;
        return;
      }
      if (!note) {
        note = element.arenaLiveNote = document.createElement("p");
        note.className = "hint live-refused";
        note.setAttribute("role", "status");
        element.parentNode.insertBefore(note, element);
      }
      note.textContent = refusal.reason;
      note.hidden = false;
    });
    return element.arenaLive;
  }

  function bindAll() {
    document.querySelectorAll("[data-live-url]").forEach(bind);
  }

  window.ArenaLive = {subscribe: subscribe, bind: bind};
  // After the page's own deferred scripts have added their listeners.
  if (document.readyState === "complete") bindAll();
  else window.addEventListener("load", bindAll);
})();
