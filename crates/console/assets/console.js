// The shop console's one script, loaded from the console itself (no inline script, so the
// Content-Security-Policy can forbid them). It only copies a new key or webhook secret to the clipboard; every
// page works without it.
"use strict";

document.addEventListener("click", (event) => {
  const button = event.target.closest("[data-copy-target]");
  if (!button) {
    return;
  }
  const field = document.getElementById(button.dataset.copyTarget);
  const status = document.getElementById("copy-status");
  if (!field) {
    return;
  }
  const done = (copied) => {
    button.textContent = copied ? "Copied" : "Copy";
    if (status) {
      status.textContent = copied
        ? "Copied to the clipboard."
        : "Select it and copy it with your keyboard.";
    }
  };
  field.focus();
  field.select();
  if (navigator.clipboard && window.isSecureContext) {
    navigator.clipboard.writeText(field.value).then(() => done(true), () => done(false));
  } else {
    done(document.execCommand && document.execCommand("copy"));
  }
});
