/* Destructive forms ask first: <form data-confirm="Discard this draft? It is deleted."> submits only once the
 * person accepts the question. The site's Content-Security-Policy forbids inline handlers (onsubmit="..."),
 * which the browser would drop silently and submit at once; one listener on the document also covers forms
 * that a live update (live.js) puts into the page later.
 */
(function () {
  "use strict";

  document.addEventListener("submit", function (event) {
    var form = event.target;
    var question = form instanceof HTMLFormElement ? form.getAttribute("data-confirm") : null;
    if (question && !window.confirm(question)) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }, true);
})();
