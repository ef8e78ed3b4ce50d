// Copy buttons: <button data-copy="#field"> copies the value of #field (an
// input) or its text. Without the clipboard (an insecure origin), the text
// is selected so the user can copy it by hand.
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
