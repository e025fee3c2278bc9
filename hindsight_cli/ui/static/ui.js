// hindsight ui: the page's only script (the Content-Security-Policy allows no inline script).
// It asks before a form changes a memory, and switches stores when one is chosen. Everything
// else is plain HTML forms and links, so the pages work without it, only without the questions.
"use strict";
document.addEventListener("submit", function (event) {
  var form = event.target;
  var question = form.getAttribute("data-confirm");
  if (question && !window.confirm(question)) {
    event.preventDefault();
  }
});
document.addEventListener("change", function (event) {
  var control = event.target;
  if (control.hasAttribute && control.hasAttribute("data-submit") && control.form) {
    control.form.requestSubmit();
  }
});
