// Fieldboard's few behaviours, kept out of the pages so that no page needs
// inline script.

// Copy buttons: <button data-copy="#field"> copies the value of #field (an
// input or textarea) or its text. Without the clipboard (an insecure
// origin), the text is selected so the user can copy it by hand.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-copy]");
  if (!button) return;
  var field = document.querySelector(button.getAttribute("data-copy"));
  if (!field) return;
  var text = field.value !== undefined ? field.value : field.textContent;
  var select = function () { if (field.select) field.select(); };
  if (!navigator.clipboard) { select(); return; }
  navigator.clipboard.writeText(text).then(function () {
    var label = button.textContent;
    button.textContent = "Copied";
    setTimeout(function () { button.textContent = label; }, 1500);
  }, select);
});

// Hide buttons: <button data-clear-closest="td"> empties the closest td.
document.addEventListener("click", function (event) {
  var button = event.target.closest("button[data-clear-closest]");
  if (!button) return;
  var target = button.closest(button.getAttribute("data-clear-closest"));
  if (target) target.replaceChildren();
});

// Filter forms marked data-drop-empty leave their empty fields out of the
// address htmx requests and pushes, so shared links stay short.
document.addEventListener("htmx:configRequest", function (event) {
  if (!event.detail.elt.matches || !event.detail.elt.matches("form[data-drop-empty]")) return;
  var params = event.detail.parameters;
  for (var key of Object.keys(params)) {
    if (params[key] === "") delete params[key];
  }
});

// ... and from the address a plain (not htmx) submit goes to: the browser
// builds that address from the form data, which fires formdata first.
document.addEventListener("formdata", function (event) {
  if (!event.target.matches || !event.target.matches("form[data-drop-empty]")) return;
  var data = event.formData;
  for (var key of Array.from(data.keys())) {
    if (data.getAll(key).every(function (v) { return v === ""; })) data.delete(key);
  }
});

// An error answer lands in #flash (see the server's error handler); the
// next answer that succeeds clears it.
document.addEventListener("htmx:afterRequest", function (event) {
  var flash = document.getElementById("flash");
  if (flash && event.detail.successful) flash.replaceChildren();
});

// Every htmx request carries the page's CSRF token, which the server asks
// of every change a signed-in user makes (forms also carry it as _csrf).
document.addEventListener("htmx:configRequest", function (event) {
  var meta = document.querySelector('meta[name="csrf-token"]');
  if (meta) event.detail.headers["X-CSRF-Token"] = meta.getAttribute("content");
});

// A wide table scrolls inside its own box (app.css): a box that scrolls
// takes the keyboard's focus, so it can be scrolled without a mouse, and
// gives it back when the window grows and it no longer scrolls.
function focusScrollBoxes() {
  document.querySelectorAll("table.grid, .table-scroll").forEach(function (box) {
    var scrolls = getComputedStyle(box).overflowX !== "visible" && box.scrollWidth > box.clientWidth + 1;
    if (scrolls && !box.hasAttribute("tabindex")) {
      box.setAttribute("tabindex", "0");
      box.setAttribute("data-scroll-focus", "");
    } else if (!scrolls && box.hasAttribute("data-scroll-focus")) {
      box.removeAttribute("tabindex");
      box.removeAttribute("data-scroll-focus");
    }
  });
}
document.addEventListener("DOMContentLoaded", focusScrollBoxes);
document.addEventListener("htmx:afterSettle", focusScrollBoxes);
window.addEventListener("resize", focusScrollBoxes);

// On a phone (the width app.css calls narrow) a filter form folds away
// under a "Filters" line that says how many are set, open when any is:
// a filter left at its default (an empty field, a list's first choice)
// is not set.
var narrow = window.matchMedia("(max-width: 700px)");
function foldFilters() {
  if (!narrow.matches) return;
  document.querySelectorAll('form.filters[method="get"]').forEach(function (form) {
    if (form.parentElement.matches("details.filters-fold")) return;
    var set = Array.prototype.filter.call(form.elements, function (e) {
      if (!e.name || e.type === "hidden" || e.type === "submit") return false;
      if (e.type === "checkbox" || e.type === "radio") return e.checked;
      if (e.tagName === "SELECT") return e.selectedIndex > 0; // the first choice is the default
      return e.value !== "";
    }).length;
    var details = document.createElement("details");
    details.className = "filters-fold";
    details.open = set > 0;
    var summary = document.createElement("summary");
    summary.textContent = set > 0 ? "Filters (" + set + " set)" : "Filters";
    form.before(details);
    details.append(summary, form);
  });
}
document.addEventListener("DOMContentLoaded", foldFilters);
document.addEventListener("htmx:afterSettle", foldFilters);
