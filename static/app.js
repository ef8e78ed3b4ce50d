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
