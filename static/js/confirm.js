// A form with data-confirm asks before it is sent (the admin's Stop button): a script of
// its own, since the Content-Security-Policy runs no inline handler.
document.addEventListener("submit", (e) => {
  const form = e.target.closest("form[data-confirm]");
  if (form && !window.confirm(form.dataset.confirm)) e.preventDefault();
});
