// The edit and merge pages' behaviour. A file of its own: the CSP runs no inline script.
//
// - Leaving the page with unsaved changes asks first (the browser's own "leave site?"
//   dialog). A form marked data-dirty="1" holds unsaved text from the start: the text
//   sent back by a refused save, or the merge page's edit.
// - The merge page's buttons copy a version into the editor: a button's data-fill-from
//   names an element whose data-NAME attributes fill the form's fields of that NAME.
//   The versions themselves stay on the page; nothing here sends or removes anything.
(function () {
  "use strict";
  var form = document.getElementById("edit-form");
  if (!form) {
    return;
  }
  var dirty = form.getAttribute("data-dirty") === "1";

  form.addEventListener("input", function () {
    dirty = true;
  });
  form.addEventListener("submit", function () {
    dirty = false;
  });
  window.addEventListener("beforeunload", function (event) {
    if (dirty) {
      event.preventDefault();
      event.returnValue = ""; // what older Chromium needs to ask
    }
  });

  function fill(source) {
    var values = source.dataset;
    Object.keys(values).forEach(function (name) {
      var field = form.elements.namedItem(name);
      if (field && "value" in field) {
        field.value = values[name];
        // Tell htmx (the preview) and the unsaved-changes mark that the field changed.
        field.dispatchEvent(new Event("input", { bubbles: true }));
      }
    });
  }

  document.querySelectorAll("button[data-fill-from]").forEach(function (button) {
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-fill-from"));
      if (source) {
        fill(source);
        var first = form.querySelector("textarea");
        if (first) {
          first.focus();
        }
      }
    });
  });
})();
